"""More of jax.random's samplers, built on astjax.random's uniform, normal, randint, bernoulli and
permutation with JAX's formulas, so that a key gives JAX's numbers (to float rounding: XLA's log and
tan may differ from NumPy's in the last bit). Exported by astjax.random."""
import math

import numpy as np

from .array import wrap
from .numpy._promote import nd

__all__ = ["gumbel", "categorical", "exponential", "laplace", "logistic", "cauchy", "truncated_normal",
           "rademacher", "choice", "lognormal", "rayleigh", "maxwell"]


def _random():
    from . import random
    return random


def _float(name, dtype):
    return _random()._float_dtype(name, dtype)


def _shape(name, shape):
    return _random()._check_shape(name, shape)


def _uniform(key, name, shape, dtype, minval, maxval):
    return np.asarray(_random()._uniform(_random()._check_key(name, key), shape, dtype, minval, maxval))


def gumbel(key, shape=(), dtype=None, mode=None):
    """Standard Gumbel samples: -log(-log(u)). mode="high" spends two uniforms per value (JAX's)."""
    dt = _float("gumbel", dtype)
    shape = _shape("gumbel", shape)
    info = np.finfo(dt)
    with np.errstate(divide="ignore"):
        if mode in (None, "low"):
            u = _uniform(key, "gumbel", shape, dt, info.tiny, 1.0)
            return wrap(-np.log(-np.log(u)))
        if mode == "high":
            high, low = _uniform(key, "gumbel", (2,) + shape, dt, 0.0, 1.0)
            x = np.where(high >= 0.5, high, high + dt.type(2.0 ** -info.nmant) * low + info.tiny).astype(dt)
            return wrap(-np.log(-np.log1p(-x)))
    raise ValueError(f"gumbel: mode must be None, 'low' or 'high', got {mode!r}")


def categorical(key, logits, axis=-1, shape=None, replace=True, mode=None):
    """Category indices drawn with probabilities softmax(logits, axis): the Gumbel-max trick (without
    replacement, Gumbel top-k), as JAX."""
    logits = nd(logits)
    axis = axis % logits.ndim
    batch_shape = tuple(np.delete(logits.shape, axis))
    shape = batch_shape if shape is None else _shape("categorical", shape)
    if shape[len(shape) - len(batch_shape):] != batch_shape:
        raise ValueError(f"categorical: shape {shape} must end with the logits' batch shape {batch_shape}")
    prefix = shape[:len(shape) - len(batch_shape)]
    dt = logits.dtype if logits.dtype.kind == "f" else np.dtype(np.float32)
    if replace:
        noise_shape = prefix + logits.shape
        noisy = np.asarray(gumbel(key, noise_shape, dt, mode)) + logits.reshape((1,) * len(prefix) + logits.shape)
        return wrap(np.argmax(noisy, axis=len(prefix) + axis).astype(np.int32))
    k = math.prod(prefix)
    if k > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({k}) cannot exceed number of categories "
                         f"({logits.shape[axis]}).")
    noisy = np.moveaxis(logits + np.asarray(gumbel(key, logits.shape, dt, mode)), axis, -1)
    top = np.argsort(-noisy, axis=-1, kind="stable")[..., :k]
    return wrap(np.moveaxis(top, -1, 0).reshape(shape).astype(np.int32))


def exponential(key, shape=(), dtype=None):
    """Standard exponential samples: -log1p(-u)."""
    dt = _float("exponential", dtype)
    return wrap(-np.log1p(-_uniform(key, "exponential", _shape("exponential", shape), dt, 0.0, 1.0)))


def laplace(key, shape=(), dtype=None):
    """Standard Laplace samples: sign(u) log1p(-|u|), u uniform on (-1, 1)."""
    dt = _float("laplace", dtype)
    u = _uniform(key, "laplace", _shape("laplace", shape), dt, -1.0 + np.finfo(dt).epsneg, 1.0)
    return wrap(np.sign(u) * np.log1p(-np.abs(u)))


def logistic(key, shape=(), dtype=None):
    """Standard logistic samples: log(u) - log1p(-u)."""
    dt = _float("logistic", dtype)
    x = _uniform(key, "logistic", _shape("logistic", shape), dt, np.finfo(dt).tiny, 1.0)
    return wrap(np.log(x) - np.log1p(-x))


def cauchy(key, shape=(), dtype=None):
    """Standard Cauchy samples: tan(pi (u - 1/2))."""
    dt = _float("cauchy", dtype)
    u = _uniform(key, "cauchy", _shape("cauchy", shape), dt, np.finfo(dt).eps, 1.0)
    return wrap(np.tan(dt.type(np.pi) * (u - dt.type(0.5))))


def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal samples restricted to (lower, upper): the inverse CDF of a uniform between
    erf(lower / sqrt 2) and erf(upper / sqrt 2), as JAX."""
    from scipy import special
    dt = _float("truncated_normal", dtype)
    lower, upper = np.asarray(lower, dt), np.asarray(upper, dt)
    shape = np.broadcast_shapes(lower.shape, upper.shape) if shape is None else _shape("truncated_normal", shape)
    sqrt2 = np.asarray(np.sqrt(2), dt)
    a, b = special.erf(lower / sqrt2).astype(dt), special.erf(upper / sqrt2).astype(dt)
    u = _uniform(key, "truncated_normal", shape, dt, a, b)
    out = (sqrt2 * special.erfinv(u)).astype(dt)
    return wrap(np.clip(out, np.nextafter(lower, dt.type(np.inf)), np.nextafter(upper, dt.type(-np.inf))))


def rademacher(key, shape=(), dtype=np.int32):
    """-1 or 1 with equal probability."""
    coin = np.asarray(_random().bernoulli(key, 0.5, _shape("rademacher", shape))).astype(dtype)
    return wrap((2 * coin - 1).astype(dtype))


def choice(key, a, shape=(), replace=True, p=None, axis=0, mode=None):
    """Items of `a` (or of range(a) for an int) drawn with or without replacement, uniformly or with
    probabilities `p`, as JAX."""
    random = _random()
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"shape argument of astjax.random.choice must be a sequence, got {shape}")
    arr = nd(a)
    if arr.ndim == 0:
        n_inputs = int(a)
    else:
        axis = axis % arr.ndim
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return wrap(np.zeros(shape, dtype=arr.dtype))
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) when "
                         "'replace=False'")
    if p is None:
        if replace:
            ind = np.asarray(random.randint(key, tuple(shape), 0, n_inputs))
            result = ind if arr.ndim == 0 else np.take(arr, ind, axis)
        else:
            permuted = np.asarray(random.permutation(key, n_inputs if arr.ndim == 0 else arr, axis))
            result = permuted[(slice(None),) * (0 if arr.ndim == 0 else axis) + (slice(n_draws),)]
    else:
        p_arr = nd(p)
        p_arr = p_arr if p_arr.dtype.kind == "f" else p_arr.astype(np.float32)
        if p_arr.shape != (n_inputs,):
            raise ValueError(f"p must be None or a 1D vector with the same size as a.shape[axis]. p has shape "
                             f"{p_arr.shape} and a.shape[axis] is {n_inputs}.")
        if replace:
            cumulative = np.cumsum(p_arr, dtype=p_arr.dtype)
            r = cumulative[-1] * (1 - np.asarray(random.uniform(key, tuple(shape), dtype=p_arr.dtype)))
            ind = np.searchsorted(cumulative, r).astype(np.int32)
        else:
            with np.errstate(divide="ignore"):
                g = np.asarray(gumbel(key, (n_inputs,), p_arr.dtype, mode)) + np.log(p_arr)
            ind = np.argsort(-g, kind="stable")[:n_draws].astype(np.int32)
        result = ind if arr.ndim == 0 else np.take(arr, ind, axis)
    out_shape = tuple(shape) if arr.ndim == 0 else arr.shape[:axis] + tuple(shape) + arr.shape[axis + 1:]
    return wrap(np.asarray(result).reshape(out_shape))


def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """exp(sigma * normal) samples."""
    dt = _float("lognormal", dtype)
    sigma = np.asarray(sigma, dt)
    shape = sigma.shape if shape is None else _shape("lognormal", shape)
    return wrap(np.exp(np.asarray(_random().normal(key, shape, dt)) * sigma))


def rayleigh(key, scale=1.0, shape=None, dtype=None):
    """scale * sqrt(-2 log u) samples."""
    dt = _float("rayleigh", dtype)
    scale = np.asarray(scale, dt)
    shape = scale.shape if shape is None else _shape("rayleigh", shape)
    u = _uniform(key, "rayleigh", shape, dt, 0.0, 1.0)
    with np.errstate(divide="ignore"):
        return wrap(np.broadcast_to(scale, shape) * np.sqrt(np.log(u) * dt.type(-2)))


def maxwell(key, shape=(), dtype=None):
    """The length of a standard normal 3-vector."""
    dt = _float("maxwell", dtype)
    draws = np.asarray(_random().normal(key, _shape("maxwell", shape) + (3,), dt))
    return wrap(np.sqrt(np.sum(draws * draws, axis=-1)).astype(dt))
