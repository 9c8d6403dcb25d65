"""Array allocation written straight into the caller: `empty_array`, `zeros_array`, `zeros_like_array`.

Numba's `np.empty`, `np.zeros` and `np.zeros_like` are `@overload`s: each is a small Python function
that Numba types, lowers, optimizes and links as a function of its own, and it caches that function
per argument types *and per the caller's compile flags* (numba/core/typing/templates.py `_get_impl`).
A fused loop (no bounds checks), `matrix_product` (bounds checks) and the function calling them (bounds
checks, other flags) each compiled their own `np.empty` for the same float32 matrix, and `np.zeros`
compiled `np.empty` and a fill function again inside itself: seven such compilations, about 0.4 s of
the MLP gradient's cold compile.

These are intrinsics: they are typed from the argument types alone and their code is emitted inline
in whichever function calls them, with Numba's own allocator (`_empty_nd_impl`'s code for C order: the
same memory, the same layout, the same "negative dimensions" and "array is too big" errors as
`np.empty`), so nothing
is compiled per dtype, shape type or caller. `zeros_*` clear the new buffer with one memset (all-zero
bits are 0 and 0.0 for every dtype they accept). Outside compiled code they are NumPy's functions.
"""
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic
from numba.np.arrayobj import _parse_shape, get_itemsize, make_array, populate_array

__all__ = ["empty_array", "zeros_array", "zeros_like_array", "ALLOCATION_HELPERS"]

_KINDS = (types.Float, types.Integer, types.Boolean, types.Complex)


def _dtype_of(dtype):
    """The element type a dtype argument stands for: `np.float32` (a class) or `x.dtype` (a dtype)."""
    if isinstance(dtype, (types.NumberClass, types.DType)):
        dtype = dtype.dtype
    elif isinstance(dtype, types.Function) and getattr(dtype, "typing_key", None) is bool:
        dtype = types.boolean
    else:
        return None
    return dtype if isinstance(dtype, _KINDS) else None


def _ndim_of(shape):
    if isinstance(shape, types.Integer):
        return 1
    if isinstance(shape, types.BaseTuple) and all(isinstance(s, types.Integer) for s in shape):
        return len(shape)
    return None


def _allocate(context, builder, arrtype, shapes, zero):
    ary = _empty_c_array(context, builder, arrtype, shapes)
    if zero:
        nbytes = builder.mul(ary.itemsize, ary.nitems)
        cgutils.memset(builder, ary.data, nbytes, 0)
    return ary._getvalue()


def _empty_c_array(context, builder, arrtype, shapes):
    """Numba's `_empty_nd_impl` for a C-ordered array, its allocation called directly: Numba's goes through
    `compile_internal` of `arrtype._allocate`, an `@overload_classmethod` whose implementation is one more
    function to compile in every process (0.03 s of a cold compile), only to make this same call
    (numba/np/arrayobj.py `intrin_alloc`: `meminfo_alloc_aligned(size, alignment)`)."""
    ary = make_array(arrtype)(context, builder)
    itemsize = context.get_constant(types.intp, get_itemsize(context, arrtype))
    length = context.get_constant(types.intp, 1)
    overflow = ir.Constant(ir.IntType(1), 0)
    for s in shapes:
        product = builder.smul_with_overflow(length, s)
        length = builder.extract_value(product, 0)
        overflow = builder.or_(overflow, builder.extract_value(product, 1))
    strides = [itemsize]
    for size in reversed(shapes[1:]):
        strides.append(builder.mul(strides[-1], size))
    strides = tuple(reversed(strides)) if arrtype.ndim else ()
    product = builder.smul_with_overflow(length, itemsize)
    nbytes = builder.extract_value(product, 0)
    overflow = builder.or_(overflow, builder.extract_value(product, 1))
    with builder.if_then(overflow, likely=False):
        context.call_conv.return_user_exc(
            builder, ValueError,
            ("array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.",))
    align = context.get_constant(types.uint32, context.get_preferred_array_alignment(arrtype.dtype))
    meminfo = context.nrt.meminfo_alloc_aligned(builder, nbytes, align)
    data = context.nrt.meminfo_data(builder, meminfo)
    intp = context.get_value_type(types.intp)
    populate_array(ary, data=builder.bitcast(data, context.get_data_type(arrtype.dtype).as_pointer()),
                   shape=cgutils.pack_array(builder, shapes, ty=intp),
                   strides=cgutils.pack_array(builder, strides, ty=intp), itemsize=itemsize, meminfo=meminfo)
    return ary


def _shaped(zero):
    def typer(typingctx, shape, dtype):
        element, ndim = _dtype_of(dtype), _ndim_of(shape)
        if element is None or ndim is None:
            return None
        arrtype = types.Array(element, ndim, "C")

        def codegen(context, builder, sig, args):
            shapes = _parse_shape(context, builder, sig.args[0], args[0])
            return _allocate(context, builder, arrtype, shapes, zero)
        return arrtype(shape, dtype), codegen
    return typer


@intrinsic
def empty_array(typingctx, shape, dtype):
    """np.empty(shape, dtype), emitted inline (no function compiled for it)."""
    return _shaped(False)(typingctx, shape, dtype)


@intrinsic
def zeros_array(typingctx, shape, dtype):
    """np.zeros(shape, dtype), emitted inline (no function compiled for it)."""
    return _shaped(True)(typingctx, shape, dtype)


@intrinsic
def zeros_like_array(typingctx, x):
    """np.zeros_like(x): zeros of an array's shape and dtype (C-ordered), or a 0-d array of a number's
    type, as Numba's own np.zeros_like gives."""
    if isinstance(x, types.Array) and isinstance(x.dtype, _KINDS):
        arrtype = types.Array(x.dtype, x.ndim, "C")
    elif isinstance(x, _KINDS):
        arrtype = types.Array(x, 0, "C")
    else:
        return None

    def codegen(context, builder, sig, args):
        shapes = ()
        if isinstance(sig.args[0], types.Array):
            ary = make_array(sig.args[0])(context, builder, value=args[0])
            shapes = cgutils.unpack_tuple(builder, ary.shape, count=sig.args[0].ndim)
        return _allocate(context, builder, arrtype, shapes, True)
    return arrtype(x), codegen


# The names generated loops call them by (jit/numba_support.py SUPPORT): prefixed, as SUPPORT's names stand beside
# the user's globals in a lowered function's namespace.
ALLOCATION_HELPERS = {"astjax_empty": empty_array, "astjax_zeros": zeros_array}
