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

A generator also runs late: its element, conditions and items are read when it is consumed, not where
it is written. So code between the binding and the read that may change what it reads is refused too:

    g = (v * v for v in xs)
    xs.append(x[2])         # Python: the sum sees three items; the list made at the binding has two
    total = sum(g)

(a name it reads assigned or deleted, an item or attribute of one stored, a method called on any name,
or a call of anything but a pure builtin or a NumPy-like module's function).
"""
import gast

from .base import Pass
from ...codegen.node_walk import walk

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
            if reads:
                self._refuse_changes_before_the_read(function_node, identifier, assign, reads[0][0])
        return function_node

    def _refuse_changes_before_the_read(self, function_node, identifier, assign, read):
        """Refuse code between `assign` and the statement holding `read` that may change what the
        generator reads when it runs (it runs at the read, not at the binding)."""
        generator = assign.value
        own = {n.id for c in generator.generators for n in walk(c.target) if isinstance(n, gast.Name)}
        reads = {n.id for n in walk(generator) if isinstance(n, gast.Name) and n.id not in own}
        order = [s for s in walk(function_node) if isinstance(s, gast.stmt)]
        order.sort(key=lambda s: (getattr(s, "lineno", 0), getattr(s, "col_offset", 0)))
        holder = next((s for s in reversed(order) if any(n is read for n in walk(s))), None)
        if holder is None or not hasattr(assign, "end_lineno") or not hasattr(holder, "lineno"):
            return
        for stmt in order:
            line = getattr(stmt, "lineno", None)
            if line is None or not (assign.end_lineno < line <= holder.lineno):
                continue
            if any(n is read for n in walk(stmt)) and stmt is not holder:
                continue                      # a compound statement around the read: its own header is checked
            change = _may_change(stmt, reads)
            if change is not None:
                raise self.error(f"`{identifier}` is a generator expression: it runs where it is consumed, "
                                 f"and this line may change what it reads before then", change, hint=_HINT)

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


_PURE_BUILTINS = {"len", "range", "abs", "min", "max", "sum", "float", "int", "bool", "round", "isinstance",
                  "print", "enumerate", "zip", "tuple", "list", "sorted", "reversed", "divmod", "pow", "all", "any"}
_PURE_MODULES = {"np", "numpy", "jnp", "math", "jax", "astjax", "lax", "scipy", "sp"}


def _header(stmt):
    """The expressions of `stmt` itself, without the statements of its body."""
    bodies = {id(s) for field in ("body", "orelse", "finalbody", "handlers") for s in getattr(stmt, field, []) or []}
    return [c for c in gast.iter_child_nodes(stmt) if id(c) not in bodies]


def _may_change(stmt, names):
    """The node of `stmt` (its header) that may change a value the names in `names` refer to, or None."""
    for part in _header(stmt):
        for node in walk(part):
            if isinstance(node, gast.Name) and node.id in names and isinstance(node.ctx, (gast.Store, gast.Del)):
                return node
            if isinstance(node, (gast.Subscript, gast.Attribute)) and isinstance(node.ctx, (gast.Store, gast.Del)):
                base = node
                while isinstance(base, (gast.Subscript, gast.Attribute)):
                    base = base.value
                if isinstance(base, gast.Name) and base.id in names:
                    return node
            if isinstance(node, gast.Call) and not _pure_call(node.func):
                return node
    return None


def _pure_call(func):
    """A call that changes nothing the function holds: a pure builtin, or a function of a NumPy-like
    module (`np.sum`, `jnp.linalg.norm`, `math.exp`); a method call may change its object."""
    if isinstance(func, gast.Name):
        return func.id in _PURE_BUILTINS
    if not isinstance(func, gast.Attribute):
        return False
    root = func
    while isinstance(root, gast.Attribute):
        root = root.value
    return isinstance(root, gast.Name) and root.id in _PURE_MODULES


def _consumed_in_place(node, parent):
    """Whether the generator expression `node` is consumed where it stands."""
    if isinstance(parent, gast.Call):
        return node in parent.args
    if isinstance(parent, (gast.For, gast.AsyncFor, gast.comprehension)):
        return parent.iter is node
    return False
