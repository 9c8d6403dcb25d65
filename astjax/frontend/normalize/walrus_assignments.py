"""The walrus operator `:=` becomes an assignment of its own, in the order Python evaluates it.

    if (n := len(x)) > 3:              n = len(x)
        ...                      ->    if n > 3:
                                           ...

    while (t := x[i] * x[i]) < 10.0:   t = x[i] * x[i]
        i += 1                   ->    while t < 10.0:
                                           i += 1
                                           t = x[i] * x[i]

Only a `:=` that always runs when its statement runs is moved: not one behind `and`/`or`,
inside a conditional expression, a later link of a chained comparison, a lambda or a
comprehension (those stay, and are refused later with a clear error). Moving it first is
exact as long as nothing in the statement reads the name before the `:=` does; that is
refused. A `while` test is computed again at the end of the body, so a `continue` in the
body (which would skip it) is refused too.
"""
import copy

import gast

from .base import BlockPass, copy_location, name, store
from ...codegen.node_walk import walk

__all__ = ["WalrusAssignments"]

_CONDITIONAL_FIELDS = {gast.BoolOp: ("values",), gast.IfExp: ("body", "orelse"), gast.Compare: ("comparators",)}
_SCOPES = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)


class WalrusAssignments(BlockPass):
    """Hoist each unconditionally evaluated `:=` of a statement into an assignment before it."""

    def rewrite(self, stmt):
        if isinstance(stmt, gast.While):
            before = self._hoisted(stmt, "test")
            if not before:
                return [stmt]
            if any(isinstance(n, gast.Continue) for n in _own_statements(stmt.body)):
                raise self.error("a `:=` in a `while` test of a loop that uses `continue` cannot be transformed",
                                 stmt, hint="assign the value before the loop and again at the end of its body.")
            stmt.body = stmt.body + [copy_location(copy.deepcopy(s), stmt) for s in before]
            return before + [stmt]
        fields = {gast.Assign: "value", gast.AugAssign: "value", gast.AnnAssign: "value", gast.Expr: "value",
                  gast.Return: "value", gast.If: "test", gast.For: "iter"}
        field = fields.get(type(stmt))
        if field is None or getattr(stmt, field) is None:
            return [stmt]
        return self._hoisted(stmt, field) + [stmt]

    def _hoisted(self, stmt, field):
        """Assignments for the `:=` nodes of `stmt.field` evaluated unconditionally; the nodes become names."""
        expression = getattr(stmt, field)
        walruses = list(_unconditional_walruses(expression))
        if not walruses:
            return []
        chosen = {id(w) for w in walruses}
        for walrus in walruses:
            target = walrus.target.id
            if _read_before(expression, target, walrus):
                raise self.error(f"`{target}` is read before the `:=` that assigns it in the same expression", walrus,
                                 hint=f"assign `{target}` on its own line first.")
        assignments = []
        for walrus in walruses:        # innermost and leftmost first: the order Python binds them
            value = _replace_walruses(walrus.value, chosen)
            assignments.append(copy_location(gast.Assign(targets=[store(walrus.target.id)], value=value,
                                                         type_comment=None), stmt))
        replaced = _replace_walruses(expression, chosen)
        setattr(stmt, field, replaced)
        return assignments


def _unconditional_walruses(node):
    """The `:=` nodes under `node` that run whenever `node` is evaluated, in evaluation order."""
    if isinstance(node, _SCOPES):
        return
    conditional = _CONDITIONAL_FIELDS.get(type(node), ())
    for field, value in gast.iter_fields(node):
        children = value if isinstance(value, list) else [value]
        for index, child in enumerate(children):
            if not isinstance(child, gast.AST):
                continue
            if field in conditional and not (isinstance(node, gast.BoolOp) and index == 0) and \
                    not (isinstance(node, gast.Compare) and index == 0):
                continue
            if isinstance(node, gast.IfExp) and field != "test":
                continue
            yield from _unconditional_walruses(child)
    if isinstance(node, gast.NamedExpr):
        yield node


def _position(node):
    return getattr(node, "lineno", 0) or 0, getattr(node, "col_offset", 0) or 0


def _read_before(expression, target, walrus):
    """Whether `target` is read in `expression` at a place evaluated before `walrus` (left of it)."""
    inside = {id(n) for n in walk(walrus)}
    start = _position(walrus)
    return any(isinstance(n, gast.Name) and n.id == target and isinstance(n.ctx, gast.Load)
               and id(n) not in inside and _position(n) < start for n in walk(expression))


def _replace_walruses(node, chosen):
    if isinstance(node, gast.NamedExpr) and id(node) in chosen:
        return copy_location(name(node.target.id), node)
    for field, value in gast.iter_fields(node):
        if isinstance(value, list):
            setattr(node, field, [_replace_walruses(v, chosen) if isinstance(v, gast.AST) else v for v in value])
        elif isinstance(value, gast.AST):
            setattr(node, field, _replace_walruses(value, chosen))
    return node


def _own_statements(block):
    """The statements of a loop body, not those of loops or functions nested in it."""
    for stmt in block:
        yield stmt
        if isinstance(stmt, (gast.For, gast.While, gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                yield from _own_statements(inner)
