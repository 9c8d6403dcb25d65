"""Calls of NumPy functions whose own code cannot run on astjax's arrays become astjax.numpy's.

    g = np.gradient(u)          ->   g = jnp.gradient(u)
    y = np.roll(x, 2)           ->   y = jnp.roll(x, 2)

The generated code passes astjax's immutable arrays to the functions the user
called. Most NumPy functions compute a new array from them; these few write
into an array they allocate with `np.empty_like` (an immutable astjax array
too), so they would stop with a TypeError. astjax.numpy's function of the
same name computes the same values (the rules of the primitive are the ones
NumPy's alias already had).
"""
import gast
import numpy as np

from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name

__all__ = ["NumpyCalls"]

# NumPy functions that write into arrays made like their argument (found by calling them on astjax arrays)
# (a dotted name for a submodule's); not np.polydiv, whose remainder astjax.numpy pads as JAX does
WRITE_INTO_THEIR_OWN_ALLOCATIONS = ("gradient", "roll", "piecewise", "apply_along_axis", "i0", "linspace", "logspace",
                                    "geomspace", "ediff1d", "nanmedian", "linalg.matrix_power")


class NumpyCalls(Pass):
    """Rewrite calls of the NumPy functions in WRITE_INTO_THEIR_OWN_ALLOCATIONS into astjax.numpy's."""

    def visit_Call(self, node):
        self.generic_visit(node)
        target = self.context.resolver.static_value(node.func)
        if target is NOT_STATIC:
            return node
        for function in WRITE_INTO_THEIR_OWN_ALLOCATIONS:
            if target is _numpy_function(function):
                func = name("jnp")
                for attr in function.split("."):
                    func = gast.Attribute(value=func, attr=attr, ctx=gast.Load())
                node.func = copy_location(func, node.func)
                break
        return node


def _numpy_function(dotted):
    value = np
    for attr in dotted.split("."):
        value = getattr(value, attr, None)
    return value
