"""The command line: ``chronolog run``, ``chronolog plan``.

Every error caused by the input is printed as one positioned paragraph on
standard error with exit status 2; never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from chronolog.language.errors import ChronologError


def _fail(err: ChronologError):
    click.echo(err.render(), err=True)
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="chronolog")
def cli():
    """chronolog: temporal reasoning with DatalogMTL (Temporal Vadalog syntax)."""


def main(argv=None):
    """Entry point: user errors are handled in the commands (click itself
    ends quietly on a closed pipe); an internal error prints one line asking
    for a report instead of a traceback (``CHRONOLOG_DEBUG=1`` shows it)."""
    import os

    try:
        cli.main(args=argv, standalone_mode=False)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        sys.exit(130)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:  # a bug in chronolog, not the user's input
        if os.environ.get("CHRONOLOG_DEBUG"):
            raise
        click.echo(
            f"internal error: {type(e).__name__}: {e}\n"
            "  this is a bug in chronolog; please report it with the program and data "
            "(set CHRONOLOG_DEBUG=1 to see the traceback)",
            err=True,
        )
        sys.exit(3)


def _dialect_for(path: Path, dialect: str | None) -> str:
    if dialect:
        return dialect
    return "meteor" if path.suffix.lower() in (".meteor", ".mtl") else "vadalog"


@cli.command()
@click.argument("program", type=click.Path(path_type=Path))
@click.option("--facts", "facts", multiple=True, type=click.Path(path_type=Path), help="A file of facts, one per line (repeatable).")
@click.option("--dialect", type=click.Choice(["vadalog", "meteor"]), default=None, help="Syntax of the program and facts (default: vadalog; .meteor files: meteor).")
@click.option("--horizon", default=None, metavar="FROM,TO", help="Evaluation horizon; derived facts are confined to it.")
@click.option("--output", "output", type=click.Path(path_type=Path), default=None, help="Write one CSV per output predicate into this directory.")
@click.option("--overwrite", is_flag=True, help="Allow --output to replace existing files.")
@click.option("--strategy", type=click.Choice(["blocking", "streaming"]), default="blocking", help="Merge strategy.")
@click.option("--stats", is_flag=True, help="Print timing and counts on standard error.")
@click.option("--spark", "spark_master", default=None, metavar="MASTER", help="Run through Spark (e.g. local[*]): reads and writes \"spark\" bindings.")
@click.option("--distributed", is_flag=True, help="With --spark: reason in Spark tasks per key group when the program is partitionable.")
def run(program, facts, dialect, horizon, output, overwrite, strategy, stats, spark_master, distributed):
    """Evaluate PROGRAM and print the facts of its @output predicates."""
    import time

    if spark_master is not None:
        return _run_spark(program, dialect, horizon, overwrite, spark_master, distributed)

    from chronolog.api import reason
    from chronolog.connectors.csv_files import write_csv_facts

    t0 = time.perf_counter()
    try:
        if not program.exists():
            raise ChronologError(f"the program file {program} does not exist")
        d = _dialect_for(program, dialect)
        model = reason(program, [Path(f) for f in facts] or None, dialect=d, horizon=horizon, strategy=strategy)
        if output is not None:
            for pred in model.output_predicates:
                write_csv_facts(output / f"{pred}.csv", model.facts(pred), model.column_names(pred), overwrite)
        from chronolog.connectors.bindings import FILE_KINDS, binding_specs
        from chronolog.connectors.files import write_facts

        for b in binding_specs(model.plan.program, program.parent):
            if b["output"]:
                p = b["pred"]
                fmt = FILE_KINDS.get(b["kind"])
                if fmt is None:
                    raise ChronologError(f"the output {p} is bound to Spark", b["pos"], hint="run with --spark local[*]")
                write_facts(b["location"], model.facts(p), model.column_names(p), p, fmt, overwrite)
        if output is None:
            out = sys.stdout
            for line in model.lines():
                out.write(line)
                out.write("\n")
    except ChronologError as e:
        _fail(e)
    if stats:
        click.echo(
            f"{len(model)} facts, {model.stats.get('derivations', 0)} derivations, "
            f"{model.stats.get('rounds', 0)} rounds, {time.perf_counter() - t0:.3f} s",
            err=True,
        )


def _run_spark(program, dialect, horizon, overwrite, master, distributed):
    """``run --spark``: bindings through Spark; unbound outputs are printed."""
    try:
        if not program.exists():
            raise ChronologError(f"the program file {program} does not exist")
        from chronolog.connectors import spark as cs
        from chronolog.connectors.arrow import table_to_rows
        from chronolog.language.text import format_fact

        session = cs.session(master)
        session.sparkContext.setLogLevel("ERROR")
        try:
            out = cs.run_program(
                session, program, horizon=horizon, dialect=_dialect_for(program, dialect),
                distributed=distributed, overwrite=overwrite,
            )
            lines = []
            for p in sorted(out):
                from chronolog.language.text import term_sort_key

                rows = table_to_rows(out[p].toArrow(), p)
                rows.sort(key=lambda r: (tuple(term_sort_key(v) for v in r[0]), r[1][0], not r[1][2]))
                lines += [format_fact(p, t, iv) for t, iv in rows]
            for line in lines:
                click.echo(line)
        finally:
            session.stop()
    except ChronologError as e:
        _fail(e)


@cli.command()
@click.argument("program", type=click.Path(path_type=Path))
@click.option("--dialect", type=click.Choice(["vadalog", "meteor"]), default=None)
def plan(program, dialect):
    """Print the plan of PROGRAM: strata, normalised rules and node pipelines."""
    from chronolog.api import load_program
    from chronolog.planner import plan as make_plan

    try:
        if not program.exists():
            raise ChronologError(f"the program file {program} does not exist")
        prog = load_program(program, dialect=_dialect_for(program, dialect))
        click.echo(make_plan(prog).describe())
    except ChronologError as e:
        _fail(e)


if __name__ == "__main__":  # pragma: no cover
    main()
