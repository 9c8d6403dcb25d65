"""NumPy's scalar types called as functions: `np.float64(x[0])`, `np.float32(2.0) * x`, `jnp.float32(v)`.

JAX's `jnp.float32(x)` is `asarray(x, float32)`: a cast. A cast to a float type
is differentiable (the adjoint passes through, as `astype`'s); a cast to an
integer or boolean type has an integer or boolean result and no derivative.
Complex types stay refused (astjax has no complex differentiation).
"""
import numpy as np

from ..array import wrap
from .nondifferentiable import BOOLEAN, INTEGER, nondifferentiable
from .registry import defjvp, defvjp, primitive

__all__ = ["scalar_cast"]

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
