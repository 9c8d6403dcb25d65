"""Programs over pytree arguments and results for tests/test_jit_pytrees.py (astjax reads their source)."""
import collections

import astjax.numpy as jnp

Layer = collections.namedtuple("Layer", "W b")


def dict_loss(params, x):
    h = jnp.tanh(x @ params["W"] + params["b"])
    return jnp.sum(h * h)


def list_mlp(layers, x):
    for W, b in layers:
        x = jnp.tanh(x @ W + b)
    return jnp.sum(x * x)


def namedtuple_affine(layer, x):
    return jnp.sum(jnp.sin(x @ layer.W + layer.b))


def nested(p, x, scale=2.0):
    a = p["layers"][0][0]
    b = p["layers"][1]["b"]
    return jnp.sum(x @ a) * scale + jnp.sum(b) * p["c"]


def tree_out(p, x):
    y = x @ p["W"]
    return {"y": y, "stats": (jnp.sum(y), jnp.max(y)), "b": p["b"] * 2}


def namedtuple_out(p, x):
    return Layer(x @ p["W"], p["b"] + 1)


def with_none(p, x):
    if p[1] is None:
        return x * p[0]
    return x


def difference(p):
    return p["a"] - p["b"]


def count_keys(x, names):
    return x * len(names)


def int_keys(p):
    return p[0] + p[1]


def two_layers(layers, x):
    W1, b1 = layers[0]
    W2, b2 = layers[1]
    h = jnp.tanh(x @ W1 + b1)
    return jnp.sum(jnp.tanh(h @ W2 + b2) ** 2)


def tuple_pair(p, x):
    return jnp.sum(p[0] * x) + jnp.sum(p[1]["a"] * x)


def small_quadratic(p):
    return jnp.sum(p["u"] * p["v"] * p["u"]) + jnp.sum(jnp.sin(p["v"]))


def vector_out(p, x):
    return jnp.tanh(x @ p["W"] + p["b"])


def keep_layer(layer, x):
    return layer, jnp.sum(x)


def first_items(a, b):
    return a[0] + b[0]
