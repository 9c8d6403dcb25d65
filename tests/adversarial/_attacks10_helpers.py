"""Helpers of attacks10.py's programs that live in a module of their own, as a user's utilities would."""
import numpy as np

import astjax.numpy as jnp

SCALE = 1.5


def softplus(t):
    return jnp.log1p(jnp.exp(-jnp.abs(t))) + jnp.maximum(t, 0.0)


def layer(w, h):
    return jnp.tanh(w @ h) * SCALE


def accumulate(xs, f):
    total = 0.0
    for v in xs:
        total = total + f(v)
    return total


def cube(t):
    return t ** 3


class Scaler:
    def __init__(self, k):
        self.k = k

    def __call__(self, t):
        return t * self.k


def norm2(v):
    return np.sqrt(np.sum(v * v))
