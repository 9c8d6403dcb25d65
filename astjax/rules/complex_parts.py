"""abs, real, imag and conj of a complex value, with JAX's complex rules.

A real loss L of z = u + iv has the cotangent dL/du - i dL/dv (JAX's
convention), so:

- real(z): the cotangent is the real `by` itself; the tangent is real(dz);
- imag(z): the cotangent is -1j * by; the tangent is imag(dz);
- conj(z): the cotangent is conj(by); the tangent is conj(dz);
- |z|: the cotangent is by * conj(z) / |z| (0 at z == 0, as JAX); the tangent
  is real(conj(z) dz) / |z|.

- x1 + x2, x1 - x2, x1 * x2, x1 / x2: the real rules (complex-linear in the
  cotangent, no conjugation), with the real part kept for a real operand.

The real primitives `abs`, `real`, `imag`, `conjugate`, `+ - * /` keep their
rules for real arrays; a call with an operand the complex-flow analysis knows
to be complex (an FFT's result, analyses/complex_flow.py) is classified as one
of these instead. Each rule also holds where that operand turns out real.
"""
import numpy as np

from .. import numpy as jnp
from .linalg import COMPOSITES
from .registry import defjvp, defvjp, primitive

__all__ = ["complex_abs", "complex_real", "complex_imag", "complex_conjugate", "complex_add", "complex_subtract",
           "complex_multiply", "complex_divide", "real_if_real", "times_minus_i", "TWINS"]


def complex_abs(z):
    """|z| of a complex z (astjax.numpy.abs)."""
    return jnp.abs(z)


def complex_real(val):
    """The real part of a complex value (astjax.numpy.real)."""
    return jnp.real(val)


def complex_imag(val):
    """The imaginary part of a complex value (astjax.numpy.imag)."""
    return jnp.imag(val)


def complex_conjugate(x):
    """The complex conjugate (astjax.numpy.conjugate)."""
    return jnp.conjugate(x)


def complex_add(x1, x2):
    """x1 + x2 where one of them is complex."""
    return jnp.add(x1, x2)


def complex_subtract(x1, x2):
    """x1 - x2 where one of them is complex."""
    return jnp.subtract(x1, x2)


def complex_multiply(x1, x2):
    """x1 * x2 where one of them is complex."""
    return jnp.multiply(x1, x2)


def complex_divide(x1, x2):
    """x1 / x2 where one of them is complex."""
    return jnp.divide(x1, x2)


def real_if_real(g, like):
    """g, or its real part where `like` is real: the cotangent of a real value is real (JAX's convention)."""
    plain = np.asarray(like.__array__() if hasattr(like, "__array__") else like)
    return jnp.real(g) if not np.iscomplexobj(plain) and np.iscomplexobj(np.asarray(g)) else g


def times_minus_i(g):
    """-1j * g: the cotangent of imag(z) is -1j times that of the result."""
    return jnp.multiply(g, np.complex64(-1j) if np.result_type(g) in (np.float32, np.complex64) else -1j)


COMPOSITES.update({f.__name__: f for f in (real_if_real, times_minus_i)})

_abs = primitive("complex_abs", complex_abs, operands=("z",))
defvjp(_abs, "bz += real_if_real(by * jnp.conj(z) / jnp.where(y == 0.0, 1.0, y), z)")
defjvp(_abs, "dy = jnp.real(jnp.conj(z) * dz) / jnp.where(y == 0.0, 1.0, y)")
_real = primitive("complex_real", complex_real, operands=("val",))
defvjp(_real, "bval += by")
defjvp(_real, "dy = jnp.real(dval)")
_imag = primitive("complex_imag", complex_imag, operands=("val",))
defvjp(_imag, "bval += real_if_real(times_minus_i(by), val)")
defjvp(_imag, "dy = jnp.imag(dval)")
_conj = primitive("complex_conjugate", complex_conjugate, operands=("x",))
defvjp(_conj, "bx += real_if_real(jnp.conj(by), x)")
defjvp(_conj, "dy = jnp.conj(dx)")
_real_if_real = primitive("real_if_real", real_if_real, operands=("g",), shape_params=("like",))
defvjp(_real_if_real, "bg += by")
defjvp(_real_if_real, "dy = real_if_real(dg, like)")
_minus_i = primitive("times_minus_i", times_minus_i, operands=("g",))
defvjp(_minus_i, "bg += real_if_real(times_minus_i(by), g)")
defjvp(_minus_i, "dy = times_minus_i(dg)")
_binary = {}
for _name, _impl, _vjp, _jvp in (
        ("add", complex_add, ["bx1 += real_if_real(by, x1)", "bx2 += real_if_real(by, x2)"], ["dy = dx1 + dx2"]),
        ("subtract", complex_subtract, ["bx1 += real_if_real(by, x1)", "bx2 += real_if_real(-by, x2)"],
         ["dx1 -> dx1", "dx2 -> -dx2"]),
        ("multiply", complex_multiply, ["bx1 += real_if_real(by * x2, x1)", "bx2 += real_if_real(by * x1, x2)"],
         ["dy = dx1 * x2 + x1 * dx2"]),
        ("divide", complex_divide, ["bx1 += real_if_real(by / x2, x1)", "bx2 += real_if_real(-by * y / x2, x2)"],
         ["dx1 -> dx1 / x2", "dx2 -> -dx2 / x2 * y"])):
    _binary[_name] = primitive(f"complex_{_name}", _impl, operands=("x1", "x2"), unbroadcast=True)
    defvjp(_binary[_name], *_vjp)
    defjvp(_binary[_name], *_jvp)
for _prim in (_abs, _real, _imag, _conj, _real_if_real, _minus_i, *_binary.values()):
    _prim.elementwise = True

# real primitive -> (its complex twin, the twin's operand names)
TWINS = {"abs": (_abs, ("z",)), "real": (_real, ("val",)), "imag": (_imag, ("val",)),
         "conjugate": (_conj, ("x",)), **{name: (prim, ("x1", "x2")) for name, prim in _binary.items()}}
