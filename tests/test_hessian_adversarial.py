"""Second derivatives over the adversarial corpus: `astjax.hessian` against central differences of grad.

For each case of tests/adversarial registered as outcome "works" in grad mode, with one differentiated
argument holding at most 12 float64 numbers, `astjax.hessian(fn)` (forward over reverse) must match
central differences of `astjax.grad(fn)` (which tests/test_adversarial.py checks against finite
differences of the function), or raise a clear astjax error. A sample of every 24th case runs by
default; ASTJAX_LONG_PROPERTIES=1 runs every case (about 580, ten minutes on 2 cores). The sweep
this file keeps found a silent (None, 0) from jvp(grad) of a return inside a loop, a nan Hessian of
(-1.0) ** n * x from jacfwd's zero tangents, prod's 0 at two zeros, and a lax.scan whose second
derivative transformed astjax's own zeros_shaped helper.
"""
import os

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError

from adversarial import CASES
from adversarial.harness import fresh, time_limit
from adversarial.known_failures import KNOWN_FAILURES as GRAD_KNOWN_FAILURES

LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))
EVERY = 1 if LONG else 24
STEP = 1e-5
TIMEOUT_S = 40

# Cases whose second derivative astjax refuses, and why that is right.
EXPECTED_REFUSALS = {
    "rules.prod_with_two_zeros": "prod's second derivative at a slice with two zeros (lone_zero refuses it)",
    "rules.det_singular": "det's second derivative at a singular matrix goes through the inverse",
}

# Cases that still fail (strict xfail). Never a wrong number.
KNOWN_FAILURES = {
}


def _eligible(c):
    if c.outcome != "works" or c.mode != "grad" or not isinstance(c.argnums, int) or c.name in GRAD_KNOWN_FAILURES:
        return False
    x = c.args()[c.argnums]
    return isinstance(x, np.ndarray) and x.dtype == np.float64 and 0 < x.size <= 12


def _params():
    eligible = [c for c in CASES if _eligible(c)]
    chosen = [c for k, c in enumerate(eligible) if k % EVERY == 0 or c.name in EXPECTED_REFUSALS
              or c.name in KNOWN_FAILURES]
    params = []
    for c in chosen:
        reason = KNOWN_FAILURES.get(c.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(c, id=c.name, marks=marks))
    return params


@pytest.mark.parametrize("case", _params())
def test_hessian_of_case_against_differences_of_grad(case):
    base = case.args()
    i = case.argnums
    x0 = base[i]
    grad = astjax.grad(case.fn, argnums=i)

    def grad_at(x):
        args = list(fresh(base))
        args[i] = x
        return np.asarray(grad(*args), dtype=np.float64).ravel()

    with time_limit(TIMEOUT_S):
        columns = []
        for k in range(x0.size):
            e = np.zeros(x0.size)
            e[k] = STEP
            e = e.reshape(x0.shape)
            columns.append((grad_at(x0 + e) - grad_at(x0 - e)) / (2 * STEP))
    expected = np.stack(columns, axis=1)
    try:
        with time_limit(TIMEOUT_S):
            got = np.asarray(astjax.hessian(case.fn, argnums=i)(*fresh(base))).reshape(x0.size, x0.size)
    except AstjaxError as exc:
        if case.name in EXPECTED_REFUSALS:
            return
        raise AssertionError(f"hessian refused {case.name}, which is not an expected refusal: {exc}") from exc
    assert case.name not in EXPECTED_REFUSALS, f"{case.name} works now: delete it from EXPECTED_REFUSALS"
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5 * scale)
