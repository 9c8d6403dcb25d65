"""Reverse mode of a custom_jvp function: the transpose of its jvp rule, as one primitive.

    y = f(x)   (f a custom_jvp)   ->   adjoint sweep:  _b = custom_jvp_transpose(f, by, (x,)); bx += _b[0]

`custom_jvp_transpose` (custom_derivatives.custom_jvp.transposed_jvp) runs the rule
once per input entry. Its own derivative is not provided: the primals are a
static argument, so a derivative that would need to go through them (hessian of a
function calling f) is refused at transformation time, and the cotangent's path
raises if reached.
"""
from .registry import defjvp, defvjp, primitive

__all__ = ["custom_jvp_transpose"]


def custom_jvp_transpose(custom, g, primals):
    """The cotangents of `custom`'s arguments `primals` for its output's cotangent `g`."""
    return custom.transposed_jvp(g, *primals)


_prim = primitive("custom_jvp_transpose", custom_jvp_transpose, operands=("g",))
defvjp(_prim, "bg += no_higher_derivative(by, 'a custom_jvp function under reverse mode')")
defjvp(_prim, "dy = no_higher_derivative(dg, 'a custom_jvp function under reverse mode')")
