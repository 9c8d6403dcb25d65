"""The shape of a pass that rewrites calls into statements run just before the statement holding them.

A call may be replaced by statements placed before its statement only where
Python evaluates it once, before the statement's own work: in an assignment's
or expression statement's value, a `return`, an `if` test or a `for` iterable,
and there not inside a lambda, a comprehension (but its first iterable), a
conditional expression, the later operands of `and`/`or`. A statement that
also mutates a container (`xs.pop()`, `d.update(...)`) is left alone: moving a
call before it could let that call see the container before the mutation.
"""
import gast

from .base import BlockPass, copy_location
from ...codegen.node_walk import walk

__all__ = ["EagerCalls"]

_DEFERRED = (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.IfExp)
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "sort", "reverse", "clear", "update", "setdefault",
             "popitem", "fill", "put", "resize"}


class EagerCalls(BlockPass):
    """Subclasses define `call(node)` (a call in an eager position: its replacement, statements it needs
    go through `self.emit`) and may define `statement(stmt)` (a whole statement's replacement, or None)."""

    def is_builtin(self, func, builtin):
        return self.context.resolver.static_value(func) is builtin

    def rewrite(self, stmt):
        self.emitted = []
        whole = self.statement(stmt)
        if whole is not None:
            return [copy_location(s, stmt) for s in whole]
        self.emitted = []
        if any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _MUTATORS
               for field in eager_fields(stmt) for n in walk(getattr(stmt, field))):
            return [stmt]
        for field in eager_fields(stmt):
            setattr(stmt, field, self.expression(getattr(stmt, field), True))
        return [copy_location(s, stmt) for s in self.emitted] + [stmt]

    def statement(self, stmt):
        return None

    def call(self, node):
        return node

    def emit(self, stmt):
        self.emitted.append(stmt)

    def expression(self, node, eager):
        if node is None:
            return None
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.expr_context):
                continue
            if isinstance(node, gast.BoolOp) and field == "values":
                setattr(node, field, [self.expression(v, eager and k == 0) for k, v in enumerate(value)])
            elif isinstance(node, (gast.ListComp, gast.SetComp, gast.GeneratorExp, gast.DictComp)) \
                    and field == "generators":
                for k, comp in enumerate(value):
                    comp.iter = self.expression(comp.iter, eager and k == 0)
                    comp.ifs = [self.expression(c, False) for c in comp.ifs]
            elif isinstance(value, gast.AST):
                setattr(node, field, self.expression(value, eager and not isinstance(node, _DEFERRED)))
            elif isinstance(value, list):
                setattr(node, field, [self.expression(v, eager and not isinstance(node, _DEFERRED))
                                      if isinstance(v, gast.AST) else v for v in value])
        if eager and isinstance(node, gast.Call):
            return self.call(node)
        return node


def eager_fields(stmt):
    """The expression fields of `stmt` evaluated once, before it runs (a `while` test is not)."""
    if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Expr, gast.Return)):
        return ["value"] if getattr(stmt, "value", None) is not None else []
    if isinstance(stmt, gast.If):
        return ["test"]
    if isinstance(stmt, gast.For):
        return ["iter"]
    return []
