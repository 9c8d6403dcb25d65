"""A namedtuple built in the differentiated function: a container of differentiable items.

    s = _Pt(q=x, v=x * 0.0)      ->     s = namedtuple_of(_Pt, [x, _t1])      (normalize/namedtuple_constructions.py)

`namedtuple_of(cls, items)` is `cls(*items)`. Item k's adjoint is field k of the result's adjoint (a
TreeAdjoint keyed by position, as `s.q` gives it through `attribute_adjoint`, or a namedtuple of
cotangents a user passes to vjp); its tangent is the namedtuple of the items' tangents, whose fields
`getattr` reads like any namedtuple's. JAX treats a NamedTuple as a pytree the same way.
"""
from . import helpers
from .registry import defjvp, defvjp, parse_expression, primitive

__all__ = ["namedtuple_of"]


def namedtuple_of(cls, items):
    """An instance of the namedtuple class `cls` holding `items` in field order."""
    return cls(*items)


def record_items_adjoint(g):
    """The adjoint of the list of a namedtuple's items from the namedtuple's adjoint `g`: item k's is field k's."""
    if isinstance(g, helpers.TreeAdjoint):
        return helpers.TreeAdjoint(dict(g.items))
    if isinstance(g, tuple):
        return helpers.TreeAdjoint(dict(enumerate(g)))
    return g            # a bare zero: nothing reached any field


_build = primitive("namedtuple_of", namedtuple_of, operands=("items",), sequence_operand="items")
_build.sequence_vjp = parse_expression("item_adjoint(by, k)")       # a literal list: item k is field k
defvjp(_build, "bitems += record_items_adjoint(by)")
defjvp(_build, "dy = namedtuple_of(cls, ditems)")
_build.accepts_scalar_zero = True

_items = primitive("record_items_adjoint", record_items_adjoint, operands=("g",))
defvjp(_items, "bg += by")        # the same keys: a TreeAdjoint keyed by position either way
defjvp(_items, "dy = record_items_adjoint(dg)")
_items.accepts_scalar_zero = True

NAMES = {"namedtuple_of": namedtuple_of, "record_items_adjoint": record_items_adjoint}
