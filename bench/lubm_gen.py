"""LUBM-style temporal university data for benchmarking chronolog against MeTeoR.

The generator follows the shape of the Lehigh University Benchmark (UBA 1.7):
universities with departments, faculty (full / associate / assistant
professors, lecturers), undergraduate and graduate students, courses,
publications and research groups, linked by memberOf, worksFor, advisor,
takesCourse, teacherOf, teachingAssistantOf, publicationAuthor, headOf,
subOrganizationOf and the three degreeFrom properties, plus unary class facts.
As in MeTeoR's temporal LUBM, every fact gets a random interval: integer
endpoints in ``[0, tmax]`` (default 300); most are closed, some half-open or
open, about 10% punctual and about 4% unbounded ``[a,+inf)``.  About 8% of the
enrolment / membership / teaching atoms get a second interval (touching the
first, so that it must be coalesced, or after a gap).

The output is deterministic for a given ``(facts, seed, tmax)`` and is written
as a stream (nothing proportional to the data size is kept in memory), in two
files with identical content:

* ``PREFIX.vada``   chronolog / Temporal Vadalog facts:  ``takesCourse(ugstud1,course7)@[3,40).``
* ``PREFIX.meteor`` MeTeoR facts (no final dot):          ``takesCourse(ugstud1,course7)@[3,40)``

Predicate names start lowercase and constants are lowercase, so the same atom
text is valid in both dialects (MeTeoR accepts any predicate name; only its
*arguments* are variables when uppercase-initial).

Usage::

    python bench/lubm_gen.py --facts 100000 [--seed 1] [--tmax 300] [--out bench/data/lubm_100000_s1]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"

# Size parameters per university / department (scaled-down LUBM proportions).
DEPTS_PER_UNIV = (5, 10)
FULL_PROF = (2, 5)
ASSOC_PROF = (3, 6)
ASSIST_PROF = (2, 5)
LECTURERS = (1, 3)
UG_STUDENTS = (25, 50)
GRAD_STUDENTS = (8, 16)
UG_COURSES = (6, 12)
GRAD_COURSES = (3, 6)
GROUPS = (2, 5)
SUBGROUPS = (0, 2)
PUBS_PER_FACULTY = (1, 5)
N_CONSORTIA = 4


class _Done(Exception):
    pass


class _Writer:
    """Writes each fact to both output files; stops after ``limit`` facts."""

    def __init__(self, vada_f, meteor_f, limit: int):
        self.vada = vada_f
        self.meteor = meteor_f
        self.limit = limit
        self.count = 0

    def fact(self, pred: str, args: str, iv: str) -> None:
        line = f"{pred}({args})@{iv}"
        self.meteor.write(line + "\n")
        self.vada.write(line + ".\n")
        self.count += 1
        if self.count >= self.limit:
            raise _Done


class _Intervals:
    def __init__(self, rng: random.Random, tmax: int):
        self.rng = rng
        self.tmax = tmax

    def pick(self, maxlen: int) -> tuple:
        """(lo, hi, lo_closed, hi_closed) with hi None for +inf."""
        rng = self.rng
        r = rng.random()
        a = rng.randint(0, self.tmax)
        if r < 0.10:
            return (a, a, True, True)
        if r < 0.14:
            return (a, None, True, False)
        b = a + rng.randint(1, maxlen)
        if b > self.tmax:
            b = self.tmax
        if b == a:
            return (a, a, True, True)
        k = rng.random()
        if k < 0.55:
            return (a, b, True, True)
        if k < 0.75:
            return (a, b, True, False)
        if k < 0.92:
            return (a, b, False, True)
        return (a, b, False, False)

    def after(self, iv: tuple, maxlen: int):
        """A second interval for the same atom: touching ``iv`` or after a gap."""
        lo, hi, lc, hc = iv
        if hi is None:
            return None
        rng = self.rng
        if rng.random() < 0.5:
            start, sc = hi, not hc  # touching: [a,b) + [b,c] or [a,b] + (b,c]
        else:
            start, sc = hi + rng.randint(1, 20), True
        end = min(self.tmax, start + rng.randint(1, maxlen))
        if end <= start:
            return None
        return (start, end, sc, rng.random() < 0.7)

    @staticmethod
    def text(iv: tuple) -> str:
        lo, hi, lc, hc = iv
        if hi is None:
            return f"[{lo},+inf)"
        if lo == hi:
            return str(lo)
        return f"{'[' if lc else '('}{lo},{hi}{']' if hc else ')'}"


def _generate(w: _Writer, seed: int, tmax: int) -> None:
    rng = random.Random(seed)
    ivs = _Intervals(rng, tmax)
    R = rng.randint

    def fact(pred, args, maxlen=60):
        w.fact(pred, args, ivs.text(ivs.pick(maxlen)))

    def fact_multi(pred, args, maxlen=60):
        iv = ivs.pick(maxlen)
        w.fact(pred, args, ivs.text(iv))
        if rng.random() < 0.08:
            iv2 = ivs.after(iv, maxlen)
            if iv2 is not None:
                w.fact(pred, args, ivs.text(iv2))

    n_univ = n_dept = n_group = n_prof = n_lect = n_ug = n_grad = 0
    n_course = n_gcourse = n_pub = 0

    for c in range(N_CONSORTIA):
        fact("consortium", f"consortium{c}", 300)

    while True:
        u = f"univ{n_univ}"
        n_univ += 1
        fact("university", u, 300)
        fact("subOrganizationOf", f"{u},consortium{rng.randrange(N_CONSORTIA)}", 300)

        def some_univ():
            return f"univ{rng.randrange(n_univ)}"

        for _ in range(R(*DEPTS_PER_UNIV)):
            d = f"dept{n_dept}"
            n_dept += 1
            fact("department", d, 300)
            fact("subOrganizationOf", f"{d},{u}", 300)

            # research groups (some with sub-groups: org chains of depth 4)
            groups = []
            for _ in range(R(*GROUPS)):
                g = f"group{n_group}"
                n_group += 1
                groups.append(g)
                fact("researchGroup", g, 200)
                fact("subOrganizationOf", f"{g},{d}", 200)
                for _ in range(R(*SUBGROUPS)):
                    sg = f"group{n_group}"
                    n_group += 1
                    groups.append(sg)
                    fact("researchGroup", sg, 150)
                    fact("subOrganizationOf", f"{sg},{g}", 150)

            # courses
            courses = []
            for _ in range(R(*UG_COURSES)):
                c = f"course{n_course}"
                n_course += 1
                courses.append(c)
                fact("course", c, 200)
            gcourses = []
            for _ in range(R(*GRAD_COURSES)):
                c = f"gcourse{n_gcourse}"
                n_gcourse += 1
                gcourses.append(c)
                fact("graduateCourse", c, 200)

            # faculty
            profs = []
            faculty = []
            for cls, rng_n in (
                ("fullProfessor", FULL_PROF),
                ("associateProfessor", ASSOC_PROF),
                ("assistantProfessor", ASSIST_PROF),
            ):
                for _ in range(R(*rng_n)):
                    p = f"prof{n_prof}"
                    if n_prof > 0 and rng.random() < 0.6:
                        # academic genealogy: doctoral advisor is an earlier professor
                        fact("advisor", f"{p},prof{rng.randrange(n_prof)}", 100)
                    n_prof += 1
                    profs.append(p)
                    faculty.append(p)
                    fact(cls, p, 200)
            for _ in range(R(*LECTURERS)):
                lec = f"lect{n_lect}"
                n_lect += 1
                faculty.append(lec)
                fact("lecturer", lec, 200)

            fact("headOf", f"{profs[0]},{d}", 100)
            for f_ in faculty:
                fact_multi("worksFor", f"{f_},{d}", 150)
                fact("undergraduateDegreeFrom", f"{f_},{some_univ()}", 300)
                fact("mastersDegreeFrom", f"{f_},{some_univ()}", 300)
                fact("doctoralDegreeFrom", f"{f_},{some_univ()}", 300)
                for c in rng.sample(courses + gcourses, R(1, 2)):
                    fact_multi("teacherOf", f"{f_},{c}", 60)
                if rng.random() < 0.5:
                    fact("memberOf", f"{f_},{rng.choice(groups)}", 100)

            # students
            grads = []
            for _ in range(R(*GRAD_STUDENTS)):
                s = f"gradstud{n_grad}"
                n_grad += 1
                grads.append(s)
                fact("graduateStudent", s, 200)
                fact_multi("memberOf", f"{s},{d}", 150)
                if rng.random() < 0.5:
                    fact("memberOf", f"{s},{rng.choice(groups)}", 100)
                fact("undergraduateDegreeFrom", f"{s},{some_univ()}", 300)
                fact("advisor", f"{s},{rng.choice(profs)}", 100)
                taken = rng.sample(gcourses, min(len(gcourses), R(1, 3)))
                for c in taken:
                    fact_multi("takesCourse", f"{s},{c}", 60)
                if rng.random() < 0.4:
                    # often a TA of a course they took
                    c = rng.choice(taken) if rng.random() < 0.7 else rng.choice(courses)
                    fact("teachingAssistantOf", f"{s},{c}", 60)
            for _ in range(R(*UG_STUDENTS)):
                s = f"ugstud{n_ug}"
                n_ug += 1
                fact("undergraduateStudent", s, 200)
                fact_multi("memberOf", f"{s},{d}", 150)
                for c in rng.sample(courses, min(len(courses), R(2, 4))):
                    fact_multi("takesCourse", f"{s},{c}", 60)
                if rng.random() < 0.2:
                    fact("advisor", f"{s},{rng.choice(profs)}", 100)

            # publications
            for f_ in faculty:
                for _ in range(R(*PUBS_PER_FACULTY)):
                    pub = f"pub{n_pub}"
                    n_pub += 1
                    fact("publication", pub, 300)
                    fact("publicationAuthor", f"{pub},{f_}", 100)
                    if grads and rng.random() < 0.5:
                        fact("publicationAuthor", f"{pub},{rng.choice(grads)}", 100)


def generate(facts: int, prefix, seed: int = 1, tmax: int = 300) -> tuple:
    """Write ``PREFIX.vada`` and ``PREFIX.meteor`` with exactly ``facts`` facts."""
    prefix = Path(prefix)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    vada_p = prefix.with_name(prefix.name + ".vada")
    met_p = prefix.with_name(prefix.name + ".meteor")
    tmp_v = vada_p.with_name(vada_p.name + ".tmp")
    tmp_m = met_p.with_name(met_p.name + ".tmp")
    with open(tmp_v, "w", buffering=1 << 20) as fv, open(tmp_m, "w", buffering=1 << 20) as fm:
        w = _Writer(fv, fm, facts)
        try:
            _generate(w, seed, tmax)
        except _Done:
            pass
    os.replace(tmp_v, vada_p)
    os.replace(tmp_m, met_p)
    return vada_p, met_p


def dataset(facts: int, seed: int = 1, tmax: int = 300, data_dir=DATA_DIR) -> tuple:
    """Paths ``(vada, meteor)`` of the cached dataset, generating it if needed."""
    prefix = Path(data_dir) / f"lubm_{facts}_s{seed}_t{tmax}"
    vada_p = prefix.with_name(prefix.name + ".vada")
    met_p = prefix.with_name(prefix.name + ".meteor")
    if not (vada_p.exists() and met_p.exists()):
        generate(facts, prefix, seed, tmax)
    return vada_p, met_p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--facts", type=int, default=100_000, help="number of facts (default 100000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tmax", type=int, default=300, help="interval endpoints in [0, TMAX] (default 300)")
    ap.add_argument("--out", help="output prefix (default bench/data/lubm_N_sSEED_tTMAX)")
    a = ap.parse_args(argv)
    if a.out:
        paths = generate(a.facts, a.out, a.seed, a.tmax)
    else:
        prefix = DATA_DIR / f"lubm_{a.facts}_s{a.seed}_t{a.tmax}"
        paths = generate(a.facts, prefix, a.seed, a.tmax)
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
