"""Functions made by a closure factory and used at once get a name, as `f = factory(...)` gives them.

    sq, cube = _power_of(2), _power_of(3)     ->   sq = _power_of(2)
                                                   cube = _power_of(3)
    y = np.sum(_power_of(1)(x))               ->   _made1 = _power_of(1)
                                                   y = np.sum(_made1(x))

closure_factories.py then rewrites each `f = factory(...)` into the factory's
body and a local function `f`. A tuple of factory calls is split only where no
item reads a name the assignment binds (so binding them one after the other
binds the same values), and a factory's result called in place is named only
where the call is evaluated once, before its statement (eager_calls.py).
A factory is a user function whose body ends in `return inner` (a function it
defines) or `return lambda ...` (closure_factories.py's shape).
"""
import gast

from ..parse import function_source
from .base import name, store
from .closure_factories import _factory_shape, _plain_user_function
from .eager_calls import EagerCalls
from ...codegen.node_walk import walk

__all__ = ["FactoryCallResults"]


class FactoryCallResults(EagerCalls):
    """Split tuples of factory calls; name a factory's result called in place."""

    def run(self, node):
        if not any(isinstance(n, gast.Call) and isinstance(n.func, gast.Call) or isinstance(n, gast.Assign)
                   and isinstance(n.value, gast.Tuple) and any(isinstance(e, gast.Call) for e in n.value.elts)
                   for n in walk(node)):
            return node
        return super().run(node)

    def is_factory_call(self, node):
        if not isinstance(node, gast.Call) or any(isinstance(a, gast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
            return False
        factory = self.context.resolver.static_value(node.func)
        if not _plain_user_function(factory):
            return False
        try:
            return _factory_shape(function_source(factory).node) is not None
        except Exception:       # noqa: BLE001 -- no source: not a factory astjax can inline
            return False

    def statement(self, stmt):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], (gast.Tuple, gast.List)) and isinstance(stmt.value, gast.Tuple)):
            return None
        targets, values = stmt.targets[0].elts, stmt.value.elts
        if len(targets) != len(values) or not all(isinstance(t, gast.Name) for t in targets):
            return None
        bound = [t.id for t in targets]
        if len(set(bound)) != len(bound) or not any(self.is_factory_call(v) for v in values):
            return None
        if any(isinstance(n, gast.Name) and n.id in bound for v in values for n in walk(v)):
            return None
        return [gast.Assign(targets=[t], value=v, type_comment=None) for t, v in zip(targets, values)]

    def call(self, node):
        if self.is_factory_call(node.func):
            made = self.context.namer.fresh("_made")
            self.emit(gast.Assign(targets=[store(made)], value=node.func, type_comment=None))
            node.func = name(made)
        return node
