"""A namedtuple made in the function becomes a call of the `namedtuple_of` primitive (rules/record_constructions.py).

    s = _Pt(q=x, v=x * 0.0)      ->     s = namedtuple_of(_Pt, [x, x * 0.0])
    t = _Pt(x)                   ->     t = namedtuple_of(_Pt, [x, _default_v])     (a field's default)

Its fields then carry derivatives as the items of any container do, and `s.q` reads field q as
for a namedtuple passed in. A class qualifies when it is a namedtuple class (collections.namedtuple or
typing.NamedTuple, methods allowed) whose `__new__` is the generated one and that defines no `__init__`.
Keyword arguments are put in field order only where that cannot change what runs first (no argument
calls anything); a call whose arguments do not fit the fields is left as written (Python raises its
TypeError, or astjax refuses the call at its line).
"""
import gast

from ...rules.record_constructions import namedtuple_of
from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name
from ...codegen.node_walk import walk

__all__ = ["NamedtupleConstructions", "namedtuple_class"]


def namedtuple_class(cls):
    """Whether `cls` is a namedtuple class whose construction only stores its arguments as fields."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)):
        return False
    for k in cls.__mro__:
        if k is tuple:
            return False
        if "__init__" in k.__dict__:
            return False
        new = k.__dict__.get("__new__")
        if new is not None:
            fn = getattr(new, "__func__", new)
            code = getattr(fn, "__code__", None)
            return code is not None and code.co_filename.startswith("<") and \
                getattr(fn, "__qualname__", "").endswith(".__new__")
    return False


class NamedtupleConstructions(Pass):
    """Rewrite `C(...)` of a namedtuple class C into `namedtuple_of(C, [items in field order])`."""

    def run(self, node):
        self.helper = None
        self.shadowed = set()
        self.generic_visit(node)
        return node

    def _scope(self, node):
        """Visit a nested function or lambda with its own parameters and locals hiding outer names."""
        names = {n.id for n in walk(node) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        saved, self.shadowed = self.shadowed, self.shadowed | names
        try:
            self.generic_visit(node)
        finally:
            self.shadowed = saved
        return node

    visit_FunctionDef = visit_Lambda = _scope

    def visit_Call(self, node):
        self.generic_visit(node)
        root = node.func
        while isinstance(root, gast.Attribute):
            root = root.value
        if isinstance(root, gast.Name) and root.id in self.shadowed:
            return node          # a nested function's own name, not the class the outer scope sees
        cls = self.context.resolver.static_value(node.func)
        if cls is NOT_STATIC or not namedtuple_class(cls):
            return node
        items = self._items(cls, node)
        if items is None:
            return node
        if self.helper is None:
            self.helper = self.context.resolver.introduce("namedtuple_of", namedtuple_of, self.context.namer)
        return copy_location(gast.Call(func=name(self.helper), args=[node.func, gast.List(elts=items, ctx=gast.Load())],
                                       keywords=[]), node)

    def _items(self, cls, node):
        """The argument nodes in field order (defaults introduced as names), or None when they do not fit."""
        fields = cls._fields
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        if len(node.args) > len(fields):
            return None
        given = dict(zip(fields, node.args))
        for k in node.keywords:
            if k.arg not in fields or k.arg in given:
                return None
            given[k.arg] = k.value
        written = list(node.args) + [k.value for k in node.keywords]
        ordered = [given[f] for f in fields if f in given]
        if [id(a) for a in ordered] != [id(a) for a in written] and any(
                isinstance(n, gast.Call) for a in written for n in walk(a)):
            return None          # reordering could change which call runs first
        items = []
        defaults = getattr(cls, "_field_defaults", {})
        for f in fields:
            if f in given:
                items.append(given[f])
            elif f in defaults:
                items.append(name(self.context.resolver.introduce(f"_default_{f}", defaults[f], self.context.namer)))
            else:
                return None
        return items
