"""Functions that astjax must refuse with a clear message (see test_errors.py)."""
import numpy as np

import astjax.numpy as jnp


def uses_try(x):
    try:
        y = x * 2.0
    except ValueError:
        y = x
    return y


def uses_yield(x):
    yield x * 2.0


def uses_global(x):
    global COUNTER
    COUNTER = 1
    return x


def vector_output(x):
    return x * 2.0


def calls_unknown(x):
    return jnp.sum(opaque(x))


def opaque(x):
    return x


class Opaque:
    def __call__(self, *xs):     # *args: astjax does not call through it (a plain __call__ it would)
        return xs[0]


opaque_object = Opaque()


def calls_opaque_object(x):
    return opaque_object(x) * 2.0


def tuple_output(x):
    return x, x


def library_without_rule(a):
    return jnp.sum(np.poly(a))


def unsupported_svd(x):
    return jnp.sum(jnp.linalg.svd(jnp.reshape(x, (1, 3)))[2])     # full_matrices=True, not square


def index_past_the_end(x):
    y = jnp.sin(x)
    z = y[jnp.argmax(y) + 10]
    return z


def index_past_the_end_in_the_adjoint(x):
    b = jnp.sin(x) * x
    c = b[jnp.argmax(b) + 10]
    return c
