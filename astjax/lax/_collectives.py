"""lax's collectives: `psum(x, 'i')` and friends reduce over a named axis of `vmap` or `pmap`.

They have no meaning on their own: vmap's transformation (transforms/vmap.py, rules/collectives.py)
rewrites each one over its axis name into array operations over the batch axis. A call that reaches
these functions was under no transformation that binds its axis name, and says so, as JAX does.
"""
from ..errors import RuntimeRefusal

__all__ = ["psum", "pmean", "pmax", "pmin", "all_gather", "psum_scatter", "axis_index", "UnboundAxisName"]


class UnboundAxisName(RuntimeRefusal, NameError):
    """A collective names an axis that no enclosing vmap or pmap binds."""


def _unbound(what, axis_name):
    names = axis_name if isinstance(axis_name, (tuple, list)) else (axis_name,)
    shown = ", ".join(repr(n) for n in names)
    raise UnboundAxisName(
        f"Found an unbound axis name: {shown}. `lax.{what}` reduces over the named axis of an enclosing "
        f"vmap(f, axis_name=...) or pmap(f, axis_name=...); no enclosing vmap or pmap has that axis name")


def psum(x, axis_name, *, axis_index_groups=None):
    """The sum of `x` over the examples of the named axis (every example gets it)."""
    _unbound("psum", axis_name)


def pmean(x, axis_name, *, axis_index_groups=None):
    """The mean of `x` over the examples of the named axis."""
    _unbound("pmean", axis_name)


def pmax(x, axis_name, *, axis_index_groups=None):
    """The maximum of `x` over the examples of the named axis."""
    _unbound("pmax", axis_name)


def pmin(x, axis_name, *, axis_index_groups=None):
    """The minimum of `x` over the examples of the named axis."""
    _unbound("pmin", axis_name)


def all_gather(x, axis_name, *, axis_index_groups=None, axis=0, tiled=False):
    """Every example's `x`, stacked on a new axis `axis` (tiled: concatenated along `axis`)."""
    _unbound("all_gather", axis_name)


def psum_scatter(x, axis_name, *, scatter_dimension=0, axis_index_groups=None, tiled=False):
    """The sum over the examples of `x`, of which example b keeps the b-th part along `scatter_dimension`."""
    _unbound("psum_scatter", axis_name)


def axis_index(axis_name):
    """The index of this example along the named axis."""
    _unbound("axis_index", axis_name)
