"""jax.scipy.linalg's newer functions, plain SciPy in user code, lax.reduce and lax.sort of a tuple (issue 9):
one-triangle reads of a non-symmetric input, SciPy's unused r[0], identical entries at |a_i - a_j|'s kink,
tied sort keys, computations lax.reduce must read (or refuse), and derivatives JAX does not define either."""
import numpy as np
import scipy.linalg

import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
from astjax import lax

from .case import case, mat, vec


def cholesky_of_a_nonsymmetric_input(a):
    m = a @ a.T + 3.0 * jnp.eye(3) + 0.4 * a        # not symmetric: SciPy reads its upper triangle only
    return jnp.sum(scipy.linalg.cholesky(m) * jnp.arange(9.0).reshape(3, 3))


case(cholesky_of_a_nonsymmetric_input, lambda r: (mat(r, 3),), "works")


def qr_full_of_a_wide_matrix(a):
    q, r = jsl.qr(a[:2])          # the extra columns of a wide full QR have no derivative (JAX refuses too)
    return jnp.sum(r)


case(qr_full_of_a_wide_matrix, lambda r: (mat(r, 3),), "refuse")


def toeplitz_first_row_entry_is_unused(c, r):
    return jnp.sum(jsl.toeplitz(c, r) ** 2 * jnp.arange(12.0).reshape(3, 4))   # r[0] is ignored: zero gradient


case(toeplitz_first_row_entry_is_unused, lambda r: (vec(r, 3), vec(r, 4)), "works", argnums=(0, 1))


def fiedler_of_equal_entries(x):
    a = jnp.stack([x[0], x[0], x[1]])       # |a_0 - a_1| is zero for every x: its derivative is zero
    return jnp.sum(jsl.fiedler(a) * jnp.arange(9.0).reshape(3, 3))


case(fiedler_of_equal_entries, lambda r: (vec(r, 2),), "works")


def schur_under_grad(a):
    t, z = jsl.schur(a)
    return jnp.sum(t)


case(schur_under_grad, lambda r: (mat(r, 3),), "refuse")


plus = lambda a, b: b + a       # noqa: E731 (module level: lax.reduce reads it as add)
times, larger = (lambda a, b: a * b), (lambda a, b: lax.max(a, b))      # noqa: E731 (two lambdas on one line)


def reduce_with_a_module_lambda(x):
    return jnp.sum(lax.reduce(x * x, 0.0, plus, (1,)) * jnp.arange(3.0))


case(reduce_with_a_module_lambda, lambda r: (mat(r, 3, 4),), "works")


def reduce_with_a_lambda_it_cannot_tell_apart(x):
    return jnp.sum(lax.reduce(x, 1.0, times, (1,)))


case(reduce_with_a_lambda_it_cannot_tell_apart, lambda r: (mat(r, 3, 4),), "refuse")


def reduce_add_from_a_nonzero_start(x):
    return jnp.sum(lax.reduce(x, 1.0, lax.add, (0,)))     # XLA may add the 1.0 any number of times


case(reduce_add_from_a_nonzero_start, lambda r: (mat(r, 3, 4),), "refuse")


def reduce_max_above_a_floor(x):
    return jnp.sum(lax.reduce(x, 0.25, lax.max, (0,)) * jnp.arange(4.0))


case(reduce_max_above_a_floor, lambda r: (mat(r, 3, 4),), "works")


def sort_values_by_tied_keys(x):
    keys = jnp.array([1.0, 0.0, 1.0, 0.0])        # ties: the stable order keeps the values' order within them
    ks, vs = lax.sort((keys, x), num_keys=1)
    return jnp.sum(vs * jnp.arange(4.0)) + jnp.sum(ks)


case(sort_values_by_tied_keys, lambda r: (vec(r, 4),), "works")


def sort_by_the_values_themselves(x):
    ks, vs = lax.sort((x * x, x), num_keys=1)
    return jnp.sum(vs * jnp.arange(4.0)) + jnp.sum(ks * jnp.arange(4.0))


case(sort_by_the_values_themselves, lambda r: (vec(r, 4) + np.array([0.0, 3.0, -5.0, 7.0]),), "works")


def pair_add(a, b):
    return (a[0] + b[0], a[1] * b[1])


def associative_scan_of_a_tuple(x):
    s, p = lax.associative_scan(pair_add, (x, x + 2.0))     # JAX scans a tuple's arrays together
    return jnp.sum(s * jnp.arange(4.0)) + jnp.sum(p)


case(associative_scan_of_a_tuple, lambda r: (vec(r, 4),), "works")
