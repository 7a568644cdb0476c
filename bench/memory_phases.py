"""Where a ``chronolog run``'s peak resident memory goes, phase by phase.

    python bench/memory_phases.py [--facts 1000000] [--program nonrec|rec]
                                  [--interval 0.002] [--timeline FILE]
                                  [--checkpoints] [--imports-only]

Runs the command line in this process (``chronolog.cli.main``, standard
output to a temporary file) with a thread that samples ``/proc/self/status``
(``RssAnon``, ``RssFile``, ``VmHWM``) and glibc's ``mallinfo2`` every few
milliseconds together with the main thread's innermost chronolog function
(the phase).  Prints the phase where the kernel's high-water mark was
reached, per phase the highest resident memory seen in it, and at the peak
the resident pages of each mapped file (``/proc/self/smaps``: shared
libraries' code and data count in the resident memory that ``ru_maxrss``
reports) and the heap.  ``--checkpoints`` also records, at the end of
reading, after each stratum and around the printing, the sizes of the term
Dictionary, the reader's columns, the frames and pymalloc's arenas, and
each phase's peak (``MEMPHASE_TRIM=1``: calls ``malloc_trim`` at each
boundary and says how much of glibc's free heap was resident).  Another
package tree: ``PYTHONPATH=TREE``.

The sampler thread itself adds about 1 MB (its stack); its readings are a
lower bound of the true peak between two samples, so the command's own
``ru_maxrss`` is printed beside them.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

_FIELDS = ("VmRSS", "VmHWM", "RssAnon", "RssFile")


def status() -> dict:
    out = {}
    with open("/proc/self/status") as fh:
        for line in fh:
            k, _, v = line.partition(":")
            if k in _FIELDS:
                out[k] = int(v.split()[0]) * 1024
    return out


class _Mallinfo2(__import__("ctypes").Structure):
    _fields_ = [(n, __import__("ctypes").c_size_t) for n in
                ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def _mallinfo():
    import ctypes

    f = ctypes.CDLL(None).mallinfo2
    f.restype = _Mallinfo2
    return f


def malloc_stats(f) -> dict:
    """glibc's heap: bytes in use (small chunks and mmapped) and free."""
    m = f()
    return {"malloc_used": m.uordblks + m.hblkhd, "malloc_free": m.fordblks, "malloc_mmap": m.hblkhd}


def smaps_by_file() -> dict:
    """Resident bytes per mapped file (anonymous regions under [anon])."""
    out = defaultdict(int)
    name = None
    with open("/proc/self/smaps") as fh:
        for line in fh:
            if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
                parts = line.split(None, 5)
                name = parts[5].strip() if len(parts) > 5 else "[anon]"
            elif line.startswith("Rss:"):
                out[name] += int(line.split()[1]) * 1024
    return dict(out)


def phase_of(frame) -> str:
    """The innermost function of chronolog on the main thread's stack, with
    the outermost one below ``cli.run`` (which phase of the command)."""
    inner, outer = None, None
    f = frame
    chain = []
    while f is not None:
        fn = f.f_code.co_filename
        if "chronolog" in fn or "/language/" in fn or "/engine/" in fn or "/connectors/" in fn or "/planner/" in fn:
            chain.append(f"{Path(fn).stem}.{f.f_code.co_name}")
        f = f.f_back
    if not chain:
        return "(start-up)"
    inner = chain[0]
    # outermost below cli.run / api.reason
    for i, name in enumerate(chain):
        if name in ("cli.run", "api.reason"):
            outer = chain[i - 1] if i > 0 else name
            break
    return f"{outer or chain[-1]} > {inner}" if outer != inner else inner


class Sampler(threading.Thread):
    def __init__(self, interval: float, main_id: int):
        super().__init__(daemon=True)
        self.interval, self.main_id = interval, main_id
        self.stop = False
        self.peak = {"VmRSS": 0}
        self.peak_phase = ""
        self.peak_files = {}
        self.by_phase: dict = {}
        self.timeline = []
        self.hwm = []  # (t, phase, previous phase, VmHWM) whenever the high-water mark rose
        self.t0 = time.perf_counter()

    def run(self):
        files_at = 0
        mi = _mallinfo()
        while not self.stop:
            s = status()
            s.update(malloc_stats(mi))
            frame = sys._current_frames().get(self.main_id)
            ph = phase_of(frame) if frame is not None else "?"
            del frame
            self.timeline.append((time.perf_counter() - self.t0, s["VmRSS"], s["RssAnon"], s["RssFile"], s["malloc_used"], s["malloc_free"], ph))
            if not self.hwm or s["VmHWM"] > self.hwm[-1][-1]:
                self.hwm.append((time.perf_counter() - self.t0, ph, self.timeline[-2][-1] if len(self.timeline) > 1 else "", s["VmHWM"]))
            prev = self.by_phase.get(ph)
            if prev is None or s["VmRSS"] > prev["VmRSS"]:
                self.by_phase[ph] = s
            if s["VmRSS"] > self.peak["VmRSS"]:
                self.peak, self.peak_phase = s, ph
                if s["VmRSS"] > files_at + (2 << 20):  # the files' pages at (near) the peak
                    self.peak_files = smaps_by_file()
                    files_at = s["VmRSS"]
            time.sleep(self.interval)


def pymalloc_bytes() -> int:
    """Bytes of pymalloc's arenas (small Python objects live there, outside malloc)."""
    import tempfile as _t

    with _t.TemporaryFile("w+") as tmp:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(tmp.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        tmp.seek(0)
        for line in tmp:
            if "arenas *" in line and "bytes/arena" in line:
                return int(line.split("=")[1].replace(",", ""))
    return 0


def _dictionary_bytes(terms) -> int:
    if terms is None:
        return 0
    vals = terms.values
    parts = getattr(vals, "parts", None)
    if parts is None:  # (an earlier tree: one names Series, then a list)
        names = getattr(vals, "names", None)
        series, lists = ([] if names is None else [names]), [getattr(vals, "_rest", vals)]
    else:
        series, lists = [p for p in parts if not isinstance(p, list)], [p for p in parts if isinstance(p, list)]
    codes = getattr(terms, "_codes", None)
    codes = terms.codes if codes is None else codes  # (an earlier tree: the dict always built)
    n = sys.getsizeof(codes) + sum(map(sys.getsizeof, lists))  # (codes would build the dict; iterating, strings of the names)
    n += sum(s.nbytes if hasattr(s, "nbytes") else s.estimated_size() for s in series)
    n += sum(sys.getsizeof(v) for r in lists for v in r)
    n += 32 * sum(1 for c in range(len(codes)) if c > 256)
    return n


def install_checkpoints(report: list) -> None:
    """Wrap the command's phase boundaries: reading done, each stratum
    done, printing started and done; each records what is resident then."""
    from chronolog import api
    from chronolog.engine.columns import evaluator as ev

    mi = _mallinfo()
    state = {"ev": None, "columns": None, "stratum": 0}

    def checkpoint(name):
        s_t = time.perf_counter()
        trimmed = None
        if os.environ.get("MEMPHASE_TRIM"):  # how much of glibc's free memory was resident
            import ctypes

            before = status()["RssAnon"]
            ctypes.CDLL(None).malloc_trim(0)
            trimmed = before - status()["RssAnon"]
        s = status()
        if trimmed is not None:
            name = f"{name} (trim -{trimmed / 2**20:.0f})"
        s.update(malloc_stats(mi))
        s["pymalloc"] = pymalloc_bytes()
        s["threads"] = len(os.listdir("/proc/self/task"))
        cols = state["columns"] or []
        terms = next((fc.terms for fc in cols if fc.terms is not None), None)
        s["dictionary"] = _dictionary_bytes(terms)
        s["reader"] = sum(_reader_bytes(fc) for fc in cols)
        e = state["ev"]
        s["frames"] = sum(df.estimated_size() for df in e._tables.values()) if e is not None else 0
        report.append((name, s, s_t))

    real_read = api._read_columns

    def read_columns(*a, **k):
        checkpoint("start of reading")
        out = real_read(*a, **k)
        state["columns"] = out
        checkpoint("read")
        return out

    api._read_columns = read_columns
    real_release = ev.HybridEvaluator._release_given

    def release(self, preds):
        state["ev"] = self
        real_release(self, preds)
        checkpoint(f"stratum {state['stratum']}")
        state["stratum"] += 1

    ev.HybridEvaluator._release_given = release
    real_write = api.Model.write_text

    def write_text(self, fh, preds=None):
        checkpoint("before output")
        real_write(self, fh, preds)
        checkpoint("after output")

    api.Model.write_text = write_text


def _reader_bytes(fc) -> int:
    """numpy arrays the reader keeps (each counted once: blocks share some)."""
    seen = {}
    for parts in fc.parts.values():
        for cols, lo, hi, lc, hc in parts:
            for c in [*cols, lo, hi]:
                for a in (c.indices, getattr(c, "codes", None), getattr(c, "values", None) if not hasattr(c, "codes") else None):
                    if a is not None:
                        seen[id(a)] = a
            seen[id(lc)], seen[id(hc)] = lc, hc
    return sum(a.nbytes for a in seen.values())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=1_000_000)
    ap.add_argument("--program", default="nonrec", choices=["nonrec", "rec"])
    ap.add_argument("--interval", type=float, default=0.002)
    ap.add_argument("--timeline", default=None, help="write every sample (t, rss, anon, file, phase) here")
    ap.add_argument("--checkpoints", action="store_true", help="what is resident at each phase boundary")
    ap.add_argument("--imports-only", action="store_true", help="only import what a large run imports")
    a = ap.parse_args(argv)
    from lubm_gen import dataset

    vada, _ = dataset(a.facts)
    prog = HERE / "programs" / f"lubm_{a.program}.vada"
    report: list = []
    if a.checkpoints:
        install_checkpoints(report)
    sampler = Sampler(a.interval, threading.get_ident())
    sampler.start()
    from chronolog import cli

    with tempfile.TemporaryDirectory(prefix="memphase_") as tmp:
        out = open(Path(tmp) / "out.txt", "w")
        saved = sys.stdout
        sys.stdout = out
        t = time.perf_counter()
        try:
            if a.imports_only:
                from chronolog.language import allocators

                allocators.configure()
                from chronolog.arrow_import import import_pyarrow

                import_pyarrow()
                import numpy  # noqa: F401
                import polars  # noqa: F401
            else:
                try:
                    cli.main(["run", str(prog), "--facts", str(vada)])
                except SystemExit as e:
                    if e.code not in (0, None):
                        raise
        finally:
            sys.stdout = saved
            out.close()
        wall = time.perf_counter() - t
        sampler.stop = True
        sampler.join()
    ru = resource.getrusage(resource.RUSAGE_SELF)
    mib = 1 << 20
    print(f"{a.program} {a.facts}: wall {wall:.2f} s, ru_maxrss {ru.ru_maxrss / 1024:.0f} MiB "
          f"({ru.ru_maxrss * 1024 / a.facts:.0f} B/fact), sampled peak {sampler.peak['VmRSS'] / mib:.0f} MiB "
          f"(anon {sampler.peak.get('RssAnon', 0) / mib:.0f}, file {sampler.peak.get('RssFile', 0) / mib:.0f}; glibc malloc "
          f"in use {sampler.peak['malloc_used'] / mib:.0f} free {sampler.peak['malloc_free'] / mib:.0f}) in {sampler.peak_phase}")
    hwm = max(r[-1] for r in sampler.hwm) if sampler.hwm else 0
    first_hwm = next((r for r in sampler.hwm if r[-1] == hwm), None)
    if first_hwm is not None:  # the kernel's own high-water mark: catches spikes between two samples
        print(f"VmHWM {hwm / mib:.0f} MiB, first seen at {first_hwm[0]:.3f}s, in {first_hwm[1]} (sample before: {first_hwm[2]})")
    print("\nhighest sample per phase (MiB: rss anon file malloc-used malloc-free), in order of first appearance:")
    first = {}
    for t_, *_, ph in sampler.timeline:
        first.setdefault(ph, t_)
    for ph in sorted(sampler.by_phase, key=first.get):
        s = sampler.by_phase[ph]
        print(f"  {first[ph]:6.2f}s {s['VmRSS'] / mib:6.0f} {s['RssAnon'] / mib:6.0f} {s['RssFile'] / mib:6.0f} "
              f"{s['malloc_used'] / mib:6.0f} {s['malloc_free'] / mib:6.0f}  {ph}")
    print("\nresident pages per mapping at the peak (MiB, >= 0.5):")
    for name, b in sorted(sampler.peak_files.items(), key=lambda kv: -kv[1]):
        if b >= mib // 2:
            print(f"  {b / mib:7.1f}  {name}")
    if report:
        print("\nhighest sample from the previous boundary to this one (MiB: rss anon file), the phase's peak:")
        prev = 0.0
        for name, _, t_ in report:
            rows = [r for r in sampler.timeline if prev <= r[0] + sampler.t0 <= t_]
            if rows:
                top = max(rows, key=lambda r: r[1])
                print(f"  {name:22}{top[1] / mib:8.0f}{top[2] / mib:8.0f}{top[3] / mib:8.0f}   at {top[0]:.2f}s in {top[-1]}")
            prev = t_
        print("\nat the phase boundaries (MiB):")
        keys = ["VmRSS", "RssAnon", "RssFile", "malloc_used", "malloc_free", "pymalloc", "dictionary", "reader", "frames"]
        print(f"  {'':16}" + "".join(f"{k[:11]:>12}" for k in keys) + f"{'threads':>8}")
        for name, s, _ in report:
            print(f"  {name:16}" + "".join(f"{s[k] / mib:12.1f}" for k in keys) + f"{s['threads']:8d}")
    if a.timeline:
        with open(a.timeline, "w") as fh:
            for row in sampler.timeline:
                fh.write("\t".join(str(x) for x in row) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
