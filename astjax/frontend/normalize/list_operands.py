"""List literals that carry values get their own names, so every rule sees its operands as names.

    out = np.sum([x, _t1, _t2])        ->   _l1 = [x, _t1, _t2]
                                            out = np.sum(_l1)
    R = jnp.array([[c, _t1], [s, c]])  ->   _l1 = [c, _t1]
                                            _l2 = [s, c]
                                            R = jnp.array([_l1, _l2])

The derivative passes read an operand's adjoint or tangent through its name; a
list written inline inside a call (or inside another list) has none, and its
values would be dropped. A named list is a tuple assignment, whose adjoint
flows back item by item. The list operand of `stack`/`concatenate`/`array`
stays inline (their rules take one element at a time); lists nested in it are
named. Lists made only of constants (shapes, axes) stay as written.
"""
import gast

from ...rules import lookup_callable
from ..resolve import NOT_STATIC
from .base import BlockPass, copy_location, name, store
from ...codegen.node_walk import walk


class ListOperands(BlockPass):
    """Name the list and tuple literals that reach a primitive, a user function, a list append, or another list."""

    def rewrite(self, stmt):
        self.emitted = []
        self.statement(stmt)
        return [copy_location(s, stmt) for s in self.emitted] + [stmt]

    def statement(self, stmt):
        value = stmt.value if isinstance(stmt, (gast.Assign, gast.Expr)) else None
        if isinstance(value, (gast.List, gast.Tuple)) and isinstance(stmt, gast.Assign):
            value.elts = [self.named(e) for e in value.elts]
        elif isinstance(value, gast.Call):
            self.call(value)

    def call(self, node):
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr == "append" and self._is_value(func.value):
            node.args = [self.named(a) for a in node.args]
            return
        prim = lookup_callable(self.context.resolver.static_value(func))
        if prim is None:       # the user's function (or one astjax refuses): a list argument is a value too
            node.args = [self.named(a) for a in node.args]
            return
        if not prim.differentiable or prim.signature is None:
            return
        try:
            bound = prim.signature.bind(*node.args, **{k.arg: k.value for k in node.keywords if k.arg})
        except TypeError:
            return
        replaced = {}
        for param, value in bound.arguments.items():
            if param not in prim.operands or not isinstance(value, (gast.List, gast.Tuple)):
                continue
            if param == prim.sequence_operand:
                value.elts = [self.named(e) for e in value.elts]
            else:
                replaced[id(value)] = self.named(value)
        node.args = [replaced.get(id(a), a) for a in node.args]
        for keyword in node.keywords:
            keyword.value = replaced.get(id(keyword.value), keyword.value)

    def named(self, node):
        """`node`, or a fresh name bound to it first when it is a list literal holding local values."""
        if not isinstance(node, (gast.List, gast.Tuple)) or not self._holds_locals(node):
            return node
        node.elts = [self.named(e) for e in node.elts]
        tmp = self.context.namer.fresh("_l")
        self.emitted.append(gast.Assign(targets=[store(tmp)], value=node, type_comment=None))
        return name(tmp)

    def _holds_locals(self, node):
        return any(isinstance(n, gast.Name) and self.context.resolver.is_local(n.id) for n in walk(node))

    def _is_value(self, node):
        return self.context.resolver.static_value(node) is NOT_STATIC
