"""`map(f, xs)` that is consumed at once becomes a list comprehension.

    vals = list(map(f, xs))                ->   vals = [f(_mapped1) for _mapped1 in xs]
    s = sum(map(lambda v: v * v, xs))      ->   s = sum([v * v for v in xs])
    for y in map(f, xs, ys): ...           ->   for y in [f(_mapped1, _mapped2) for (_mapped1, _mapped2) in zip(xs, ys)]: ...

Python 3's `map` is lazy, so only a map that is consumed where it is written is
rewritten: the argument of `list`, `tuple` or `sum`, or what a `for` loop (whose
body changes nothing the map reads) or a comprehension iterates. `f` must be a name or attribute (evaluated once either
way) or a lambda with as many plain parameters as iterables (its body becomes
the comprehension's element; its parameters are the comprehension's own
variables, so the scopes match). Any other `map` is left as it is (refused
where a derivative reaches it).
"""
import gast

from .base import Pass, copy_location, name, store
from ...codegen.node_walk import walk

__all__ = ["MapCalls"]

_CONSUMERS = (list, tuple, sum)


class MapCalls(Pass):
    """Rewrite consumed `map(...)` calls into list comprehensions."""

    def _is_builtin(self, func, value):
        return self.context.resolver.static_value(func) is value

    def visit_Call(self, node):
        self.generic_visit(node)
        if (len(node.args) == 1 and not node.keywords
                and any(self._is_builtin(node.func, c) for c in _CONSUMERS)):
            node.args[0] = self._comprehension(node.args[0])
            if self._is_builtin(node.func, list) and isinstance(node.args[0], gast.ListComp):
                return node.args[0]        # a comprehension builds a new list already
        return node

    def visit_For(self, node):
        self.generic_visit(node)
        if not _changed_in(node.body + node.orelse, node.iter):
            node.iter = self._comprehension(node.iter)
        return node

    def visit_comprehension(self, node):
        self.generic_visit(node)
        node.iter = self._comprehension(node.iter)
        return node

    def _comprehension(self, call):
        """The list comprehension for `call` if it is a map this pass rewrites, else `call`."""
        if not (isinstance(call, gast.Call) and self._is_builtin(call.func, map) and len(call.args) >= 2
                and not call.keywords and not any(isinstance(a, gast.Starred) for a in call.args)):
            return call
        func, iterables = call.args[0], call.args[1:]
        if isinstance(func, gast.Lambda):
            args = func.args
            if (args.vararg or args.kwarg or args.kwonlyargs or args.defaults or args.posonlyargs
                    or len(args.args) != len(iterables)):
                return call
            params, element = [a.id for a in args.args], func.body
        elif isinstance(func, (gast.Name, gast.Attribute)):
            params = [self.context.namer.fresh("_mapped") for _ in iterables]
            element = gast.Call(func=func, args=[name(p) for p in params], keywords=[])
        else:
            return call
        if len(iterables) == 1:
            target, source = store(params[0]), iterables[0]
        else:
            target = gast.Tuple(elts=[store(p) for p in params], ctx=gast.Store())
            source = gast.Call(func=name("zip"), args=list(iterables), keywords=[])
            if not self._is_builtin(source.func, zip):
                return call
        generator = gast.comprehension(target=target, iter=source, ifs=[], is_async=0)
        return copy_location(gast.ListComp(elt=element, generators=[generator]), call)


def _changed_in(body, iterator):
    """Whether `body` rebinds or calls a method of a name the (lazy) `iterator` reads: then a map consumed
    item by item differs from a list built before the loop."""
    names = {n.id for n in walk(iterator) if isinstance(n, gast.Name)}
    for n in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.Name) and n.id in names and not isinstance(n.ctx, gast.Load):
            return True
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute):
            base = n.func.value
            while isinstance(base, (gast.Attribute, gast.Subscript)):
                base = base.value
            if isinstance(base, gast.Name) and base.id in names:
                return True
    return False
