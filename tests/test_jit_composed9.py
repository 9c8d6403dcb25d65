"""jit of what ran without jit but was refused under it (issue 7, continued): each compiles and agrees with
the reference backend (no jit) and, for derivatives, with central finite differences.

1. jit(grad) of jnp.piecewise and jnp.apply_along_axis: the derivative's primal sweep calls vmap at run time,
   which compiled code now calls as the batched function the first call ran (jit/lower/vmap_calls.py);
   piecewise's adjoints read and clear a boolean mask (part_at, cleared_at), dtype_adjoint is lowered;
2. jit(grad) with respect to a dict read in a loop over its keys: both sweeps are written out per key, the
   reverse sweep reading the key it restores from the tape as a constant (jit/lower/dict_key_loops.py);
3. a loop carry that starts as a Python float and becomes an array (`acc = 0.0; for row in X: acc = acc + row`)
   under jit and jit(grad): a (1, ..., 1) stand-in where one loop updates it elementwise, and the reference
   backend's result where that loop runs no iteration (jit/lower/number_carries.py); a carry that becomes an
   array inside an `if` stays refused.

Shapes are small and float64 throughout; each compiled function is built once. Numba's compiles cost seconds
each, so the default profile runs the carry and the dict; ASTJAX_LONG_PROPERTIES=1 runs all.
"""
import numpy as np
import pytest
from finite_differences import central_difference, jit_gradient_agrees
from sampling import LONG

import astjax
import astjax.numpy as jnp
from astjax.backends.numba_cpu import JitError

long_only = pytest.mark.skipif(not LONG, reason="Numba compiles of several seconds: ASTJAX_LONG_PROPERTIES=1")




# ------------------------------------------------------------------ 1. piecewise and apply_along_axis
def square(v):
    return v * v


def pieces(x):
    return jnp.sum(jnp.sin(jnp.piecewise(x, [x < 0, x > 1], [square, jnp.sin, 0.5])))


def row_sum(row, w):
    return jnp.sum(jnp.sin(row) * w)


def along_rows(x, w):
    return jnp.sum(jnp.apply_along_axis(row_sum, -1, x, w) ** 2)


def doubled(row):
    return row * 2.0 + row[0]


def along_middle(x):
    return jnp.sum(jnp.sin(jnp.apply_along_axis(doubled, 1, x)))


@long_only
def test_jit_of_grad_of_piecewise_and_apply_along_axis_agrees():
    x = np.array([[0.5, -1.0, 2.0], [0.1, 1.5, -0.3]])
    cube = np.arange(24.0).reshape(2, 3, 4) / 10 - 1.0
    jit_gradient_agrees(pieces, [(x,), (x * -2.0,)])             # -2x: other elements in each piece, some pieces empty
    jit_gradient_agrees(along_rows, [(x, np.array([0.3, 0.2, 0.1])), (x * 0.5, np.array([1.0, -1.0, 2.0]))])
    jit_gradient_agrees(along_rows, [(x, np.array([0.3, 0.2, 0.1]))], argnum=1)
    jit_gradient_agrees(along_middle, [(cube,), (cube * 0.3,)])


# ------------------------------------------------------------------ 2. a dict read in a loop over its keys
def squares_by_key(d):
    total = 0.0
    for k in d:
        total += jnp.sum(d[k] ** 2)
    return total


def scaled_items(d):
    total = 0.0
    for k, v in d.items():              # the order counts: each item doubles the ones before it
        total = total * 2.0 + jnp.sum(jnp.sin(v))
    return total


def _dict_difference(f, d):
    """Central differences of f with respect to each of the dict's arrays, f reading the keys sorted (grad
    passes f its dict argument rebuilt from the flattened leaves, sorted by key, as JAX does)."""
    d = dict(sorted(d.items()))
    return {k: central_difference(lambda a, k=k: f({**d, k: a}), (d[k],), 0) for k in d}


def _dict_agrees(f, calls):
    compiled = astjax.jit(astjax.grad(f))
    for d in calls:
        got, want, differences = compiled(d), astjax.grad(f)(d), _dict_difference(f, d)
        assert list(got) == list(want)          # sorted keys, as JAX orders a dict
        for k in d:
            np.testing.assert_allclose(got[k], want[k], rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(got[k], differences[k], rtol=1e-5, atol=1e-7)


def test_jit_of_grad_with_respect_to_a_dict_read_in_a_loop_over_its_keys_agrees():
    """The keys, in their order, are the signature's; the derivative saves each key on its tape, and the
    reverse sweep's copies read the key it restores as a constant."""
    d = {"a": np.array([1.0, 2.0]), "b": np.array([[3.0, -1.0], [0.5, 2.0]])}
    _dict_agrees(scaled_items, [d, {"b": d["b"] * 0.5, "a": d["a"]}])      # another order: another signature
    if LONG:
        _dict_agrees(squares_by_key, [d, {"a": d["a"] * -2.0, "b": d["b"]}])


# ------------------------------------------------------------------ 3. a float carry that becomes an array
def rows_total(X):
    acc = 0.0
    for row in X:
        acc = acc + row
    return acc


def rows_loss(X):
    acc = 0.0
    for row in X:
        acc = acc * 0.5 + jnp.sin(row)
    return jnp.sum(acc * acc)


def test_jit_of_a_float_carry_that_becomes_an_array_agrees():
    """The first iteration's shape gives the carry its type; a loop of no iteration returns the number, as
    the reference backend does (compiled code hands that call to it)."""
    X = np.array([[0.5, -1.0, 2.0], [0.1, 1.5, -0.3]])
    compiled = astjax.jit(rows_total)
    for rows in (X, X[:1] * -3.0, np.ones((4, 3))):
        got = compiled(rows)
        assert got.shape == (3,)
        np.testing.assert_array_equal(got, rows_total(rows))
    empty = compiled(np.zeros((0, 3)))
    assert np.ndim(empty) == 0 and float(empty) == 0.0


@long_only
def test_jit_of_grad_through_a_float_carry_that_becomes_an_array_agrees():
    X = np.array([[0.5, -1.0, 2.0], [0.1, 1.5, -0.3]])
    compiled = jit_gradient_agrees(rows_loss, [(X,), (X * -0.7,), (np.ones((3, 3)),), (X[:1],)])
    empty = compiled(np.zeros((0, 3)))          # no iteration: the reference backend's gradient
    assert empty.shape == (0, 3)


def in_a_branch(X):
    acc = 0.0
    for row in X:
        if row[0] > 0:
            acc = acc + row               # after a loop that ran, acc may still be the number
    return acc


def test_a_float_carry_that_becomes_an_array_in_a_branch_stays_refused_at_its_line():
    with pytest.raises(JitError, match="starts as the number 0.0 and later holds an array") as info:
        astjax.jit(in_a_branch)(np.array([[0.5, -1.0], [0.1, 1.5]]))
    assert "test_jit_composed9.py" in str(info.value)


# ------------------------------------------------------------------ 4. Python's builtin sum of a list
def squares_listed(w, X):
    errs = [(jnp.tanh(X[i] @ w) - 0.5) ** 2 for i in range(X.shape[0])]
    return sum(errs) / len(errs)


def sines_listed(X):
    parts = [jnp.sin(X[i]) for i in range(X.shape[0])]
    return jnp.sum(sum(parts, 1) * 2.0)


@long_only
def test_jit_of_the_builtin_sum_of_a_list_agrees():
    """Python's left fold over a list of floats or float arrays, and its adjoint held as one stacked array;
    an empty list sums to its start, a number: the reference backend computes that call."""
    X = np.array([[0.5, -1.0, 2.0], [0.1, 1.5, -0.3]])
    w = np.array([0.3, -0.2, 0.1])
    jit_gradient_agrees(squares_listed, [(w, X), (w * -2.0, np.ones((4, 3)))])
    jit_gradient_agrees(sines_listed, [(X,), (X * 0.3,)])
    compiled = astjax.jit(sines_listed)
    for rows in (X, X[:0]):
        np.testing.assert_allclose(compiled(rows), sines_listed(rows), rtol=1e-12)
