"""How hard the randomized tests try, set in one place.

conftest.py loads a hypothesis profile chosen by the environment variable
HYPOTHESIS_PROFILE: ``ci`` (the default: a tenth of the examples),
``thorough`` (``bash test.sh --thorough``: every example), both derandomized
so that a failure reproduces, ``fresh`` (as many as ``thorough``, new
random examples each run: a hunt the Spark tests can afford) or ``hunt``
(twenty times ``thorough``, new random examples each run: a long bug hunt).  A test states its share of the budget with ``examples(n)``:
n examples under ``thorough``, scaled by the loaded profile, at least one.
Loops of random cases outside hypothesis use the same call.
"""

from hypothesis import settings

THOROUGH = 100  # the thorough profile's max_examples: examples(n) is n there


def examples(n: int) -> int:
    """n under the thorough profile, scaled to the loaded one (at least 1)."""
    return max(1, round(n * settings.default.max_examples / THOROUGH))
