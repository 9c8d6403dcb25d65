"""What the per-signature folds of helper calls share (runtime/numba_batching.py, numba_per_slice.py).

Some generated code calls helpers whose results depend on ranks and dtypes (vmap's `batch_shape`,
piecewise's `piecewise_dtype`). For the one signature jit compiles, jit observed every variable's type,
so a fold replaces each such call by what it computes for that signature, or leaves it as it is where a
type is not known (jit then refuses it at its line: never a guess).
"""
import gast

from ..codegen.node_walk import NodeTransformer

__all__ = ["SignatureFold"]


class SignatureFold(NodeTransformer):
    """Replace calls of `helpers` ({name in the namespace: helper}) by `self.fold(helper, call)`, an
    expression for this signature, or None to keep the call."""

    def __init__(self, helpers, context):
        self.helpers = helpers
        self.context = context

    def visit_Call(self, node):
        self.generic_visit(node)
        fn = self.helpers.get(node.func.id) if isinstance(node.func, gast.Name) else None
        if fn is None or node.keywords:
            return node
        folded = self.fold(fn, node)
        return gast.copy_location(folded, node) if folded is not None else node

    def fold(self, fn, call):
        raise NotImplementedError

    # -------------------------------------------------------------- static facts of this signature
    def _type(self, expr):
        """The type jit observed `expr` (a name) hold, or None."""
        return self.context.lowered_type(expr.id) if isinstance(expr, gast.Name) else None

    def _ndim(self, expr):
        """The rank of `expr` for this signature (of `-x`, x's), or None where it is not known."""
        if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
            return self._ndim(expr.operand)
        t = self._type(expr)
        if t is None:
            return None
        if t[0] == "array":
            return t[2]
        if t[0] in ("scalar", "weak", "bool"):
            return 0
        return None
