"""jit of what ran without jit but was refused under it (issue 7, continued): each compiles and agrees with
the reference backend (no jit) and, for derivatives, with central finite differences.

1. jit(grad) through lax.while_loop, lax.fori_loop and a Python `while` whose carry starts as a Python
   float (a while loop's state `(0, 1.0)` is a tuple the adjoint seed is written into as it is);
2. jit(vmap(grad(f))) through lax.scan (vmap loops over the examples: stack_adjoint_examples lowered);
3. jit(vmap(hessian(f))) of a product (lone_zero_derivative and stack_examples lowered; two zeros in a
   slice are refused, naming the user's line, as without jit);
4. jit of jnp.piecewise and jnp.apply_along_axis (their dtype and axis helpers fold per signature, `.at[mask]`
   updates and `x[mask]` of a boolean mask of rank 2 lower);
5. jit(grad) of an update on overlapping slices, `y[1:] += y[:-1]` (NumPy buffers the right side; the
   functional `.at[]` update reads the old values, and its adjoints lower for slices).

Shapes are small and float64 throughout; each compiled function is built once. Numba's compiles cost
1-25 CPU-s each here, so the default profile runs the while loop, the boolean mask and the overlapping
slices; ASTJAX_LONG_PROPERTIES=1 runs all.
"""
import numpy as np
import pytest
from finite_differences import central_difference
from sampling import LONG

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.backends.numba_cpu import JitError
from astjax.errors import RuntimeRefusal

long_only = pytest.mark.skipif(not LONG, reason="Numba compiles of several seconds: ASTJAX_LONG_PROPERTIES=1")


def _agrees_with_reference_and_differences(f, calls, argnum=0):
    """jit(grad(f)) on each call (the second runs the compiled code alone) against grad(f) and differences."""
    compiled = astjax.jit(astjax.grad(f, argnums=argnum))
    for call in calls:
        got = compiled(*call)
        np.testing.assert_allclose(got, astjax.grad(f, argnums=argnum)(*call), rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(got, central_difference(f, call, argnum), rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ 1. a loop's carry that starts as a float
def while_from_float(x):
    def cond(state):
        return state[0] < 3
    def body(state):
        return (state[0] + 1, state[1] * jnp.sin(x) + 0.5)
    return lax.while_loop(cond, body, (0, 1.0))[1]


def fori_from_float(x):
    return lax.fori_loop(0, 3, lambda i, c: c * jnp.sin(x) + 0.5, 1.0)


def python_while_from_float(x):
    c = 1.0
    i = 0
    while i < 3:
        c = c * jnp.sin(x) + 0.5
        i += 1
    return c


@pytest.mark.parametrize("f", [
    pytest.param(while_from_float, id="lax.while_loop"),
    pytest.param(fori_from_float, marks=long_only, id="lax.fori_loop"),
    pytest.param(python_while_from_float, marks=long_only, id="python_while"),
])
def test_jit_of_grad_through_a_loop_whose_carry_starts_as_a_python_float(f):
    _agrees_with_reference_and_differences(f, [(np.float64(0.7),), (np.float64(-1.3),)])


def test_a_python_float_carry_that_becomes_an_array_in_a_branch_stays_refused_at_its_line():
    """The carry `c = 1.0` becomes a vector inside an `if`: after a loop that ran, it may still be the number,
    and its (1,) stand-in would change the result's shape, so jit refuses it, naming the line (start it as an
    array instead). Updated elementwise in the loop's body it compiles (tests/test_jit_composed9.py)."""
    def total(x):
        c = 1.0
        for i in range(3):
            if i > 0:
                c = c * jnp.sin(x) + 0.5
        return jnp.sum(c)
    with pytest.raises(JitError, match="starts as the number 1.0 and later holds an array") as info:
        astjax.jit(astjax.grad(total))(np.array([0.7, -0.2]))
    assert "test_jit_composed8.py" in str(info.value)


# ------------------------------------------------------------------ 2. vmap of grad through lax.scan
def scanned(w, xs):
    carry, ys = lax.scan(lambda c, x: (jnp.sin(c * w) + x, c * x), 0.5 * xs[0], xs)
    return carry + jnp.sum(ys)


@long_only
def test_jit_of_vmap_of_grad_through_lax_scan_agrees():
    ws, xss = np.array([0.7, -0.3]), np.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])
    compiled = astjax.jit(astjax.vmap(astjax.grad(scanned, argnums=(0, 1))))
    for scale in (1.0, -0.5):
        got = compiled(ws * scale, xss)
        for k in range(2):
            want = astjax.grad(scanned, argnums=(0, 1))(ws[k] * scale, xss[k])
            for g, r, argnum in zip(got, want, (0, 1)):
                np.testing.assert_allclose(g[k], r, rtol=1e-10, atol=1e-12)
                np.testing.assert_allclose(g[k], central_difference(scanned, (ws[k] * scale, xss[k]), argnum),
                                           rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ 3. vmap of hessian of a product
def product(x):
    return jnp.prod(x) + jnp.sum(jnp.sin(x))


@long_only
def test_jit_of_vmap_of_hessian_of_prod_agrees_and_refuses_two_zeros():
    xs = np.array([[0.3, -0.7, 1.1], [1.5, 0.0, -0.4]])        # one zero in the second example: exact
    compiled = astjax.jit(astjax.vmap(astjax.hessian(product)))
    for scale in (1.0, 2.0):
        got = compiled(xs * scale)
        for k, x in enumerate(xs * scale):
            np.testing.assert_allclose(got[k], astjax.hessian(product)(x), rtol=1e-12, atol=1e-12)
            rows = [central_difference(lambda y, i=i: astjax.grad(product)(y)[i], (x,), 0) for i in range(3)]
            np.testing.assert_allclose(got[k], np.array(rows), rtol=1e-5, atol=1e-6)
    two_zeros = xs.copy()
    two_zeros[0, :2] = 0.0
    with pytest.raises(RuntimeRefusal, match="second derivative of prod") as info:
        compiled(two_zeros)                     # compiled code finds them; the reference names the line
    assert "test_jit_composed8.py" in str(info.value)


# ------------------------------------------------------------------ 4. piecewise and apply_along_axis
def square(v):
    return v * v


def pieces(x):
    return jnp.piecewise(x, [x < 0, x > 1], [square, jnp.sin, 0.5])


def row_sum(row, w):
    return jnp.sum(jnp.sin(row) * w)


def doubled(row):
    return row * 2.0 + row[0]


def along_rows(x, w):
    return jnp.apply_along_axis(row_sum, -1, x, w)


def along_middle(x):
    return jnp.apply_along_axis(doubled, 1, x)


@long_only
def test_jit_of_piecewise_and_apply_along_axis_agrees():
    x = np.array([[0.5, -1.0, 2.0], [0.1, 1.5, -0.3]])
    cube = np.arange(24.0).reshape(2, 3, 4) / 10 - 1.0
    for run, args in ((pieces, (x,)), (along_rows, (cube, np.array([0.3, 0.2, 0.1, 0.5]))), (along_middle, (cube,))):
        compiled = astjax.jit(run)
        for scale in (1.0, -2.0):
            call = (args[0] * scale,) + args[1:]
            got, want = compiled(*call), run(*call)
            assert got.shape == want.shape and got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=1e-12)


def selected(x):
    return x[x > 0] * 2.0


def test_jit_of_a_boolean_mask_of_rank_two_selects_in_c_order():
    """Numba's own `x[mask]` of a 2-d mask failed to compile; the selection is NumPy's, in C order."""
    compiled = astjax.jit(selected)
    for x in (np.array([[0.5, -1.0, 2.0], [0.1, 1.5, -0.3]]), np.array([[-1.0, 3.0], [4.0, -2.0], [5.0, 6.0]])):
        np.testing.assert_array_equal(compiled(x), x[x > 0] * 2.0)


# ------------------------------------------------------------------ 5. overlapping slices
def running(x):
    y = x * 1.0
    y[1:] += y[:-1]             # NumPy buffers the right side: y[k] + x[k - 1], not a running sum
    return y


def overlapping(x):
    y = x * 1.0
    y[1:] += y[:-1]
    y[:-1] *= y[1:]
    return jnp.sum(jnp.sin(y))


def test_jit_of_an_update_on_overlapping_slices_agrees():
    x = np.array([1.0, 2.0, 3.0, 4.0])
    if LONG:
        np.testing.assert_array_equal(astjax.jit(running)(x), [1.0, 3.0, 5.0, 7.0])
    _agrees_with_reference_and_differences(overlapping, [(x * 0.3,), (x * -0.2,)])


# ------------------------------------------------------------------ 5b. a loop over a dict argument's keys
def squares_by_key(d):
    total = 0.0
    for k in d.keys():
        total = total + jnp.sum(d[k] ** 2)
    return total


def scaled_items(d):
    total = 0.0
    for k, v in d.items():              # the order counts: each item doubles the ones before it
        total = total * 2.0 + jnp.sum(v)
    return total


def test_jit_of_a_loop_over_a_dict_arguments_keys_agrees():
    """The keys, in their order, are part of the signature: the loop runs once per key, written out."""
    d = {"a": np.array([1.0, 2.0]), "b": np.array([[3.0, -1.0], [0.5, 2.0]])}
    runs = [(scaled_items, [d, {"b": d["b"], "a": d["a"]}])]          # another order: another signature
    if LONG:
        runs.append((squares_by_key, [d, {"a": d["a"] * 2, "b": d["b"]}]))
    for run, calls in runs:
        compiled = astjax.jit(run)
        results = [compiled(call) for call in calls]
        for got, call in zip(results, calls):
            np.testing.assert_allclose(got, run(call), rtol=1e-12)
        assert results[0] != results[1]        # the order (scaled_items) or the values (squares_by_key) differ
