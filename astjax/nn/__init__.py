"""astjax.nn: JAX's `jax.nn` activations and helpers.

Each activation is plain astjax code written from primitives (not in
classify._LIBRARIES), so the transformations differentiate its source like the
user's own; the kinks follow JAX's conventions: relu'(0) = 0, relu6' = 0 at 0
and 6, leaky_relu'(0) = 1, hard_tanh' = 1 at +-1, elu'(0) = alpha, celu'(0) = 1.
`softmax`, `log_softmax` and `logsumexp` are the primitives of
astjax.scipy.special (with JAX's default axis=-1 for the first two); `one_hot`
is a primitive without derivative (its result depends only on integers).
`tanh` is jnp.tanh. `dot_product_attention` follows JAX's signature and
its XLA reference (grouped-query heads, bias, boolean mask, causal mask),
written from einsum, where and softmax. Not provided: `normalize` (JAX's
deprecated name of `standardize`), the `where=` and `initial=` arguments of
softmax, and dot_product_attention's sequence lengths and local windows. `scaled_matmul`,
`scaled_dot_general` and `get_scaled_dot_general_config`: see _scaled.py (no
float8 dtypes: the scaled matmul in float32; quantizing configs refused).
"""
import math

import numpy as _np

from .. import numpy as jnp
from ..numpy._promote import dtype_arg as _dtype_arg, nd as _nd, out as _out
from ..scipy import special as _special
from ..numpy import tanh
from ..scipy.special import logsumexp
from . import initializers  # noqa: F401
from ._scaled import get_scaled_dot_general_config, scaled_dot_general, scaled_matmul  # noqa: F401

__all__ = ["celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
           "initializers", "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "mish", "one_hot", "relu",
           "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "squareplus",
           "standardize", "swish", "tanh", "sparse_sigmoid", "dot_product_attention", "log1mexp", "logmeanexp",
           "scaled_matmul", "scaled_dot_general", "get_scaled_dot_general_config"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946
_SQRT_2_OVER_PI = 0.7978845608028654


def identity(x):
    return x


def relu(x):
    """max(x, 0), with slope 0 at 0 (as JAX); nan stays nan."""
    return jnp.where(x > 0, x, jnp.where(jnp.isnan(x), x, 0.0))


def relu6(x):
    """min(max(x, 0), 6), with slope 0 at 0 and at 6 (as JAX)."""
    return jnp.where(x <= 0, 0.0, jnp.where(x >= 6, 6.0, x))


def sigmoid(x):
    return _special.expit(x)


def log_sigmoid(x):
    return _special.log_expit(x)


def softplus(x):
    """log(1 + exp(x)), without overflow."""
    return -_special.log_expit(-x)


def soft_sign(x):
    return x / (jnp.abs(x) + 1.0)


def silu(x):
    return x * _special.expit(x)


swish = silu


def hard_tanh(x):
    """x clipped to [-1, 1], slope 1 at the ends (as JAX)."""
    return jnp.where(x > 1, 1.0, jnp.where(x < -1, -1.0, x))


def hard_sigmoid(x):
    return relu6(x + 3.0) / 6.0


def hard_silu(x):
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def elu(x, alpha=1.0):
    """x for x > 0, alpha * (exp(x) - 1) below (slope alpha at 0, as JAX)."""
    positive = x > 0
    return jnp.where(positive, x, alpha * jnp.expm1(jnp.where(positive, 0.0, x)))


def celu(x, alpha=1.0):
    """max(x, 0) + alpha * expm1(min(x, 0) / alpha) (slope 1 at 0)."""
    positive = x > 0
    return jnp.where(positive, x, alpha * jnp.expm1(jnp.where(positive, 0.0, x) / alpha))


def selu(x):
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


def leaky_relu(x, negative_slope=0.01):
    """x for x >= 0, negative_slope * x below (slope 1 at 0, as JAX)."""
    return jnp.where(x >= 0, x, negative_slope * x)


def gelu(x, approximate=True):
    """x * Phi(x); with approximate=True (JAX's default) the tanh approximation."""
    if approximate:
        return 0.5 * x * (1.0 + jnp.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)))
    return x * _special.ndtr(x)


def mish(x):
    return x * jnp.tanh(softplus(x))


def sparse_plus(x):
    """0 for x <= -1, x for x >= 1, (x + 1)^2 / 4 between (continuously differentiable)."""
    return jnp.where(x <= -1, 0.0, jnp.where(x >= 1, x, 0.25 * (x + 1.0) * (x + 1.0)))


def sparse_sigmoid(x):
    """0 for x <= -1, 1 for x >= 1, (x + 1) / 2 between: 0.5 * clip(x + 1, 0, 2), as JAX."""
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


def squareplus(x, b=4):
    return 0.5 * (x + jnp.sqrt(x * x + b))


def glu(x, axis=-1):
    """The first half of x along `axis` times the sigmoid of the second half."""
    size = jnp.shape(x)[axis]
    first = jnp.take(x, jnp.arange(size // 2), axis=axis)
    second = jnp.take(x, jnp.arange(size // 2, size), axis=axis)
    return first * _special.expit(second)


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) over `axis` (default the last, as jax.nn)."""
    return _special.softmax(x, axis)


def log_softmax(x, axis=-1):
    """x - logsumexp(x) over `axis` (default the last, as jax.nn)."""
    return _special.log_softmax(x, axis)


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5):
    """(x - mean) / sqrt(variance + epsilon), the moments taken over `axis` unless given."""
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True)
    if variance is None:
        variance = jnp.mean(x * x, axis, keepdims=True) - mean * mean
    return (x - mean) / jnp.sqrt(variance + epsilon)


def one_hot(x, num_classes, dtype=None, axis=-1):
    """1.0 where the last axis (moved to `axis`) equals x's integer class, else 0 (no derivative)."""
    dtype = _np.dtype(_np.float32) if dtype is None else _dtype_arg(dtype)
    x = _nd(jnp.asarray(x))
    hot = _np.expand_dims(x, -1) == _np.arange(int(num_classes))
    return _out(_np.moveaxis(hot.astype(dtype), -1, axis))


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False,
                          query_seq_lengths=None, key_value_seq_lengths=None, local_window_size=None,
                          implementation=None):
    """softmax(q k^T * scale + bias, masked) v over the key axis, as jax.nn.dot_product_attention.

    query (B, T, N, H), key and value (B, S, K, H) with N a multiple of K (grouped heads), or the same
    without B; bias and mask broadcast to (B, N, T, S); scale defaults to 1 / sqrt(H). Masked logits
    become a large negative number (JAX's), so a fully masked row averages the values evenly. (JAX's
    parameters after `mask` are keyword-only; here they may also be passed by position, because astjax
    transforms this function's source and does not transform keyword-only parameters yet.)
    """
    _check_attention_options(query_seq_lengths, key_value_seq_lengths, local_window_size, implementation)
    unbatched = jnp.ndim(query) == 3
    if unbatched:
        query = jnp.expand_dims(query, 0)
        key = jnp.expand_dims(key, 0)
        value = jnp.expand_dims(value, 0)
    b, t, n, h = jnp.shape(query)
    s, k = jnp.shape(key)[1], jnp.shape(key)[2]
    _check_attention_shapes(jnp.shape(query), jnp.shape(key), jnp.shape(value))
    if scale is None:
        scale = 1.0 / _np.sqrt(h)
    grouped = jnp.reshape(query, (b, t, k, n // k, h))
    logits = jnp.reshape(jnp.einsum("btkgh,bskh->bkgts", grouped, key), (b, n, t, s)) * scale
    if bias is not None:
        logits = logits + _attention_operand(bias, unbatched)
    if mask is not None:
        logits = jnp.where(_attention_operand(mask, unbatched), logits, _attention_masked_value(logits))
    if is_causal:
        logits = jnp.where(jnp.tril(jnp.ones((t, s), dtype=bool)), logits, _attention_masked_value(logits))
    weights = _special.softmax(logits, axis=-1)
    grouped_weights = jnp.reshape(weights, (b, k, n // k, t, s))
    result = jnp.reshape(jnp.einsum("bkgts,bskh->btkgh", grouped_weights, value), (b, t, n, h))
    if unbatched:
        return result[0]
    return result


def _attention_operand(x, unbatched):
    """A bias or mask of the unbatched call (N, T, S) gets the batch axis the computation has."""
    if unbatched and jnp.ndim(x) == 3:
        return jnp.expand_dims(x, 0)
    return x


def _attention_masked_value(logits):
    """JAX's large negative number for masked logits: -0.7 times the dtype's largest value, as a 0-d array of
    that dtype (a Python float would be weakly typed: float32 once batched, and -inf there for float64)."""
    dtype = _np.result_type(logits, _np.float32)
    return jnp.asarray(-0.7 * float(_np.finfo(dtype).max), dtype=dtype)


def _check_attention_options(query_seq_lengths, key_value_seq_lengths, local_window_size, implementation):
    if query_seq_lengths is not None or key_value_seq_lengths is not None or local_window_size is not None:
        raise NotImplementedError("astjax.nn.dot_product_attention: query_seq_lengths, key_value_seq_lengths and "
                                  "local_window_size are not supported; pass a boolean `mask` instead")
    if implementation not in (None, "xla"):
        raise ValueError(f"astjax.nn.dot_product_attention: implementation must be None or 'xla', got "
                         f"{implementation!r}")


def _check_attention_shapes(q, k, v):
    if len(q) != 4 or len(k) != 4 or tuple(k) != tuple(v) or q[0] != k[0] or q[3] != k[3] or q[2] % k[2]:
        raise ValueError(f"dot_product_attention: query (B, T, N, H) and key/value (B, S, K, H) with N a multiple "
                         f"of K expected, got query {tuple(q)}, key {tuple(k)}, value {tuple(v)}")


def log1mexp(x):
    """log(1 - exp(-x)) for x > 0, accurate at both ends: log1p(-exp(-x)) above log 2, log(-expm1(-x)) below."""
    return jnp.where(x > 0.6931471805599453, jnp.log1p(-jnp.exp(-x)), jnp.log(-jnp.expm1(-x)))


def logmeanexp(x, axis=None, where=None, keepdims=False):
    """log(mean(exp(x))) along `axis`: logsumexp less the log of the count."""
    if where is not None:
        raise NotImplementedError("astjax.nn.logmeanexp: where= is not supported; select the entries first")
    count = jnp.size(x) if axis is None else jnp.size(x) // jnp.size(jnp.sum(x, axis=axis))
    return logsumexp(x, axis=axis, keepdims=keepdims) - math.log(count)     # a Python float: weak, as in JAX
