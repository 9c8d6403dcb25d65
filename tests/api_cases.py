"""Functions exercised by test_api.py."""
import collections

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

Params = collections.namedtuple("Params", ["w", "b"])


def loss(w, b, x):
    return jnp.sum(jnp.tanh(w * x + b))


def with_aux(x):
    y = jnp.sin(x)
    return jnp.sum(y), y


def dict_params(params, x):
    return jnp.sum(params["w"] * x + params["b"])


def tuple_params(params, x):
    w, b = params[0], params[1]
    return jnp.sum(w * x) + b


def namedtuple_params(params, x):
    return jnp.sum(params.w * x + params.b)


def local_update(x):
    y = jnp.zeros(3)
    y[0] += x
    y = y.at[2].set(x * 2.0)
    return jnp.sum(y)


def slices(x):
    return jnp.sum(x[1:3] ** 2) + x[0]


def broadcasting(a, b):
    return jnp.sum(a * b + a)


def matrix(a, b):
    return jnp.sum(jnp.dot(a, b) ** 2)


def vector_function(x):
    return jnp.sin(x) * x[0]


def numpy_code(x):
    return np.sum(np.exp(x) * np.cos(x))


def unused_argument(x, y):
    return x * 2.0


SCALE = 3.0


def local_functions(x):
    def scaled(t):
        y = t * SCALE
        return y * x
    square = lambda t: t * t
    return square(scaled(x)) + scaled(2.0)


def tuple_values(a, b):
    t = (a * b, a + b)
    return t[0] * t[1]


def blur(image, kernel):
    im_h, im_w = image.shape
    ker_h, ker_w = kernel.shape
    pad_h, pad_w = ker_h // 2, ker_w // 2
    padded = jnp.pad(image, ((pad_h, pad_h), (pad_w, pad_w)), mode="edge")
    output = jnp.zeros_like(image)
    for i in range(ker_h):
        for j in range(ker_w):
            window = lax.dynamic_slice(padded, (i, j), (im_h, im_w))
            output += kernel[i, j] * window
    return jnp.sum(output ** 2)


def pytree_vector_function(params, x):
    return jnp.tanh(params["w"] * x + params["b"])


class Model:
    def __init__(self, scale):
        self.scale = scale

    def loss(self, x):
        return jnp.sum(jnp.sin(x) * self.scale)

    def __call__(self, x):
        return jnp.sum(x * x * self.scale)


def scaled_loss(x, scale):
    return jnp.sum(x ** 3 * scale)


def inner_energy(w):
    return jnp.sum(jnp.sin(w) * w)


def gradient_penalty(w):
    g = astjax.grad(inner_energy)(w)
    return jnp.sum(g ** 2)


def lax_body(i, v):
    return v * 1.1 + i * 0.01


def lax_fori(x):
    return lax.fori_loop(0, 5, lax_body, x)


def lax_while(x):
    return lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)


def lax_cond(x):
    return lax.cond(x > 0, lambda a: a * a, lambda a: -a, x)


def lax_step(c, xi):
    c = c * 0.9 + xi
    return c, c * c


def lax_scan(xs):
    c, ys = lax.scan(lax_step, 0.0, xs)
    return ys.sum() + c


def mlp_predict(params, x):
    h = x
    for layer in params[:-1]:
        h = jnp.tanh(h @ layer["w"] + layer["b"])
    last = params[-1]
    return h @ last["w"] + last["b"]


def mlp_loss(params, x, y):
    return jnp.mean((mlp_predict(params, x) - y) ** 2)


def checked(x):
    assert x.ndim == 1, "a vector please"
    if jnp.any(x < 0):
        raise ValueError("x must be non-negative")
    return jnp.sum(jnp.sqrt(x))


def keyword_helper(x, scale=1.0, shift=0.0):
    return jnp.sum(jnp.sin(x) * scale + shift)


def keyword_caller(x, alpha=1.67):
    return keyword_helper(x, scale=alpha, shift=1.0) * alpha


def returns_nothing(x):
    y = x * 2.0


def returns_none(x):
    return None


def loss_with_dict_aux(x):
    loss = jnp.sum(jnp.sin(x) * x)
    acc = jnp.mean(x > 0.0)
    return loss, {"acc": acc, "loss": loss, "preds": [x * 2.0]}


def dict_output(x):
    return {"a": x * x, "b": jnp.sin(x)}


def calls_dict_helper(x):
    d = dict_output(x)
    return jnp.sum(d["a"] * 3.0 + d["b"])


def local_dict(x):
    d = {"a": x}
    return jnp.sum(d["a"])


def mixed_scalar(x):
    return jnp.sum(jnp.sin(x) * x[0] + x ** 3)


def rnn(params, *inputs):
    h = params
    for i in range(len(inputs)):
        h = jnp.tanh(h * inputs[i] + 0.1)
    return h


def scaled_square(x, *, scale=2.0):
    return x * scale * x


def weighted_sum(w, *xs, scale=1.5, bias=0.0):
    s = 0.0
    for x in xs:
        s = s + jnp.sum(w * x) * scale
    return s + bias


def vector_with_dict_aux(x):
    y = jnp.sin(x)
    return y * 2.0, {"y": y}


def loss_with_named_dict_aux(x):
    loss = jnp.sum(jnp.sin(x) * x)
    metrics = {"loss": loss, "first": x[0]}
    return loss, metrics


def dict_mutated_before_return(x):
    metrics = {"a": x}
    metrics["a"] = x * 2.0
    return jnp.sum(x), metrics


def dict_read_before_return(x):
    metrics = {"a": x * 2.0}
    return jnp.sum(metrics["a"]), metrics


def dict_aux_through_a_named_tuple(x):
    loss = jnp.sum(x ** 2)
    metrics = {"loss": loss}
    result = (loss, metrics)
    return result


def calls_dict_aux_through_a_named_tuple(x):
    loss, metrics = dict_aux_through_a_named_tuple(x)
    return loss * 3.0 + metrics["loss"]
