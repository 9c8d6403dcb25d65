"""Every rule case of tests/test_rules.py swept through vmap and float32.

test_rules.py checks each differentiable primitive's derivative in float64. Here the same cases
(`rule_cases.CASES`, each `fn(*args, w)` returning a scalar) are checked for:

1. vmap against a Python loop: a batch of 3 examples (the case's arguments scaled by 1, 1.05, 1.1;
   integer and static arguments unbatched), mapped over every floating-point argument, then over the
   first differentiable operand only; and `vmap(grad(fn))` against a loop of `grad(fn)` for a sample.
   The loop calls the case's function itself; only the batched call goes through astjax.
2. float32: the value of `value_and_grad` has the dtype the plain call gives on float32 inputs, the
   gradient has its input's dtype (as in JAX), and it is close to the float64 gradient.

By default each battery runs a sample that keeps every primitive (tests/sampling.py; every case
under ASTJAX_LONG_PROPERTIES=1).

Boundary points of the elementwise and reduction primitives (kinks, ties, zeros) are compared with
JAX in tests/test_primitive_boundaries.py.
"""
import warnings

import numpy as np
import pytest

import astjax
from astjax import tree_util
from astjax.errors import AstjaxError

from primitive_sweep_helpers import assert_trees_close, batch, float32, is_float_operand
from rule_cases import CASES
from sampling import LONG, assert_covers, covering_sample
from test_rules import _case_id, _weight

IDS = [_case_id(c) for c in CASES]

# id -> reason, per check. strict: when fixed, the xfail fails, so the entry gets removed.
VMAP_XFAILS = {}
FIRST_OPERAND_XFAILS = {}
VMAP_GRAD_XFAILS = {}
# float32 gradients that may differ from the float64 ones by more than rtol 1e-3, atol 1e-4: id -> why.
FLOAT32_LOOSE = {}
# Primitives vmap refuses when an operand is batched, as JAX does: a loop over the batch would stack results whose
# shapes depend on each example's values. id -> the words the refusal must contain.
VMAP_REFUSED = {"trim_zeros-both": "the length of its result depends on each example's values"}
FLOAT32_XFAILS = {}
# Cases whose plain NumPy run on float32 inputs gives float64 (JAX would give float32): id -> why. Every other
# case's value must be float32. astjax follows NumPy here (its reference backend runs NumPy).
_CONSTANT = "a float64 NumPy constant inside the function (np.array, a Python list, a float64 parameter) promotes"
FLOAT64_VALUES = {
    "astype-fn": "astype(float64) asks for float64", "astype-method": "astype(float64) asks for float64",
    "cast_float64-array": "np.float64(x) asks for float64",
    "inplace_result-same_dtype": "`y += x` keeps y's dtype, as NumPy does: y is np.zeros(...), float64",
    "vander-increasing": "np.vander's result dtype is promote_types(x.dtype, int): float64 in NumPy",
    "interp-inside": _CONSTANT, "interp-outside": _CONSTANT, "interp-constants": _CONSTANT,
    "polyder-second": _CONSTANT, "polyint-constants": _CONSTANT, "trapezoid-keyword_x": _CONSTANT,
    "zeta-q": _CONSTANT, "gammainc-x": _CONSTANT, "gammaincc-x": _CONSTANT, "betainc-x": _CONSTANT,
    "polyfit-vector": "np.polyfit's Vandermonde matrix is float64 (np.vander promotes)",
    "polyfit-columns": "np.polyfit's Vandermonde matrix is float64 (np.vander promotes)",
    "asanyarray-dtype": "np.asanyarray(a, np.float64) asks for float64",
    "fft_adjoint-irfft_axis0": "the transpose takes the dtype of its float64 `like` argument",
    "expm_frechet_pair-alone": "SciPy's own scipy.linalg.expm_frechet, called as the case writes it, computes in "
                               "float64 (the plain call's dtype)",
}

GRAD_SAMPLE = 1 if LONG else 20   # vmap(grad) for every GRAD_SAMPLE-th case (and every case in VMAP_GRAD_EXTRA)
# The cases where vmap(grad) went wrong before its fix (kept whatever the sample): adjoint trees of
# namedtuples and tuple results, shape-only helpers (`leading`, `polyint_factors`), out-of-bounds updates,
# reductions of lists, diff's (-1.0) ** n.
VMAP_GRAD_EXTRA = {"attribute-namedtuple", "meshgrid_list-xy", "modf-signs", "svd-wide", "lstsq-tall_vector",
                   "cho_factor-upper", "lu-plu", "scipy_eigh-pair", "numpy_eigh-lower", "list_items-of_list",
                   "split-indices", "ediff1d-matrix", "polyint-first", "polysub-longer_second",
                   "tree_leaves-of_list", "at_multiply-partly_out_of_bounds", "dot-scalar_vec", "dot-mat_scalar",
                   "sum-list_of_arrays", "prod-list_of_arrays", "mean-list_of_arrays", "full_like-scalar",
                   "diff-n2_axis0", "at_set-out_of_bounds", "at_add-partly_out_of_bounds"}


def _params(cases, xfails):
    out = []
    for c in cases:
        ident = _case_id(c)
        marks = [pytest.mark.xfail(strict=True, reason=xfails[ident])] if ident in xfails else []
        out.append(pytest.param(c, id=ident, marks=marks))
    return out


def _args(case):
    return case.args + (_weight(case.fn, case.args, _case_id(case)),)


def _loop(fn, examples):
    """fn called on each example, the results stacked leaf by leaf."""
    results = [fn(*e) for e in examples]
    return tree_util.tree_map(lambda *leaves: np.stack([np.asarray(x) for x in leaves]), *results)


def _check_vmap(fn, examples, batched, axes, what, rtol=1e-10, atol=1e-12, refused=None):
    if refused is not None:
        with pytest.raises(AstjaxError, match=refused):
            astjax.vmap(fn, in_axes=axes)(*batched)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)       # a scaled example may leave a domain: NaN both ways
        expected = _loop(fn, examples)
        mapped = astjax.vmap(fn, in_axes=axes)
        got = mapped(*batched)
    try:
        assert_trees_close(got, expected, rtol, atol, what)
    except AssertionError as failure:
        raise AssertionError(f"{failure}\n--- generated source ---\n{astjax.source(mapped)}") from None


def _primitive(case):
    return case.primitive


# The suite's time budget (tests/sampling.py, docs/testing.md): by default vmap of every float argument
# runs each primitive's first case and the odd cases, vmap of the first operand the even cases, so every
# case is batched one way or the other; every case of each under ASTJAX_LONG_PROPERTIES=1.
VMAP_CASES = covering_sample(CASES, _primitive, 2, offset=1, keep=lambda c: _case_id(c) in VMAP_XFAILS)


# ------------------------------------------------------------------ 1. vmap against a loop
@pytest.mark.parametrize("case", _params(VMAP_CASES, VMAP_XFAILS))
def test_vmap_of_every_float_argument_matches_a_loop(case):
    args = _args(case)
    mapped = {i for i, a in enumerate(args) if is_float_operand(a)}
    examples, batched, axes = batch(args, mapped)
    _check_vmap(case.fn, examples, batched, axes, f"vmap of {_case_id(case)}, in_axes={axes}",
                refused=VMAP_REFUSED.get(_case_id(case)))


# The even cases by default (the test above batches every operand of the odd ones and of each primitive's
# first case); every case under ASTJAX_LONG_PROPERTIES=1.
FIRST_OPERAND_CASES = [c for n, c in enumerate(CASES) if LONG or n % 2 == 0 or _case_id(c) in FIRST_OPERAND_XFAILS]


@pytest.mark.parametrize("case", _params(FIRST_OPERAND_CASES, FIRST_OPERAND_XFAILS))
def test_vmap_of_the_first_operand_only_matches_a_loop(case):
    args = _args(case)
    examples, batched, axes = batch(args, {case.argnums[0]})
    _check_vmap(case.fn, examples, batched, axes, f"vmap of {_case_id(case)}, in_axes={axes}",
                refused=VMAP_REFUSED.get(_case_id(case)))


assert set(FLOAT64_VALUES) <= set(IDS), sorted(set(FLOAT64_VALUES) - set(IDS))
GRAD_CASES = [c for n, c in enumerate(CASES) if n % GRAD_SAMPLE == 0 or _case_id(c) in VMAP_GRAD_EXTRA]
assert VMAP_GRAD_EXTRA <= set(IDS), sorted(VMAP_GRAD_EXTRA - set(IDS))


@pytest.mark.parametrize("case", _params(GRAD_CASES, VMAP_GRAD_XFAILS))
def test_vmap_of_grad_matches_a_loop_of_grad(case):
    args = _args(case)
    mapped = {i for i, a in enumerate(args) if is_float_operand(a)}
    examples, batched, axes = batch(args, mapped)
    grad = astjax.grad(case.fn, argnums=case.argnums)
    _check_vmap(grad, examples, batched, axes, f"vmap(grad) of {_case_id(case)}, in_axes={axes}", 1e-9, 1e-11,
                refused=VMAP_REFUSED.get(_case_id(case)))


# ------------------------------------------------------------------ 2. float32
# Every primitive's first case and every third case by default (in float64 every case is checked by
# tests/test_rules.py), and the cases listed above; every case under ASTJAX_LONG_PROPERTIES=1.
FLOAT32_CASES = covering_sample(CASES, _primitive, 3, offset=1,
                                keep=lambda c: _case_id(c) in FLOAT32_XFAILS or _case_id(c) in FLOAT32_LOOSE
                                or _case_id(c) in FLOAT64_VALUES)


def test_the_default_samples_cover_every_primitive_and_every_case():
    """Sampling never drops a primitive from a battery, and each case is batched by one vmap battery."""
    for sample, what in ((VMAP_CASES, "vmap of every float argument"), (FLOAT32_CASES, "float32 value and gradient")):
        assert_covers(sample, CASES, _primitive, what)
    batched = {_case_id(c) for c in VMAP_CASES} | {_case_id(c) for c in FIRST_OPERAND_CASES}
    assert batched == set(IDS), sorted(set(IDS) - batched)[:10]


@pytest.mark.parametrize("case", _params(FLOAT32_CASES, FLOAT32_XFAILS))
def test_float32_value_and_gradient(case):
    args = _args(case)
    args32 = tuple(float32(a) for a in args)
    value_and_grad = astjax.value_and_grad(case.fn, argnums=case.argnums)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        plain = case.fn(*args32)
        value32, grads32 = value_and_grad(*args32)
        _, grads64 = value_and_grad(*args)
    assert np.asarray(value32).dtype == np.asarray(plain).dtype, (
        f"value dtype {np.asarray(value32).dtype}, the plain call on float32 gives {np.asarray(plain).dtype}")
    expected_dtype = np.float64 if _case_id(case) in FLOAT64_VALUES else np.float32
    assert np.asarray(value32).dtype == expected_dtype, (
        f"value dtype {np.asarray(value32).dtype} on float32 inputs (FLOAT64_VALUES lists the float64 ones)")
    for i, g in zip(case.argnums, grads32):
        for leaf, x in zip(tree_util.tree_leaves(g), tree_util.tree_leaves(args32[i])):
            assert np.asarray(leaf).dtype == np.asarray(x).dtype, (
                f"gradient of argument {i} has dtype {np.asarray(leaf).dtype}, its input {np.asarray(x).dtype}")
    rtol, atol = FLOAT32_LOOSE.get(_case_id(case), (1e-3, 1e-4))
    assert_trees_close(grads32, grads64, rtol, atol, f"{_case_id(case)}: float32 gradient against float64")


# ------------------------------------------------------------------ found by the sweep
def test_a_negative_constant_base_keeps_its_parentheses():
    """`(-1.0) ** n` was printed `-1.0 ** n`, read back as -(1.0 ** n): grad and jit gave -1 for +1
    (found through np.diff's adjoint under vmap, whose (-1.0) ** n flipped the sign of the gradient)."""
    from primitive_sweep_helpers import negative_base_power
    x = np.array([1.0, 2.0])
    np.testing.assert_array_equal(np.asarray(astjax.grad(negative_base_power)(x, 2.0)), [1.0, 1.0])
    assert float(astjax.jit(negative_base_power)(x, 2.0)) == 3.0
    assert float(astjax.jit(negative_base_power)(x, 3.0)) == -3.0
    batched = astjax.vmap(negative_base_power, in_axes=(None, 0))(x, np.array([2.0, 3.0]))
    np.testing.assert_array_equal(np.asarray(batched), [3.0, -3.0])
    assert "(-1.0) ** n" in astjax.source(astjax.grad(negative_base_power))
