"""jit of composed transformations that jit refused before (issue 7): each compiles, and agrees with the
reference backend (no jit) and, for derivatives, with central finite differences.

1. jit(grad) through lax.scan, lax.map and a lax.while_loop over a tuple state (the reverse sweep splits the
   stacked ys adjoint into items and reads tuple adjoints item by item: runtime/numba_list_adjoints.py);
2. jit(vmap(jacfwd)) and jit(vmap(hessian)) (vmap's example_of, batch helpers folded per signature);
3. jit(grad(loss)) with `for w, b in params` over a list of layers (a list's adjoint, one per item,
   becomes the reference's TreeAdjoint at the boundary: jit/dense_adjoints.py);
4. lax.scan whose carry changes dtype: JAX refuses it (TypeError), and so does astjax, with and without jit.

Shapes are small and float64 throughout; each compiled function is built once. Numba's compiles cost
1-10 CPU-s each here, so the default profile runs a scan over one array, the while loop (tuple adjoints)
and the dtype refusal (test_jit_of_functions_calling_grad.py compiles the loop over layers);
ASTJAX_LONG_PROPERTIES=1 runs all.
"""
import numpy as np
import pytest
from finite_differences import central_difference
from sampling import LONG

import astjax
import astjax.numpy as jnp
from astjax import lax

long_only = pytest.mark.skipif(not LONG, reason="Numba compiles of several seconds: ASTJAX_LONG_PROPERTIES=1")


# ------------------------------------------------------------------ 1. reverse of scan, map, while_loop
def scan_pair(w, xs):
    def body(carry, x):
        a, b = carry
        return (a * w + x, b + jnp.sin(a)), a * b
    (a, b), ys = lax.scan(body, (xs[0], 0.5 * xs[1]), xs)
    return jnp.sum(a) + jnp.sum(b) + jnp.sum(ys)


def scanned(w, xs):
    carry, ys = lax.scan(lambda c, x: (jnp.sin(c * w) + x, c * x), 0.5 * xs[0], xs)
    return carry + jnp.sum(ys)


def mapped(w, xs):
    return jnp.sum(lax.map(lambda x: jnp.sin(w * x), xs))


def counted(w, x):
    def cond(state):
        return state[0] < 3
    def body(state):
        return (state[0] + 1, jnp.sin(state[1] * w))
    return jnp.sum(lax.while_loop(cond, body, (0, x))[1])


LOOPS = [
    pytest.param(scan_pair, (np.float64(0.7), np.array([[0.5, 1.0], [-1.0, 0.3], [2.0, 0.1]])), marks=long_only,
                 id="scan_pair"),
    pytest.param(scanned, (np.float64(0.7), np.array([0.5, -1.0, 2.0])), id="scanned"),
    pytest.param(mapped, (np.float64(0.7), np.array([0.5, -1.0, 2.0])), marks=long_only, id="mapped"),
    pytest.param(counted, (np.float64(0.7), np.array([0.3, -0.2])), id="counted"),
]


@pytest.mark.parametrize("f, args", LOOPS)
def test_jit_of_grad_through_a_lax_loop_agrees(f, args):
    compiled = astjax.jit(astjax.grad(f, argnums=(0, 1)))
    for scale in (1.0, -0.5):           # the second call runs the compiled code alone
        call = (args[0] * scale, args[1])
        got = compiled(*call)
        want = astjax.grad(f, argnums=(0, 1))(*call)
        for g, r, k in zip(got, want, (0, 1)):
            np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(g, central_difference(f, call, k), rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ 2. vmap of forward-mode Jacobians
def cubic(x):
    return jnp.sum(jnp.sin(x) * x[0]) + x[1] ** 3


@long_only
def test_jit_of_vmap_of_jacfwd_and_hessian_agree():
    xs = np.array([[0.3, -0.7, 1.1], [1.5, 0.2, -0.4]])
    jac = astjax.jit(astjax.vmap(astjax.jacfwd(cubic)))(xs)
    hess = astjax.jit(astjax.vmap(astjax.hessian(cubic)))(xs)
    for k, x in enumerate(xs):
        np.testing.assert_allclose(jac[k], astjax.jacfwd(cubic)(x), rtol=1e-12)
        np.testing.assert_allclose(hess[k], astjax.hessian(cubic)(x), rtol=1e-12)
        np.testing.assert_allclose(jac[k], central_difference(cubic, (x,), 0), rtol=1e-6, atol=1e-8)
        rows = [central_difference(lambda y, i=i: astjax.grad(cubic)(y)[i], (x,), 0) for i in range(3)]
        np.testing.assert_allclose(hess[k], np.array(rows), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------ 3. a loop over a list of layers
def predict(params, x):
    for w, b in params:
        x = jnp.tanh(x @ w + b)
    return x


def loss(params, x):
    return jnp.sum(predict(params, x) ** 2)


@long_only
def test_jit_of_grad_over_a_list_of_layers_agrees():
    rng = np.random.default_rng(7)
    params = [(rng.normal(size=(3, 4)), rng.normal(size=4)), (rng.normal(size=(4, 2)), rng.normal(size=2))]
    x = rng.normal(size=(5, 3))
    compiled = astjax.jit(astjax.grad(loss))
    for call in range(2):               # the second call runs the compiled code alone
        got, want = compiled(params, x), astjax.grad(loss)(params, x)
        assert isinstance(got, list) and all(isinstance(layer, tuple) for layer in got)
        for (gw, gb), (rw, rb) in zip(got, want):
            np.testing.assert_allclose(gw, rw, rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(gb, rb, rtol=1e-10, atol=1e-12)
    w0, b0 = params[0]
    numeric = central_difference(lambda w: loss([(w, b0), params[1]], x), (w0,), 0)
    np.testing.assert_allclose(got[0][0], numeric, rtol=1e-5, atol=1e-7)


# ------------------------------------------------------------------ 4. a scan whose carry changes dtype
def accumulate(init, xs):
    return lax.scan(lambda c, x: (c + x, c), init, xs)


def test_a_scan_whose_carry_changes_dtype_is_refused_as_jax_refuses_it():
    xs = np.array([0.5, -1.0, 2.0], np.float32)
    for run in (accumulate, astjax.jit(accumulate)):
        with pytest.raises(TypeError, match="carry input and carry output must have equal types") as info:
            run(np.int32(0), xs)
        assert "int32[] but the corresponding output carry component has type float" in str(info.value)
    # a Python number is weakly typed: JAX gives the carry the output's dtype, and so does astjax
    carry, _ = astjax.jit(accumulate)(0.0, xs)
    assert carry.dtype == np.float32 and float(carry) == 1.5
