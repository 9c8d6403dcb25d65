"""jit of the adversarial corpus: each program's compiled gradient agrees with the reference backend,
or jit refuses it with an astjax error. Never a third outcome.

A fixed sample (every 80th eligible case) runs by default (Numba's compile time adds up);
ASTJAX_LONG_PROPERTIES=1 runs every case.
"""
import os

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError

from adversarial import CASES
from adversarial.harness import fresh, leaves, time_limit
from adversarial.known_failures import KNOWN_FAILURES

pytest.importorskip("numba")

ELIGIBLE = [c for c in CASES if c.mode == "grad" and c.outcome in ("works", "either") and c.name not in KNOWN_FAILURES]
SAMPLE = ELIGIBLE if os.environ.get("ASTJAX_LONG_PROPERTIES") else ELIGIBLE[::80]


def _reference(case, args):
    try:
        return astjax.value_and_grad(case.fn, argnums=case.argnums)(*args)
    except Exception:          # noqa: BLE001 -- refused or raising without jit: nothing to compare
        return None


@pytest.mark.parametrize("case", SAMPLE, ids=[c.name for c in SAMPLE])
def test_jit_of_value_and_grad_agrees_or_refuses(case):
    want = _reference(case, fresh(case.args()))
    if want is None:
        pytest.skip("the reference backend does not run this case")
    jitted = astjax.jit(astjax.value_and_grad(case.fn, argnums=case.argnums))
    with time_limit(60):
        try:
            got = jitted(*fresh(case.args()))
        except AstjaxError as exc:
            assert str(exc).strip(), "an empty refusal"
            return
    for g, w in zip(leaves(got), leaves(want)):
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64),
                                   rtol=1e-6, atol=1e-9, err_msg=case.name)
