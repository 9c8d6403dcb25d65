"""Rules of jax.scipy.linalg.fiedler_companion: linear in b = a / a[0] (scipy/_linalg_companion.py).

y = ones - S . b, so by gives bb = -S^T . by, and b's own rule gives ba[k] = bb[k] / a0 for k >= 1 and
ba[0] = -sum_k bb[k] a[k] / a0^2 (b[0] = 1 reads no entry). Written from einsum and slicing, so they
differentiate again.
"""
from .. import numpy as jnp
from ..scipy import _linalg_companion as companion
from .linalg import COMPOSITES
from .nondifferentiable import SHAPES, nondifferentiable
from .registry import defjvp, defvjp, primitive


def fiedler_companion_adjoint(g, a):
    """a's adjoint from fiedler_companion(a) and the result's adjoint g."""
    n = jnp.shape(a)[-1] - 1
    selection = jnp.astype(fiedler_companion_selection(n), g.dtype)
    bb = -jnp.einsum("kij,...ij->...k", selection, g)
    lead = a[..., :1]
    rest = bb[..., 1:] / lead
    first = -jnp.sum(bb[..., 1:] * a[..., 1:], axis=-1, keepdims=True) / (lead * lead)
    return jnp.concatenate([first, rest], axis=-1)


def fiedler_companion_tangent(t, a):
    """fiedler_companion's tangent: -S . db with db = (t - b t[0]) / a[0]."""
    n = jnp.shape(a)[-1] - 1
    selection = jnp.astype(fiedler_companion_selection(n), t.dtype)
    lead = a[..., :1]
    db = (t * lead - a * t[..., :1]) / (lead * lead)
    return -jnp.einsum("kij,...k->...ij", selection, db)


fiedler_companion_selection = companion.fiedler_companion_selection
nondifferentiable("fiedler_companion_selection", companion.fiedler_companion_selection, SHAPES)
COMPOSITES.update({f.__name__: f for f in (fiedler_companion_adjoint, fiedler_companion_tangent)})
_prim = primitive("fiedler_companion", companion.fiedler_companion, operands=("a",),
                  aliases=("scipy.linalg.fiedler_companion",))
defvjp(_prim, "ba += fiedler_companion_adjoint(by, a)")
defjvp(_prim, "dy = fiedler_companion_tangent(da, a)")
