"""Numba lowerings of the elementwise primitives: one scalar kernel each, mapped over arrays.

The result dtype is the reference implementation's (see numba_typing); every
operand is cast to the dtype the reference computes in, so the kernel sees
exactly the values NumPy sees. On arrays a lowering is one loop that writes
the output once (operands of equal shapes are read flat; broadcasting ones are
first broadcast, which copies the smaller ones). 0-d results are scalars.
"""

import numba
import numpy as np
from numba import types

from .. import numpy as jnp
from ..rules import helpers
from .numba_build import L as _L, build, lowers
from .numba_typing import agreed, dtype_of, is_array, is_none, is_scalar, result_shape_dtype

kernel = numba.njit(error_model="numpy")
KERNELS = {}     # name -> {dtype kind ("f", "i", "u", "b"): scalar kernel}


# ------------------------------------------------------------------ kernels
def _float_mod(a, b):
    """NumPy's float remainder (npy_divmod): the sign of the divisor; nan for b == 0."""
    m = np.fmod(a, b)
    if b == 0:
        return a - a + m          # fmod(a, 0) is nan
    if m != 0:
        if (b < 0) != (m < 0):
            m += b
    else:
        m = np.copysign(0.0, b)
    return m


def _float_floor_divide(a, b):
    """NumPy's float floor division (npy_floor_divide)."""
    if b == 0:
        return a / b
    m = np.fmod(a, b)
    div = (a - m) / b
    if m != 0 and (b < 0) != (m < 0):
        div -= 1.0
    if div != 0:
        floordiv = np.floor(div) if np.isfinite(div) else div
        if div - floordiv > 0.5:
            floordiv += 1.0
        return floordiv
    return np.copysign(0.0, a / b)


def _int_floor_divide(a, b):
    """NumPy's integer floor division: 0 for b == 0, and a // -1 is -a, which wraps for the most negative a
    (LLVM's sdiv of iinfo.min by -1 is undefined: Numba gave 0)."""
    if b == 0:
        return a - a
    if b == -1:
        return -a
    return a // b


def _uint_floor_divide(a, b):
    if b == 0:
        return a - a
    return a // b


def _int_mod(a, b):
    if b == 0:
        return a - a
    return a % b


def _int_power(a, b):
    if b < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    result = a - a + 1
    base = a
    while b > 0:
        if b & 1:
            result = result * base
        base = base * base
        b >>= 1
    return result


def _float_maximum(a, b):
    """np.maximum: a nan on either side wins; of equal operands b (maximum(-0.0, 0.0) is 0.0, as NumPy)."""
    return a if (a > b or a != a) else b


def _float_minimum(a, b):
    """np.minimum: a nan on either side wins; of equal operands b (minimum(0.0, -0.0) is -0.0, as NumPy)."""
    return a if (a < b or a != a) else b


def _float_sign(x):
    if x > 0:
        return 1.0
    if x < 0:
        return -1.0
    if x == 0:
        return 0.0
    return x                  # nan


def _int_sign(x):
    return (x > 0) - (x < 0)


def _define(name, float_fn=None, int_fn=None, bool_fn=None, uint_fn=None):
    """Compile `name`'s kernels: float_fn for floats, int_fn for ints (uint_fn for unsigned ones, default
    int_fn; bool_fn for bools)."""
    table = {}
    if float_fn is not None:
        table["f"] = kernel(float_fn)
    if int_fn is not None:
        table["i"] = table["u"] = kernel(int_fn)
    if uint_fn is not None:
        table["u"] = kernel(uint_fn)
    if bool_fn is not None:
        table["b"] = kernel(bool_fn)
    KERNELS[name] = table


def _same(fn):
    return fn


_define("add", lambda a, b: a + b, lambda a, b: a + b, lambda a, b: a or b)
_define("subtract", lambda a, b: a - b, lambda a, b: a - b)
_define("multiply", lambda a, b: a * b, lambda a, b: a * b, lambda a, b: a and b)
_define("divide", lambda a, b: a / b)
_define("power", lambda a, b: a ** b, _int_power)
_define("maximum", _float_maximum, lambda a, b: max(a, b), lambda a, b: a or b)
_define("minimum", _float_minimum, lambda a, b: min(a, b), lambda a, b: a and b)
_define("arctan2", lambda a, b: np.arctan2(a, b))
_define("mod", _float_mod, _int_mod)
_define("floor_divide", _float_floor_divide, _int_floor_divide, uint_fn=_uint_floor_divide)
for _name, _op in (("equal", "=="), ("not_equal", "!="), ("less", "<"), ("less_equal", "<="),
                   ("greater", ">"), ("greater_equal", ">=")):
    _fn = eval(f"lambda a, b: a {_op} b")
    _define(_name, _fn, _fn, _fn)
_define("logical_and", bool_fn=lambda a, b: a and b)
_define("logical_or", bool_fn=lambda a, b: a or b)
_define("logical_xor", bool_fn=lambda a, b: a != b)

_define("negative", lambda x: -x, lambda x: -x)
_define("positive", lambda x: x, lambda x: x)
_define("square", lambda x: x * x, lambda x: x * x, lambda x: x and x)
_define("abs", lambda x: abs(x), lambda x: abs(x), lambda x: x)
_define("sign", _float_sign, _int_sign)
_define("floor", lambda x: np.floor(x), lambda x: x, lambda x: x)
_define("ceil", lambda x: np.ceil(x), lambda x: x, lambda x: x)
_define("trunc", lambda x: np.trunc(x), lambda x: x, lambda x: x)
_define("round", lambda x: np.rint(x), lambda x: x, lambda x: x)
_define("reciprocal", lambda x: 1 / x)
for _name in ("sqrt", "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "arcsin", "arccos",
              "arctan", "sinh", "cosh", "tanh"):
    _define(_name, eval(f"lambda x: np.{_name}(x)"))
_define("isnan", lambda x: x != x, lambda x: False, lambda x: False)
_define("isfinite", lambda x: np.isfinite(x), lambda x: True, lambda x: True)
_define("isinf", lambda x: np.isinf(x), lambda x: False, lambda x: False)
_define("logical_not", bool_fn=lambda x: not x)
_define("identity", lambda x: x, lambda x: x, lambda x: x)
_define("where", lambda c, a, b: a if c else b, lambda c, a, b: a if c else b, lambda c, a, b: a if c else b)
_define("builtin_max", lambda a, b: b if b > a else a, lambda a, b: b if b > a else a, lambda a, b: b if b > a else a)
_define("builtin_min", lambda a, b: b if b < a else a, lambda a, b: b if b < a else a, lambda a, b: b if b < a else a)


# ------------------------------------------------------------------ the loops
_TO_BOOL = kernel(lambda v: v != 0)
_SAME = kernel(lambda v: v)


def map_impl(params, kernel_fn, casts, out_dtype, arg_types):
    """The implementation that applies `kernel_fn` elementwise, each argument cast by `casts[i]` first.

    `casts[i]` is a NumPy scalar type (the dtype the reference computes in),
    "bool" for NumPy's truth value, or None (the kernel casts). None arguments
    are left out of the kernel's call. Scalars and 0-d arrays are read once.
    Arrays of one shape in C order are read flat (one loop LLVM can vectorize);
    otherwise one loop per output axis, each operand indexed with its broadcast
    axes held at 0: no temporaries beyond the output.
    """
    env = {"np": np, "kernel": kernel_fn, "out_dtype": out_dtype, "to_bool": _TO_BOOL}
    reads, arrays = [], []
    lines = []
    for i, (name, t) in enumerate(zip(params, arg_types)):
        if is_none(t):
            reads.append(None)    # an omitted bound (clip): the kernel takes the others only
            continue
        env[f"c{i}"] = _TO_BOOL if casts[i] == "bool" else (_SAME if casts[i] is None else casts[i])
        if is_array(t) and t.ndim > 0:
            arrays.append((i, name, t))
            reads.append(None)
        else:
            value = f"{name}[()]" if is_array(t) else name
            lines.append(f"    s{i} = c{i}({value})")
            reads.append(f"s{i}")
    if not arrays:
        lines.append(f"    return out_dtype(kernel({', '.join(r for r in reads if r is not None)}))")
        return build(f"def impl({', '.join(params)}):\n" + "\n".join(lines) + "\n", env)
    ndim = max(t.ndim for _, _, t in arrays)
    # The output shape: NumPy's broadcasting, checked.
    for d in range(ndim):
        lines.append(f"    n{d} = 1")
        for i, name, t in arrays:
            k = d - (ndim - t.ndim)
            if k >= 0:
                lines += [f"    if {name}.shape[{k}] != 1:",
                          f"        if n{d} != 1 and n{d} != {name}.shape[{k}]:",
                          "            raise ValueError('operands could not be broadcast together')",
                          f"        n{d} = {name}.shape[{k}]"]
    shape = "(" + "".join(f"n{d}, " for d in range(ndim)) + ")"
    lines.append(f"    out = np.empty({shape}, out_dtype)")

    def call(index_of):
        args = []
        for i, read in enumerate(reads):
            if is_none(arg_types[i]):
                continue
            args.append(read if read is not None else f"c{i}({index_of(i)})")
        return f"kernel({', '.join(args)})"

    flat = all(t.ndim == ndim and t.layout == "C" for _, _, t in arrays)
    indent = "    "
    if flat:
        same = " and ".join(f"{name}.shape == out.shape" for _, name, _ in arrays)
        lines.append(f"    if {same}:")
        lines.append("        flat = out.reshape(out.size)")
        for i, name, _ in arrays:
            lines.append(f"        f{i} = {name}.reshape({name}.size)")
        lines.append("        for k in range(flat.size):")
        lines.append(f"            flat[k] = {call(lambda i: f'f{i}[k]')}")
        lines.append("        return out")
    for i, name, t in arrays:
        for k in range(t.ndim):
            lines.append(f"    e{i}_{k} = 0 if {name}.shape[{k}] == 1 else 1")
    for d in range(ndim):
        lines.append(f"{indent}for i{d} in range(n{d}):")
        indent += "    "

    def index(i):
        name, t = params[i], arg_types[i]
        offset = ndim - t.ndim
        return f"{name}[" + ", ".join(f"i{offset + k} * e{i}_{k}" for k in range(t.ndim)) + "]"
    target = ", ".join(f"i{d}" for d in range(ndim))
    lines.append(f"{indent}out[{target}] = {call(index)}")
    lines.append("    return out")
    return build(f"def impl({', '.join(params)}):\n" + "\n".join(lines) + "\n", env)


def _kernel_for(name, dtype):
    table = KERNELS[name]
    return table.get(dtype.kind if dtype.kind != "u" else "u")


def _operand_ok(t):
    return (is_array(t) and dtype_of(t) is not None) or (is_scalar(t) and dtype_of(t) is not None)


def lattice(name, reference, params=("x1", "x2"), kernel_name=None):
    """A primitive computed in its result dtype (arithmetic, transcendental functions, where's values)."""
    def typer(*args):
        if not all(_operand_ok(t) for t in args):
            return None
        shape_dtype = result_shape_dtype(reference, *args)
        if shape_dtype is None:
            return None
        out_dtype = shape_dtype[1]
        fn = _kernel_for(kernel_name or name, out_dtype)
        if fn is None:
            return None
        return map_impl(params, fn, [out_dtype.type] * len(args), out_dtype.type, args)
    typer.__doc__ = f"Numba lowering of {name}: the reference's dtype, computed elementwise."
    return lowers(name, params, reference=reference)(typer)


def compare(name, reference, kernel_name=None):
    """A comparison: computed in NumPy's promoted dtype (Python scalars weak), bool result."""
    def typer(x1, x2):
        if not (_operand_ok(x1) and _operand_ok(x2)):
            return None
        if result_shape_dtype(reference, x1, x2) is None:
            return None
        compute = agreed(lambda a, b: np.result_type(a, b), x1, x2)
        if compute is None:
            return None
        fn = _kernel_for(kernel_name or name, compute)
        return map_impl(("x1", "x2"), fn, [compute.type] * 2, np.bool_, (x1, x2))
    typer.__doc__ = f"Numba lowering of {name}: NumPy's comparison in the promoted dtype."
    return lowers(name, ("x1", "x2"), reference=reference)(typer)


def logical(name, reference, params):
    """A logical function: each operand's truth value, bool result."""
    def typer(*args):
        if not all(_operand_ok(t) for t in args) or result_shape_dtype(reference, *args) is None:
            return None
        return map_impl(params, KERNELS[name]["b"], ["bool"] * len(args), np.bool_, args)
    typer.__doc__ = f"Numba lowering of {name}: NumPy's truth values, bool result."
    return lowers(name, params, reference=reference)(typer)


def predicate(name, reference):
    """isnan, isfinite, isinf: the operand in its own dtype, bool result."""
    def typer(x):
        if not _operand_ok(x) or result_shape_dtype(reference, x) is None:
            return None
        dtype = agreed(lambda v: np.asarray(v).dtype if not isinstance(v, (int, float)) else
                       np.dtype(np.float32 if isinstance(v, float) else np.int32), x)
        if dtype is None:
            return None
        return map_impl(("x",), _kernel_for(name, dtype), [dtype.type], np.bool_, (x,))
    return lowers(name, ("x",), reference=reference)(typer)


# The stubs are collected in numba_build.STUBS (numba_cpu exports them): not bound here, where
# names such as `abs` must stay Python's.
for _name in ("add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "arctan2", "mod",
              "floor_divide"):
    lattice(_name, getattr(jnp, _name))
for _name in ("negative", "positive", "square", "abs", "sign", "floor", "ceil", "trunc", "reciprocal", "sqrt",
              "exp", "expm1", "log", "log1p", "log2", "log10", "sin", "cos", "tan", "arcsin", "arccos", "arctan",
              "sinh", "cosh", "tanh"):
    lattice(_name, getattr(jnp, _name), params=("x",))
for _name in ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal"):
    compare(_name, getattr(jnp, _name))
for _name in ("logical_and", "logical_or", "logical_xor"):
    logical(_name, getattr(jnp, _name), ("x1", "x2"))
logical("logical_not", jnp.logical_not, ("x",))
for _name in ("isnan", "isfinite", "isinf"):
    predicate(_name, getattr(jnp, _name))


# ------------------------------------------------------------ selection and casts
def _where(condition, x1, x2):
    """where: the reference's dtype for the values, the condition's truth value."""
    if not all(_operand_ok(t) for t in (condition, x1, x2)):
        return None
    shape_dtype = result_shape_dtype(jnp.where, condition, x1, x2)
    if shape_dtype is None:
        return None
    out = shape_dtype[1]
    return map_impl(("condition", "x1", "x2"), KERNELS["where"][out.kind], ["bool", out.type, out.type], out.type,
                    (condition, x1, x2))


lowers("where", ("condition", "x1", "x2"), reference=jnp.where)(_where)


def _bounds_kernel(a_dtype, lo, hi, make):
    """A kernel over (a, lo?, hi?) from `make(cast_lo, cast_hi)`, casts being NumPy scalar types or None."""
    return kernel(make(lo, hi))


def _promoted(x, y):
    return agreed(lambda a, b: np.result_type(a, b), x, y)


def _clip_mask(a, a_min, a_max, min, max):
    """clip_mask: 1 where clip passes `a` through, 0 where it clips, 0.5 on a bound (compared as NumPy does)."""
    lo = a_min if is_none(min) else min
    hi = a_max if is_none(max) else max
    if not _operand_ok(a) or not all(is_none(t) or _operand_ok(t) for t in (lo, hi)):
        return None
    shape_dtype = result_shape_dtype(helpers.clip_mask, a, a_min, a_max, min, max)
    if shape_dtype is None:
        return None
    out = shape_dtype[1].type
    c_lo = None if is_none(lo) else _promoted(a, lo)
    c_hi = None if is_none(hi) else _promoted(a, hi)
    if (c_lo is None and not is_none(lo)) or (c_hi is None and not is_none(hi)):
        return None
    if c_lo is not None and c_hi is not None:
        lo_t, hi_t = c_lo.type, c_hi.type
        fn = kernel(lambda v, l, h: (1.0 if lo_t(v) > lo_t(l) else (0.5 if lo_t(v) == lo_t(l) else 0.0))
                    * (1.0 if hi_t(v) < hi_t(h) else (0.5 if hi_t(v) == hi_t(h) else 0.0)))
    elif c_lo is not None:
        lo_t = c_lo.type
        fn = kernel(lambda v, l: 1.0 if lo_t(v) > lo_t(l) else (0.5 if lo_t(v) == lo_t(l) else 0.0))
    elif c_hi is not None:
        hi_t = c_hi.type
        fn = kernel(lambda v, h: 1.0 if hi_t(v) < hi_t(h) else (0.5 if hi_t(v) == hi_t(h) else 0.0))
    else:
        fn = kernel(lambda v: 1.0)
    params = ("a", "a_min", "a_max", "min", "max")
    types_ = (a, types.none if not is_none(min) else a_min, types.none if not is_none(max) else a_max,
              min if not is_none(min) else types.none, max if not is_none(max) else types.none)
    return map_impl(params, fn, [None] * 5, out, types_)


lowers("clip_mask", ("a", "a_min", "a_max", "min", "max"), reference=helpers.clip_mask)(_clip_mask)


_larger = kernel(lambda u, v: u if u > v or u != u else v)     # np.maximum of two scalars (nan wins, ties give v)
_tie_share = kernel(lambda u, v: 1.0 if u > v else (0.5 if u == v else 0.0))     # d max(u, v) / du, as JAX


def _clip_bound_weight(a, a_min, a_max, min, max, upper):
    """clip_lower_weight / clip_upper_weight: the share of clip's gradient a bound receives."""
    lo = a_min if is_none(min) else min
    hi = a_max if is_none(max) else max
    if not _operand_ok(a) or not all(is_none(t) or _operand_ok(t) for t in (lo, hi)):
        return None
    reference = helpers.clip_upper_weight if upper else helpers.clip_lower_weight
    shape_dtype = result_shape_dtype(reference, a, a_min, a_max, min, max)
    if shape_dtype is None or (upper and is_none(hi)) or (not upper and is_none(lo)):
        return None
    out = shape_dtype[1].type
    common = _promoted(a, lo) if not is_none(lo) else None
    common = _promoted(a, hi) if common is None else (
        common if is_none(hi) else agreed(lambda a_, l, h: np.result_type(a_, l, h), a, lo, hi))
    if common is None:
        return None
    t, tie, larger = common.type, _tie_share, _larger
    if upper and is_none(lo):
        fn = kernel(lambda v, h: tie(t(v), t(h)))
    elif upper:
        fn = kernel(lambda v, l, h: tie(larger(t(v), t(l)), t(h)))
    elif is_none(hi):
        fn = kernel(lambda v, l: tie(t(l), t(v)))
    else:
        fn = kernel(lambda v, l, h: tie(t(l), t(v)) * tie(t(h), larger(t(v), t(l))))
    params = ("a", "a_min", "a_max", "min", "max")
    types_ = (a, types.none if not is_none(min) else a_min, types.none if not is_none(max) else a_max,
              min if not is_none(min) else types.none, max if not is_none(max) else types.none)
    return map_impl(params, fn, [None] * 5, out, types_)


lowers("clip_lower_weight", ("a", "a_min", "a_max", "min", "max"),
       reference=helpers.clip_lower_weight)(lambda a, a_min, a_max, min, max: _clip_bound_weight(a, a_min, a_max, min, max, False))
lowers("clip_upper_weight", ("a", "a_min", "a_max", "min", "max"),
       reference=helpers.clip_upper_weight)(lambda a, a_min, a_max, min, max: _clip_bound_weight(a, a_min, a_max, min, max, True))


def _clip_reference(a, a_min=None, a_max=None, min=None, max=None):
    return jnp.clip(a, a_min, a_max, min=min, max=max)


def _clip(a, a_min, a_max, min, max):
    """clip: maximum with the lower bound, then minimum with the upper one, each in its promoted dtype."""
    lo = a_min if is_none(min) else min
    hi = a_max if is_none(max) else max
    if not _operand_ok(a) or not all(is_none(t) or _operand_ok(t) for t in (lo, hi)):
        return None
    shape_dtype = result_shape_dtype(_clip_reference, a, a_min, a_max, min, max)
    if shape_dtype is None:
        return None
    out = shape_dtype[1]
    scalar_a = agreed(lambda v: np.asarray(helpers.np.asarray(v) if not isinstance(v, (int, float)) else
                                           (np.float32(v) if isinstance(v, float) else np.int32(v))).dtype, a)
    if scalar_a is None:
        return None
    first = scalar_a if is_none(lo) else agreed(lambda v, l: jnp.maximum(
        np.asarray(v, scalar_a) if not isinstance(v, np.ndarray) else v, l).dtype, a, lo)
    if first is None:
        return None
    t1, t2 = first.type, out.type
    max1 = KERNELS["maximum"][first.kind]
    min2 = KERNELS["minimum"][out.kind]
    if not is_none(lo) and not is_none(hi):
        fn = kernel(lambda v, l, h: min2(t2(max1(t1(v), t1(l))), t2(h)))
    elif not is_none(lo):
        fn = kernel(lambda v, l: max1(t1(v), t1(l)))
    elif not is_none(hi):
        fn = kernel(lambda v, h: min2(t2(v), t2(h)))
    else:
        fn = kernel(lambda v: v)
    params = ("a", "a_min", "a_max", "min", "max")
    types_ = (a, types.none if not is_none(min) else a_min, types.none if not is_none(max) else a_max,
              min if not is_none(min) else types.none, max if not is_none(max) else types.none)
    return map_impl(params, fn, [None] * 5, out.type, types_)


lowers("clip", ("a", "a_min", "a_max", "min", "max"), reference=_clip_reference)(_clip)


def _round(name, reference):
    def typer(a, decimals, out):
        decimals_value = getattr(decimals, "literal_value", None)
        if not _operand_ok(a) or not is_none(out) or decimals_value is None:
            return None
        shape_dtype = result_shape_dtype(reference, a, decimals)
        if shape_dtype is None:
            return None
        dtype = shape_dtype[1]
        t = dtype.type
        if dtype.kind != "f":
            if decimals_value < 0:
                return None
            fn = kernel(lambda v: v)
        elif decimals_value == 0:
            fn = kernel(lambda v: np.rint(v))
        elif decimals_value > 0:
            factor = t(10.0 ** decimals_value)
            fn = kernel(lambda v: np.rint(v * factor) / factor)
        else:
            factor = t(10.0 ** -decimals_value)
            fn = kernel(lambda v: np.rint(v / factor) * factor)
        return map_impl(("a", "decimals", "out"), fn, [t, None, None], t, (a, types.none, types.none))
    return lowers(name, ("a", "decimals", "out"), reference=reference, prefer_literal=True)(typer)


_round("round", jnp.round)
_round("around", jnp.around)


def _builtin_extremum(name):
    def typer(x1, x2):
        a, b = types.unliteral(x1), types.unliteral(x2)
        if not (is_scalar(a) and a == b and dtype_of(a) is not None):
            return None        # Python's max returns one of its arguments: its type must not depend on which
        return map_impl(("x1", "x2"), KERNELS[name][dtype_of(a).kind], [None, None], dtype_of(a).type, (a, b))
    return lowers(name, ("x1", "x2"), reference=__builtins__["max" if name == "builtin_max" else "min"]
                  if isinstance(__builtins__, dict) else getattr(__builtins__, name[8:]))(typer)


_builtin_extremum("builtin_max")
_builtin_extremum("builtin_min")


def _converting(name, reference, params):
    """to_float, astype: every element cast to the reference's dtype."""
    def typer(*args):
        x = args[0]
        if not _operand_ok(x):
            return None
        shape_dtype = result_shape_dtype(reference, *args)
        if shape_dtype is None:
            return None
        out = shape_dtype[1]
        cast = "bool" if out.kind == "b" else out.type
        return map_impl(params, KERNELS["identity"]["b" if out.kind == "b" else out.kind], [cast] + [None] * (len(params) - 1),
                        out.type, (x,) + (types.none,) * (len(params) - 1))
    return lowers(name, params, reference=reference)(typer)


_converting("to_float", helpers.to_float, ("x",))
_converting("astype", helpers.astype, ("x", "dtype"))


# ------------------------------------------------------------ closeness
def _isclose_dtype(a, b):
    """The dtype NumPy's isclose computes in: JAX's promoted dtype, made inexact as NumPy does (ints: float64)."""
    return agreed(lambda x, y: np.result_type(np.asarray(jnp.add(x, y)).dtype, 1.0), a, b)


def _isclose_kernel(compute, equal_nan):
    t = compute.type

    def close(x, y, rtol, atol):
        x, y = t(x), t(y)
        if equal_nan and x != x and y != y:
            return True
        return (abs(x - y) <= t(atol) + t(rtol) * abs(y) and np.isfinite(y)) or x == y
    return kernel(close)


@lowers("isclose", ("a", "b", "rtol", "atol", "equal_nan"), reference=jnp.isclose, prefer_literal=True)
def _isclose(a, b, rtol, atol, equal_nan):
    """isclose: |a - b| <= atol + rtol |b| in NumPy's dtype (rtol and atol are Python floats), bool result."""
    nan_equal = getattr(equal_nan, "literal_value", None)
    if not (_operand_ok(a) and _operand_ok(b)) or not isinstance(nan_equal, bool):
        return None
    if not all(isinstance(types.unliteral(t), (types.Float, types.Integer)) for t in (rtol, atol)):
        return None
    if result_shape_dtype(jnp.isclose, a, b) is None:
        return None
    compute = _isclose_dtype(a, b)
    if compute is None:
        return None
    return map_impl(("a", "b", "rtol", "atol", "equal_nan"), _isclose_kernel(compute, nan_equal),
                    [None] * 5, np.bool_, (a, b, types.unliteral(rtol), types.unliteral(atol), types.none))


@lowers("allclose", ("a", "b", "rtol", "atol", "equal_nan"), reference=jnp.allclose, prefer_literal=True)
def _allclose(a, b, rtol, atol, equal_nan):
    """allclose: every element isclose (a bool)."""
    if result_shape_dtype(jnp.allclose, a, b) is None:
        return None
    return build("def impl(a, b, rtol, atol, equal_nan):\n"
                 "    return np.all(L.isclose(a, b, rtol, atol, equal_nan))\n", {"np": np, "L": _L})
