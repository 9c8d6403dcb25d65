"""astjax.nn.initializers: JAX's parameter initializers, `init(key, shape, dtype)` with an explicit key.

Each factory returns `init(key, shape, dtype=float32)`; keys come from
astjax.random (`astjax.random.PRNGKey(0)`). The draws follow JAX's recipes
(variance scaling by fan in / fan out, JAX's truncated normal on [-2, 2]
rescaled by 0.8796..., QR for `orthogonal`): `normal`, `uniform` and the
"normal" and "uniform" variance-scaling draws reuse astjax.random's samplers,
which match JAX's; the truncated normal (glorot/he/lecun `*_normal`) computes
its inverse erf in float64 and so may differ from JAX's in the last bits.
Initializers run outside derivatives: they are not differentiable functions.
"""
import math

import numpy as np

from .._lazy import lazy_module
from .. import random
from ..numpy._promote import dtype_arg as _dtype_arg, out as _out

_scipy_special = lazy_module("scipy.special")   # imported when a truncated normal is first drawn

__all__ = ["constant", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform", "kaiming_normal",
           "kaiming_uniform", "lecun_normal", "lecun_uniform", "normal", "ones", "orthogonal", "truncated_normal",
           "uniform", "variance_scaling", "xavier_normal", "xavier_uniform", "zeros"]

_FLOAT = np.dtype(np.float32)
_TRUNCATED_STDDEV = 0.87962566103423978     # the standard deviation of a standard normal truncated to [-2, 2]


def _dtype(dtype):
    return _FLOAT if dtype is None else np.dtype(_dtype_arg(dtype))


def _shape(shape):
    return tuple(int(n) for n in (shape if isinstance(shape, (tuple, list)) else (shape,)))


def zeros(key, shape, dtype=None):
    return _out(np.zeros(_shape(shape), _dtype(dtype)))


def ones(key, shape, dtype=None):
    return _out(np.ones(_shape(shape), _dtype(dtype)))


def constant(value, dtype=None):
    def init(key, shape, dtype=dtype):
        return _out(np.full(_shape(shape), value, _dtype(dtype)))
    return init


def normal(stddev=1e-2, dtype=None):
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype)
        return _out(np.asarray(np.asarray(random.normal(key, _shape(shape), dt)) * np.asarray(stddev, dt), dt))
    return init


def uniform(scale=1e-2, dtype=None):
    """Uniform on [0, scale)."""
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype)
        return _out(np.asarray(np.asarray(random.uniform(key, _shape(shape), dt)) * np.asarray(scale, dt), dt))
    return init


def _truncated_normal(key, lower, upper, shape, dt):
    """JAX's recipe: sqrt(2) erfinv(u) for u uniform between erf(lower / sqrt 2) and erf(upper / sqrt 2)."""
    a = float(_scipy_special.erf(lower / math.sqrt(2.0)))
    b = float(_scipy_special.erf(upper / math.sqrt(2.0)))
    u = np.asarray(random.uniform(key, shape, dt, minval=a, maxval=b), dtype=np.float64)
    draw = math.sqrt(2.0) * _scipy_special.erfinv(u)
    low = np.nextafter(np.asarray(lower, dt), np.asarray(np.inf, dt))
    high = np.nextafter(np.asarray(upper, dt), np.asarray(-np.inf, dt))
    return np.clip(draw.astype(dt), low, high)


def truncated_normal(stddev=1e-2, dtype=None, lower=-2.0, upper=2.0):
    def init(key, shape, dtype=dtype):
        dt = _dtype(dtype)
        return _out(np.asarray(_truncated_normal(key, lower, upper, _shape(shape), dt) * np.asarray(stddev, dt), dt))
    return init


def _fans(shape, in_axis, out_axis, batch_axis):
    """(fan_in, fan_out) of a weight of `shape`: the in/out sizes times the receptive field (other axes)."""
    if len(shape) < 2:
        raise ValueError(f"variance scaling needs a shape of at least 2 axes (in and out), got {shape}")
    axes = lambda a: tuple(i % len(shape) for i in ((a,) if isinstance(a, int) else a))   # noqa: E731
    ins, outs, batch = axes(in_axis), axes(out_axis), axes(batch_axis)
    in_size = math.prod(shape[i] for i in ins)
    out_size = math.prod(shape[i] for i in outs)
    field = math.prod(n for i, n in enumerate(shape) if i not in ins + outs + batch)
    return in_size * field, out_size * field


def variance_scaling(scale, mode, distribution, in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    """Draws with variance scale / n, n the fan in, the fan out or their mean (`mode`), from a
    "truncated_normal", "normal" or "uniform" distribution (JAX's variance_scaling)."""
    if mode not in ("fan_in", "fan_out", "fan_avg"):
        raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
    if distribution not in ("truncated_normal", "normal", "uniform"):
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dtype(dtype)
        fan_in, fan_out = _fans(shape, in_axis, out_axis, batch_axis)
        denominator = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2}[mode]
        variance = np.asarray(scale / denominator, dt)
        if distribution == "truncated_normal":
            stddev = np.asarray(np.sqrt(variance) / np.asarray(_TRUNCATED_STDDEV, dt), dt)
            draw = _truncated_normal(key, -2.0, 2.0, shape, dt) * stddev
        elif distribution == "normal":
            draw = np.asarray(random.normal(key, shape, dt)) * np.sqrt(variance)
        else:
            draw = np.asarray(random.uniform(key, shape, dt, -1.0, 1.0)) * np.sqrt(np.asarray(3, dt) * variance)
        return _out(np.asarray(draw, dt))
    return init


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    return variance_scaling(1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None):
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


xavier_uniform, xavier_normal = glorot_uniform, glorot_normal
kaiming_uniform, kaiming_normal = he_uniform, he_normal


def orthogonal(scale=1.0, column_axis=-1, dtype=None):
    """A matrix with orthonormal columns (or rows, when there are fewer rows), from the QR of a normal draw."""
    def init(key, shape, dtype=dtype):
        shape = _shape(shape)
        dt = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        n_cols = shape[column_axis]
        n_rows = math.prod(shape) // n_cols
        matrix_shape = (n_cols, n_rows) if n_rows < n_cols else (n_rows, n_cols)
        a = np.asarray(random.normal(key, matrix_shape, dt))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if n_rows < n_cols:
            q = q.T
        rest = tuple(n for i, n in enumerate(shape) if i != column_axis % len(shape))
        q = np.moveaxis(np.reshape(q, rest + (n_cols,)), -1, column_axis)
        return _out(np.asarray(scale * q, dt))
    return init
