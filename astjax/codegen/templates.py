"""Expand a rule template: put the statement's own expressions where the rule names them.

    rule  "bx += by * jnp.cos(x)"  for  `_t1 = jnp.sin(u)`
    gives  bu += b_t1 * jnp.cos(u)

Arguments left at their defaults are dropped, so `jnp.sum(da, None, keepdims=False)`
prints as `jnp.sum(da)`.
"""
import inspect

import linecache

import gast

from ..rules import lookup_callable
from .namespace import GENERATED_NAMESPACE
from .node_walk import copy_tree, NodeTransformer

__all__ = ["expand", "rename_loads", "substitute_loads", "comment", "LineComments", "index_expression", "is_marker", "call", "assign", "augassign"]


class _Substitute(NodeTransformer):
    def __init__(self, bindings):
        self.bindings = bindings

    def visit_Name(self, node):
        if node.id in self.bindings and isinstance(node.ctx, gast.Load):
            return copy_tree(self.bindings[node.id])
        return node


def rename_loads(node, names):
    """`node` with each read of a name in `names` ({old: new}) reading the new name instead."""
    return _Substitute({old: name(new) for old, new in names.items()}).visit(node)


def substitute_loads(node, bindings):
    """`node`, changed in place, with each read of a name in `bindings` ({name: expression}) replaced by a
    copy of its expression; the result is `node` unless `node` itself is such a read."""
    return _Substitute(bindings).visit(node)


def expand(template, bindings):
    """A copy of `template` with each bound name replaced by its expression."""
    node = _Substitute(bindings).visit(copy_tree(template))
    return _DropDefaults().visit(node)


class _DropDefaults(NodeTransformer):
    """Remove arguments equal to their defaults from calls of known primitives."""

    def visit_Call(self, node):
        self.generic_visit(node)
        prim = lookup_callable(static_value(node.func))
        signature = prim.signature if prim is not None else None
        if signature is None:
            return node
        params = list(signature.parameters.values())
        node.keywords = [k for k in node.keywords
                         if not _is_default(k.value, signature.parameters.get(k.arg))]
        if not node.keywords:
            while node.args and len(node.args) <= len(params) and _is_default(node.args[-1], params[len(node.args) - 1]):
                node.args.pop()
        return node


def static_value(func):
    """The object a name or attribute chain (`jnp.linalg.solve`) names in generated code, or None."""
    if isinstance(func, gast.Name):
        return GENERATED_NAMESPACE.get(func.id)
    if isinstance(func, gast.Attribute):
        base = static_value(func.value)
        return getattr(base, func.attr, None) if base is not None else None
    return None


def _is_default(node, param):
    if param is None or param.default is inspect.Parameter.empty or not isinstance(node, gast.Constant):
        return False
    default = param.default
    return type(node.value) is type(default) and node.value == default if default is not None else node.value is None


def index_expression(index):
    """An index as an ordinary expression: `1:3` -> `slice(1, 3)`, so it can be an argument."""
    if isinstance(index, gast.Slice):
        parts = [p if p is not None else gast.Constant(value=None, kind=None)
                 for p in (index.lower, index.upper, index.step)]
        if isinstance(parts[2], gast.Constant) and parts[2].value is None:
            parts.pop()     # slice(lower, upper): both stay, slice(k) would mean [:k]
        return call("slice", *parts)
    if isinstance(index, gast.Tuple):
        return gast.Tuple(elts=[index_expression(e) for e in index.elts], ctx=gast.Load())
    return index


def comment(text):
    """A statement that prints as `# text` (passes leave it alone)."""
    return gast.Expr(value=gast.Call(func=gast.Name(id="__comment__", ctx=gast.Load(), annotation=None,
                                                    type_comment=None),
                                     args=[gast.Constant(value=text, kind=None)], keywords=[]))


class LineComments:
    """Hands out one `# from line N: <the user's line>` comment each time the user line changes.

    For a generated source (grad of grad) N is still the line in the user's file the
    statement came from, so the comments of every order point at what the user wrote.
    """

    def __init__(self, source):
        self.source = source
        self.last_line = None

    def __call__(self, stmt):
        line = getattr(stmt, "lineno", None)
        origin = self.source.user_line(line) if line is not None else None
        if origin is None or origin == self.last_line:
            return []
        self.last_line = origin
        text = linecache.getline(*origin).strip()
        return [comment(f"from line {origin[1]}: {text}")] if text else []


def is_marker(stmt, kind=None):
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name)):
        return False
    ident = stmt.value.func.id
    return ident == kind if kind else ident in ("__comment__", "__restore__")


def name(identifier):
    return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)


def call(func, *args):
    """A call node: `call("pop", name("_tape"))`."""
    if isinstance(func, str):
        parts = func.split(".")
        node = name(parts[0])
        for attr in parts[1:]:
            node = gast.Attribute(value=node, attr=attr, ctx=gast.Load())
        func = node
    return gast.Call(func=func, args=list(args), keywords=[])


def assign(target, value):
    return gast.Assign(targets=[gast.Name(id=target, ctx=gast.Store(), annotation=None, type_comment=None)],
                       value=value, type_comment=None)


def augassign(target, value):
    return gast.AugAssign(target=gast.Name(id=target, ctx=gast.Store(), annotation=None, type_comment=None),
                          op=gast.Add(), value=value)
