"""jit of piecewise and apply_along_axis: the rewriting's helpers (rules/per_slice.py) folded for the
one signature jit compiles.

frontend/normalize/per_slice_calls.py rewrites the two calls into code that reads dtypes and ranks:

    y = jnp.full(jnp.shape(x), 0.5, piecewise_dtype(x)).at[x < 0].set(jnp.astype(..., piecewise_pieces_dtype(x)))
    y = along_axis_result(rows, x, 1)      # reshape to along_axis_shape(x, 1, rows), moveaxis(
                                           #   along_axis_sources(rows), along_axis_destinations(x, 1, rows))

For one signature every dtype and rank is known (jit observed each variable's type when it ran the
reference backend), so each call becomes what it computes, written with the shapes that stay run-time
values:

    piecewise_dtype(x)              ->  np.float32            (x int32: float32; x float64: float64)
    along_axis_shape(x, 1, rows)    ->  jnp.shape(x)[:1] + jnp.shape(x)[2:] + jnp.shape(rows)[1:]
    along_axis_sources(x, rows)     ->  (2,)                  (x of rank 3, rows of rank 2)

A call whose types are not all known is left as it is (jit then refuses it at its line: never a guess).
"""
import gast
import numpy as np

from ..rules import per_slice as _per_slice
from .signature_folds import SignatureFold

__all__ = ["fold_per_slice_helpers"]

_HELPERS = (_per_slice.piecewise_dtype, _per_slice.piecewise_pieces_dtype, _per_slice.along_axis_shape,
            _per_slice.along_axis_sources, _per_slice.along_axis_destinations)


def fold_per_slice_helpers(node, context):
    """Replace the per-slice rewriting's helpers in the function `node` by their values for this signature."""
    helpers = {name: fn for name, fn in context.namespace.items() if any(fn is h for h in _HELPERS)}
    if helpers:
        _Fold(helpers, context).visit(node)
    return node


class _Fold(SignatureFold):
    def fold(self, fn, node):
        if fn is _per_slice.piecewise_dtype or fn is _per_slice.piecewise_pieces_dtype:
            return self._dtype(fn, node.args)
        if fn is _per_slice.along_axis_shape:
            return self._along_axis_shape(node.args)
        if len(node.args) in (2, 3):
            return self._axes(fn, node.args)
        return None

    def _dtype(self, fn, args):
        """`np.<dtype>` of x's observed array or NumPy-scalar type (a Python number is left alone; vmap's `x[0]`
        of a batch x reads x's)."""
        x = args[0] if len(args) == 1 else None
        if (isinstance(x, gast.Subscript) and isinstance(x.slice, gast.Constant) and type(x.slice.value) is int
                and x.slice.value == 0):
            x = x.value     # vmap asks one example, `x[0]`, of the batch x: the same dtype
        t = self._type(x) if x is not None else None
        if t is None or t[0] not in ("array", "scalar"):
            return None
        dtype = fn(np.zeros((), dtype=t[1]))
        return _parse(f"np.{np.dtype(dtype).name}")

    def _axis(self, expr, ndim):
        if not (isinstance(expr, gast.Constant) and type(expr.value) is int and -ndim <= expr.value < ndim):
            return None
        return expr.value % ndim

    def _run_time_axis(self, expr):
        """A name observed holding only ints (along_axis_result's `axis` parameter), or None."""
        kinds = self.context.types_of(expr.id) - {("none",)} if isinstance(expr, gast.Name) else set()
        ints = kinds and all(k == ("weak", "int") or (k[0] == "scalar" and np.dtype(k[1]).kind in "iu")
                             for k in kinds)
        return expr.id if ints else None

    def _along_axis_shape(self, args):
        """arr's shape without `axis`, then one slice's result shape: slices of a literal axis, or for an
        axis known at run time only, a tuple of arr's rank - 1 items each picking its dimension."""
        if len(args) != 3 or not all(isinstance(a, gast.Name) for a in (args[0], args[2])):
            return None
        ndim = self._ndim(args[0])
        if ndim is None or ndim < 1 or self._ndim(args[2]) is None or self._ndim(args[2]) < 1:
            return None
        arr, rows = args[0].id, args[2].id
        axis = self._axis(args[1], ndim)
        if axis is not None:
            return _parse(f"jnp.shape({arr})[:{axis}] + jnp.shape({arr})[{axis + 1}:] + jnp.shape({rows})[1:]")
        name = self._run_time_axis(args[1])
        if name is None:
            return None
        kept = "".join(f"jnp.shape({arr})[{k}] if {k} < {name} % {ndim} else jnp.shape({arr})[{k + 1}], "
                       for k in range(ndim - 1))
        return _parse(f"({kept}) + jnp.shape({rows})[1:]")

    def _axes(self, fn, args):
        """along_axis_sources(arr, rows) / along_axis_destinations(arr, axis, rows): ints of the ranks
        (no axis moves where one slice's result is a number, whatever the axis)."""
        ranks = [self._ndim(args[0]), self._ndim(args[-1])]
        if None in ranks or ranks[0] < 1 or ranks[1] < 1:
            return None
        if ranks[1] == 1:
            return _parse("()")
        stand_ins = [np.zeros((1,) * ranks[0]), np.zeros((1,) * ranks[1])]
        if fn is _per_slice.along_axis_destinations:
            axis = self._axis(args[1], ranks[0])
            if axis is None:            # known at run time only: runtime/numba_per_slice's moveaxis takes it
                name = self._run_time_axis(args[1])
                if name is None:
                    return None
                return _parse("(" + "".join(f"{name} % {ranks[0]} + {k}, " for k in range(ranks[1] - 1)) + ")")
            value = fn(stand_ins[0], axis, stand_ins[1])
        else:
            value = fn(*stand_ins)
        return _parse(repr(tuple(int(v) for v in value)))


def _parse(text):
    return gast.parse(text).body[0].value


def run_time_moveaxis(a, source, destination):
    """The implementation of moveaxis(a, source, destination) for axes held in tuples of run-time ints
    (along_axis_result's destinations for an axis passed to it), or None: the permutation is computed
    when it runs, with NumPy's errors for an axis out of range or repeated."""
    from numba import types
    from .numba_build import implementation
    if not (isinstance(a, types.Array) and all(isinstance(t, types.UniTuple) and isinstance(t.dtype, types.Integer)
                                               for t in (source, destination))):
        return None
    ndim, count = a.ndim, len(source)
    if len(destination) != count or count > ndim:
        return None
    lines = ["order = np.empty(ndim, np.int64)", "used = np.zeros(ndim, np.bool_)", "placed = np.zeros(ndim, np.bool_)",
             "for j in range(count):",
             "    s, d = source[j], destination[j]",
             "    if not (-ndim <= s < ndim and -ndim <= d < ndim):",
             "        raise ValueError('moveaxis: an axis is out of bounds for the array')",
             "    s, d = s % ndim, d % ndim",
             "    if used[s] or placed[d]:",
             "        raise ValueError('moveaxis: repeated axis')",
             "    order[d] = s",
             "    used[s] = True",
             "    placed[d] = True",
             "rest = 0",
             "for p in range(ndim):",
             "    if not placed[p]:",
             "        while used[rest]:",
             "            rest += 1",
             "        order[p] = rest",
             "        rest += 1",
             "return np.transpose(a, (" + "".join(f"order[{k}], " for k in range(ndim)) + "))"]
    return implementation(("a", "source", "destination"), lines, ndim=ndim, count=count)
