"""Numba lowerings of diff (NumPy's n-th differences) and of the adjoint its reverse rule calls.

`diff(a, n, axis, prepend, append)` with a literal n and axis: prepend and append (a number, broadcast
to a's shape with length 1 along the axis, or an array of a's rank) are cast to a's dtype and joined
along the axis, as the reference does; then n times the later slice minus the earlier one (`!=` for
booleans, as NumPy), and the result in the reference's dtype. An integer subtraction wraps as NumPy's
(a chain of them wraps the same whether the intermediates were wrapped or not).

`diff_adjoint(g, a, n, axis, prepend, append)` is n transposed differences, (-1)**n diff(pad(g, (n, n)), n),
cropped to a's positions in the joined array (after prepend's length), as rules/signal.py computes it.
Any other form (a non-literal n or axis, an array of another rank) declines, and jit refuses the line.
"""
import numpy as np

from .. import numpy as jnp
from ..rules import signal as rules_signal
from .numba_build import L, build, lowers
from .numba_linalg import COMPOSITES
from .numba_typing import dtype_of, is_array, is_none, is_scalar, literal_value, result_shape_dtype

ENV = {"np": np}
_MISSING = object()


def _static_int(t):
    value = literal_value(t, _MISSING)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _axis(axis, ndim):
    value = _static_int(axis)
    return value % ndim if value is not None and -ndim <= value < ndim else None


def _edge_shape(ndim, axis):
    """Source of a's shape with length 1 along `axis` (where a number prepended or appended goes)."""
    return "(" + ", ".join("1" if d == axis else f"a.shape[{d}]" for d in range(ndim)) + ",)"


def _piece_lines(name, t, ndim, axis, dtype):
    """Lines making `name` an array of a's rank and dtype `dtype`, or None when it cannot be one."""
    if is_none(t):
        return []
    if is_scalar(t) and dtype_of(t) is not None:
        return [f"{name}_piece = np.full({_edge_shape(ndim, axis)}, {name}).astype(np.{dtype})"]
    if is_array(t) and t.ndim == ndim and dtype_of(t) is not None:
        return [f"{name}_piece = np.ascontiguousarray({name}).astype(np.{dtype})"]
    return None


def _slices(ndim, axis, text):
    return ", ".join(text if d == axis else ":" for d in range(ndim))


def _difference_lines(name, ndim, axis, n, boolean):
    """Lines replacing `name` by its n-th difference along `axis`."""
    op = "!=" if boolean else "-"
    later, earlier = _slices(ndim, axis, "1:"), _slices(ndim, axis, ":-1")
    return [f"{name} = {name}[{later}] {op} {name}[{earlier}]" for _ in range(n)]


@lowers("diff", ("a", "n", "axis", "prepend", "append"), reference=jnp.diff, prefer_literal=True)
def _diff(a, n, axis, prepend, append):
    """diff along a literal axis, a literal n times, prepend and append joined first."""
    if not is_array(a) or a.ndim == 0 or dtype_of(a) is None:
        return None
    n_value, axis_value = _static_int(n), _axis(axis, a.ndim)
    if n_value is None or n_value < 0 or axis_value is None:
        return None
    shape_dtype = result_shape_dtype(jnp.diff, a, n, axis, prepend, append)
    if shape_dtype is None:
        return None
    dtype, out = dtype_of(a).name, shape_dtype[1]
    pieces = [_piece_lines(name, t, a.ndim, axis_value, dtype) for name, t in (("prepend", prepend),
                                                                              ("append", append))]
    if any(p is None for p in pieces):
        return None
    joined = [f"{name}_piece" for name, t in (("prepend", prepend), ("append", append)) if not is_none(t)]
    lines = pieces[0] + pieces[1]
    if joined:
        parts = ([joined[0]] if not is_none(prepend) else []) + ["np.ascontiguousarray(a)"] + \
            ([joined[-1]] if not is_none(append) else [])
        lines.append(f"x = np.concatenate(({', '.join(parts)},), axis={axis_value})")
    else:
        lines.append("x = a")
    lines += _difference_lines("x", a.ndim, axis_value, n_value, dtype == "bool")
    lines.append(f"return x.astype(np.{out.name})" if n_value else "return x.copy()")
    source = "def impl(a, n, axis, prepend, append):\n" + "".join(f"    {line}\n" for line in lines)
    return build(source, ENV)


@lowers("diff_adjoint", ("g", "a", "n", "axis", "prepend", "append"), reference=rules_signal.diff_adjoint,
        prefer_literal=True)
def _diff_adjoint(g, a, n, axis, prepend, append):
    """a's adjoint of diff: (-1)**n diff(pad(g, (n, n)), n) along the axis, from prepend's length on."""
    if not (is_array(g) and is_array(a)) or g.ndim != a.ndim or a.ndim == 0:
        return None
    if dtype_of(g) is None or dtype_of(g).kind != "f":
        return None
    n_value, axis_value = _static_int(n), _axis(axis, a.ndim)
    if n_value is None or n_value < 0 or axis_value is None:
        return None
    shape_dtype = result_shape_dtype(rules_signal.diff_adjoint, g, a, n, axis, prepend, append)
    if shape_dtype is None:
        return None
    if is_none(prepend):
        offset = "0"
    elif is_scalar(prepend):
        offset = "1"
    elif is_array(prepend) and prepend.ndim == a.ndim:
        offset = f"prepend.shape[{axis_value}]"
    else:
        return None
    ndim = a.ndim
    padded_shape = "(" + ", ".join(f"g.shape[{d}] + {2 * n_value}" if d == axis_value else f"g.shape[{d}]"
                                   for d in range(ndim)) + ",)"
    inner = _slices(ndim, axis_value, f"{n_value}:g.shape[{axis_value}] + {n_value}")
    kept = _slices(ndim, axis_value, f"{offset}:{offset} + a.shape[{axis_value}]")
    sign = "-" if n_value % 2 else ""
    lines = [f"x = np.zeros({padded_shape}, g.dtype)", f"x[{inner}] = g"]
    lines += _difference_lines("x", ndim, axis_value, n_value, False)
    lines.append(f"return ({sign}x[{kept}]).astype(np.{shape_dtype[1].name})")
    source = "def impl(g, a, n, axis, prepend, append):\n" + "".join(f"    {line}\n" for line in lines)
    return build(source, ENV)


COMPOSITES["diff_adjoint"] = L.diff_adjoint
