"""A generator expression is consumed once: refuse one that may be read again.

Later passes turn a generator expression into the list it produces, which is exact where the
generator is consumed where it stands (`sum(v * v for v in x)`, `for v in (...)`) or bound to a
name that is read exactly once:

    g = (v * v for v in x)
    first = sum(g)          # Python: the squares
    second = sum(g)         # Python: 0 -- g is exhausted; as a list it would be the squares again

A name bound to a generator expression and read more than once, or read inside a loop, lambda,
nested function or comprehension that may run the read again, is refused (a silently wrong number
otherwise), as is a generator expression stored anywhere else (in a tuple, a return value).
"""
import gast

from .base import Pass

__all__ = ["GeneratorNames"]

_COMPREHENSIONS = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_HINT = "build a list instead (`[v * v for v in x]`), which can be read any number of times."


class GeneratorNames(Pass):
    """Refuse generator expressions whose one-shot consumption a list would not reproduce."""

    def run(self, function_node):
        self.bound, self.loads, self.stray = {}, {}, []
        for stmt in function_node.body:
            self._walk(stmt, (), None)
        for node in self.stray:
            raise self.error("a generator expression that is not consumed where it stands (an argument of a "
                             "call, a loop's iterable, or the value of an assignment to a name) cannot be "
                             "transformed", node, hint=_HINT)
        for identifier, (assign, context, count) in self.bound.items():
            reads = self.loads.get(identifier, [])
            if count > 1 or len(reads) > 1 or any(ctx != context for _, ctx in reads):
                where = reads[1][0] if len(reads) > 1 else (reads[0][0] if reads else assign)
                raise self.error(f"`{identifier}` is a generator expression, consumed by its first reader: "
                                 f"a second read (or one that may run again in a loop or function) sees it "
                                 f"exhausted", where, hint=_HINT)
        return function_node

    def _walk(self, node, context, parent):
        """Record generator bindings, reads and stray generators; `context` names the enclosing nodes that
        may run their body more than once (loops, functions, comprehension bodies)."""
        if isinstance(node, gast.GeneratorExp) and not _consumed_in_place(node, parent):
            self.stray.append(node)
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.GeneratorExp):
            targets = node.targets
            if len(targets) == 1 and isinstance(targets[0], gast.Name):
                identifier = targets[0].id
                previous = self.bound.get(identifier)
                self.bound[identifier] = (node, context, 1 + (previous[2] if previous else 0))
                self._walk_generator(node.value, context)
                return
            self.stray.append(node.value)
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            self.loads.setdefault(node.id, []).append((node, context))
            return
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) and node.id in self.bound:
            self.bound[node.id] = self.bound[node.id][:2] + (self.bound[node.id][2] + 1,)
        if isinstance(node, (gast.For, gast.AsyncFor)):
            self._walk(node.target, context, node)
            self._walk(node.iter, context, node)
            for child in node.body + node.orelse:
                self._walk(child, context + (id(node),), node)
            return
        if isinstance(node, gast.While):
            for child in [node.test] + node.body + node.orelse:
                self._walk(child, context + (id(node),), node)
            return
        if isinstance(node, (gast.Lambda, gast.FunctionDef, gast.AsyncFunctionDef)):
            for child in gast.iter_child_nodes(node):
                self._walk(child, context + (id(node),), node)
            return
        if isinstance(node, _COMPREHENSIONS):
            self._walk_generator(node, context)
            return
        for child in gast.iter_child_nodes(node):
            self._walk(child, context, node)

    def _walk_generator(self, node, context):
        """A comprehension evaluates its first iterable once, where it stands; the rest once per item."""
        first, *rest = node.generators
        self._walk(first.iter, context, first)
        inner = context + (id(node),)
        self._walk(first.target, inner, first)
        for test in first.ifs:
            self._walk(test, inner, first)
        for generator in rest:
            self._walk(generator, inner, node)
        for field in ("elt", "key", "value"):
            if getattr(node, field, None) is not None:
                self._walk(getattr(node, field), inner, node)


def _consumed_in_place(node, parent):
    """Whether the generator expression `node` is consumed where it stands."""
    if isinstance(parent, gast.Call):
        return node in parent.args
    if isinstance(parent, (gast.For, gast.AsyncFor, gast.comprehension)):
        return parent.iter is node
    return False
