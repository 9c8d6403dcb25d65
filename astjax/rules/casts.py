"""NumPy's scalar types called as functions: `np.float64(x[0])`, `np.float32(2.0) * x`, `jnp.float32(v)`.

JAX's `jnp.float32(x)` is `asarray(x, float32)`: a cast. A cast to a float type
is differentiable (the adjoint passes through, as `astype`'s); a cast to an
integer or boolean type has an integer or boolean result and no derivative.
Complex types stay refused (astjax has no complex differentiation).
"""
import numpy as np

from ..array import wrap
from .nondifferentiable import BOOLEAN, INTEGER, nondifferentiable
from .linalg import COMPOSITES
from .registry import deflowering, defjvp, defvjp, primitive

__all__ = ["scalar_cast", "dtype_adjoint"]

_FLOATS = ("float32", "float64")      # float16 stays refused: too coarse to check
_INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def scalar_cast(dtype_name):
    """The function `np.<dtype_name>(x)` stands for: x (a number or an array) converted to that dtype."""
    dtype = np.dtype(dtype_name)

    def cast(x=0):
        return wrap(np.asarray(x).astype(dtype))
    cast.__name__ = cast.__qualname__ = f"cast_{dtype_name}"
    cast.__doc__ = f"`np.{dtype_name}(x)`: x converted to {dtype_name}."
    return cast


for _name in _FLOATS:
    _prim = primitive(f"cast_{_name}", scalar_cast(_name), operands=("x",), aliases=(getattr(np, _name),),
                      result_shape_of="x")
    defvjp(_prim, "bx += by")
    defjvp(_prim, f"dy = astype(dx, {_name!r})")
for _name in _INTEGERS:
    nondifferentiable(f"cast_{_name}", scalar_cast(_name), INTEGER, aliases=(getattr(np, _name),))
nondifferentiable("cast_bool", scalar_cast("bool"), BOOLEAN, aliases=(np.bool_,))


# A primitive whose `dtype=` argument asks for an integer or boolean result (`jnp.sum(x, dtype=jnp.int32)`,
# `jnp.trace(x, dtype=int)`, `jnp.linspace(a, b, 5, dtype=int)`) is piecewise constant there: its derivative
# is zero. The transformations pass every such primitive's adjoint (reverse) and tangent terms (forward)
# through dtype_adjoint(g, dtype), which keeps g for dtype None or inexact and gives zeros otherwise.
def dtype_adjoint(g, dtype):
    """`g`, or zeros (a float array shaped like g) when `dtype` names an integer or boolean type."""
    if dtype is None or np.issubdtype(_as_dtype(dtype), np.inexact):
        return g
    return wrap(np.zeros(np.shape(g), dtype=np.result_type(g, np.float32)))


def _as_dtype(dtype):
    from ..numpy._promote import dtype_arg
    return np.dtype(dtype_arg(dtype))


COMPOSITES["dtype_adjoint"] = dtype_adjoint           # generated code calls it by name
_dtype_adjoint = primitive("dtype_adjoint", dtype_adjoint, operands=("g",))
deflowering(_dtype_adjoint, numba="astjax.runtime.numba_cpu:dtype_adjoint")   # runtime/numba_adjoints.py
defvjp(_dtype_adjoint, "bg += dtype_adjoint(by, dtype)")
defjvp(_dtype_adjoint, "dy = dtype_adjoint(dg, dtype)")
