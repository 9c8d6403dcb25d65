"""Same-shape classes: which values provably have the same shape.

An elementwise primitive's result has its operands' shape when they share one
(a Python constant fits any shape). Reverse mode uses this to leave out
`unbroadcast` where nothing was broadcast, so `y = jnp.sin(x) * x` gives
`bx = by * jnp.sin(x) + ...` rather than `bx = unbroadcast(..., x)`.
"""
import itertools

import gast

from .classify import classify

__all__ = ["ShapeClasses"]

SCALAR = "scalar"          # a Python number: broadcasts against anything, changes no shape
_unknown = itertools.count()


class ShapeClasses:
    """Shape class of every variable and statement of a normalized function."""

    def __init__(self, function_node, resolver):
        self.resolver = resolver
        self.statements = [n for n in gast.walk(function_node)
                           if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)]
        self.variable = {a.id: f"param:{a.id}" for a in function_node.args.args}
        loop_targets = {n.target.id for n in gast.walk(function_node) if isinstance(n, gast.For)}
        for target in loop_targets:
            self.variable[target] = f"unknown:{next(_unknown)}"
        self.of_statement = {}
        for _ in range(len(self.statements) + 2):
            changed = False
            by_variable = {}
            for stmt in self.statements:
                cls = self._expression_class(stmt.value)
                self.of_statement[id(stmt)] = cls
                by_variable.setdefault(stmt.targets[0].id, set()).add(cls)
            for name, classes in by_variable.items():
                if name in self.variable and self.variable[name].startswith("param:"):
                    classes = classes | {self.variable[name]}
                new = classes.pop() if len(classes) == 1 else f"unknown:{name}"
                if self.variable.get(name) != new:
                    self.variable[name] = new
                    changed = True
            if not changed:
                break

    def of(self, node):
        """The class of an operand node (a name or a constant)."""
        if isinstance(node, gast.Constant) and isinstance(node.value, (int, float, bool)):
            return SCALAR
        if isinstance(node, gast.Name):
            return self.variable.get(node.id, f"free:{node.id}")
        return f"unknown:{id(node)}"

    def statement(self, stmt):
        return self.of_statement.get(id(stmt), f"unknown:{id(stmt)}")

    def _expression_class(self, value):
        app = classify(value, self.resolver)
        if app.kind == "copy":
            return self.of(value)
        if app.kind == "constant" and isinstance(value, gast.Constant):
            return SCALAR
        if app.kind == "primitive" and app.primitive.elementwise:
            classes = {self.of(node) for key, node in app.bound.items()
                       if key in app.primitive.operands or key == "condition"} - {SCALAR}
            if len(classes) == 1:
                return classes.pop()
            if not classes:
                return SCALAR
        return f"unknown:{id(value)}"
