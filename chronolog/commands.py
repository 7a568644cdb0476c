"""The command line: ``chronolog run``, ``chronolog entails``, ``chronolog plan``,
``chronolog stream``, ``chronolog query``, ``chronolog explain`` (chronolog/ux_cli.py).

Every error caused by the input is printed as one positioned paragraph on
standard error with exit status 2; never a traceback.
"""

from __future__ import annotations

import contextlib

import sys
from pathlib import Path

import click

from chronolog.language.errors import ChronologError
from chronolog.connectors.paths import exists


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

    from chronolog import lazy_modules
    from chronolog.language import allocators

    allocators.configure()  # before pyarrow and polars allocate
    lazy_modules.install()  # before polars and lark import hashlib
    import gc

    # the objects of the modules imported so far live until the command
    # ends: out of the collector's walks, as allocators.settled() does for
    # polars' and numpy's (a small run: 5-10 ms less CPU)
    gc.freeze()
    from chronolog.arrow_import import without_pandas

    try:
        with without_pandas():  # (the readers' and writers' first pyarrow import, if any)
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
        from chronolog.checkout import missing_dependency

        if missing_dependency(e) is not None:
            click.echo(missing_dependency(e), err=True)
            sys.exit(2)
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
    suffix = path.suffix.lower()
    return "meteor" if suffix in (".meteor", ".mtl") else "lars" if suffix == ".lars" else "vadalog"


@cli.command()
@click.argument("program", type=click.Path(path_type=Path))
@click.option("--facts", "facts", multiple=True, type=click.Path(path_type=Path), help="A file of facts, one per line (repeatable).")
@click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program and facts (default: vadalog; .meteor files: meteor; .lars files: lars).")
@click.option("--horizon", default=None, metavar="FROM,TO", help="Evaluation horizon; derived facts are confined to it.")
@click.option("--output", "output", type=click.Path(path_type=Path), default=None, help="Write one CSV per output predicate into this directory.")
@click.option("--overwrite", is_flag=True, help="Allow --output to replace existing files.")
@click.option("--strategy", type=click.Choice(["blocking", "streaming"]), default=None, help="Merge strategy (default: @config(\"merge\", ...) or blocking).")
@click.option("--placement", type=click.Choice(["always", "earliest", "minimal"]), default=None, help="Which given facts are coalesced at load (default: @config(\"placement\", ...) or always).")
@click.option("--window", default=None, metavar="FROM,TO", help="Print (and write) only the facts inside this window, with facts that repeat forever unrolled.")
@click.option("--stats", is_flag=True, help="Print timing and counts on standard error.")
@click.option("--spark", "spark_master", default=None, metavar="MASTER", help="Run through Spark (e.g. local[*]): reads and writes \"spark\" bindings.")
@click.option("--distributed", is_flag=True, help="With --spark: reason in Spark tasks per key group when the program is partitionable, else in seminaive rounds of Spark SQL or, for small inputs, in one Spark task (chronolog plan says which).")
@click.option("--conf", "spark_conf", multiple=True, metavar="KEY=VALUE", help="With --spark: a Spark setting, e.g. spark.chronolog.oneTaskBytes=-1 (repeatable).")
@click.option("--max-rounds", "max_rounds", type=click.IntRange(min=1), default=None, metavar="N", help="Rounds a recursion may take before it is reported as endless (default 100000).")
@click.option("--format", "out_format", type=click.Choice(["text", "csv", "json"]), default="text", help="How to print the facts: canonical text (default), CSV or JSON lines.")
@click.option("--plot", "plot_to", type=click.Path(path_type=Path), default=None, help="Also draw the timeline into this .png, .svg or .html file (needs chronolog[plot]).")
@click.option("--progress/--no-progress", default=None, help="A progress bar on standard error (default: when it is a terminal).")
@click.option("--engine", type=click.Choice(["auto", "rows", "columns"]), default=None, help="Executor for the strata columns support (default auto: columns for large inputs; chronolog plan says which stratum runs where).")
def run(program, facts, dialect, horizon, output, overwrite, strategy, placement, window, stats, spark_master, distributed, spark_conf, max_rounds, out_format, plot_to, progress, engine):
    """Evaluate PROGRAM and print the facts of its @output predicates.

    Facts that repeat forever are printed as ``p(a)@[0,0] every 30`` (the
    interval and its shifts by every positive multiple of 30)."""
    import time

    if spark_master is None and (distributed or spark_conf):
        _fail(ChronologError(
            f"{'--distributed' if distributed else '--conf'} is an option of a Spark run, and this run has no --spark",
            hint="add --spark local[*] (or your cluster's master URL), or leave the option out",
        ))
    if spark_master is not None:
        from chronolog.engine.runaway import round_limit

        with round_limit(max_rounds):  # the reasoning on the driver
            return _run_spark(program, dialect, horizon, overwrite, spark_master, distributed, window, spark_conf, stats, plot_to)

    from chronolog.api import parse_horizon, reason

    t0 = time.perf_counter()
    try:
        if not exists(program, "the program file"):
            raise ChronologError(f"the program file {program} does not exist", hint="check the path (relative paths start at the current directory)")
        from chronolog import ux_cli
        from chronolog.outputs import check_output_dir, output_rows, write_outputs

        if output is not None:
            check_output_dir(output)
        if plot_to is not None:
            from chronolog.plot import check_path

            check_path(plot_to, overwrite)
        d = _dialect_for(program, dialect)
        if d != "lars" and _large([program, *facts]):  # numpy and polars imported while the program is read and planned
            from chronolog.preload import import_in_background

            import_in_background(pyarrow=False, modules=False)
        with _notes():
            model = reason(
                program, [Path(f) for f in facts] or None, dialect=d, horizon=horizon, strategy=strategy,
                placement=placement, max_rounds=max_rounds, progress=ux_cli.show_progress(progress), engine=engine,
            )
        win = model._given_interval(parse_horizon(window, model.calendar, "--window")) if window is not None else None  # LARS: ticks
        rows = output_rows(model, win)
        write_outputs(model, program, output, overwrite, win)
        if plot_to is not None:
            ux_cli.save_plot(model, plot_to, win, overwrite)
        if output is None and out_format != "text":
            ux_cli.write_facts(model, ux_cli.model_facts(model, model.output_predicates, win), out_format)
        elif output is None:
            out = sys.stdout
            if win is not None:
                from chronolog.language.dates import format_fact

                lines = [format_fact(p, t, iv, model.calendar) for p in sorted(model.output_predicates) for t, iv in rows(p)]
                for i in range(0, len(lines), 10_000):  # few write calls, no copy of the whole text
                    out.write("\n".join(lines[i : i + 10_000]))
                    out.write("\n")
            else:
                model.write_text(out)
    except ChronologError as e:
        _fail(e)
    if stats:
        click.echo(
            f"{len(model)} facts, {model.stats.get('derivations', 0)} derivations, "
            f"{model.stats.get('rounds', 0)} rounds, {time.perf_counter() - t0:.3f} s",
            err=True,
        )
        for c in model.stats.get("components", []):
            click.echo(_describe_component(c), err=True)
        reader = sys.modules.get("chronolog.language.fact_columns")
        if reader is not None and reader.kernel_lines + reader.parsed_lines:  # (the kernel reader ran)
            click.echo(f"{reader.kernel_lines} fact lines read by the kernels, {reader.parsed_lines} by the parser", err=True)


def _large(paths) -> bool:
    """Whether a file among ``paths`` is read by the kernel fact reader
    (numpy and polars): KERNEL_BYTES or more."""
    from chronolog.language.source_text import KERNEL_BYTES

    for p in paths:
        try:
            if Path(p).stat().st_size >= KERNEL_BYTES:
                return True
        except OSError:
            pass  # (reported where it is read)
    return False


def _describe_component(c) -> str:
    from chronolog.language.timeline import format_number

    preds = ", ".join(c.get("predicates", []))
    if c.get("period") is None or c.get("kind") == "constant":
        what = f"constant from {format_number(c['repeats_from'])}"
    else:
        what = f"repeats every {format_number(c['period'])} from {format_number(c['repeats_from'])}"
    if c.get("repeats_before") is not None:
        what += f", and into the past before {format_number(c['repeats_before'])}"
    return f"{preds}: {c['direction']}, {what} (computed up to {format_number(c['bound'])} in {c['attempts']} attempt(s))"


@cli.command(short_help="Print true if a fact holds throughout its interval, else false.")
@click.argument("program", type=click.Path(path_type=Path))
@click.argument("query")
@click.option("--facts", "facts", multiple=True, type=click.Path(path_type=Path), help="A file of facts, one per line (repeatable).")
@click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program and facts.")
@click.option("--horizon", default=None, metavar="FROM,TO", help="Evaluation horizon (not needed: models that repeat are answered exactly).")
@click.option("--max-rounds", "max_rounds", type=click.IntRange(min=1), default=None, metavar="N", help="Rounds a recursion may take before it is reported as endless (default 100000).")
def entails(program, query, facts, dialect, horizon, max_rounds):
    """Print true if QUERY (a fact such as "p(a)@[10,20]") holds throughout its
    interval in the least model of PROGRAM, false otherwise.  The exit status
    is 0 either way; 2 on bad input."""
    from chronolog.api import reason

    try:
        if not exists(program, "the program file"):
            raise ChronologError(f"the program file {program} does not exist", hint="check the path (relative paths start at the current directory)")
        d = _dialect_for(program, dialect)
        model = reason(program, [Path(f) for f in facts] or None, dialect=d, horizon=horizon, max_rounds=max_rounds)
        click.echo("true" if model.holds(query, dialect=d) else "false")
    except ChronologError as e:
        _fail(e)


def _run_spark(program, dialect, horizon, overwrite, master, distributed, window=None, conf=(), stats=False, plot_to=None):
    """``run --spark``: bindings through Spark; unbound outputs are printed;
    ``conf``: ``KEY=VALUE`` Spark settings; ``stats``: the path taken on
    standard error; ``plot_to``: ``--plot``, every output drawn."""
    try:
        settings = {}
        for kv in conf:
            k, eq, v = kv.partition("=")
            if not eq or not k.strip():
                raise ChronologError(f"--conf {kv}: not KEY=VALUE", hint="e.g. --conf spark.chronolog.oneTaskBytes=-1")
            settings[k.strip()] = v.strip()
        if not exists(program, "the program file"):
            raise ChronologError(f"the program file {program} does not exist", hint="check the path (relative paths start at the current directory)")
        if plot_to is not None:
            from chronolog.plot import check_path

            check_path(plot_to, overwrite)
        import warnings

        from chronolog import spark as cs
        from chronolog.engine.arrow import table_to_rows

        # pyspark warns about pandas >= 3 on every start; chronolog's Spark
        # path passes its tests with pandas 3 (data crosses as Arrow), so on
        # the command line the warning is only noise
        warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
        session = cs.session(master, **settings)
        session.sparkContext.setLogLevel("ERROR")
        try:
            taken, bound = {}, {}
            out = cs.run_program(
                session, program, horizon=horizon, dialect=_dialect_for(program, dialect),
                distributed=distributed, overwrite=overwrite, window=window, stats=taken, written_out=bound,
            )
            if stats:
                click.echo(f"spark path: {taken.get('path')} ({taken.get('why')})", err=True)
            from chronolog.api import load_program
            from chronolog.language.dates import format_fact
            from chronolog.language.text import term_sort_key

            cal = load_program(program, dialect=_dialect_for(program, dialect)).calendar
            answers = {**out, **bound} if plot_to is not None else out  # (a plot draws the bound outputs too)
            lines, drawn = [], []
            for p in sorted(answers):
                rows = table_to_rows(answers[p].toArrow(), p, cal, timestamps="times")
                rows.sort(key=lambda r: (tuple(term_sort_key(v) for v in r[0]), r[1][0], not r[1][2]))
                facts = [format_fact(p, t, iv, cal) for t, iv in rows]
                drawn += facts
                lines += facts if p in out else []
            for line in lines:
                click.echo(line)
            if plot_to is not None:
                _plot_answers(sorted(answers), drawn, cal, window, plot_to, overwrite)
        finally:
            session.stop()
    except ChronologError as e:
        _fail(e)


def _plot_answers(preds, facts, calendar, window, plot_to, overwrite) -> None:
    """``run --spark --plot``: the Spark run's answers (fact text) read into
    an embedded model of its outputs alone, drawn as ``run --plot`` draws."""
    from chronolog import ux_cli
    from chronolog.api import parse_horizon, reason

    decls = [f'@timeGranularity("{calendar.unit}").'] if calendar is not None else []
    decls += [f'@output("{p}").' for p in preds]
    model = reason("\n".join(decls), facts)
    win = parse_horizon(window, model.calendar, "--window") if window is not None else None
    ux_cli.save_plot(model, plot_to, win, overwrite)


@cli.command(short_help="Print how PROGRAM runs: strata, executors, rules and pipelines.")
@click.argument("program", type=click.Path(path_type=Path))
@click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program (default: vadalog; .meteor files: meteor; .lars files: lars).")
@click.option("--engine", type=click.Choice(["auto", "rows", "columns"]), default="auto", help="Say where each stratum runs with this executor choice.")
def plan(program, dialect, engine):
    """Print the plan of PROGRAM: strata, the executor of each, normalised rules and node pipelines."""
    from chronolog.api import load_program
    from chronolog.plan_text import describe_plan
    from chronolog.planner import plan as make_plan

    try:
        if not exists(program, "the program file"):
            raise ChronologError(f"the program file {program} does not exist", hint="check the path (relative paths start at the current directory)")
        prog = load_program(program, dialect=_dialect_for(program, dialect))
        click.echo(describe_plan(make_plan(prog), engine))
    except ChronologError as e:
        _fail(e)


@cli.command()
@click.argument("program", type=click.Path(path_type=Path))
@click.option("--input", "input_", type=click.Path(path_type=Path), default=None, help="Facts, one per line in non-decreasing start time (default: standard input).")
@click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program and facts (default: vadalog; .meteor files: meteor; .lars files: lars).")
@click.option("--stats", is_flag=True, help="Print throughput and facts held in memory on standard error, every second and at the end.")
@click.option("--hypothetical", is_flag=True, help="Print the supported answers (evidence and hypotheses) at each time point instead.")
@click.option("--maximal", is_flag=True, help="Print each answer once, with its maximal interval, when it has ended (as `run` prints it).")
@click.option("--window", type=click.IntRange(min=0), default=None, help="With --hypothetical: an answer at T uses only facts from T-W on (bounds a query recursive back in time).")
@click.option("--delay", type=click.IntRange(min=0), default=None, help="With --hypothetical: an answer at T uses only facts up to T+D (bounds a query recursive forward in time).")
@click.option("--reach-back", type=click.FloatRange(min=0), default=None, help="Turn corrections (-p(a)@5 and +p(a)@5 lines meeting input already processed) on: how far before the watermark they may reach (off by default: it costs every step).")
def stream(program, input_, dialect, stats, hypothetical, maximal, window, delay, reach_back):
    """Run PROGRAM as a continuous query over a stream of facts.

    Facts are read one per line; the output facts are printed as soon as
    they are final (for the time range the stream has closed)."""
    from chronolog.stream_cli import run_hypothetical, run_stream

    try:
        if not exists(program, "the program file"):
            raise ChronologError(f"the program file {program} does not exist", hint="check the path (relative paths start at the current directory)")
        if input_ is not None and not exists(input_, "the input file"):
            raise ChronologError(f"the input file {input_} does not exist", hint="check the path (relative paths start at the current directory)")
        d = _dialect_for(program, dialect)
        if (window is not None or delay is not None) and not hypothetical:
            raise ChronologError("--window and --delay go with --hypothetical",
                                 hint="a plain stream's memory is bounded by the program's own operators")
        fh = input_.open(encoding="utf-8-sig") if input_ is not None else sys.stdin
        source = str(input_) if input_ is not None else "<stdin>"
        try:
            if hypothetical:
                run_hypothetical(program, fh, source, d, window=window, delay=delay)
            else:
                run_stream(program, fh, source, d, stats, emit="maximal" if maximal else "pieces", reach_back=reach_back)
        except UnicodeDecodeError as e:
            raise ChronologError(f"{source}: the input is not UTF-8 text (byte 0x{e.object[e.start]:02x})", hint="convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8)") from None
        finally:
            if input_ is not None:
                fh.close()
    except ChronologError as e:
        _fail(e)


from chronolog.ux_cli import register as _register_ux  # noqa: E402  (query, explain)

_register_ux(cli)


if __name__ == "__main__":  # pragma: no cover
    main()


@contextlib.contextmanager
def _notes():
    """Print how chronolog chose what the program leaves open (the
    timeline of dates read from CSV files) as notes on standard error."""
    import warnings

    from chronolog.language.errors import Note

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", Note)
        try:
            yield
        finally:
            for w in caught:
                if issubclass(w.category, Note):
                    click.echo(f"note: {w.message}", err=True)
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
