"""A comprehension holding a walrus `:=`, evaluated at once, becomes the loop Python runs.

    s = sum(y for v in x if (y := v * 2.0) > -0.5)  ->   _comprehension1 = []
                                                         for _v1 in x:
                                                             if (y := _v1 * 2.0) > -0.5:
                                                                 _comprehension1.append(y)
                                                         s = sum(_comprehension1)

A `:=` inside a comprehension binds the name in the enclosing function (PEP 572),
while the comprehension's own variables stay its own: so the loop's variables
get fresh names and the walrus targets keep theirs; walrus_assignments.py then
turns each `:=` into an assignment where it runs. Only a list comprehension, or
a generator expression that `sum`, `list`, `tuple`, `min`, `max` or `sorted`
consumes whole, in a place evaluated once before its statement (eager_calls.py)
and in a statement that reads no walrus target elsewhere (it would read it
before the loop ran) is rewritten; others stay refused.
"""
import gast

from .base import Renamer, name, store
from .eager_calls import EagerCalls
from ...codegen.node_walk import walk

__all__ = ["ComprehensionWalrus"]

_WHOLE = (sum, list, tuple, min, max, sorted)
_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.FunctionDef)


class ComprehensionWalrus(EagerCalls):
    """Lower comprehensions with walrus targets into loops appending to a list."""

    def run(self, node):
        if not any(isinstance(n, gast.NamedExpr) for n in walk(node)):
            return node
        return super().run(node)

    def rewrite(self, stmt):
        self.statement_node = stmt
        return super().rewrite(stmt)

    def expression(self, node, eager):
        if eager and isinstance(node, gast.ListComp) and self.lowerable(node):
            return self.lowered(node)
        return super().expression(node, eager)

    def call(self, node):
        if any(self.is_builtin(node.func, b) for b in _WHOLE) and len(node.args) == 1 \
                and isinstance(node.args[0], gast.GeneratorExp) and self.lowerable(node.args[0]):
            node.args = [self.lowered(node.args[0])]
        return node

    def lowerable(self, comp):
        targets = _walrus_targets(comp)
        if not targets or any(g.is_async for g in comp.generators):
            return False
        outside = [n for n in walk(self.statement_node) if isinstance(n, gast.Name) and n.id in targets
                   and not any(n is m for m in walk(comp))]
        return not outside

    def lowered(self, comp):
        namer = self.context.namer
        result = namer.fresh("_comprehension")
        renames = {}
        for g in comp.generators:
            for n in walk(g.target):
                if isinstance(n, gast.Name):
                    renames.setdefault(n.id, namer.fresh(f"_{n.id}"))
        rename = Renamer(renames)
        body = [gast.Expr(value=gast.Call(func=gast.Attribute(value=name(result), attr="append", ctx=gast.Load()),
                                          args=[rename.visit(comp.elt)], keywords=[]))]
        for k, g in reversed(list(enumerate(comp.generators))):
            for condition in reversed(g.ifs):
                body = [gast.If(test=rename.visit(condition), body=body, orelse=[])]
            iterable = g.iter if k == 0 else rename.visit(g.iter)     # the first is evaluated outside
            body = [gast.For(target=rename.visit(g.target), iter=iterable, body=body, orelse=[], type_comment=None)]
        self.emit(gast.Assign(targets=[store(result)], value=gast.List(elts=[], ctx=gast.Load()), type_comment=None))
        for s in body:
            self.emit(s)
        return name(result)


def _walrus_targets(comp):
    """Names the comprehension's own `:=` bind (not those of scopes inside it)."""
    found, stack = set(), [comp.elt] + [c for g in comp.generators for c in g.ifs] + [
        g.iter for g in comp.generators[1:]]
    while stack:
        node = stack.pop()
        if isinstance(node, gast.NamedExpr):
            found.add(node.target.id)
        if isinstance(node, _SCOPES):
            if any(isinstance(n, gast.NamedExpr) for n in walk(node)):
                return set()            # a walrus in a nested scope: left alone
            continue
        stack.extend(gast.iter_child_nodes(node))
    return found

