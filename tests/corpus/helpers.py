"""User functions that other corpus modules call (cross-module calls)."""
import astjax.numpy as jnp


def softplus(x):
    return jnp.log(1.0 + jnp.exp(x))


def smooth_abs(x, eps):
    return jnp.sqrt(x * x + eps)


def poly_eval(coeffs, x, n):
    acc = x * 0.0
    for i in range(n):
        acc = acc * x + coeffs[i]
    return acc
