"""The command line's entry point, ``chronolog run`` itself and what the
commands share; the commands' options, help and usage errors are click's
(chronolog/commands.py).

A ``run`` whose arguments are all well formed is read here without
importing click (``plain_run``): click's import was 40M instructions of a
10-fact run's 545M (callgrind).  Anything else -- another command,
``--help``, an unknown option, a value click would refuse or convert, an
option given twice -- goes to click, which prints its own usage or error
message.  tests/test_cli_arguments.py holds this reading to click's on
random command lines.

Every error caused by the input is printed as one positioned paragraph on
standard error with exit status 2; never a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sys

from chronolog.language.errors import ChronologError, counted
from chronolog.standard_input import FileName

# ``run``'s options as click reads them: option -> (parameter, kind, choices
# or a flag's value); kinds: "path", "text", "choice", "positive" (an
# integer of at least 1), "flag"; MULTIPLE's may be repeated;
# "--progress"/"--no-progress" set one parameter (tests/test_cli_arguments.py
# checks the table against the click command's declarations)
RUN_OPTIONS = {
    "--facts": ("facts", "path", None),
    "--dialect": ("dialect", "choice", ("vadalog", "meteor", "lars")),
    "--horizon": ("horizon", "text", None),
    "--output": ("output", "path", None),
    "--overwrite": ("overwrite", "flag", True),
    "--strategy": ("strategy", "choice", ("blocking", "streaming")),
    "--placement": ("placement", "choice", ("always", "earliest", "minimal")),
    "--window": ("window", "text", None),
    "--stats": ("stats", "flag", True),
    "--spark": ("spark_master", "text", None),
    "--distributed": ("distributed", "flag", True),
    "--conf": ("spark_conf", "text", None),
    "--max-rounds": ("max_rounds", "positive", None),
    "--format": ("out_format", "choice", ("text", "csv", "json")),
    "--plot": ("plot_to", "path", None),
    "--progress": ("progress", "flag", True),
    "--no-progress": ("progress", "flag", False),
    "--engine": ("engine", "choice", ("auto", "rows", "columns")),
}
MULTIPLE = ("facts", "spark_conf")
RUN_DEFAULTS = dict(facts=(), dialect=None, horizon=None, output=None, overwrite=False, strategy=None, placement=None,
                    window=None, stats=False, spark_master=None, distributed=False, spark_conf=(), max_rounds=None,
                    out_format="text", plot_to=None, progress=None, engine=None)


def run_arguments(args: list):
    """``run``'s parameters from its command line (after ``run``) as click
    would give them, or None where click should read it: anything but
    known options with plain values and the one program path."""
    values: dict = dict(RUN_DEFAULTS, facts=[], spark_conf=[])
    seen = set()
    program = None
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if not arg:
            return None  # (an empty path: click names it)
        if not arg.startswith("-"):
            if program is not None:
                return None  # (click: an extra argument)
            program = arg
            continue
        name, eq, value = arg.partition("=")
        if name not in RUN_OPTIONS:
            return None  # (--help, -h, --, an unknown or shortened option)
        param, kind, choices = RUN_OPTIONS[name]
        if kind == "flag":
            if eq or param in seen:
                return None
            values[param] = choices
            seen.add(param)
            continue
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        if not value or value.startswith("-") or (param in seen and param not in MULTIPLE):
            return None  # (a value like an option, or an option given twice: click decides)
        if kind == "choice" and value not in choices:
            return None
        if kind == "positive":
            if not (value.isascii() and value.isdigit()) or int(value) < 1:
                return None
            value = int(value)
        if kind == "path":
            value = FileName(value)
        if param in MULTIPLE:
            values[param].append(value)
        else:
            values[param] = value
        seen.add(param)
    if program is None:
        return None
    values["facts"], values["spark_conf"] = tuple(values["facts"]), tuple(values["spark_conf"])
    return dict(values, program=FileName(program))


def plain_run(args: list):
    """The parameters of a ``run`` command line (``args``: after the
    program's name) read without click, or None: another command, a line
    ``run_arguments`` leaves to click, shell completion (click's
    ``_..._COMPLETE`` variables), or Windows (click expands patterns there)."""
    if args[:1] != ["run"] or os.name == "nt" or any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return None
    return run_arguments(args[1:])


def main(argv=None):
    """Entry point: user errors are handled in the commands (a closed pipe
    ends quietly, as click ends it); an internal error prints one line asking
    for a report instead of a traceback (``CHRONOLOG_DEBUG=1`` shows it)."""
    try:
        _main(argv)
    except SystemExit as e:
        if argv is None:
            _leave_before_preload(e.code)
        raise
    if argv is None:
        _leave_before_preload(0)


def _leave_before_preload(code) -> None:
    """End the process at once, streams flushed, while the background import
    of numpy and polars (chronolog/preload.py) is still under way: the
    interpreter's shutdown can crash (SIGSEGV) in a daemon thread inside an
    extension module's initialisation, as an early error's exit did in about
    one run in six.  The command's own process only (``argv`` None): a
    caller of ``main([...])`` in its own process keeps its interpreter."""
    preload = sys.modules.get("chronolog.preload")
    thread = getattr(preload, "_thread", None)
    if thread is None or not thread.is_alive():
        return
    if code is not None and not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code or 0)


def _main(argv) -> None:
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

    args = sys.argv[1:] if argv is None else list(argv)
    try:
        with without_pandas():  # (the readers' and writers' first pyarrow import, if any)
            arguments = plain_run(args)
            if arguments is None:
                _click_main(args)
            else:
                _run_main(arguments)
    except KeyboardInterrupt:
        sys.exit(130)
    except Exception as e:  # a bug in chronolog, not the user's input
        if os.environ.get("CHRONOLOG_DEBUG"):
            raise
        from chronolog.checkout import missing_dependency

        if missing_dependency(e) is not None:
            _echo(missing_dependency(e), err=True)
            sys.exit(2)
        _echo(
            f"internal error: {type(e).__name__}: {e}\n"
            "  this is a bug in chronolog; please report it with the program and data "
            "(set CHRONOLOG_DEBUG=1 to see the traceback)",
            err=True,
        )
        sys.exit(3)


def _click_main(args: list) -> None:
    import click

    from chronolog.commands import cli

    try:
        cli.main(args=args, standalone_mode=False)
    except click.exceptions.Exit as e:
        sys.exit(e.exit_code)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except click.exceptions.Abort:
        sys.exit(130)


def _run_main(arguments: dict) -> None:
    """``run`` as click's ``Command.main`` calls it: an interrupt closes the
    terminal's ``^C`` line; a closed pipe leaves quietly (exit status 1)."""
    try:
        run(**arguments)
    except (EOFError, KeyboardInterrupt):
        _echo("", err=True)
        sys.exit(130)
    except OSError as e:
        import errno

        if e.errno != errno.EPIPE:
            raise
        sys.stdout, sys.stderr = _Quiet(sys.stdout), _Quiet(sys.stderr)
        sys.exit(1)


class _Quiet:
    """A stream whose ``flush`` ignores a closed pipe (click's wrapper,
    private to click: at exit Python flushes the streams once more)."""

    def __init__(self, stream):
        self._stream = stream

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as e:
            import errno

            if e.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr):
        return getattr(self._stream, attr)


def _echo(message: str, err: bool = False) -> None:
    """A line on standard output or error, flushed (as ``click.echo`` writes text)."""
    out = sys.stderr if err else sys.stdout
    out.write(f"{message}\n")
    out.flush()


def _fail(err: ChronologError):
    _echo(err.render(), err=True)
    sys.exit(2)


def _dialect_for(path, dialect: str | None) -> str:
    if dialect:
        return dialect
    suffix = os.path.splitext(path)[1].lower()
    return "meteor" if suffix in (".meteor", ".mtl") else "lars" if suffix == ".lars" else "vadalog"


def run(program, facts=(), dialect=None, horizon=None, output=None, overwrite=False, strategy=None, placement=None, window=None,
        stats=False, spark_master=None, distributed=False, spark_conf=(), max_rounds=None, out_format="text", plot_to=None,
        progress=None, engine=None):
    """``chronolog run`` (its options and help: chronolog/commands.py)."""
    import time

    if output is not None or plot_to is not None or spark_master is not None:  # (their writers take pathlib's paths)
        from pathlib import Path

        output, plot_to = (None if p is None else Path(p) for p in (output, plot_to))
        program = program if spark_master is None else Path(program)

    if spark_master is None and (distributed or spark_conf):
        _fail(ChronologError(
            f"{'--distributed' if distributed else '--conf'} is an option of a Spark run, and this run has no --spark",
            hint="add --spark local[*] (or your cluster's master URL), or leave the option out",
        ))
    if output is not None and out_format not in (None, "text"):  # (it was dropped without a word)
        _fail(ChronologError(
            f"--format {out_format} is not read with --output, which writes one CSV file per output predicate",
            hint="leave out --output to print the facts as " + out_format + ", or --format to write the files",
        ))
    if spark_master is not None:
        # (what the Spark run has no way to take: refused, never dropped)
        unread = [name for name, given in (("--facts", facts), ("--output", output), ("--engine", engine),
                                           ("--strategy", strategy), ("--placement", placement),
                                           ("--format", out_format not in (None, "text"))) if given]
        if unread:
            _fail(ChronologError(
                f"{unread[0]} is not read by a Spark run (--spark): it reads and writes the program's @bind(\"p\", \"spark ...\") bindings",
                hint='bind the data in the program (@bind("p", "spark chronolog", "dir", "facts.txt"). reads fact text), '
                     "or run without --spark",
            ))
        from chronolog.engine.runaway import round_limit

        with round_limit(max_rounds):  # the reasoning on the driver
            return _run_spark(program, dialect, horizon, overwrite, spark_master, distributed, window, spark_conf, stats, plot_to)

    from chronolog.api import parse_horizon, reason

    t0 = time.perf_counter()
    try:
        from chronolog.standard_input import check_program_file, command_inputs, is_stdin

        check_program_file(program)
        from chronolog import ux_cli
        from chronolog.outputs import check_output_dir, output_rows, write_outputs

        if output is not None and is_stdin(output):
            raise ChronologError("--output takes a directory (one CSV file per output predicate), not - (standard output)",
                                 hint="print every output as one CSV table on standard output with --format csv")
        if output is not None:
            check_output_dir(output)
        if plot_to is not None:
            from chronolog.plot import check_path

            check_path(plot_to, overwrite, "--plot")
        d = _dialect_for(program, dialect)
        if d != "lars" and _large([program, *facts]):  # numpy and polars imported while the program is read and planned
            from chronolog.preload import import_in_background

            import_in_background(pyarrow=False, modules=False)
        given, given_facts = command_inputs(program, facts, d)
        from chronolog.arguments import as_option
        from chronolog.language.dialect_hints import dialect_hints

        with _notes(), as_option("horizon", "--horizon"):
            model = reason(
                given, given_facts, dialect=d, horizon=horizon, strategy=strategy,
                placement=placement, max_rounds=max_rounds, progress=ux_cli.show_progress(progress), engine=engine,
            )
        with dialect_hints(d):
            win = model._given_interval(parse_horizon(window, model.calendar, "--window")) if window is not None else None  # LARS: ticks
        rows = output_rows(model, win)
        write_outputs(model, program, output, overwrite, win)
        if plot_to is not None:
            ux_cli.save_plot(model, plot_to, win, overwrite)
        if output is None and out_format != "text":
            ux_cli.write_answers(model, out_format, win)
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
        _echo(
            f"{counted(len(model), 'fact')}, {counted(model.stats.get('derivations', 0), 'derivation')}, "
            f"{counted(model.stats.get('rounds', 0), 'round')}, {time.perf_counter() - t0:.3f} s",
            err=True,
        )
        for c in model.stats.get("components", []):
            _echo(_describe_component(c), err=True)
        implied = model.stats.get("implied_horizon")
        if implied is not None:  # (no horizon given, the model finite where the facts end: engine/implied_horizon.py)
            from chronolog.language.timeline import format_interval

            shown = model.calendar.format_interval if model.calendar is not None else format_interval
            _echo(f"run within the horizon the given facts imply: {shown(implied)}", err=True)
        reader = sys.modules.get("chronolog.language.fact_columns")
        if reader is not None and reader.kernel_lines + reader.parsed_lines:  # (the kernel reader ran)
            _echo(f"{reader.kernel_lines} fact lines read by the kernels, {reader.parsed_lines} by the parser", err=True)


def _large(paths) -> bool:
    """Whether ``paths`` are read by the kernel fact reader (numpy and
    polars): KERNEL_BYTES or more together."""
    from chronolog.language.source_text import KERNEL_BYTES

    total = 0
    for p in paths:
        try:
            total += os.stat(p).st_size
        except OSError:
            pass  # (reported where it is read)
    return total >= KERNEL_BYTES


def _describe_component(c) -> str:
    from chronolog.engine.termination import describe_repetition
    from chronolog.language.timeline import format_number

    preds = ", ".join(c.get("predicates", []))
    cut = ""
    if c.get("gaps cut"):
        n, units = c["gaps cut"]
        cut = (f", a gap of {format_number(units)} units cut out of its timeline" if n == 1 else
               f", {n} gaps of {format_number(units)} units in all cut out of its timeline")
    return (f"{preds}: {c['direction']}, {describe_repetition(c)} "
            f"(computed up to {format_number(c['bound'])} in {c['attempts']} attempt(s){cut})")


def spark_settings(program, conf) -> dict:
    """A Spark command's checks before its session: the program is a file
    (not standard input), each ``--conf`` is ``KEY=VALUE``; the settings."""
    settings = {}
    for kv in conf:
        k, eq, v = kv.partition("=")
        if not eq or not k.strip():
            raise ChronologError(f"--conf {kv}: not KEY=VALUE", hint="e.g. --conf spark.chronolog.oneTaskBytes=-1")
        settings[k.strip()] = v.strip()
    if str(program) == "-":
        raise ChronologError("a Spark run (--spark) reads its program from a file, not from standard input (-)",
                             hint="save the program to a file and name it")
    from chronolog.standard_input import check_program_file

    check_program_file(program)  # (not `-`: refused above)
    return settings


def spark_session(master, settings: dict):
    """The command's Spark session (``--spark MASTER``, ``--conf`` settings)."""
    import warnings

    from chronolog import spark as cs
    from chronolog.arguments import as_option

    # pyspark warns about pandas >= 3 on every start; chronolog's Spark
    # path passes its tests with pandas 3 (data crosses as Arrow), so on
    # the command line the warning is only noise
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas", category=FutureWarning)
    with as_option("master", "--spark"):
        session = cs.session(master, **settings)
    session.sparkContext.setLogLevel("ERROR")
    return session


def _run_spark(program, dialect, horizon, overwrite, master, distributed, window=None, conf=(), stats=False, plot_to=None):
    """``run --spark``: bindings through Spark; unbound outputs are printed;
    ``conf``: ``KEY=VALUE`` Spark settings; ``stats``: the path taken on
    standard error; ``plot_to``: ``--plot``, every output drawn."""
    try:
        settings = spark_settings(program, conf)
        if plot_to is not None:
            from chronolog.plot import check_path

            check_path(plot_to, overwrite, "--plot")
        from chronolog import spark as cs
        from chronolog.engine.arrow import table_to_rows

        session = spark_session(master, settings)
        try:
            taken, bound = {}, {}
            from chronolog.arguments import as_option

            with as_option("horizon", "--horizon"), as_option("window", "--window"):
                out = cs.run_program(
                    session, program, horizon=horizon, dialect=_dialect_for(program, dialect),
                    distributed=distributed, overwrite=overwrite, window=window, stats=taken, written_out=bound,
                )
            if stats:
                _echo(f"spark path: {taken.get('path')} ({taken.get('why')})", err=True)
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
                _echo(line)
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
                    _echo(f"note: {w.message}", err=True)
                else:
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def __getattr__(name):
    """``cli``, the click group of every command (chronolog/commands.py), imported when asked for."""
    if name == "cli":
        from chronolog.commands import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
