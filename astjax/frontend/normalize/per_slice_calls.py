"""apply_along_axis and piecewise of the user's functions, as code the transformations read.

    y = jnp.apply_along_axis(g, 1, x, w)
 -> y = along_axis_result(vmap(g, in_axes=(0, None))(jnp.reshape(jnp.moveaxis(x, 1, -1), (-1, n)), w), x, 1)
       (n = jnp.shape(x)[1]; along_axis_result, rules/per_slice.py, puts the slices' results back in place)

    y = np.piecewise(x, [x < 0, x > 1], [f, g, 0.5])
 -> y = jnp.full(jnp.shape(x), 0.5, piecewise_dtype(x)).at[x < 0].set(jnp.astype(f(x[x < 0]), xt))
                                                       .at[x > 1].set(jnp.astype(g(x[x > 1]), xt))
       (xt = piecewise_pieces_dtype(x), x's dtype: NumPy and JAX write each piece into an array of x's
       dtype, so an integer x truncates a piece's 0.5 to 0 before astjax's result becomes float32)

    y = jnp.piecewise(x, [x < 0], [f, 0.5])
 -> y = jnp.where(x < 0, vmap(f) of every element, the others replaced by one f owns, ...)
       (`_write_per_element`: elementwise code of x's shape, so vmap batches it with each example's masks)

`g` runs on every 1-d slice (vmap over the rows of the moved, flattened array: JAX's own apply_along_axis
is vmap too), so its derivative is the user's function's, transformed as any callee. piecewise writes
each piece, in order, only where its condition holds (a later condition wins, as NumPy and JAX), and the
pieces' functions are called only on the elements they own: jnp.piecewise calls them per element (vmap,
as JAX's switch per element, on x's shape with the elements it does not own replaced by one it owns),
np.piecewise on the 1-d array of those elements (NumPy's meaning; a different number of elements in each
example, which vmap refuses when the conditions are batched). An element no condition selects gets the
extra default piece, or 0. Since a function never sees the
elements of another piece, `piecewise(x, [x > 0], [jnp.log, 0.0])` has no NaN in its gradient.

Rewritten only when each function is known now (a module-level function or astjax's; a lambda or local
function stays refused at the call), the array and the conditions are names or comparisons of names and
constants (they are read twice), the axis is a constant, the lists are literal and no keyword is passed
to the functions. Any other call is left as it is: it runs as NumPy does, and is refused where a
derivative reaches it.
"""
import copy

import gast
import numpy as np

from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name

__all__ = ["PerSliceCalls"]

REWRITTEN = {"apply_along_axis": "vmap of the function over the 1-d slices (a function known when transforming)",
             "piecewise": "each piece written where its condition holds (functions known when transforming)"}


class PerSliceCalls(Pass):
    """Rewrite `apply_along_axis(g, axis, arr, *args)` and `piecewise(x, [conds], [funcs])` (see above)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        from ... import numpy as jnp
        target = self.context.resolver.static_value(node.func)
        if target is jnp.apply_along_axis or target is np.apply_along_axis:
            return self._apply_along_axis(node) or node
        if target is jnp.piecewise or target is np.piecewise:
            return self._piecewise(node, per_element=target is jnp.piecewise) or node
        return node

    # ------------------------------------------------------------ helpers
    def _label(self, base, value):
        return name(self.context.resolver.introduce(base, value, self.context.namer))

    def _known_function(self, node):
        if isinstance(node, gast.Lambda):
            return False
        value = self.context.resolver.static_value(node)
        return value is not NOT_STATIC and callable(value) and not isinstance(value, type)

    def _static_int(self, node):
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
            inner = self._static_int(node.operand)
            return None if inner is None else -inner
        value = node.value if isinstance(node, gast.Constant) else self.context.resolver.static_value(node)
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return int(value)
        return None

    def _vmap(self, function, extra):
        from ...vmap_api import vmap
        keywords = []
        if extra:
            in_axes = gast.Tuple(elts=[gast.Constant(value=0, kind=None)] + [gast.Constant(value=None, kind=None)
                                                                            for _ in extra], ctx=gast.Load())
            keywords = [gast.keyword(arg="in_axes", value=in_axes)]
        return gast.Call(func=self._label("vmap", vmap), args=[copy.deepcopy(function)], keywords=keywords)

    # ------------------------------------------------------------ apply_along_axis
    def _apply_along_axis(self, node):
        if node.keywords or len(node.args) < 3 or any(isinstance(a, gast.Starred) for a in node.args):
            return None
        function, axis, arr, extra = node.args[0], node.args[1], node.args[2], node.args[3:]
        axis_value = self._static_int(axis)
        if not self._known_function(function) or axis_value is None or not isinstance(arr, gast.Name):
            return None
        from ...rules import per_slice
        jnp_ = lambda attr: gast.Attribute(value=name("jnp"), attr=attr, ctx=gast.Load())  # noqa: E731
        const = lambda v: gast.Constant(value=v, kind=None)  # noqa: E731
        arr_ = lambda: copy.deepcopy(arr)  # noqa: E731
        moved = gast.Call(func=jnp_("moveaxis"), args=[arr_(), const(axis_value), const(-1)], keywords=[])
        length = gast.Subscript(value=gast.Call(func=jnp_("shape"), args=[arr_()], keywords=[]),
                                slice=const(axis_value), ctx=gast.Load())
        rows = gast.Call(func=jnp_("reshape"), args=[moved, gast.Tuple(elts=[const(-1), length], ctx=gast.Load())],
                         keywords=[])
        result = gast.Call(func=self._vmap(function, extra), args=[rows] + [copy.deepcopy(a) for a in extra],
                           keywords=[])
        combine = self._label("along_axis_result", per_slice.along_axis_result)
        return copy_location(gast.Call(func=combine, args=[result, arr_(), const(axis_value)], keywords=[]), node)

    # ------------------------------------------------------------ piecewise
    def _pure(self, node):
        """A condition read twice: a name, a constant, or comparisons / boolean operators / `~` of those."""
        if isinstance(node, (gast.Name, gast.Constant)):
            return True
        if isinstance(node, gast.Compare):
            return self._pure(node.left) and all(self._pure(c) for c in node.comparators)
        if isinstance(node, gast.BoolOp):
            return all(self._pure(v) for v in node.values)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.BitAnd, gast.BitOr, gast.BitXor)):
            return self._pure(node.left) and self._pure(node.right)
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.Invert, gast.Not, gast.USub)):
            return self._pure(node.operand)
        return False

    def _piecewise(self, node, per_element):
        if node.keywords or len(node.args) < 3 or any(isinstance(a, gast.Starred) for a in node.args):
            return None
        x, conds, funcs, extra = node.args[0], node.args[1], node.args[2], node.args[3:]
        if not isinstance(x, gast.Name) or not isinstance(conds, (gast.List, gast.Tuple)) or \
                not isinstance(funcs, (gast.List, gast.Tuple)):
            return None
        conds, funcs = list(conds.elts), list(funcs.elts)
        if not conds or len(funcs) not in (len(conds), len(conds) + 1) or not all(self._pure(c) for c in conds):
            return None
        if any(isinstance(c, gast.Constant) and isinstance(c.value, bool) for c in conds):
            return None         # `[True]`: NumPy raises for an array x (a condition of another shape); refused
        pieces = []
        for f in funcs:
            if self._known_function(f):
                pieces.append(("function", f))
            elif isinstance(f, gast.Constant) and isinstance(f.value, (int, float)) and not isinstance(f.value, bool):
                pieces.append(("constant", f))
            else:
                return None
        from ...rules import per_slice
        jnp_ = lambda attr: gast.Attribute(value=name("jnp"), attr=attr, ctx=gast.Load())  # noqa: E731
        dtype = gast.Call(func=self._label("piecewise_dtype", per_slice.piecewise_dtype), args=[copy.deepcopy(x)],
                          keywords=[])
        shape = gast.Call(func=jnp_("shape"), args=[copy.deepcopy(x)], keywords=[])
        result = gast.Call(func=jnp_("zeros"), args=[shape, dtype], keywords=[])
        if len(funcs) == len(conds) + 1:
            # the default piece first: where no condition holds
            default = self._none_hold(conds)
            result = self._write(result, default, pieces[-1], x, extra, per_element)
            pieces = pieces[:-1]
        for cond, piece in zip(conds, pieces):
            result = self._write(result, cond, piece, x, extra, per_element)
        return copy_location(result, node)

    def _none_hold(self, conds):
        jnp_ = lambda attr: gast.Attribute(value=name("jnp"), attr=attr, ctx=gast.Load())  # noqa: E731
        anyone = copy.deepcopy(conds[0])
        for c in conds[1:]:
            anyone = gast.Call(func=jnp_("logical_or"), args=[anyone, copy.deepcopy(c)], keywords=[])
        return gast.Call(func=jnp_("logical_not"), args=[anyone], keywords=[])

    def _write(self, result, cond, piece, x, extra, per_element):
        """`result.at[cond].set(value of the piece on x[cond])` (np.piecewise); jnp.piecewise's per element
        (`_write_per_element`)."""
        kind, f = piece
        if per_element:
            return self._write_per_element(result, cond, piece, x, extra)
        if kind == "constant":
            value = copy.deepcopy(f)
        else:
            selected = gast.Subscript(value=copy.deepcopy(x), slice=copy.deepcopy(cond), ctx=gast.Load())
            func = self._vmap(f, extra) if per_element else copy.deepcopy(f)
            value = gast.Call(func=func, args=[selected] + [copy.deepcopy(a) for a in extra], keywords=[])
        from ...rules import per_slice
        pieces_dtype = gast.Call(func=self._label("piecewise_pieces_dtype", per_slice.piecewise_pieces_dtype),
                                 args=[copy.deepcopy(x)], keywords=[])
        jnp_astype = gast.Attribute(value=name("jnp"), attr="astype", ctx=gast.Load())
        value = gast.Call(func=jnp_astype, args=[value, pieces_dtype], keywords=[])   # x's dtype first, as NumPy
        at = gast.Subscript(value=gast.Attribute(value=result, attr="at", ctx=gast.Load()),
                            slice=copy.deepcopy(cond), ctx=gast.Load())
        return gast.Call(func=gast.Attribute(value=at, attr="set", ctx=gast.Load()), args=[value], keywords=[])

    def _write_per_element(self, result, cond, piece, x, extra):
        """jnp.piecewise's piece as elementwise code, the same for one example and for a batch of them:

            s = lax.stop_gradient(jnp.max(jnp.where(cond, x, jnp.min(x))))     # an element the piece owns
            v = jnp.reshape(vmap(f)(jnp.ravel(jnp.where(cond, x, s))), jnp.shape(x))
            result = jnp.where(cond, jnp.astype(jnp.astype(v, xt), dtype), result)

        f sees only elements it owns (the others replaced by s, the largest it owns; x's smallest where it
        owns none, whose value is then never used), so a value, gradient or tangent of another piece's element
        never reaches it (`piecewise(x, [x > 0], [jnp.log, 0.0])` has no NaN): the outer where writes the
        owned elements and its adjoint selects their cotangents (a NaN of f's derivative at a replaced
        element stays there and is dropped by the inner where's adjoint; s carries no derivative). Unlike
        `x[cond]` (a different number of elements in each example), every value keeps x's shape, so vmap
        batches it with each example's own masks."""
        from ... import lax
        from ...rules import per_slice
        kind, f = piece
        jnp_ = lambda attr: gast.Attribute(value=name("jnp"), attr=attr, ctx=gast.Load())  # noqa: E731
        call = lambda func, *args: gast.Call(func=func, args=list(args), keywords=[])  # noqa: E731
        x_ = lambda: copy.deepcopy(x)  # noqa: E731
        if kind == "constant":
            value = copy.deepcopy(f)
        else:
            largest = call(jnp_("max"), call(jnp_("where"), copy.deepcopy(cond), x_(), call(jnp_("min"), x_())))
            safe = call(self._label("stop_gradient", lax.stop_gradient), largest)
            kept = call(jnp_("ravel"), call(jnp_("where"), copy.deepcopy(cond), x_(), safe))
            value = gast.Call(func=self._vmap(f, extra), args=[kept] + [copy.deepcopy(a) for a in extra],
                              keywords=[])
            value = call(jnp_("reshape"), value, call(jnp_("shape"), x_()))
        pieces_dtype = call(self._label("piecewise_pieces_dtype", per_slice.piecewise_pieces_dtype), x_())
        dtype = call(self._label("piecewise_dtype", per_slice.piecewise_dtype), x_())
        value = call(jnp_("astype"), call(jnp_("astype"), value, pieces_dtype), dtype)  # x's dtype first, as NumPy
        return call(jnp_("where"), copy.deepcopy(cond), value, result)
