"""The commands as click reads them: ``chronolog run``, ``chronolog entails``,
``chronolog plan``, ``chronolog stream``, ``chronolog query``, ``chronolog
explain`` -- their options, help texts and usage errors.  The entry point
and ``run`` itself are in chronolog/cli.py (which reads a plain ``run``
command line without importing click).

Every error caused by the input is printed as one positioned paragraph on
standard error with exit status 2; never a traceback.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from chronolog.arguments import as_option
from chronolog.language.errors import ChronologError
from chronolog.connectors.paths import exists
from chronolog.cli import _dialect_for, _fail
from chronolog.standard_input import FileName, check_program_file, command_inputs, is_stdin
from chronolog.connectors.json_records import json_term
from chronolog.ux_cli import FORMATS, _number, csv_term


class FilePath(click.Path):
    """A path option or argument; an empty one (``--output "$OUT"`` with OUT
    unset) is refused: click's Path reads it as the current directory."""

    def convert(self, value, param, ctx):
        if isinstance(value, str) and not value:
            self.fail("an empty path names no file", param, ctx)
        return super().convert(value, param, ctx)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="chronolog")
def cli():
    """chronolog: temporal reasoning with DatalogMTL (Temporal Vadalog syntax)."""


@cli.command()
@click.argument("program", type=FilePath(path_type=FileName))
@click.option("--facts", "facts", multiple=True, type=FilePath(path_type=FileName), help="A file of facts, one per line (repeatable).")
@click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program and facts (default: vadalog; .meteor files: meteor; .lars files: lars).")
@click.option("--horizon", default=None, metavar="FROM,TO", help="Evaluation horizon; derived facts are confined to it.")
@click.option("--output", "output", type=FilePath(path_type=FileName), default=None, help="Write one CSV per output predicate into this directory.")
@click.option("--overwrite", is_flag=True, help="Allow --output to replace existing files.")
@click.option("--strategy", type=click.Choice(["blocking", "streaming"]), default=None, help="Merge strategy (default: @config(\"merge\", ...) or blocking).")
@click.option("--placement", type=click.Choice(["always", "earliest", "minimal"]), default=None, help="Which given facts are coalesced at load (default: @config(\"placement\", ...) or always).")
@click.option("--window", default=None, metavar="FROM,TO", help="Print (and write) only the facts inside this window, with facts that repeat forever unrolled.")
@click.option("--stats", is_flag=True, help="Print timing and counts on standard error.")
@click.option("--spark", "spark_master", default=None, metavar="MASTER", help="Run through Spark (e.g. local[*]): reads and writes \"spark\" bindings.")
@click.option("--distributed", is_flag=True, help="With --spark: reason in Spark tasks per key group when the program is partitionable, else in seminaive rounds of Spark SQL or, for small inputs, in one Spark task (chronolog plan says which).")
@click.option("--conf", "spark_conf", multiple=True, metavar="KEY=VALUE", help="With --spark: a Spark setting, e.g. spark.chronolog.oneTaskBytes=-1 (repeatable).")
@click.option("--max-rounds", "max_rounds", type=click.IntRange(min=1), default=None, metavar="N", help="Rounds a recursion that moves through time or creates values may take before it is reported as endless (default 100000).")
@click.option("--format", "out_format", type=click.Choice(["text", "csv", "json"]), default="text", help="How to print the facts: canonical text (default), CSV or JSON lines.")
@click.option("--plot", "plot_to", type=FilePath(path_type=FileName), default=None, help="Also draw the timeline into this .png, .svg or .html file (needs chronolog[plot]).")
@click.option("--progress/--no-progress", default=None, help="A progress bar on standard error (default: when it is a terminal).")
@click.option("--engine", type=click.Choice(["auto", "rows", "columns"]), default=None, help="Executor for the strata columns support (default auto: columns for large inputs; chronolog plan says which stratum runs where).")
def run(program, facts, dialect, horizon, output, overwrite, strategy, placement, window, stats, spark_master, distributed, spark_conf, max_rounds, out_format, plot_to, progress, engine):
    """Evaluate PROGRAM and print the facts of its @output predicates.

    Facts that repeat forever are printed as ``p(a)@[0,0] every 30`` (the
    interval and its shifts by every positive multiple of 30)."""
    from chronolog import cli as command_line

    return command_line.run(program, facts, dialect, horizon, output, overwrite, strategy, placement, window, stats, spark_master,
                            distributed, spark_conf, max_rounds, out_format, plot_to, progress, engine)


@cli.command(short_help="Print true if a fact holds throughout its interval, else false.")
@click.argument("program", type=FilePath(path_type=Path))
@click.argument("query")
@click.option("--facts", "facts", multiple=True, type=FilePath(path_type=Path), help="A file of facts, one per line (repeatable).")
@click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program and facts.")
@click.option("--horizon", default=None, metavar="FROM,TO", help="Evaluation horizon (not needed: models that repeat are answered exactly).")
@click.option("--max-rounds", "max_rounds", type=click.IntRange(min=1), default=None, metavar="N", help="Rounds a recursion that moves through time or creates values may take before it is reported as endless (default 100000).")
def entails(program, query, facts, dialect, horizon, max_rounds):
    """Print true if QUERY (a fact such as "p(a)@[10,20]") holds throughout its
    interval in the least model of PROGRAM, false otherwise.  The exit status
    is 0 either way; 2 on bad input."""
    from chronolog.api import reason

    try:
        check_program_file(program)
        d = _dialect_for(program, dialect)
        given, given_facts = command_inputs(program, facts, d)
        with as_option("horizon", "--horizon"):
            model = reason(given, given_facts, dialect=d, horizon=horizon, max_rounds=max_rounds)
        with as_option("holds()", "QUERY"):  # (the command line's user wrote no holds())
            held = model.holds(query, dialect=d)
        click.echo("true" if held else "false")
    except ChronologError as e:
        _fail(e)


@cli.command(short_help="Print how PROGRAM runs: strata, executors, rules and pipelines.")
@click.argument("program", type=FilePath(path_type=Path))
@click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program (default: vadalog; .meteor files: meteor; .lars files: lars).")
@click.option("--engine", type=click.Choice(["auto", "rows", "columns"]), default="auto", help="Say where each stratum runs with this executor choice.")
@click.option("--horizon", default=None, metavar="FROM,TO", help="Say where each stratum runs with this evaluation horizon (as `run --horizon`).")
@click.option("--facts", "facts", multiple=True, type=FilePath(path_type=Path), help="A file of facts the run would be given (repeatable): its arities are checked and its facts that repeat forever (every) placed as the run places them.")
@click.option("--analyze", is_flag=True, help="Run PROGRAM on the facts and print, beside the plan, what each stratum, rule and operator did: executor, rounds, time, fallbacks, rows, facts; each operator's rows and own time (EXPLAIN ANALYZE).")
@click.option("--spark", "spark_master", default=None, metavar="MASTER", help="With --analyze: run through Spark (e.g. local[2]) as run --spark does, and say the path taken, its Spark jobs and rounds.")
@click.option("--distributed", is_flag=True, help="With --spark: as run --spark --distributed.")
@click.option("--conf", "spark_conf", multiple=True, metavar="KEY=VALUE", help="With --spark: a Spark setting (repeatable).")
def plan(program, dialect, engine, horizon, facts, analyze, spark_master, distributed, spark_conf):
    """Print the plan of PROGRAM: strata, the executor of each, normalised rules and node pipelines."""
    from chronolog.language.dialect_hints import dialect_hints
    from chronolog.plan_api import explain_plan

    try:
        if spark_master is not None or distributed or spark_conf:
            return _plan_spark(program, dialect, horizon, facts, analyze, spark_master, distributed, spark_conf)
        check_program_file(program)
        d = _dialect_for(program, dialect)
        prog, given_facts = command_inputs(program, facts, d)
        with as_option("horizon", "--horizon"), dialect_hints(d):
            click.echo(explain_plan(prog, given_facts or None, analyze=analyze, dialect=d, horizon=horizon, engine=engine))
    except ChronologError as e:
        _fail(e)


def _plan_spark(program, dialect, horizon, facts, analyze, master, distributed, conf):
    """``plan --analyze --spark MASTER``: chronolog.spark.explain_plan over
    the program's bindings, as ``run --spark`` reads them."""
    from chronolog.cli import spark_session, spark_settings

    if master is None:
        raise ChronologError(f"{'--distributed' if distributed else '--conf'} is an option of a Spark run, and this plan has no --spark",
                             hint="add --spark local[*] (or your cluster's master URL), or leave the option out")
    if not analyze or facts:
        raise ChronologError("--facts is not read by a Spark run (--spark): it reads the program's bindings" if facts else
                             "--spark runs the program: it is an option of plan --analyze",
                             hint="bind the data in the program, or run without --spark" if facts else "add --analyze")
    settings = spark_settings(program, conf)
    from chronolog import spark as cs

    session = spark_session(master, settings)
    try:
        with as_option("horizon", "--horizon"):
            click.echo(cs.explain_plan(session, program, analyze=True, dialect=_dialect_for(program, dialect),
                                       horizon=horizon, distributed=distributed))
    finally:
        session.stop()


@cli.command()
@click.argument("program", type=FilePath(path_type=Path))
@click.option("--input", "input_", type=FilePath(path_type=Path), default=None, help="Facts, one per line in non-decreasing start time (default: standard input).")
@click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program and facts (default: vadalog; .meteor files: meteor; .lars files: lars).")
@click.option("--stats", is_flag=True, help="Print throughput and facts held in memory on standard error, every second and at the end.")
@click.option("--hypothetical", is_flag=True, help="Print the supported answers (evidence and hypotheses) at each time point instead.")
@click.option("--maximal", is_flag=True, help="Print each answer once, with its maximal interval, when it has ended (as `run` prints it).")
@click.option("--window", type=click.IntRange(min=0), default=None, help="With --hypothetical: an answer at T uses only facts from T-W on (bounds a query recursive back in time).")
@click.option("--delay", type=click.IntRange(min=0), default=None, help="With --hypothetical: an answer at T uses only facts up to T+D (bounds a query recursive forward in time).")
@click.option("--reach-back", default=None, metavar="SPAN", help="Turn corrections (-p(a)@5 and +p(a)@5 lines meeting input already processed) on: how far before the watermark they may reach, in time units (on a date timeline also an ISO duration such as P3D); off by default: it costs every step.")
@click.option("--format", "out_format", type=click.Choice(["text", "json"]), default="text", help="How answers are printed: fact text, or JSON records as run --format json prints them (a retracted answer with \"retracted\": true).")
def stream(program, input_, dialect, stats, hypothetical, maximal, window, delay, reach_back, out_format):
    """Run PROGRAM as a continuous query over a stream of facts.

    Facts are read one per line; the output facts are printed as soon as
    they are final (for the time range the stream has closed)."""
    from chronolog.language.dialect_hints import dialect_hints
    from chronolog.stream_cli import run_hypothetical, run_stream

    try:
        check_program_file(program)
        if is_stdin(input_):
            input_ = None  # (standard input, as without --input)
        if input_ is not None and not exists(input_, "the input file"):
            raise ChronologError(f"the input file {input_} does not exist", hint="check the path (relative paths start at the current directory)")
        d = _dialect_for(program, dialect)
        program, _ = command_inputs(program, (), d, stdin_taken=None if input_ is not None else "the stream's facts (no --input)")
        if (window is not None or delay is not None) and not hypothetical:
            raise ChronologError("--window and --delay go with --hypothetical",
                                 hint="a plain stream's memory is bounded by the program's own operators")
        ignored = [name for name, given in (("--maximal", maximal), ("--stats", stats), ("--reach-back", reach_back is not None),
                                            ("--format json", out_format == "json")) if given]
        if hypothetical and ignored:
            raise ChronologError(f"{ignored[0]} does not go with --hypothetical",
                                 hint="hypothetical answers are printed at each time point, and take no corrections")
        # bytes, one line at a time: each line is decoded as UTF-8 whatever
        # the locale (stream_cli._facts), a bad byte named by line and column
        fh = _open_input(input_) if input_ is not None else sys.stdin.buffer
        source = str(input_) if input_ is not None else "<stdin>"
        try:
            with dialect_hints(d):  # (a dated fact of a LARS stream)
                if hypothetical:
                    run_hypothetical(program, fh, source, d, window=window, delay=delay)
                else:
                    run_stream(program, fh, source, d, stats, emit="maximal" if maximal else "pieces", reach_back=reach_back,
                               out_format=out_format)
        except ChronologError as e:
            if not hasattr(e, "operands") or input_ is None:
                raise
            from chronolog.api import _base_dir, load_program
            from chronolog.value_origin import with_origin

            prog = load_program(program, dialect=d)  # (again, on the error's path: a comparison's value from the input file)
            raise with_origin(e, prog, Path(input_), d, prog.calendar, _base_dir(None, program)) from None
        finally:
            if input_ is not None:
                fh.close()
    except ChronologError as e:
        _fail(e)


def _open_input(path: Path):
    from chronolog.language.errors import DataError

    from chronolog.language.compressed import open_bytes

    try:
        return open_bytes(path, "input file")  # (decompressed as it is read: a file.gz)
    except IsADirectoryError:
        raise DataError(f"cannot read the input file {path}: it is a directory", hint="name a file") from None
    except OSError as e:
        raise DataError(f"cannot read the input file {path}: {e.strerror or e}") from None


# ---------------------------------------------------------------- query and explain


def _load(program, facts, dialect, horizon, progress=None):
    from chronolog.api import reason

    check_program_file(program)
    d = _dialect_for(program, dialect)
    given, given_facts = command_inputs(program, facts, d)
    with as_option("horizon", "--horizon"):
        return reason(given, given_facts, dialect=d, horizon=horizon, progress=progress), d


_common = [
    click.argument("program", type=FilePath(path_type=Path)),
    click.option("--facts", "facts", multiple=True, type=FilePath(path_type=Path), help="A file of facts, one per line (repeatable)."),
    click.option("--dialect", type=click.Choice(["vadalog", "meteor", "lars"]), default=None, help="Syntax of the program and facts."),
    click.option("--horizon", default=None, metavar="FROM,TO", help="Evaluation horizon."),
]


def _with_common(f):
    for deco in reversed(_common):
        f = deco(f)
    return f


@click.command(short_help="Print every binding of QUERY's variables with its intervals.")
@_with_common
@click.argument("query")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", help="text (one binding per line), csv or json.")
def query(program, facts, dialect, horizon, query, fmt):
    """Print every binding of the variables of QUERY (e.g. "controls(X, beta)@[0,10]";
    the window may be a point or left out) with the intervals, within the
    window, on which it holds.  A ground query prints true or false."""
    import json

    from chronolog.query import format_answers

    try:
        model, d = _load(program, facts, dialect, horizon)
        with as_option("query()", "QUERY"):
            res = model.query(query, dialect=d)
        if isinstance(res, bool):
            click.echo(json.dumps(res) if fmt == "json" else "true" if res else "false")
            return
        fmt_iv = model.calendar.format_interval if model.calendar is not None else None
        if fmt == "text":
            for line in format_answers(res, model.calendar):
                click.echo(line)
        elif fmt == "json":
            from chronolog.language.timeline import format_interval
            from chronolog.connectors.json_records import json_line

            for a in res:
                click.echo(json_line({
                    "binding": {k: json_term(v) for k, v in a.binding.items()},
                    "intervals": [(fmt_iv or format_interval)(iv) for iv in a.intervals],
                }), nl=False)
        else:
            from chronolog.connectors.csv_files import write_rows

            point = model.calendar.format_point if model.calendar is not None else _number
            names = list(res[0].binding) if res else []
            write_rows(sys.stdout, [names + ["start", "end", "start_closed", "end_closed"]] + [
                [csv_term(v) for v in a.binding.values()] + [point(lo), point(hi), str(lc).lower(), str(hc).lower()]
                for a in res for lo, hi, lc, hc in a.intervals])
    except ChronologError as e:
        _fail(e)


@click.command(short_help="Print the proof tree of FACT, down to the given facts.")
@_with_common
@click.argument("fact")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "html"]), default="text", help="A text tree (default), JSON or nested HTML.")
def explain(program, facts, dialect, horizon, fact, fmt):
    """Print the proof of FACT (e.g. "controls(a,c)@[2,8]"): each rule used,
    its variable values, the intervals of its body facts and the interval
    arithmetic that gives the head's interval, down to the given facts."""
    try:
        model, _ = _load(program, facts, dialect, horizon)
        with as_option("proof()", "FACT"):
            proof = model.proof(fact)
        click.echo({"text": str, "json": lambda p: p.to_json(), "html": lambda p: p._repr_html_()}[fmt](proof))
    except ChronologError as e:
        _fail(e)


cli.add_command(query)
cli.add_command(explain)


if __name__ == "__main__":  # pragma: no cover
    from chronolog.cli import main

    main()
