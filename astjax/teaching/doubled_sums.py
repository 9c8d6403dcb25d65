"""A value added to itself is twice that value.

    ba = ba * a + ba * a            ->      ba = 2 * (ba * a)
    bc = c + c                      ->      bc = 2 * c
    ba += ba                        ->      ba = 2 * ba

The product rule of `a * a` writes the same term twice; a teacher writes `2 * a * ba`. `e + e` and
`2 * e` are the same number in floating point (both are 2e rounded once; both overflow together), and
in integers, so the result is exactly the one computed; `2 * a * ba` would round `2 * a` first and
is not written. Only where the two sides are the same expression with no call other than a library
function of the values (`jnp.exp(a)`: no `push`/`pop`, no generated function), no comparison or
boolean operator (`flag + flag` of booleans is not `2 * flag`), and no walrus. A sum further left
(`x + e + e` is `(x + e) + e`) is not regrouped: floating-point addition is not associative.
"""
import gast

from ..codegen.node_walk import NodeTransformer, walk

__all__ = ["double_sums"]


def double_sums(function_node, changed=False):
    """Fold in place; return the node, or with `changed=True` whether anything was folded."""
    folder = _Double()
    folder.visit(function_node)
    for owner in list(walk(function_node)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if isinstance(block, list):
                for i, stmt in enumerate(block):
                    if (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
                            and isinstance(stmt.target, gast.Name) and isinstance(stmt.value, gast.Name)
                            and stmt.value.id == stmt.target.id):
                        target = gast.Name(id=stmt.target.id, ctx=gast.Store(), annotation=None, type_comment=None)
                        block[i] = gast.Assign(targets=[target], value=gast.BinOp(
                            left=gast.Constant(value=2, kind=None), op=gast.Mult(), right=stmt.value), type_comment=None)
                        folder.folded = True
    return folder.folded if changed else function_node


class _Double(NodeTransformer):
    folded = False

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Add) and _pure(node.left) and gast.dump(node.left) == gast.dump(node.right):
            self.folded = True
            return gast.BinOp(left=gast.Constant(value=2, kind=None), op=gast.Mult(), right=node.left)
        return node


def _pure(expr):
    for n in walk(expr):
        if isinstance(n, (gast.Compare, gast.BoolOp, gast.NamedExpr, gast.Lambda, gast.Yield, gast.YieldFrom,
                          gast.Await, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                          gast.List, gast.Tuple, gast.Dict, gast.Set, gast.JoinedStr)):
            return False
        if isinstance(n, gast.Constant) and not isinstance(n.value, (int, float)) or isinstance(n, gast.Constant) and isinstance(n.value, bool):
            return False
        if isinstance(n, gast.UnaryOp) and isinstance(n.op, gast.Not):
            return False
        if isinstance(n, gast.Call) and not _library_call(n.func):
            return False
    return True


def _library_call(func):
    """`jnp.exp`, `np.tanh`: an attribute of a module name (a pure function of its arguments)."""
    return (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
            and func.value.id in ("jnp", "np", "numpy", "math"))
