"""Conversions and JAX's type promotion, shared by the astjax.numpy modules.

Three rules make astjax's dtypes JAX's rather than NumPy's:

* a Python scalar or list becomes a 32-bit array (float32, int32, complex64)
  unless it holds typed NumPy values; a NumPy array keeps its dtype;
* a Python scalar next to an array is *weak*: it takes the array's dtype
  (`int32_array * 2.5` is float32, `float16_array + 1.0` is float16);
* mixed array dtypes meet on JAX's promotion lattice, where integers promote
  to the float they meet (`int32 + float32` is float32, not float64).

The helpers here do one conversion each, with the common case (arrays of one
dtype) first, so that each public function stays one conversion, one NumPy
call and one wrap.
"""
import numpy as np

from ..array import Array
from .. import dtypes as _dtypes

_nd = np.ndarray
_generic = np.generic

BOOL = np.dtype(np.bool_)
I32 = np.dtype(np.int32)
F32 = np.dtype(np.float32)
C64 = np.dtype(np.complex64)

# --------------------------------------------------------------- the lattice
# JAX's type-promotion lattice. WEAK_INT/FLOAT/COMPLEX stand for weakly typed
# Python scalars (sentinels, not `int`/`float`: np.dtype("f8") == float).


class _Weak:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"weak {self.name}"


WEAK_INT, WEAK_FLOAT, WEAK_COMPLEX = _Weak("int"), _Weak("float"), _Weak("complex")
_u8, _u16, _u32, _u64 = (np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))
_i8, _i16, _i32, _i64 = (np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64))
_f16, _f32, _f64 = (np.dtype(t) for t in (np.float16, np.float32, np.float64))
_c64, _c128 = np.dtype(np.complex64), np.dtype(np.complex128)
_EDGES = {
    BOOL: [WEAK_INT],
    WEAK_INT: [_u8, _i8],
    _u8: [_i16, _u16], _u16: [_i32, _u32], _u32: [_i64, _u64], _u64: [WEAK_FLOAT],
    _i8: [_i16], _i16: [_i32], _i32: [_i64], _i64: [WEAK_FLOAT],
    WEAK_FLOAT: [_f16, WEAK_COMPLEX],
    _f16: [_f32], _f32: [_f64, _c64], _f64: [_c128],
    WEAK_COMPLEX: [_c64], _c64: [_c128], _c128: [],
}


def _upper_sets():
    upper = {}

    def visit(node):
        if node not in upper:
            out = {node}
            for succ in _EDGES[node]:
                out |= visit(succ)
            upper[node] = frozenset(out)
        return upper[node]

    for node in _EDGES:
        visit(node)
    return upper


_UPPER = _upper_sets()
_WEAK_DEFAULT = {WEAK_INT: I32, WEAK_FLOAT: F32, WEAK_COMPLEX: C64}
_NODE_OF_SCALAR_TYPE = {d.type: d for d in _EDGES if isinstance(d, np.dtype)}
# Python scalar type -> lattice key (bool is strongly typed in JAX too).
_PY_KEY = {int: WEAK_INT, float: WEAK_FLOAT, complex: WEAK_COMPLEX, bool: BOOL}
# Python scalar type -> the NumPy scalar type it becomes on its own.
_PY_DEFAULT = {int: np.int32, float: np.float32, complex: np.complex64, bool: np.bool_}

_LUB = {}


def _lub(k1, k2):
    """Least upper bound of two lattice keys (dtypes or WEAK_* sentinels)."""
    try:
        return _LUB[k1, k2]
    except KeyError:
        pass
    n1 = k1 if k1 in _WEAK_DEFAULT else _NODE_OF_SCALAR_TYPE.get(k1.type)
    n2 = k2 if k2 in _WEAK_DEFAULT else _NODE_OF_SCALAR_TYPE.get(k2.type)
    if n1 is None or n2 is None:  # outside the lattice (object, datetime, ...)
        out = np.result_type(*(_WEAK_DEFAULT.get(k, k) for k in (k1, k2)))
    else:
        common = _UPPER[n1] & _UPPER[n2]
        out = next(n for n in common if _UPPER[n] >= common)
    _LUB[k1, k2] = out
    return out


def _concrete(key):
    """The dtype a lattice key stands for (weak Python scalars -> 32-bit)."""
    return _WEAK_DEFAULT.get(key, key)


def _to_inexact(dtype):
    """JAX's float for `dtype`: inexact dtypes stay, ints and bool -> float32."""
    return dtype if dtype.kind in "fc" else (F32 if dtype.kind in "biu" else dtype)


def key_of(x):
    """The lattice key of a value: its dtype, or a WEAK_* sentinel."""
    k = _PY_KEY.get(type(x))
    if k is not None:
        return k
    d = getattr(x, "dtype", None)
    if isinstance(d, np.dtype):
        return d
    if isinstance(x, type) and x in _PY_KEY:
        return _PY_KEY[x]
    try:
        return np.dtype(x)  # a dtype specifier
    except TypeError:
        return convert(x).dtype


def lub_of(keys):
    """The concrete dtype that a collection of lattice keys promotes to."""
    it = iter(keys)
    out = next(it)
    for k in it:
        out = _lub(out, k)
    return _concrete(out)


# ----------------------------------------------------------------- conversion
def _leaf_keys(seq, acc):
    """Add the lattice keys of the leaves of a nested list/tuple to `acc`."""
    for t in set(map(type, seq)):
        k = _PY_KEY.get(t)
        if k is not None:
            acc.add(k)
        elif t is list or t is tuple:
            for item in seq:
                if type(item) is t:
                    _leaf_keys(item, acc)
        else:
            for item in seq:
                if type(item) is t:
                    acc.add(key_of(item))
    return acc


def convert(x, dtype=None):
    """`x` as an ndarray with astjax's default dtypes (see the module doc)."""
    if dtype is not None:
        return np.asarray(x, dtype=_dtypes.canonicalize(dtype))
    t = type(x)
    d = _PY_DEFAULT.get(t)
    if d is not None:
        return np.asarray(x, dtype=d)
    if isinstance(x, (_nd, _generic)):
        return np.asarray(x)
    arr = np.asarray(x)
    if (t is list or t is tuple) and arr.dtype.kind in "biufc":
        keys = _leaf_keys(x, set())
        want = lub_of(keys) if keys else F32
        if want != arr.dtype:
            if want.kind in "iu" and arr.size:
                info = np.iinfo(want)
                if arr.min() < info.min or arr.max() > info.max:
                    raise OverflowError(
                        f"a Python int in this list does not fit in {want} (astjax's "
                        f"default int); pass dtype=np.int64 or a NumPy int64 array.")
            arr = arr.astype(want)
    return arr


def arg(x):
    """`x` as an ndarray (Arrays and ndarrays pass through untouched)."""
    t = type(x)
    if t is Array or t is _nd:
        return x
    return convert(x)


def nd(x):
    """`x` as a plain ndarray view: NumPy then skips Array's Python hooks."""
    t = type(x)
    if t is _nd:
        return x
    if t is Array:
        return x.view(_nd)
    return convert(x)


def plain(x):
    """Arrays as plain ndarray views; anything else (Python scalars) as it is."""
    t = type(x)
    if t is Array:
        return x.view(_nd)
    if t is not _nd and isinstance(x, _nd):
        return np.asarray(x)
    return x


def scalar_arg(x):
    """`x` for a ufunc: arrays and NumPy scalars as they are, Python scalars
    as 32-bit NumPy scalars."""
    t = type(x)
    if t is Array or t is _nd:
        return x
    d = _PY_DEFAULT.get(t)
    if d is not None:
        return d(x)
    if isinstance(x, _generic):
        return x
    return convert(x)


def inexact_arg(x):
    """`x` for a float-valued ufunc: ints and bools become float32."""
    t = type(x)
    if t is not Array and t is not _nd:
        if t is float or t is int or t is bool:
            return np.float32(x)
        x = scalar_arg(x)
    if x.dtype.kind in "biu":
        return x.astype(F32)
    return x


def out(r):
    """Wrap a NumPy result as an Array (0-d results and scalars included)."""
    t = type(r)
    if t is Array:
        return r
    if t is _nd:
        return r.view(Array)
    return np.asarray(r).view(Array)


# ------------------------------------------------------------ binary operands
_PLANS = {}
_INEXACT_PLANS = {}


def _plan(kx, ky, inexact):
    """(cast_x, cast_y): dtypes to cast each operand to, or None to leave it."""
    table = _INEXACT_PLANS if inexact else _PLANS
    try:
        return table[kx, ky]
    except KeyError:
        pass
    r = _concrete(_lub(kx, ky))
    if inexact:
        r = _to_inexact(r)
    weak_x, weak_y = kx in _WEAK_DEFAULT, ky in _WEAK_DEFAULT
    if weak_x and weak_y:
        plan = (r, None)  # one typed operand is enough; the other stays weak
    else:
        plan = (None if weak_x or kx == r else r, None if weak_y or ky == r else r)
    table[kx, ky] = plan
    return plan


def _operand(x):
    """(x, key) for a binary operand: Python scalars stay weak."""
    t = type(x)
    k = _PY_KEY.get(t)
    if k is not None:
        return x, k
    if not isinstance(x, (_nd, _generic)):
        x = convert(x)
    return x, x.dtype


def _cast(x, dtype):
    if isinstance(x, (_nd, _generic)):
        return x.astype(dtype)
    return np.asarray(x, dtype=dtype)


def _promote_slow(x, y, inexact):
    x, kx = _operand(x)
    y, ky = _operand(y)
    cx, cy = _plan(kx, ky, inexact)
    if cx is not None:
        x = _cast(x, cx)
    if cy is not None:
        y = _cast(y, cy)
    return x, y


def promote(x, y):
    """Operands of a binary op cast so NumPy computes in JAX's result dtype.

    The fast paths are the cases where NumPy already agrees with JAX: two
    arrays of one dtype, and a Python float (int) next to an inexact (numeric)
    array, which NEP 50 keeps weak.
    """
    tx, ty = type(x), type(y)
    if tx is Array or tx is _nd:
        if ty is Array or ty is _nd:
            if x.dtype is y.dtype:
                return x, y
        elif ty is float:
            if x.dtype.kind in "fc":
                return x, y
        elif ty is int and x.dtype.kind in "iufc":
            return x, y
    elif ty is Array or ty is _nd:
        if tx is float:
            if y.dtype.kind in "fc":
                return x, y
        elif tx is int and y.dtype.kind in "iufc":
            return x, y
    return _promote_slow(x, y, False)


def promote_inexact(x, y):
    """Like `promote`, then ints and bools go to float32 (for divide, ...)."""
    tx, ty = type(x), type(y)
    if tx is Array or tx is _nd:
        if ty is Array or ty is _nd:
            if x.dtype is y.dtype and x.dtype.kind in "fc":
                return x, y
        elif (ty is float or ty is int) and x.dtype.kind in "fc":
            return x, y
    elif (tx is float or tx is int) and (ty is Array or ty is _nd) and y.dtype.kind in "fc":
        return x, y
    return _promote_slow(x, y, True)


def promote_all(arrays):
    """Arrays of one common dtype (JAX's promotion) for concatenate etc.

    `arrays` must hold ndarrays already (see `nd` and `arg`)."""
    arrays = list(arrays)
    if not arrays:
        return arrays
    d0 = arrays[0].dtype
    if all(a.dtype is d0 for a in arrays):
        return arrays
    r = lub_of(a.dtype for a in arrays)
    return [a if a.dtype == r else a.astype(r) for a in arrays]


def inexact_all(values):
    """`values` as ndarrays of one inexact dtype, by JAX's lattice: a Python number is weak, so it takes
    the arrays' dtype from its exact value (0.3 beside float64 data is read as float64's 0.3)."""
    dtype = _to_inexact(np.dtype(lub_of(key_of(v) for v in values)))
    return [np.asarray(plain(v), dtype=dtype) for v in values]


def check_no_out(out_, name):
    if out_ is not None:
        raise TypeError(
            f"{name}: the out= argument is not supported (astjax arrays are "
            f"immutable); use the returned array instead."
        )


def dtype_arg(dtype, like=None):
    """A user's dtype= argument, with `float`/`int` meaning float32/int32 (64-bit converting a 64-bit `like`)."""
    return None if dtype is None else _dtypes.canonicalize(dtype, like)
