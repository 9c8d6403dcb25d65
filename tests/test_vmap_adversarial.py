"""vmap over the adversarial corpus: every "works" grad case, batched, against a Python loop.

For each case of tests/adversarial registered as outcome "works" in grad mode whose differentiated
arguments are float arrays, three scaled copies of the inputs are stacked on a new axis 0 and
`astjax.vmap(fn)` and `astjax.vmap(astjax.grad(fn))` (in_axes 0 on the differentiated arguments,
None elsewhere) must give what a loop over the three examples gives: the values and the gradients.
The prime rule holds for vmap as for grad: the right numbers, or a clear astjax error. A refusal
passes only for the cases of EXPECTED_REFUSALS (with the reason); anything else still failing is a
strict xfail in KNOWN_FAILURES. Every twelfth case runs by default (the suite's time budget), every
case under ASTJAX_LONG_PROPERTIES=1.
"""
import os

import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError

from adversarial import CASES
from adversarial.harness import CaseTimeout, fresh, time_limit
from adversarial.known_failures import KNOWN_FAILURES as GRAD_KNOWN_FAILURES

SCALES = (1.0, 0.9, 1.1)
EVERY = 1 if os.environ.get("ASTJAX_LONG_PROPERTIES") else 12
TIMEOUT_S = 30
KNOWN_FAILURE_TIMEOUT_S = 5

# Cases vmap refuses with an AstjaxError at the user's line, and why that is the right answer for now.
EXPECTED_REFUSALS = {
    "edges.boolean_mask_rows_and_columns": "M[M > 0.2] selects a different number of elements in each example: "
                                           "no batched array holds the results (JAX refuses it too)",
    "api_coverage.trim_then_use": "jnp.trim_zeros of a batched array keeps a different length in each example "
                                  "(JAX refuses it under vmap too)",
}

# Cases that still fail (strict xfail: a fix shows up as XPASS, then delete the entry). Never a WRONG.
KNOWN_FAILURES = {}


def _batchable(c):
    """A works/grad case that grad itself passes (not one of test_adversarial's known failures), whose
    differentiated arguments are float arrays."""
    if c.outcome != "works" or c.mode != "grad" or c.name in GRAD_KNOWN_FAILURES:
        return False
    base = c.args()
    return all(isinstance(base[i], np.ndarray) and base[i].dtype.kind == "f" for i in c.argnums_tuple)


def _params():
    params = []
    batchable = [c for c in CASES if _batchable(c)]
    for k, c in enumerate(batchable):
        if k % EVERY and c.name not in KNOWN_FAILURES and c.name not in EXPECTED_REFUSALS:
            continue
        reason = KNOWN_FAILURES.get(c.name)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(c, id=c.name, marks=marks))
    return params


def _close(got, want):
    np.testing.assert_allclose(np.asarray(got), np.stack([np.asarray(w) for w in want]), rtol=1e-7, atol=1e-9)


def _check(c, timeout):
    base = c.args()
    argnums = tuple(i % len(base) for i in c.argnums_tuple)     # a negative argnum counts from the end
    examples = []
    for s in SCALES:
        args = list(fresh(base))
        for i in argnums:
            args[i] = args[i] * s
        examples.append(args)
    in_axes = tuple(0 if i in argnums else None for i in range(len(base)))
    batched = list(fresh(base))
    for i in argnums:
        batched[i] = np.stack([e[i] for e in examples])
    g = astjax.grad(c.fn, argnums=c.argnums)
    with time_limit(timeout):
        want_v = [np.asarray(c.fn(*fresh(e))) for e in examples]
        want_g = [g(*fresh(e)) for e in examples]
    try:
        with time_limit(timeout):
            got_v = astjax.vmap(c.fn, in_axes=in_axes)(*fresh(batched))
        _close(got_v, want_v)           # checked before vmap(grad) runs: a refusal there excuses no value
        with time_limit(timeout):
            got_g = astjax.vmap(g, in_axes=in_axes)(*fresh(batched))
    except AstjaxError as exc:
        if c.name in EXPECTED_REFUSALS:
            return
        raise AssertionError(f"vmap refused {c.name}, which is not an expected refusal: {exc}") from exc
    assert c.name not in EXPECTED_REFUSALS, f"{c.name} works now: delete it from EXPECTED_REFUSALS"
    if isinstance(got_g, tuple):
        assert all(isinstance(w, tuple) and len(w) == len(got_g) for w in want_g)
        for k in range(len(got_g)):
            _close(got_g[k], [w[k] for w in want_g])
    else:
        _close(got_g, want_g)


@pytest.mark.parametrize("case", _params())
def test_vmap_of_case_against_loop(case):
    try:
        _check(case, KNOWN_FAILURE_TIMEOUT_S if case.name in KNOWN_FAILURES else TIMEOUT_S)
    except CaseTimeout as exc:
        raise AssertionError(str(exc)) from None


def test_lists_name_existing_batchable_cases():
    names = {c.name for c in CASES if _batchable(c)}
    stale = sorted((set(EXPECTED_REFUSALS) | set(KNOWN_FAILURES)) - names)
    assert not stale, f"entries name no batchable works/grad case: {stale}"
    assert len(names) > 300


# ---------------------------------------------------------------- the mechanisms behind the wrong numbers
# Each gave a silent wrong number before: a list, tuple or array used as a *sequence* operand carries the
# batch on an axis other than its first.
def _sum_of_tuple(p):
    return astjax.numpy.sum(p)               # the tuple's batch axis is axis 1 of the array it makes


def _stack_rows(x):
    return astjax.numpy.stack(x, axis=1)     # a batched array is a sequence over its axis 1


def _concatenate_rows(x):
    return astjax.numpy.concatenate(x)


def _sum_of_list_literal(x):
    return np.sum([x, 2 * x, x * x])


def _list_slice_and_concat(x):
    xs = [x[0], x[1], x[2], x[3]]
    ys = xs[1:] + xs[:1]
    return ys[0] * 1.0 + ys[3] * 10.0


# (grad of a stack's or concatenate's rows as pieces is not checked here: grad itself cannot yet rebuild
# an array's gradient from the pieces' adjoint tree)
@pytest.mark.parametrize("fn,args,with_grad", [
    (_sum_of_tuple, ((np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(2, 3) ** 2),), False),
    (_stack_rows, (np.arange(24.0).reshape(2, 3, 4) / 10,), False),
    (_concatenate_rows, (np.arange(24.0).reshape(2, 3, 4) / 10,), False),
    (_sum_of_list_literal, (np.arange(6.0).reshape(2, 3) / 5,), True),
    (_list_slice_and_concat, (np.arange(8.0).reshape(2, 4) / 5,), True),
], ids=lambda v: getattr(v, "__name__", ""))
def test_sequence_operands_keep_the_batch_first(fn, args, with_grad):
    (arg,) = args
    size = len(arg[0]) if isinstance(arg, tuple) else len(arg)
    examples = [tuple(a[b] for a in arg) if isinstance(arg, tuple) else arg[b] for b in range(size)]
    want = np.stack([np.asarray(fn(e)) for e in examples])
    got = np.asarray(astjax.vmap(fn)(arg))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-12)
    if with_grad:
        g = astjax.grad(lambda x: astjax.numpy.sum(fn(x)))
        np.testing.assert_allclose(np.asarray(astjax.vmap(g)(arg)), np.stack([np.asarray(g(e)) for e in examples]),
                                   rtol=1e-12)
