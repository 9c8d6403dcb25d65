"""The few helpers the lowering passes themselves write into compiled code (imports Numba).

shape_of(x)        np.shape for arrays and scalars alike (a scalar's shape is ()).
weak_like(c, p)    a Python number `c` as the dtype JAX gives it beside `p`, decided when Numba compiles.
pad_edge_or_zeros  np.pad of a vector or matrix, mode "edge" or "constant" (zeros), as one loop nest.
zeros_shaped       zeros of a saved shape in an adjoint's dtype (a scalar for the shape ()).
stack_list         np.stack of a list the compiled code built (vmap's loop over the batch).
mask_select        x[mask] for a boolean mask of rank 2 or more (Numba's own would index as with integers).
wide_sum, wide_mean  np.sum and np.mean of a float32 array, accumulated in float64.
"""
import numpy as np
from numba import types
from numba.extending import intrinsic, overload

from ..runtime.numba_build import WITHOUT_WRAPPERS
from ..runtime.numba_allocate import zeros_array
from ..runtime.numba_cpu import STUBS as _LOWERINGS
from .lower.known_ranks import RankGuardError

_fill_broadcast = _LOWERINGS["fill_broadcast"]     # `out[k] = item` without Numba's slow error path

__all__ = ["SUPPORT"]


def shape_of(x):
    return np.shape(x)


def weak_like(c, partner):
    return c


@overload(shape_of, jit_options=WITHOUT_WRAPPERS)
def _shape_of(x):
    if isinstance(x, types.Array):
        return lambda x: x.shape
    if isinstance(x, (types.Number, types.Boolean)):
        return lambda x: ()
    if isinstance(x, types.BaseTuple) and all(isinstance(t, (types.Number, types.Boolean)) for t in x.types):
        count = len(x.types)           # a tuple of numbers (a while loop's state) has NumPy's shape (n,)
        return lambda x: (count,)
    return None


def _weak_dtype(c, partner):
    dtype = partner.dtype if isinstance(partner, types.Array) else partner
    if isinstance(dtype, types.Float):
        return dtype
    if isinstance(dtype, types.Integer):
        return types.float32 if isinstance(c, types.Float) else dtype
    if isinstance(dtype, types.Boolean):
        return types.float32 if isinstance(c, types.Float) else types.int32
    return None


@overload(weak_like, jit_options=WITHOUT_WRAPPERS)
def _weak_like(c, partner):
    if not isinstance(c, (types.Integer, types.Float)):
        return None
    if isinstance(partner, (types.NumberClass, types.DType)):     # a dtype argument (`astype(0.5, xt)`): no
        return lambda c, partner: c                                # value to meet; the call casts the number
    if isinstance(partner, (types.List, types.ListType, types.UniTuple)):   # `sum_adjoint(bout, errs)`: a list
        return lambda c, partner: c                                # meets no value; the reference passes it as is
    target = _weak_dtype(c, partner)
    if target is None:
        return None
    cast = np.dtype(str(target)).type

    def impl(c, partner):
        return cast(c)
    return impl


from .fast_math import fast_exp, fast_tanh  # noqa: E402 (fused loops call them)

def pad_edge_or_zeros(x, widths, edge):
    """np.pad of a 1-d or 2-d array with mode "edge" (edge=True) or "constant" zeros: one loop nest."""
    raise NotImplementedError


@overload(pad_edge_or_zeros, jit_options=WITHOUT_WRAPPERS)
def _pad_edge_or_zeros(x, widths, edge):
    if not isinstance(x, types.Array) or x.ndim not in (1, 2):
        return None
    if x.ndim == 1:
        def pad1(x, widths, edge):
            (before, after), = widths
            if before < 0 or after < 0:
                raise ValueError("index can't contain negative values")
            n = x.shape[0]
            out = zeros_array(n + before + after, x.dtype)
            for i in range(out.shape[0]):
                k = i - before
                if 0 <= k < n:
                    out[i] = x[k]
                elif edge and n > 0:
                    out[i] = x[0 if k < 0 else n - 1]
            return out
        return pad1

    def pad2(x, widths, edge):
        (top, bottom), (left, right) = widths
        if top < 0 or bottom < 0 or left < 0 or right < 0:
            raise ValueError("index can't contain negative values")
        h, w = x.shape
        out = zeros_array((h + top + bottom, w + left + right), x.dtype)
        for i in range(out.shape[0]):
            r = i - top
            inside_row = 0 <= r < h
            if not inside_row and not edge:
                continue
            r = r if r > 0 else 0              # clamps as selects: Numba compiles a helper per min/max
            r = r if r < h - 1 else h - 1
            for c in range(w):                 # the row's middle: one branch-free copy LLVM vectorizes
                out[i, left + c] = x[r, c]
            if edge:
                for j in range(left):
                    out[i, j] = x[r, 0]
                for j in range(left + w, out.shape[1]):
                    out[i, j] = x[r, w - 1]
        return out
    return pad2


def zeros_shaped(shape, like):
    """Zeros of a saved shape in the float dtype of `like` (rules/helpers.py zeros_shaped): a scalar for ()."""
    raise NotImplementedError


@overload(zeros_shaped, jit_options=WITHOUT_WRAPPERS)
def _zeros_shaped(shape, like):
    dtype = like.dtype if isinstance(like, types.Array) else like
    if not isinstance(dtype, types.Float):
        dtype = types.float32
    cast = np.dtype(str(dtype)).type
    if isinstance(shape, types.BaseTuple) and len(shape) == 0:
        return lambda shape, like: cast(0)
    if isinstance(shape, types.UniTuple) and isinstance(shape.dtype, types.Integer):
        return lambda shape, like: np.zeros(shape, cast)
    return None


def stack_list(items):
    """np.stack(items) (axis 0) of a list of arrays or numbers that the compiled code built."""
    raise NotImplementedError


@overload(stack_list, jit_options=WITHOUT_WRAPPERS)
def _stack_list(items):
    if not isinstance(items, types.List):
        return None
    item = items.dtype
    if isinstance(item, types.Array):
        def stack_arrays(items):
            if len(items) == 0:
                raise ValueError("need at least one array to stack")
            first = items[0]
            out = np.empty((len(items),) + first.shape, first.dtype)
            for k in range(len(items)):
                if items[k].shape != first.shape:
                    raise ValueError("all input arrays must have the same shape")
                _fill_broadcast(out[k], items[k])
            return out
        return stack_arrays
    if isinstance(item, (types.Number, types.Boolean)):
        def stack_numbers(items):
            if len(items) == 0:
                raise ValueError("need at least one array to stack")
            out = np.empty(len(items), type(items[0]))
            for k in range(len(items)):
                out[k] = items[k]
            return out
        return stack_numbers
    return None


def mask_select(x, mask):
    """x[mask] for a boolean mask of x's shape: the selected elements in C order, as a vector (NumPy's)."""
    raise NotImplementedError


@overload(mask_select, jit_options=WITHOUT_WRAPPERS)
def _mask_select(x, mask):
    if not (isinstance(x, types.Array) and isinstance(mask, types.Array) and isinstance(mask.dtype, types.Boolean)
            and mask.ndim == x.ndim):
        return None

    def select(x, mask):
        if mask.shape != x.shape:
            raise IndexError("boolean index did not match indexed array")
        return np.ascontiguousarray(x).reshape(x.size)[np.ascontiguousarray(mask).reshape(mask.size)]
    return select


def wide_sum(x):
    """Sum of a float32 array, accumulated in float64 (Numba's np.sum adds one float32 at a time: at
    2 ** 24 adding 1.0 no longer changes the total, and the sum of 2e7 ones comes out 16777216)."""
    raise NotImplementedError


def wide_mean(x):
    """Mean of a float32 array, its sum accumulated in float64 (see wide_sum)."""
    raise NotImplementedError


@overload(wide_sum, jit_options=WITHOUT_WRAPPERS)
def _wide_sum(x):
    if isinstance(x, types.Array) and x.dtype == types.float32:
        def wide(x):
            total = 0.0
            for v in x.flat:
                total += v
            return np.float32(total)
        return wide
    return lambda x: np.sum(x)


@overload(wide_mean, jit_options=WITHOUT_WRAPPERS)
def _wide_mean(x):
    if isinstance(x, types.Array) and x.dtype == types.float32:
        def wide(x):
            total = 0.0
            for v in x.flat:
                total += v
            return np.float32(total / x.size)
        return wide
    return lambda x: np.mean(x)


def observed_type(x, code):
    """Whether x's Numba type is the abstract type `code` (jit/observe.py's, written as text), decided when
    Numba compiles: the guard of a function pruned for the types the first call saw (lower/known_ranks.py)."""
    raise NotImplementedError


def _matches(t, abstract):
    kind = abstract[0]
    if kind == "array":
        return isinstance(t, types.Array) and t.ndim == abstract[2] and str(t.dtype) == abstract[1]
    if kind == "scalar":
        return isinstance(t, (types.Number, types.Boolean)) and str(t) == abstract[1]
    if kind == "weak":
        return isinstance(t, types.Float if abstract[1] == "float" else types.Integer)
    if kind == "none":
        return isinstance(t, (types.NoneType, types.Omitted))
    if kind == "tuple":
        return isinstance(t, types.BaseTuple) and len(t) == len(abstract[1]) and \
            all(_matches(item, a) for item, a in zip(t, abstract[1]))
    return False


@overload(observed_type, jit_options=WITHOUT_WRAPPERS)
def _observed_type(x, code):
    if not isinstance(code, types.StringLiteral):
        return None
    import ast
    result = _matches(x, ast.literal_eval(code.literal_value))
    return lambda x, code: result


@intrinsic
def checked_shape(typingctx, shape, holds):
    """`shape`, where the shape test `holds` (lower/observed_shapes.py); else a RankGuardError, upon which
    jit compiles the signature again with the unfused branch kept.

    An intrinsic, emitted inline where the fused call is: as an `@overload` it was one more function for
    Numba to type, lower and optimize in every process (0.03 s of a cold compile)."""
    if not (isinstance(holds, types.Boolean) and isinstance(shape, types.BaseTuple)
            and all(isinstance(t, types.Integer) for t in shape)):
        return None

    def codegen(context, builder, signature, args):
        test = context.cast(builder, args[1], holds, types.boolean)
        with builder.if_then(builder.not_(test), likely=False):
            context.call_conv.return_user_exc(builder, RankGuardError, (_SHAPE_GUARD,))
        return args[0]
    return shape(shape, holds), codegen


_SHAPE_GUARD = "a fused loop met operand shapes other than the first call's"


def _constant_slice_error():
    """Numba's slice assignment (`out[i] = row`) formats both shapes into its error with str, join and
    f-strings, and compiling that string code costs seconds in every function that assigns a slice. The
    same ValueError with a constant message costs nothing; the first call of each signature runs the
    reference backend, whose error names the shapes."""
    from numba.core.registry import cpu_target
    from numba.np import arrayobj
    numba_own = getattr(arrayobj, "ol_raise_with_shape_context_cpu", None)
    stub = getattr(arrayobj, "raise_with_shape_context", None)
    if numba_own is None or stub is None:
        return

    def constant(src_shapes, index_shape):
        if not (isinstance(src_shapes, types.UniTuple) and isinstance(index_shape, types.UniTuple)
                and src_shapes.dtype == index_shape.dtype and isinstance(src_shapes.dtype, types.Integer)):
            return None

        def impl(src_shapes, index_shape):
            raise ValueError("cannot assign a slice from an input whose shape does not broadcast to it")
        return impl
    try:
        cpu_target.typing_context.refresh()          # installs the overloads registered so far (Numba's own)
        function_type = cpu_target.typing_context.resolve_value_type(stub)
    except Exception:        # noqa: BLE001 -- another Numba: its own message stays
        return
    for template in getattr(function_type, "templates", ()):
        if getattr(template, "_overload_func", None) is numba_own:
            template._overload_func = staticmethod(constant)


_constant_slice_error()


SUPPORT = {"shape_of": shape_of, "weak_like": weak_like, "np": np, "fast_exp": fast_exp, "fast_tanh": fast_tanh,
           "pad_edge_or_zeros": pad_edge_or_zeros, "zeros_shaped": zeros_shaped,
           "stack_list": stack_list, "mask_select": mask_select, "wide_sum": wide_sum, "wide_mean": wide_mean}
from .python_numbers import PYTHON_NUMBER_HELPERS  # noqa: E402 (lower/python_numbers.py writes their calls)
SUPPORT.update(PYTHON_NUMBER_HELPERS)
from .narrow_integers import int64_floor_divide, integer_true_divide, weak_int, wrap_narrow  # noqa: E402 (lower/narrow_integers.py, weak_scalars.py)
SUPPORT.update(wrap_narrow=wrap_narrow, weak_int=weak_int, integer_true_divide=integer_true_divide,
               int64_floor_divide=int64_floor_divide)
from ..runtime.numba_allocate import ALLOCATION_HELPERS  # noqa: E402 (fused loops allocate with them)
SUPPORT.update(ALLOCATION_HELPERS)
