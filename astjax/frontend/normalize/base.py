"""The shape of a normalization pass: a gast transformer with the function's context."""
import gast

from ...codegen.node_walk import nodes, NodeTransformer

__all__ = ["Pass", "Renamer", "copy_location", "name", "store", "range_of", "rewrite_inner_blocks"]


class Pass(NodeTransformer):
    """A normalization pass. Subclasses say in their docstring what they rewrite."""

    def __init__(self, context):
        self.context = context

    def run(self, function_node):
        return self.visit(function_node)

    def error(self, message, node, hint=None):
        return self.context.error(message, node, hint)


class Renamer(NodeTransformer):
    """Rename the names in `renames` (every occurrence, or only the loads), except those in `keep`:
    the fresh names passes give a comprehension's, an inlined function's or a factory's own variables."""

    def __init__(self, renames, keep=(), loads_only=False):
        self.renames = {k: v for k, v in renames.items() if k not in keep}
        self.loads_only = loads_only

    def visit_Name(self, node):
        if node.id in self.renames and (not self.loads_only or isinstance(node.ctx, gast.Load)):
            return gast.Name(id=self.renames[node.id], ctx=node.ctx, annotation=node.annotation,
                             type_comment=node.type_comment)
        return node


class BlockPass(Pass):
    """A pass that rewrites statement by statement, innermost blocks first: `rewrite(stmt)` returns the
    statements that replace `stmt` (by default `stmt` itself)."""

    def run(self, node):
        node.body = self.block(node.body)
        return node

    def block(self, stmts):
        out = []
        for stmt in stmts:
            rewrite_inner_blocks(stmt, self.block)
            out.extend(self.rewrite(stmt))
        return out

    def rewrite(self, stmt):
        return [stmt]


def rewrite_inner_blocks(stmt, rewrite):
    """Replace the body and else-block of a compound statement by `rewrite(block)`.

    A nested function definition is left alone: its body is another scope.
    """
    if isinstance(stmt, gast.FunctionDef):
        return
    for field in ("body", "orelse"):
        inner = getattr(stmt, field, None)
        if isinstance(inner, list):
            setattr(stmt, field, rewrite(inner))


def copy_location(new, old):
    """Give `new` (and its children without a position) the line of `old`."""
    if not hasattr(old, "lineno"):
        return new
    for child in nodes(new):
        if getattr(child, "lineno", None) is None:
            gast.copy_location(child, old)
    return new


def range_of(iterator, is_builtin):
    """(the `range(...)` call, reversed?) of a loop over `range(...)` or `reversed(range(...))`, else None."""
    if isinstance(iterator, gast.Call) and is_builtin(iterator.func, range):
        return iterator, False
    if (isinstance(iterator, gast.Call) and is_builtin(iterator.func, reversed) and len(iterator.args) == 1
            and isinstance(iterator.args[0], gast.Call) and is_builtin(iterator.args[0].func, range)):
        return iterator.args[0], True
    return None


def name(identifier):
    return gast.Name(id=identifier, ctx=gast.Load(), annotation=None, type_comment=None)


def store(identifier):
    return gast.Name(id=identifier, ctx=gast.Store(), annotation=None, type_comment=None)
