"""vmap through the batching rules declared by what a primitive does with axes (astjax/rules/batching_axes.py):
programs that chain them with argument forms that would go wrong if an axis were not shifted, a default axis
not written out, or an unbatched operand broadcast against the batch axis (axis=None meaning the flattened
array, an array q, weights shaped like one example, a vector on a diagonal, dot_general with one operand
batched). Each runs the "vmap" battery of compositions.py: vmap(f) and vmap(grad(f)) against loops,
grad of the batch sum, vmap(value_and_grad(f))."""
import numpy as np

import astjax.numpy as jnp
import astjax.scipy.special as jss
from astjax import lax

from .case import case, mat, vec
from .compositions import _battery_vmap, _checked_as

WEIGHTS = np.array([[0.5, 1.0, 2.0, 1.5], [1.0, 0.25, 1.0, 3.0], [2.0, 1.0, 0.5, 1.0]])
RIGHT = np.array([[1.0, -0.5], [0.25, 2.0], [-1.0, 0.75], [0.5, 0.5]])


def _vmap_case(fn, make_args, outcome="works", rtol=1e-4):
    case(fn, make_args, outcome, mode="custom", check=_checked_as(_battery_vmap, outcome, file=__file__),
         rtol=rtol, name=f"{fn.__name__}_vmap")


def roll_flattened_then_logsumexp(x):
    y = jnp.roll(x, 2) * x                    # axis=None: the flattened example rolls, not the batch
    return jnp.sum(jss.logsumexp(y, axis=0)) + jss.logsumexp(x)


_vmap_case(roll_flattened_then_logsumexp, lambda r: (mat(r, 3, 4),))


def eigh_energy(x):
    a = x @ x.T + 3.0 * jnp.eye(3)
    w, v = jnp.linalg.eigh(a)
    return jnp.sum(w * w) + jnp.sum(v[:, 2] ** 2 * w)


_vmap_case(eigh_energy, lambda r: (mat(r, 3, 3),))


def percentiles_of_an_array_q(x):
    q = jnp.percentile(x, np.array([25.0, 50.0, 75.0]), axis=1)     # q's axis first, then the rows
    return jnp.sum(q[0] * q[2]) + jnp.sum(q[1])


_vmap_case(percentiles_of_an_array_q, lambda r: (mat(r, 3, 5),))


def weighted_average_of_norms(x):
    rows = jnp.linalg.norm(x, ord=3, axis=1)
    return jnp.average(x * x, weights=WEIGHTS) + jnp.average(rows, weights=WEIGHTS[:, 0])


_vmap_case(weighted_average_of_norms, lambda r: (mat(r, 3, 4),))


def pad_diff_cumsum(x):
    y = lax.cumsum(jnp.diff(jnp.pad(x, 1, mode="edge"), axis=0), axis=1)
    return jnp.sum(y * y) + jnp.sum(jnp.rot90(x) * jnp.fliplr(x.T))


_vmap_case(pad_diff_cumsum, lambda r: (mat(r, 3, 4),))


def vector_on_diagonals(x):
    upper, lower = jnp.diag(x, 1), jnp.diag(jnp.exp(x), -1)
    return jnp.sum(upper @ lower) + jnp.trace(jnp.diag(jnp.diagonal(upper @ lower, 1)))


_vmap_case(vector_on_diagonals, lambda r: (vec(r, 3),))


def dot_general_then_select(x):
    y = lax.dot_general(x, RIGHT, (((1,), (0,)), ((), ())))     # one batched operand: one product
    return jnp.sum(lax.select(y > 0.0, y * y, -y)) + jnp.sum(jnp.kron(x[:2, :2], RIGHT[:2]))


_vmap_case(dot_general_then_select, lambda r: (mat(r, 3, 4),))


def sorted_rows_and_solve(x):
    s = jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1)
    a = x[:, :3] @ x[:, :3].T + 4.0 * jnp.eye(3)
    return jnp.sum(s * WEIGHTS) + jnp.sum(jnp.linalg.solve(a, x[:, 0]))


_vmap_case(sorted_rows_and_solve, lambda r: (mat(r, 3, 4),))
