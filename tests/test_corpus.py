"""Every corpus function (tests/corpus) through astjax's transformations.

* reverse mode: `astjax.grad(f, argnums)` against central finite differences;
* forward mode: `astjax.jvp(f, primals, tangents)` against the directional
  derivative from the reverse-mode gradient and from finite differences;
* second order on scalar-input entries: `grad(grad(f))` against finite
  differences of the first derivative;
* `astjax.value_and_grad` returns f's value alongside the gradient;
* `astjax.source(astjax.grad(f))` is the generated Python source.

Inputs are float64, so finite differences are accurate to ~1e-9 and the
tolerances below are tight. An entry whose mode fails because of astjax
records the reason in its `xfail` dict (strict: a fix shows up as XPASS).
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

from closeness import assert_scaled_close
from corpus import ENTRIES

RTOL = 2e-5
ATOL = 2e-6


# ----------------------------------------------------------------- parametrization
def _params(mode, select=None):
    params = []
    for e in ENTRIES:
        if select is not None and not select(e):
            continue
        reason = e.xfail.get(mode)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(e, id=e.name, marks=marks))
    return params


_GRADS = {}


def _grad(entry):
    """astjax.grad(entry.fn, entry.argnums), built once per entry (its source is generated on first call)."""
    if entry.name not in _GRADS:
        _GRADS[entry.name] = astjax.grad(entry.fn, argnums=entry.argnums)
    return _GRADS[entry.name]


# ----------------------------------------------------------------- finite differences
def _call(fn, args):
    return np.float64(np.asarray(fn(*args)))


def _replace(args, i, value):
    args = list(args)
    args[i] = jnp.asarray(np.asarray(value, dtype=np.float64))
    return args


def fd_gradient(fn, args, i, h):
    """Central differences of scalar `fn` with respect to args[i], one element at a time."""
    x = np.array(args[i], dtype=np.float64)
    grad = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        step = h * max(1.0, abs(x[idx]))
        up, down = x.copy(), x.copy()
        up[idx] += step
        down[idx] -= step
        grad[idx] = (_call(fn, _replace(args, i, up)) - _call(fn, _replace(args, i, down))) / (up[idx] - down[idx])
    return grad


def fd_directional(fn, args, tangents, argnums, h):
    """Central difference of `fn` along `tangents` (given for the arguments in argnums)."""
    up, down = list(args), list(args)
    for i in argnums:
        x = np.asarray(args[i], dtype=np.float64)
        t = np.asarray(tangents[i], dtype=np.float64)
        up[i] = jnp.asarray(x + h * t)
        down[i] = jnp.asarray(x - h * t)
    return (_call(fn, up) - _call(fn, down)) / (2 * h)


def _as_tuple(grads, entry):
    return (grads,) if isinstance(entry.argnums, int) else tuple(grads)


def _assert_close(actual, expected, what):
    assert_scaled_close(actual, expected, RTOL, ATOL, what)


# ----------------------------------------------------------------- reverse mode
@pytest.mark.parametrize("entry", _params("grad"))
def test_grad_matches_finite_differences(entry):
    args = entry.args()
    grads = _as_tuple(_grad(entry)(*args), entry)
    assert len(grads) == len(entry.argnums_tuple)
    for g, i in zip(grads, entry.argnums_tuple):
        assert np.shape(g) == np.shape(args[i]), f"gradient of argument {i} has the wrong shape"
        expected = fd_gradient(entry.fn, args, i, entry.fd_step)
        _assert_close(g, expected, f"d/d(argument {i}) of {entry.name}")


@pytest.mark.parametrize("entry", _params("value_and_grad"))
def test_value_and_grad_returns_the_value(entry):
    args = entry.args()
    value, grads = astjax.value_and_grad(entry.fn, argnums=entry.argnums)(*args)
    _assert_close(value, _call(entry.fn, args), f"value of value_and_grad({entry.name})")
    expected = _as_tuple(_grad(entry)(*args), entry)
    for g, e in zip(_as_tuple(grads, entry), expected):
        _assert_close(g, e, f"gradient of value_and_grad({entry.name}) vs grad")


# ----------------------------------------------------------------- forward mode
_FLOAT0 = np.dtype([("float0", np.void, 0)])


def _zero_tangent(value):
    """JAX's tangent for a primal that is not differentiated: float0 zeros for integers."""
    if np.issubdtype(np.result_type(value), np.inexact):
        return jnp.zeros_like(jnp.asarray(value))
    float0 = getattr(getattr(astjax, "dtypes", None), "float0", _FLOAT0)
    return np.zeros(np.shape(value), dtype=float0)


@pytest.mark.parametrize("entry", _params("jvp"))
def test_jvp_matches_reverse_mode_and_finite_differences(entry):
    if not hasattr(astjax, "jvp"):
        pytest.skip("astjax.jvp is not implemented yet")
    args = entry.args()
    rng = np.random.default_rng(20240601)
    tangents = [jnp.asarray(rng.standard_normal(np.shape(a))) if i in entry.argnums_tuple else _zero_tangent(a)
                for i, a in enumerate(args)]
    primal_out, tangent_out = astjax.jvp(entry.fn, tuple(args), tuple(tangents))
    _assert_close(primal_out, _call(entry.fn, args), f"primal output of jvp({entry.name})")
    expected_fd = fd_directional(entry.fn, args, tangents, entry.argnums_tuple, entry.fd_step)
    _assert_close(tangent_out, expected_fd, f"jvp({entry.name}) vs finite differences")
    if "grad" not in entry.xfail:
        grads = _as_tuple(_grad(entry)(*args), entry)
        expected = sum(float(np.vdot(np.asarray(g), np.asarray(tangents[i])))
                       for g, i in zip(grads, entry.argnums_tuple))
        _assert_close(tangent_out, expected, f"jvp({entry.name}) vs grad . tangent")


# ----------------------------------------------------------------- second order
def _scalar_input(entry):
    return entry.scalar_input


@pytest.mark.parametrize("entry", _params("hessian", select=_scalar_input))
def test_grad_of_grad_matches_finite_differences(entry):
    """d2f/dx2 against finite differences of the first derivative.

    The reference is independent of astjax: central differences of f's central
    differences (a second difference of f). Where grad itself is trusted, the
    finite difference of astjax's first derivative is checked too.
    """
    args = entry.args()
    i = entry.argnums_tuple[0]
    first = astjax.grad(entry.fn, argnums=i)
    value = astjax.grad(first, argnums=i)(*args)
    assert np.shape(value) == ()
    x = float(np.asarray(args[i]))
    h = 1e-4 * max(1.0, abs(x))
    f = [_call(entry.fn, _replace(args, i, x + k * h)) for k in (-1, 0, 1)]
    _assert_close(value, (f[0] - 2 * f[1] + f[2]) / h ** 2, f"second derivative of {entry.name} vs FD of FD")
    if "grad" not in entry.xfail:
        h = 1e-5 * max(1.0, abs(x))
        up = np.asarray(first(*_replace(args, i, x + h)), dtype=np.float64)
        down = np.asarray(first(*_replace(args, i, x - h)), dtype=np.float64)
        _assert_close(value, (up - down) / (2 * h), f"second derivative of {entry.name} vs FD of grad")


# ----------------------------------------------------------------- generated source
@pytest.mark.parametrize("entry", _params("source"))
def test_source_is_python(entry):
    text = astjax.source(_grad(entry))
    assert isinstance(text, str)
    assert "def " in text


def test_corpus_is_large_and_varied():
    assert len({e.fn for e in ENTRIES}) >= 80
    tags = set().union(*(e.tags for e in ENTRIES))
    for construct in ("if_else", "if_elif_else", "conditional_expression", "for_range", "for_array", "enumerate",
                      "zip", "while", "break", "continue", "early_return", "multiple_returns", "return_in_loop",
                      "nested_loops", "at_set", "at_add", "item_augassign", "indexing", "slicing", "call",
                      "other_module", "recursion", "closure", "reduction", "broadcasting", "matmul", "dot",
                      "where", "maximum", "numpy"):
        assert construct in tags, construct
    assert len({e.name for e in ENTRIES}) == len(ENTRIES)
