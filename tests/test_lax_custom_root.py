"""lax.custom_root: value from solve, derivatives by the implicit function theorem (normalize/custom_roots.py)."""
import gast
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError

from adversarial.implicit import bisect    # a solver astjax cannot differentiate usefully (comparisons)


def sqrt_cubed(x):                      # JAX's docs example: y = x ** 1.5
    f = lambda y: y ** 2 - x ** 3
    return lax.custom_root(f, 1.0, bisect, lambda g, y: y / g(1.0))


def newton_solve(f, x0):
    x = x0
    for _ in range(6):
        x = x - jnp.linalg.solve(astjax.jacfwd(f)(x), f(x))
    return x


def vector_root(A, b):                  # A x + x ** 3 = b
    def f(x):
        return A @ x + x ** 3 - b

    def tangent_solve(g, v):
        return jnp.linalg.solve(astjax.jacfwd(g)(jnp.zeros_like(v)), v)
    return lax.custom_root(f, jnp.zeros_like(b), newton_solve, tangent_solve)


def vector_loss(A, b):
    return jnp.sum(jnp.sin(vector_root(A, b)))


def scalar_newton(f, x0):
    x = x0
    for _ in range(12):
        x = x - f(x) / astjax.grad(f)(x)
    return x, 12.0


def cube_root_aux(c):
    f = lambda y: y ** 3 - c
    one = 1.0
    y, steps = lax.custom_root(f, one, scalar_newton, lambda g, v: v / g(1.0), has_aux=True)
    return y * steps


def _fd(fun, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    out = []
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out.append((np.asarray(fun(x + e)) - np.asarray(fun(x - e))) / (2 * eps))
    return np.stack(out, axis=-1).reshape(np.shape(fun(x)) + x.shape)


def _numpy_root(A, b):
    """The root of A x + x ** 3 = b by NumPy alone (the finite-difference oracle)."""
    x = np.zeros_like(b)
    for _ in range(12):
        x = x - np.linalg.solve(A + np.diag(3 * x ** 2), A @ x + x ** 3 - b)
    return x


def _vector_data():
    rng = np.random.default_rng(0)
    return np.eye(3) * 3 + 0.3 * rng.standard_normal((3, 3)), rng.standard_normal(3)


def test_scalar_root_all_orders():
    x = np.float64(2.0)
    assert sqrt_cubed(x) == bisect(lambda y: y ** 2 - x ** 3, 1.0)
    d1, d2, d3 = 1.5 * x ** 0.5, 0.75 * x ** -0.5, -0.375 * x ** -1.5
    assert np.allclose(astjax.grad(sqrt_cubed)(x), d1)
    y, dy = astjax.jvp(sqrt_cubed, (x,), (np.float64(1.0),))
    assert y == sqrt_cubed(x) and np.allclose(dy, d1)
    assert np.allclose(astjax.hessian(sqrt_cubed)(x), d2)
    assert np.allclose(astjax.jacfwd(astjax.jacfwd(sqrt_cubed))(x), d2)
    assert np.allclose(astjax.jacfwd(astjax.jacfwd(astjax.jacfwd(sqrt_cubed)))(x), d3, rtol=1e-6)


def test_vector_root_against_finite_differences():
    A, b = _vector_data()
    y = vector_root(A, b)
    assert np.allclose(A @ y + y ** 3, b)
    assert np.array_equal(y, newton_solve(lambda x: A @ x + x ** 3 - b, np.zeros(3)))
    gA, gb = astjax.grad(vector_loss, argnums=(0, 1))(A, b)
    assert np.allclose(gb, _fd(lambda v: np.sum(np.sin(_numpy_root(A, v))), b), atol=1e-8)
    assert np.allclose(gA, _fd(lambda m: np.sum(np.sin(_numpy_root(m, b))), A), atol=1e-8)
    jf = astjax.jacfwd(vector_root, argnums=1)(A, b)
    assert np.allclose(jf, _fd(lambda v: _numpy_root(A, v), b), atol=1e-8)
    assert np.allclose(astjax.jacrev(vector_root, argnums=1)(A, b), jf, atol=1e-12)
    # second order: against finite differences of the first derivative
    h = astjax.hessian(vector_loss, argnums=1)(A, b)
    assert np.allclose(h, _fd(lambda v: astjax.grad(vector_loss, argnums=1)(A, v), b), atol=1e-7)


def test_has_aux_and_vmap():
    c = np.float64(2.0)
    assert np.allclose(cube_root_aux(c), 12 * 2 ** (1 / 3))
    assert np.allclose(astjax.grad(cube_root_aux)(c), 12 * (1 / 3) * 2 ** (-2 / 3))
    A, b = _vector_data()
    bs = np.stack([b, 2 * b, -b])
    assert np.allclose(astjax.vmap(vector_root, in_axes=(None, 0))(A, bs), np.stack([vector_root(A, v) for v in bs]))
    g = astjax.vmap(astjax.grad(vector_loss, argnums=1), in_axes=(None, 0))(A, bs)
    assert np.allclose(g, np.stack([astjax.grad(vector_loss, argnums=1)(A, v) for v in bs]))


def test_jvp_of_jacfwd_of_generated_function():
    """Found here: a transformation of a generated function carried its source (update_wrapper copies
    __dict__), so jvp of `astjax.jacfwd(m)(...)` in generated code computed m instead (value and tangent)."""
    from astjax.backends.python import compile_function
    ns = {"jnp": jnp, "astjax": astjax}
    compile_function(gast.parse("def m(a, v):\n    return a * v\n").body[0], ns, label="m")
    k, _ = compile_function(gast.parse("def k(a, v):\n    J = astjax.jacfwd(m, argnums=1)(a, v)\n"
                                       "    return jnp.sum(J * J)\n").body[0], ns, label="k")
    a, v = np.array([1.0, 2.0]), np.zeros(2)
    y, dy = astjax.jvp(k, (a, v), (np.ones(2), np.zeros(2)))
    assert np.allclose(y, 5.0) and np.allclose(dy, 6.0)


# refusals, each at the user's line
def _local_helper_reader(x):
    h = lambda y: y * x
    f = lambda y: h(y) - 1.0
    return lax.custom_root(f, 1.0, bisect, lambda g, v: v / g(1.0))


def _linear_map_passed_on(x):
    f = lambda y: y * x - 1.0
    return lax.custom_root(f, 1.0, bisect, lambda g, v: _apply(g, v))


def _apply(g, v):
    return v / g(1.0)


def _solver_parameter(x, solve):
    f = lambda y: y * x - 1.0
    return lax.custom_root(f, 1.0, solve, lambda g, v: v / g(1.0))


def _solver_passes_matvec_on(b):
    return jnp.sum(lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda mv, v: dense_solve(mv, v)))


def _inside_lambda(x):
    r = lambda z: lax.custom_root(lambda y: y * z - 1.0, 1.0, bisect, lambda g, v: v / g(1.0))
    return r(x)


def _tuple_root(x):
    f = lambda y: y * x - 1.0
    return lax.custom_root(f, 1.0, lambda f, x0: (bisect(f, x0), x0), lambda g, v: v / g(1.0))


def _mutating_f(a):
    def f(y):
        a[0] = 1.0
        return y * a[0] - 1.0
    return lax.custom_root(f, 1.0, bisect, lambda g, v: v / g(1.0)) * jnp.sum(a)


@pytest.mark.parametrize("fn, arg, words", [
    (_local_helper_reader, 2.0, "local function `h`"),
    (_linear_map_passed_on, 2.0, "other than by calling"),
    (_inside_lambda, 2.0, "inside a local function, lambda or comprehension"),
    (_tuple_root, 2.0, "pytree of roots"),
    (_mutating_f, np.ones(2), "changes `a` of this function in place"),
    (_solver_passes_matvec_on, np.ones(2), "other than by calling"),
])
def test_refusals_name_the_users_line(fn, arg, words):
    with pytest.raises(AstjaxError) as info:
        astjax.grad(fn)(arg)
    assert words in str(info.value) and "test_lax_custom_root.py" in str(info.value)


def test_solver_passed_as_a_value_is_refused():
    with pytest.raises(AstjaxError, match="variable of this function"):
        astjax.grad(_solver_parameter)(2.0, bisect)


def test_jit_refuses_clearly():
    with pytest.raises(AstjaxError, match="custom_root|no Numba lowering"):
        astjax.jit(sqrt_cubed)(np.float64(2.0))


def test_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    A, b = _vector_data()

    def jax_root(A, b):
        def f(x):
            return A @ x + x ** 3 - b

        def solve(f, x0):
            x = x0
            for _ in range(8):
                x = x - jax.numpy.linalg.solve(jax.jacfwd(f)(x), f(x))
            return x
        return jax.lax.custom_root(f, jax.numpy.zeros_like(b), solve,
                                   lambda g, v: jax.numpy.linalg.solve(jax.jacfwd(g)(v), v))

    def jax_loss(A, b):
        return jax.numpy.sum(jax.numpy.sin(jax_root(A, b)))
    for ours, theirs in zip(astjax.grad(vector_loss, argnums=(0, 1))(A, b), jax.grad(jax_loss, argnums=(0, 1))(A, b)):
        assert np.allclose(ours, theirs, atol=1e-10)
    assert np.allclose(astjax.hessian(vector_loss, argnums=1)(A, b), jax.hessian(jax_loss, argnums=1)(A, b),
                       atol=1e-9)


# lax.custom_linear_solve: the root of x -> matvec(x) - b, solve as its tangent_solve
def dense_solve(matvec, b):
    """Reads the matrix off matvec: its own derivative must not be used."""
    m = jnp.stack([matvec(e) for e in jnp.eye(b.shape[0])], axis=1)
    return jnp.linalg.solve(m, b)


def dense_solve_aux(matvec, b):
    m = jnp.stack([matvec(e) for e in jnp.eye(b.shape[0])], axis=1)
    return jnp.linalg.solve(m, b), jnp.sum(b)


def linear(A, b):
    matvec = lambda x: A @ x + 0.5 * x
    return lax.custom_linear_solve(matvec, b, dense_solve, transpose_solve=dense_solve, symmetric=False)


def linear_aux_loss(A, b):
    def matvec(x):
        return A @ x + 0.5 * x
    x, aux = lax.custom_linear_solve(matvec, b, dense_solve_aux, has_aux=True)
    return jnp.sum(jnp.sin(x)) * aux


def _linear_truth(A, b, aux):
    """aux carries no derivative (as in JAX): held at its value."""
    x = np.linalg.solve(A + 0.5 * np.eye(len(b)), b)
    return np.sum(np.sin(x)) * aux


def test_custom_linear_solve():
    A, b = _vector_data()
    assert np.array_equal(linear(A, b), dense_solve(lambda x: A @ x + 0.5 * x, b))
    x, aux = lax.custom_linear_solve(lambda x: A @ x, b, dense_solve_aux, has_aux=True)
    assert np.allclose(A @ x, b) and np.allclose(aux, np.sum(b))
    gA, gb = astjax.grad(linear_aux_loss, argnums=(0, 1))(A, b)
    assert np.allclose(gA, _fd(lambda m: _linear_truth(m, b, np.sum(b)), A), atol=1e-8)
    assert np.allclose(gb, _fd(lambda v: _linear_truth(A, v, np.sum(b)), b), atol=1e-8)
    jf = astjax.jacfwd(linear, argnums=0)(A, b)
    assert np.allclose(jf, _fd(lambda m: np.linalg.solve(m + 0.5 * np.eye(3), b), A), atol=1e-8)
    assert np.allclose(astjax.jacrev(linear, argnums=0)(A, b), jf, atol=1e-12)
    inverse = np.linalg.inv(A + 0.5 * np.eye(3))
    h = astjax.hessian(lambda v: jnp.sum(linear(A, v) ** 2))(b)      # sum(x ** 2), x = M^-1 b: 2 M^-T M^-1
    assert np.allclose(h, 2 * inverse.T @ inverse)


def test_custom_linear_solve_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    A, b = _vector_data()

    def jax_loss(A, b):
        def solve(mv, v):
            m = jax.numpy.stack([mv(e) for e in jax.numpy.eye(3)], axis=1)
            return jax.numpy.linalg.solve(m, v), jax.numpy.sum(v)
        x, aux = jax.lax.custom_linear_solve(lambda x: A @ x + 0.5 * x, b, solve, transpose_solve=solve,
                                             has_aux=True)
        return jax.numpy.sum(jax.numpy.sin(x)) * aux
    for ours, theirs in zip(astjax.grad(linear_aux_loss, argnums=(0, 1))(A, b),
                            jax.grad(jax_loss, argnums=(0, 1))(A, b)):
        assert np.allclose(ours, theirs, atol=1e-10)


_SCALE = 1.0


def scaled_tangent_solve(g, v):         # a module-level tangent_solve: its source is copied, reading _SCALE
    return v / g(1.0) * _SCALE


def root_with_module_tangent_solve(x):
    return lax.custom_root(lambda y: y ** 2 - x, 1.0, lambda f, x0: bisect(f, x0), scaled_tangent_solve)


def test_module_level_tangent_solve_follows_its_globals():
    """Found here: the copied tangent_solve read a snapshot of the module's globals, and a rebinding of one
    did not rebuild the cached derivative (0.25 after _SCALE = 2.0, where the tangent_solve gives 0.5)."""
    global _SCALE
    x = np.float64(4.0)
    assert np.allclose(astjax.grad(root_with_module_tangent_solve)(x), 0.25)
    try:
        _SCALE = 2.0
        assert np.allclose(astjax.grad(root_with_module_tangent_solve)(x), 0.5)
    finally:
        _SCALE = 1.0


offset = 100.0          # a module-level name that chained_with_a_shadowing_local's own `offset` must not read


def chained_with_a_shadowing_local(x):
    """The second root reads the first (a local named like a global): it must go in as an argument."""
    offset = lax.custom_root(lambda y: y ** 2 - jnp.sum(x ** 2), 1.0, bisect, lambda g, y: y / g(1.0))
    return lax.custom_root(lambda z: z ** 3 + z - offset, 0.5, bisect, lambda g, y: y / g(1.0))


def test_a_local_read_by_f_is_an_argument_even_where_a_global_has_its_name():
    x = np.array([0.6, 0.8])
    r = np.sqrt(np.sum(x ** 2))

    def exact(r):                      # z ** 3 + z = r
        return np.roots([1.0, 0.0, 1.0, -r]).real.max()
    z = exact(r)
    assert abs(float(chained_with_a_shadowing_local(x)) - z) < 1e-6
    value, g = astjax.value_and_grad(chained_with_a_shadowing_local)(x)
    assert abs(float(value) - z) < 1e-6
    np.testing.assert_allclose(g, (x / r) / (3 * z ** 2 + 1), rtol=1e-5)      # dz/dr * dr/dx
    xs = np.stack([x, 0.5 * x, 2.0 * x])
    per_example = astjax.vmap(astjax.grad(chained_with_a_shadowing_local))(xs)
    np.testing.assert_allclose(per_example, np.stack([astjax.grad(chained_with_a_shadowing_local)(e) for e in xs]),
                               rtol=1e-10)
