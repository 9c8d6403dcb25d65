"""Rules of numpy.linalg's array-API names (NumPy 2 / JAX): aliases of existing primitives, and four of their own.

`linalg.matmul`, `tensordot`, `vecdot`, `matrix_transpose`, `outer` and
`cross` compute what jnp's primitives of the same name compute (outer and cross
check their shapes first), so they are aliases of those primitives.
`linalg.diagonal`, `linalg.trace`, `matrix_norm` and `vector_norm` read the
*last* axes (jnp.diagonal and jnp.trace read axes 0 and 1), so they are
primitives whose rules call the existing adjoints with axes (-2, -1), or view
the reduced axes as one trailing vector axis (vector_norm).
"""
import numpy as np

from .. import numpy as jnp
from ..numpy import linalg as jnp_linalg
from .batching import _unchanged_rule
from .decompositions import norm_adjoint, norm_tangent
from .linalg import COMPOSITES
from .nondifferentiable import SHAPES, nondifferentiable
from .registry import PRIMITIVES, add_aliases, defbatch, defjvp, defvjp, primitive

# ------------------------------------------------------------------ aliases of existing primitives
for _name, _ours in (("matmul", jnp_linalg.matmul), ("tensordot", jnp_linalg.tensordot), ("vecdot", jnp_linalg.vecdot),
                     ("matrix_transpose", jnp_linalg.matrix_transpose), ("outer", jnp_linalg.outer),
                     ("cross", jnp_linalg.cross)):
    add_aliases(PRIMITIVES[_name], _ours, getattr(np.linalg, _name, None))

# ------------------------------------------------------------------ last-axes gathers and sums
_diagonal = primitive("linalg_diagonal", jnp_linalg.diagonal, operands=("x",),
                      aliases=(getattr(np.linalg, "diagonal", None),))
defvjp(_diagonal, "bx += diagonal_adjoint(by, x, offset, -2, -1)")
defjvp(_diagonal, "dy = jnp.linalg.diagonal(dx, offset=offset)")
_trace = primitive("linalg_trace", jnp_linalg.trace, operands=("x",), aliases=(getattr(np.linalg, "trace", None),))
defvjp(_trace, "bx += trace_adjoint(by, x, offset, -2, -1)")
defjvp(_trace, "dy = jnp.linalg.trace(dx, offset=offset, dtype=dtype)")
_matrix_norm = primitive("matrix_norm", jnp_linalg.matrix_norm, operands=("x",),
                         aliases=(getattr(np.linalg, "matrix_norm", None),))
defvjp(_matrix_norm, "bx += norm_adjoint(by, x, y, ord, (-2, -1), keepdims)")
defjvp(_matrix_norm, "dy = norm_tangent(dx, x, y, ord, (-2, -1), keepdims)")
_matrix_norm.identity = "matrix_norm(x) = norm(x, ord, axis=(-2, -1)): norm's rules on the last two axes"
for _prim in (_diagonal, _trace, _matrix_norm):
    defbatch(_prim, _unchanged_rule)     # they read the last axes only: a leading batch axis passes through


# ------------------------------------------------------------------ vector_norm: the reduced axes as one vector
def _as_vectors(x, axis):
    """x with its reduced axes moved last and merged: (kept..., n); and the axes' moved positions."""
    reduced, kept = jnp_linalg.vector_norm_layout(jnp.shape(x), axis)
    nd = jnp.ndim(x)
    moved = tuple(range(nd - len(reduced), nd))
    return jnp.reshape(jnp.moveaxis(x, reduced, moved), kept + (-1,)), reduced, moved, kept


def vector_norm_adjoint(g, x, y, axis, keepdims, ord):
    """x's adjoint from y = vector_norm(x, axis, keepdims, ord): norm's adjoint of the merged vectors."""
    vectors, reduced, moved, kept = _as_vectors(x, axis)
    bv = norm_adjoint(jnp.reshape(g, kept), vectors, jnp.reshape(y, kept), ord, -1, False)
    shape_moved = jnp.shape(jnp.moveaxis(x, reduced, moved))
    return jnp.moveaxis(jnp.reshape(bv, shape_moved), moved, reduced)


def vector_norm_tangent(t, x, y, axis, keepdims, ord):
    """The tangent of vector_norm(x, ...): norm's tangent of the merged vectors, in y's shape."""
    vectors, _, _, kept = _as_vectors(x, axis)
    tangents, _, _, _ = _as_vectors(t, axis)
    return jnp.reshape(norm_tangent(tangents, vectors, jnp.reshape(y, kept), ord, -1, False), jnp.shape(y))


COMPOSITES.update({f.__name__: f for f in (_as_vectors, vector_norm_adjoint, vector_norm_tangent)})
nondifferentiable("vector_norm_layout", jnp_linalg.vector_norm_layout, SHAPES)
_vector_norm = primitive("vector_norm", jnp_linalg.vector_norm, operands=("x",),
                         aliases=(getattr(np.linalg, "vector_norm", None),))
defvjp(_vector_norm, "bx += vector_norm_adjoint(by, x, y, axis, keepdims, ord)")
defjvp(_vector_norm, "dy = vector_norm_tangent(dx, x, y, axis, keepdims, ord)")
_vector_norm.identity = "vector_norm(x) = norm of the reduced axes taken as one vector: norm's rules on it"
