"""Activity: which variables need derivatives.

A variable is *varied* if it depends on an input being differentiated, and
*useful* if the output depends on it; only variables that are both (active)
get an adjoint or a tangent. The analysis is by name and ignores statement
order, which over-approximates slightly and is always safe.
"""
import gast

from .classify import classify
from ..codegen.node_walk import walk

__all__ = ["Activity"]


class Activity:
    """The active variables of a normalized function, with respect to `inputs`, for `outputs`."""

    def __init__(self, function_node, resolver, inputs, outputs):
        self.assignments = []     # (target name, Application)
        self.restores = set()     # indices in assignments of `v = pop(tape)` after a `push(tape, v)`
        restored = _restored_names(function_node)
        for node in walk(function_node):
            if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
                if (node.targets[0].id, _popped_tape(node.value)) in restored:
                    self.restores.add(len(self.assignments))
                self.assignments.append((node.targets[0].id, classify(node.value, resolver)))
            elif isinstance(node, gast.Expr) and _is_append(node.value):
                self.assignments.append((node.value.func.value.id, classify(
                    gast.List(elts=node.value.args, ctx=gast.Load()), resolver)))
            elif isinstance(node, gast.Expr) and _is_push(node.value):
                tape, value = node.value.args
                self.assignments.append((tape.id, classify(gast.List(elts=[value], ctx=gast.Load()), resolver)))
        self.varied = self._forward(set(inputs))
        self.useful = self._backward(set(outputs))
        self.active = self.varied & self.useful

    def _forward(self, names):
        changed = True
        while changed:
            changed = False
            for k, (target, app) in enumerate(self.assignments):
                if k in self.restores:     # `v = pop(_tape)` gives back a value v held: v's own assignments say
                    continue
                if target not in names and app.differentiable and any(n in names for n in _dependencies(app)):
                    names.add(target)
                    changed = True
        return names

    def _backward(self, names):
        changed = True
        while changed:
            changed = False
            for target, app in self.assignments:
                if target in names and app.differentiable:
                    new = set(app.operand_names()) - names
                    if new:
                        names |= new
                        changed = True
        return names

    def is_active(self, node):
        return isinstance(node, gast.Name) and node.id in self.active


def _dependencies(app):
    """The names a result depends on: its operands', and for a primitive those of its static arguments too,
    so that a static argument carrying a derivative (`clip(c, x)`) makes the result varied and is refused
    (check_refusals) rather than its derivative silently dropped. Shape-only parameters do not count."""
    names = app.operand_names()
    if app.kind == "primitive":
        prim = app.primitive
        for param, node in app.bound.items():
            if param not in prim.operands and param not in prim.shape_params:
                names = names + [n.id for n in walk(node) if isinstance(n, gast.Name)]
    return names


def _popped_tape(value):
    """The tape name of `pop(tape)`, else None."""
    if (isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id == "pop"
            and len(value.args) == 1 and isinstance(value.args[0], gast.Name)):
        return value.args[0].id
    return None


def _restored_names(function_node):
    """(name, tape) for each `push(tape, name)` of a plain name: the reverse sweep's `name = pop(tape)`
    restores a value that name held, so it is varied only if one of name's own assignments is. Without
    this every popped value would count as varied as soon as one value on the tape is (a boolean mask
    restored in a loop, refused as `lax.select`'s predicate under a second derivative)."""
    found = set()
    for node in walk(function_node):
        if isinstance(node, gast.Expr) and _is_push(node.value) and isinstance(node.value.args[1], gast.Name):
            found.add((node.value.args[1].id, node.value.args[0].id))
    return found


def _is_append(value):
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "append" and isinstance(value.func.value, gast.Name))


def _is_push(value):
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Name) and value.func.id == "push"
            and len(value.args) == 2 and isinstance(value.args[0], gast.Name))
