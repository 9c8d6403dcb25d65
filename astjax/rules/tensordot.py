"""jnp.tensordot's rules, through lax.dot_general.

`tensordot(a, b, axes)` is `dot_general(a, b, ((a_axes, b_axes), ((), ())))`
(free axes of a, then of b, no batch axes), so its adjoints are dot_general's:
a dot_general of `by` with the other operand, transposed back into the
operand's axis order (lax.internal.dot_general_transpose). `axes` may be an
int (the last n axes of a with the first n of b), a pair of ints or a pair of
sequences, negative axes included; `tensordot_dimensions` reads it.
"""
import numpy as np

from .. import numpy as jnp
from .linalg import COMPOSITES
from .nondifferentiable import SHAPES, nondifferentiable
from .registry import defjvp, defvjp, primitive

__all__ = ["tensordot_dimensions"]


def tensordot_dimensions(a_ndim, b_ndim, axes):
    """dot_general's dimension numbers for `tensordot(a, b, axes)` with operands of a_ndim and b_ndim axes."""
    a_ndim, b_ndim = int(a_ndim), int(b_ndim)
    if np.ndim(axes) == 0:
        n = int(axes)
        if not 0 <= n <= min(a_ndim, b_ndim):
            raise ValueError(f"tensordot: axes={n} does not fit operands of {a_ndim} and {b_ndim} axes")
        return (tuple(range(a_ndim - n, a_ndim)), tuple(range(n))), ((), ())
    a_axes, b_axes = axes
    a_axes = [int(a_axes)] if np.ndim(a_axes) == 0 else [int(i) for i in a_axes]
    b_axes = [int(b_axes)] if np.ndim(b_axes) == 0 else [int(i) for i in b_axes]
    if len(a_axes) != len(b_axes):
        raise ValueError("tensordot: the two sequences of axes differ in length")
    return (tuple(i % a_ndim for i in a_axes), tuple(i % b_ndim for i in b_axes)), ((), ())


nondifferentiable("tensordot_dimensions", tensordot_dimensions, SHAPES)
COMPOSITES["tensordot_dimensions"] = tensordot_dimensions

_DIMS = "tensordot_dimensions(jnp.ndim(a), jnp.ndim(b), axes)"
_PLAN = "lax.internal.dot_general_transpose(jnp.ndim(a), jnp.ndim(b), " + _DIMS + ", {})"
tensordot = primitive("tensordot", jnp.tensordot, operands=("a", "b"), aliases=(np.tensordot,))
defvjp(tensordot,
       f"ba += lax.transpose(lax.dot_general(by, b, {_PLAN.format(0)}[0]), {_PLAN.format(0)}[1])",
       f"bb += lax.transpose(lax.dot_general(by, a, {_PLAN.format(1)}[0]), {_PLAN.format(1)}[1])")
defjvp(tensordot, "da -> jnp.tensordot(da, b, axes)", "db -> jnp.tensordot(a, db, axes)")
