"""astjax.nn: JAX's `jax.nn` activations and helpers.

Each activation is plain astjax code written from primitives (not in
classify._LIBRARIES), so the transformations differentiate its source like the
user's own; the kinks follow JAX's conventions: relu'(0) = 0, relu6' = 0 at 0
and 6, leaky_relu'(0) = 1, hard_tanh' = 1 at +-1, elu'(0) = alpha, celu'(0) = 1.
`softmax`, `log_softmax` and `logsumexp` are the primitives of
astjax.scipy.special (with JAX's default axis=-1 for the first two); `one_hot`
is a primitive without derivative (its result depends only on integers).
Not provided: `normalize` (JAX's deprecated name of `standardize`),
`dot_product_attention`, `sparse_sigmoid`, the `where=` and `initial=` arguments of softmax.
"""
import numpy as _np

from .. import numpy as jnp
from ..numpy._promote import dtype_arg as _dtype_arg, nd as _nd, out as _out
from ..scipy import special as _special
from ..scipy.special import logsumexp
from . import initializers  # noqa: F401

__all__ = ["celu", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
           "initializers", "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "mish", "one_hot", "relu",
           "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "squareplus",
           "standardize", "swish"]

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
