"""lax.custom_root and lax.custom_linear_solve as an attacker writes them (issue 9): closures read late,
rebound after the call, integer and array parameters, solvers that read the differentiated input, roots
inside loops and callees, chained roots, matvecs closing over computed arrays, and what must be refused
(a function defined twice, a solver held in a variable, a linear map passed on).

The solvers converge to machine precision, so central finite differences of the original function are the
implicit derivative the custom rule gives."""
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

from .case import case, mat, pos, vec
from .compositions import _BATTERIES, _checked_as


def compose(fn, make_args, batteries=("hess", "vmap"), outcome="works", rtol=1e-4, **kw):
    for b in batteries:
        case(fn, make_args, outcome, mode="custom", check=_checked_as(_BATTERIES[b], outcome, __file__),
             rtol=rtol, name=f"{fn.__name__}_{b}", **kw)
    return fn


def newton(f, x0):
    x = x0
    for _ in range(16):
        x = x - f(x) / astjax.grad(f)(x)
    return x


def newton_vec(f, x0):
    x = x0
    for _ in range(8):
        x = x - jnp.linalg.solve(astjax.jacfwd(f)(x), f(x))
    return x


def bisect(f, x0):
    lo, hi = 0.0, 10.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if f(mid) > 0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def scalar_tsolve(g, v):
    return v / g(1.0)


def dense_tsolve(g, v):
    return jnp.linalg.solve(astjax.jacfwd(g)(v), v)


def late_bound_closure(x):
    f = lambda y: y ** 3 - c          # c is assigned after f: read when the root is found
    c = jnp.sum(x ** 2) + 1.0
    return lax.custom_root(f, 1.0, newton, scalar_tsolve)


case(late_bound_closure, lambda r: (pos(r, 3),), "works")
compose(late_bound_closure, lambda r: (pos(r, 3),), batteries=("hess",))


def rebound_after_call(x):
    c = jnp.sum(x) + 1.0
    f = lambda y: y ** 2 - c
    r = lax.custom_root(f, 1.0, newton, scalar_tsolve)
    c = 100.0 * c                    # the root used the value c had at the call
    return r + c


case(rebound_after_call, lambda r: (pos(r, 3),), "works")


def integer_parameter(x):
    n = 3
    f = lambda y: y ** n - jnp.sum(x)
    return lax.custom_root(f, 1.0, newton, scalar_tsolve)


case(integer_parameter, lambda r: (pos(r, 2),), "works")


def solver_reads_input(x):
    start = jnp.sum(x)               # the solver's closure gets no derivative; the root does not depend on it

    def solve(f, x0):
        return newton(f, x0 * 0.0 + start)
    return lax.custom_root(lambda y: y ** 2 - jnp.sum(x ** 2), 1.0, solve, scalar_tsolve)


case(solver_reads_input, lambda r: (pos(r, 3),), "works")


def guess_from_input(x):
    guess = jnp.max(x)
    return lax.custom_root(lambda y: jnp.exp(y) - jnp.sum(x), guess, newton, scalar_tsolve)


case(guess_from_input, lambda r: (pos(r, 3),), "works")


def root_in_a_loop(x):
    total = 0.0
    for i in range(3):
        a = x[i]
        total = total + lax.custom_root(lambda y: y ** 3 + y - a, 0.0, newton, scalar_tsolve)
    return total


case(root_in_a_loop, lambda r: (vec(r, 3),), "works")


def chained_roots(x):
    u = lax.custom_root(lambda y: y ** 2 - jnp.sum(x ** 2), 1.0, newton, scalar_tsolve)
    return lax.custom_root(lambda z: z ** 3 + z - u, 0.5, newton, scalar_tsolve)


case(chained_roots, lambda r: (pos(r, 2),), "works")


def _cube_root_of_sum(x):
    def f(y):
        return y ** 3 - jnp.sum(x)
    return lax.custom_root(f, 1.0, newton, scalar_tsolve)


def root_in_a_callee(x):
    return _cube_root_of_sum(x * x) * jnp.sum(x)


case(root_in_a_callee, lambda r: (pos(r, 3),), "works")


def vector_root(x):
    A = jnp.eye(2) * 3.0 + jnp.outer(x[:2], x[2:])

    def f(y):
        return A @ y + jnp.sin(y) - x[:2]
    return lax.custom_root(f, jnp.zeros(2), newton_vec, dense_tsolve)


case(vector_root, lambda r: (vec(r, 4),), "works", mode="jac")


def dense_solve(matvec, b):
    m = jnp.stack([matvec(e) for e in jnp.eye(b.shape[0])], axis=1)
    return jnp.linalg.solve(m, b)


def linear_solve_closure(x):
    M = jnp.eye(3) * 2.0 + 0.3 * jnp.outer(x, x)
    b = jnp.sin(x)
    return jnp.sum(lax.custom_linear_solve(lambda v: M @ v, b, dense_solve, symmetric=True) ** 2)


case(linear_solve_closure, lambda r: (vec(r, 3),), "works")
compose(linear_solve_closure, lambda r: (vec(r, 3),), batteries=("vmap",))


# refused
def defined_twice(x):
    f = lambda y: y - x
    if x > 0:
        f = lambda y: y + x
    return lax.custom_root(f, 0.0, newton, scalar_tsolve)


case(defined_twice, lambda r: (pos(r, 1)[0],), "refuse")


def solver_in_a_variable(x):
    solvers = [newton]
    solve = solvers[0]
    return lax.custom_root(lambda y: y ** 2 - x, 1.0, solve, scalar_tsolve)


case(solver_in_a_variable, lambda r: (pos(r, 1)[0],), "refuse")


def linear_map_passed_on(x):
    return lax.custom_linear_solve(lambda v: 2.0 * v, x, lambda mv, b: dense_solve(mv, b))[0]


case(linear_map_passed_on, lambda r: (pos(r, 2),), "refuse")


def pytree_root(x):
    def solve(f, x0):
        return (newton(f, x0), x0)
    return lax.custom_root(lambda y: y ** 2 - x, 1.0, solve, scalar_tsolve)[0]


case(pytree_root, lambda r: (pos(r, 1)[0],), "refuse")


def nonlocal_counter(x):
    count = 0.0

    def f(y):
        nonlocal count               # a side effect the closure conversion would lose
        count = count + 1.0
        return y ** 2 - x
    return lax.custom_root(f, 1.0, newton, scalar_tsolve) + count


case(nonlocal_counter, lambda r: (pos(r, 1)[0],), "refuse")


def aliased_residual(x):
    def f(y):
        t = np.stack([y, y]) * 1.0
        u = t
        u[0] = 2.0 * y               # NumPy changes t too: f is 4 y ** 2 - x
        return t[0] * t[0] - x
    return lax.custom_root(f, 1.0, bisect, scalar_tsolve)


case(aliased_residual, lambda r: (pos(r, 1)[0],), "either")
