"""The adversarial corpus (tests/adversarial): every case works, or is refused clearly.

Cases listed in `adversarial.known_failures.KNOWN_FAILURES` are expected to
fail (xfail strict: a fix shows up as XPASS, then delete the entry). Nothing
else is skipped. See tests/adversarial/harness.py for how a case is judged.
"""
import collections
import os
import zlib

import pytest

from adversarial import CASES
from adversarial.harness import TIMEOUT_S, run_case
from adversarial.known_failures import KNOWN_FAILURES


# The compositions category runs a battery of transformations per case (seconds each): by default
# (the suite's time budget) every eighth case whose battery compiles nothing with Numba (the jit
# batteries' compile times belong to the long profile, as in test_jit_corpus.py); every case under
# ASTJAX_LONG_PROPERTIES=1.
LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))
_COMPOSITIONS = [c.name for c in CASES if c.category == "compositions" and not c.name.endswith("_jit")]
SAMPLED_OUT = set() if LONG else ({c.name for c in CASES if c.category == "compositions"}
                                  - {n for k, n in enumerate(_COMPOSITIONS) if k % 8 == 0})
# edges.py registers each program once under grad and again per battery of compositions: by default
# every eighth hessian battery (282 ms each; every program's grad runs above), every fourth vmap battery
# and no jit battery (Numba compiles) run; all of them in the long profile.
_EDGE_BATTERIES = [c.name for c in CASES if c.category == "edges" and c.name.endswith(("_hess", "_vmap", "_jit"))
                   and c.mode == "custom"]
_EDGE_HESS = [n for n in _EDGE_BATTERIES if n.endswith("_hess")]
if not LONG:
    SAMPLED_OUT |= {n for k, n in enumerate(_EDGE_BATTERIES) if n.endswith("_jit") or k % 4}
    SAMPLED_OUT |= {n for k, n in enumerate(_EDGE_HESS) if k % 8}

# programs.py: real programs under a battery each (without Numba unless ASTJAX_PROGRAMS_JIT=1 or the
# long profile): a few quick ones of each kind by default (programs.DEFAULT_SAMPLE), all of them in the
# long profile.
from adversarial.programs import DEFAULT_SAMPLE as _PROGRAMS_SAMPLE  # noqa: E402
if not LONG:
    SAMPLED_OUT |= {c.name for c in CASES if c.category == "programs"} - {f"programs.{n}" for n in _PROGRAMS_SAMPLE}

# attacks5.py: its batteries of transformations over programs it also checks under grad, in the long profile.
from adversarial.attacks5 import LONG_ONLY as _ATTACKS5_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS5_LONG_ONLY

# attacks6.py: the cases of the mechanisms it fixed and every third other case; all in the long profile.
from adversarial.attacks6 import LONG_ONLY as _ATTACKS6_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS6_LONG_ONLY

# attacks7.py: likewise.
from adversarial.attacks7 import LONG_ONLY as _ATTACKS7_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS7_LONG_ONLY

# attacks8.py: likewise.
from adversarial.attacks8 import LONG_ONLY as _ATTACKS8_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS8_LONG_ONLY

# attacks9.py: likewise.
from adversarial.attacks9 import LONG_ONLY as _ATTACKS9_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS9_LONG_ONLY

# attacks10.py: likewise.
from adversarial.attacks10 import LONG_ONLY as _ATTACKS10_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS10_LONG_ONLY

# attacks12.py: likewise.
from adversarial.attacks12 import LONG_ONLY as _ATTACKS12_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS12_LONG_ONLY

# attacks14.py: likewise.
from adversarial.attacks14 import LONG_ONLY as _ATTACKS14_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS14_LONG_ONLY

# attacks16.py: likewise.
from adversarial.attacks16 import LONG_ONLY as _ATTACKS16_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS16_LONG_ONLY

# attacks18.py: likewise.
from adversarial.attacks18 import LONG_ONLY as _ATTACKS18_LONG_ONLY  # noqa: E402
if not LONG:
    SAMPLED_OUT |= _ATTACKS18_LONG_ONLY


# The grad cases that should work or may be refused (about 2,000 programs, their value, gradient, finite differences
# and jvp each): by default half of them (a hash of the name, so a new case moves no other), the first of each
# category and the known failures; every one in the long profile. Refusals all run (they are cheap).
_GRAD_CASES = [c for c in CASES if c.mode == "grad" and c.outcome != "refuse"]
_FIRST_OF_CATEGORY = {}
for _c in _GRAD_CASES:
    _FIRST_OF_CATEGORY.setdefault(_c.category, _c.name)
if not LONG:
    SAMPLED_OUT |= {c.name for c in _GRAD_CASES if zlib.crc32(c.name.encode()) % 2
                    and c.name not in _FIRST_OF_CATEGORY.values() and c.name not in KNOWN_FAILURES}


def _params():
    params = []
    for c in CASES:
        if c.name in SAMPLED_OUT:
            continue
        reason = KNOWN_FAILURES.get(c.name)
        # a SLOW case depends on the machine's speed: it may pass on a quiet one without being fixed
        marks = [pytest.mark.xfail(strict=not reason.startswith("SLOW"), reason=reason)] if reason else []
        params.append(pytest.param(c, id=c.name, marks=marks))
    return params


# A known failure may be a hang: it gets a shorter leash, so that the file stays fast.
KNOWN_FAILURE_TIMEOUT_S = 3


@pytest.mark.parametrize("case", _params())
def test_adversarial_case(case):
    run_case(case, timeout=KNOWN_FAILURE_TIMEOUT_S if case.name in KNOWN_FAILURES else TIMEOUT_S)


def _kind(c):
    """A case's check: its mode, and for a battery of compositions the battery's name."""
    battery = c.name.rsplit("_", 1)[-1] if c.mode == "custom" and c.name.endswith(("_hess", "_vmap", "_jit")) else ""
    return f"{c.mode} {battery}".strip()


def test_the_default_sample_keeps_every_category_and_every_kind_of_check():
    """Sampling (above) never drops a corpus category or a kind of check (a jit battery only where the
    default profile runs jit batteries at all: the compositions category's own)."""
    kept = [c for c in CASES if c.name not in SAMPLED_OUT]
    assert {c.category for c in kept} == {c.category for c in CASES}
    wanted = {(c.category, _kind(c)) for c in CASES if LONG or not _kind(c).endswith("jit")}
    missing = wanted - {(c.category, _kind(c)) for c in kept}
    assert not missing, sorted(missing)


def test_the_grad_case_sample_keeps_every_category():
    """Half of the grad cases that should work run by default (GRAD_SAMPLED_OUT): every category keeps one."""
    grad = [c for c in CASES if c.mode == "grad" and c.outcome != "refuse" and c.name not in SAMPLED_OUT]
    assert {c.category for c in CASES if c.mode == "grad" and c.outcome != "refuse"} <= {c.category for c in grad}


def test_known_failures_name_existing_cases():
    names = {c.name for c in CASES}
    stale = sorted(set(KNOWN_FAILURES) - names)
    assert not stale, f"KNOWN_FAILURES names cases that do not exist: {stale}"


def test_corpus_is_large_and_covers_every_outcome():
    assert len(CASES) >= 250, len(CASES)
    assert len({c.name for c in CASES}) == len(CASES)
    outcomes = collections.Counter(c.outcome for c in CASES)
    assert outcomes["works"] and outcomes["either"] and outcomes["refuse"], outcomes


def test_known_failures_has_no_duplicate_entries():
    import ast
    import adversarial.known_failures as kf
    with open(kf.__file__) as fh:
        tree = ast.parse(fh.read())
    keys = [k.value for node in ast.walk(tree) if isinstance(node, ast.Dict) for k in node.keys]
    assert len(keys) == len(set(keys)), sorted(k for k in keys if keys.count(k) > 1)
