"""jit of vmap's source: its shape helpers folded for the one signature jit compiles.

vmap's generated source computes some shapes at run time, where it was written before the ranks were
known (`vmap(vmap(f))`, a broadcast_to to a shape given as a name):

    x_1 = jnp.reshape(x, batch_shape(jnp.shape(x), jnp.ndim(y) - 1))
    _t1 = x[batch_index(idx)]
    v_1 = jnp.reshape(v, batch_shape(jnp.shape(v), batch_part_rank(jnp.shape(base), _index1)))

Numba types a tuple by its length, and these helpers' result lengths depend on ranks, which it sees as
run-time integers. For one signature every rank is known (jit observed each variable's type when it ran
the reference backend: jit/observe.py), so each call is replaced by what it computes for that signature,
written with the shapes that stay run-time values:

    x_1 = jnp.reshape(x, jnp.shape(x)[:1] + (1,) + jnp.shape(x)[1:])
    _t1 = x[(slice(None, None, None), idx)]
    v_1 = jnp.reshape(v, jnp.shape(v)[:1] + jnp.shape(v)[1:])

A call whose ranks are not all known is left as it is (jit then refuses it at its line: never a guess).
"""
import ast
import copy

import gast
import numpy as np

from ..rules import batching as _batching
from .signature_folds import SignatureFold

__all__ = ["fold_batch_shapes"]


def fold_batch_shapes(node, context):
    """Replace vmap's shape helpers in the function `node` by their values for this signature."""
    helpers = {name: fn for name, fn in context.namespace.items()
               if fn is _batching.batch_shape or fn is _batching.batch_index or fn is _batching.batch_part_rank
               or fn is _batching.batch_axis}
    if not helpers:
        return node
    folder = _Fold(helpers, context)
    folder.visit(node)
    return node


class _Fold(SignatureFold):
    def fold(self, fn, node):
        if fn is _batching.batch_shape:
            return self._batch_shape(node)
        if fn is _batching.batch_part_rank:
            return self._part_rank(node)
        if fn is _batching.batch_axis:
            return self._batch_axis(node)
        return self._batch_index(node)

    # -------------------------------------------------------------- static facts of this signature
    def _shape_length(self, expr):
        """The length of a shape expression: `jnp.shape(a)` with a's rank known, or a tuple variable."""
        if _is_call(expr, "shape") and len(expr.args) == 1:
            return self._ndim(expr.args[0])
        if isinstance(expr, gast.Tuple):
            return len(expr.elts)
        t = self._type(expr)
        if t is not None and t[0] == "tuple":
            return len(t[1])
        return None

    def _int(self, expr):
        """The value of an integer expression made of literals, `jnp.ndim(a)`, `len(...)` and + and -."""
        if isinstance(expr, gast.Constant) and type(expr.value) is int:
            return expr.value
        if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)):
            left, right = self._int(expr.left), self._int(expr.right)
            if left is None or right is None:
                return None
            return left + right if isinstance(expr.op, gast.Add) else left - right
        if _is_call(expr, "ndim") and len(expr.args) == 1:
            return self._ndim(expr.args[0])
        if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == "len" \
                and len(expr.args) == 1:
            return self._shape_length(expr.args[0])
        if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and \
                self.helpers.get(expr.func.id) is _batching.batch_part_rank:
            folded = self._part_rank(expr)
            return folded.value if folded is not None else None
        return None

    def _example_index(self, expr):
        """An index with the parts this signature gives it (ints as 0, arrays of their rank), or None."""
        if isinstance(expr, gast.Tuple):         # a tuple display: `(..., _k0)`
            parts = [self._literal_part(e) for e in expr.elts]
            return None if any(p is _UNKNOWN for p in parts) else tuple(parts)
        t = self._type(expr) if isinstance(expr, gast.Name) else None
        if t is None:
            return None
        parts = t[1] if t[0] == "tuple" else (t,)
        out = []
        for p in parts:
            if p == ("object", "slice"):
                out.append(slice(None))
            elif p == ("object", "ellipsis"):
                out.append(Ellipsis)
            elif p == ("none",):
                out.append(None)
            elif p[0] == "weak" and p[1] == "int":
                out.append(0)
            elif p[0] == "scalar" and np.dtype(p[1]).kind in "iu":
                out.append(0)
            elif p[0] == "array" and np.dtype(p[1]).kind in "iub":
                out.append(np.zeros((1,) * p[2], dtype=p[1]))
            else:
                return None
        return tuple(out) if t[0] == "tuple" else out[0]

    def _literal_part(self, expr):
        """One part of a tuple display index: `...`, None, an int literal, or a name of a known part type."""
        if isinstance(expr, gast.Constant) and (expr.value is Ellipsis or expr.value is None):
            return expr.value
        if isinstance(expr, gast.Constant) and type(expr.value) is int:
            return 0
        if isinstance(expr, gast.Name) and self._type(expr) is not None and self._type(expr)[0] != "tuple":
            part = self._example_index(expr)
            return _UNKNOWN if part is None else part
        return _UNKNOWN

    # -------------------------------------------------------------- the helpers
    def _batch_shape(self, node):
        if not node.args:
            return None
        shape, ranks = node.args[0], [self._int(r) for r in node.args[1:]]
        length = self._shape_length(shape)
        if length is None or None in ranks:
            return None
        missing = max(ranks + [0]) - (length - 1)
        if missing <= 0:
            return copy.deepcopy(shape)
        head = gast.Subscript(value=copy.deepcopy(shape), slice=gast.Slice(lower=None, upper=gast.Constant(
            value=1, kind=None), step=None), ctx=gast.Load())
        tail = gast.Subscript(value=copy.deepcopy(shape), slice=gast.Slice(lower=gast.Constant(value=1, kind=None),
                                                                            upper=None, step=None), ctx=gast.Load())
        ones = gast.Tuple(elts=[gast.Constant(value=1, kind=None) for _ in range(missing)], ctx=gast.Load())
        return gast.BinOp(left=gast.BinOp(left=head, op=gast.Add(), right=ones), op=gast.Add(), right=tail)

    def _part_rank(self, node):
        if len(node.args) != 2:
            return None
        length, index = self._shape_length(node.args[0]), self._example_index(node.args[1])
        if length is None or index is None and not isinstance(node.args[1], gast.Constant):
            return None
        try:
            rank = _batching.batch_part_rank((1,) * length, index)
        except Exception:          # an index this signature cannot take: left to run (and refuse) as it is
            return None
        return gast.Constant(value=int(rank), kind=None)

    def _batch_axis(self, node):
        """`batch_axis(None, jnp.ndim(s))`: the batched axis (a tuple of ints) for a literal axis and a known rank."""
        if len(node.args) != 2:
            return None
        ndim = self._int(node.args[1])
        try:
            axis = ast.literal_eval(gast.gast_to_ast(node.args[0]))
        except ValueError:
            return None
        if ndim is None:
            return None
        value = _batching.batch_axis(axis, ndim)
        return gast.parse(repr(value)).body[0].value

    def _batch_index(self, node):
        if len(node.args) not in (1, 2) or not isinstance(node.args[0], (gast.Name, gast.Tuple, gast.Constant)):
            return None
        if isinstance(node.args[0], gast.Constant):        # `batch_index(0)`: as the display `(0,)`
            node.args[0] = gast.Tuple(elts=[node.args[0]], ctx=gast.Load())
        index = self._example_index(node.args[0])
        if index is None:
            return None
        try:
            parts = index if isinstance(index, tuple) else (index,)
            if _batching._splits_advanced(parts):     # the batch axis an advanced index too: keeps the call
                return None
        except Exception:
            return None
        everything = gast.Call(func=gast.Name(id="slice", ctx=gast.Load(), annotation=None, type_comment=None),
                               args=[gast.Constant(value=None, kind=None)] * 3, keywords=[])
        if isinstance(node.args[0], gast.Tuple):
            return gast.Tuple(elts=[everything] + copy.deepcopy(node.args[0].elts), ctx=gast.Load())
        idx = gast.Name(id=node.args[0].id, ctx=gast.Load(), annotation=None, type_comment=None)
        if self._type(node.args[0])[0] == "tuple":
            return gast.BinOp(left=gast.Tuple(elts=[everything], ctx=gast.Load()), op=gast.Add(), right=idx)
        return gast.Tuple(elts=[everything, idx], ctx=gast.Load())


_UNKNOWN = object()      # a part of a tuple display index this signature does not tell


def _is_call(expr, attr):
    """`jnp.<attr>(...)` or `np.<attr>(...)`."""
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and expr.func.attr == attr \
        and isinstance(expr.func.value, gast.Name) and expr.func.value.id in ("jnp", "np", "numpy")
