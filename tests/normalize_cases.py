"""Functions whose normalized source tests/test_normalize.py checks (astjax reads source from files)."""
import functools
import operator

import numpy as np

import astjax.numpy as jnp


def methods(x):
    return x.sum(axis=0) + x.T + x.reshape(2, 3)


def augmented(x, y):
    x += y
    y[0] += x
    y[1] = x
    return y


def tuples(x):
    a, b = x, 2.0
    a, b = b, a
    h, w = x.shape
    return a * b + h


def unpack_into_itself(x):
    x, w = x
    return x * w


def clashing_names(x, push):
    pop = x * push
    ys = [pop * i for i in range(len(x))]
    return jnp.sum(pop) + ys[0]


def redefined_local_lambda(x):
    g = lambda t: t * 2.0
    y = g(x)
    g = lambda t: t * 3.0
    return y + g(x)


def comprehension_variable(x):
    i = 2.0
    ys = [x * i for i in range(3)]
    return ys[0] * i


def early_return(x, n):
    if n == 0:
        return 1.0
    return x * early_return(x, n - 1)


def loop_break(x):
    for i in range(10):
        if x > 5.0:
            break
        x = x * 2.0
    return x


def loop_values(xs, ys):
    total = 0.0
    for v in xs:
        total = total + v
    for i, v in enumerate(xs):
        total = total + v * i
    for a, b in zip(xs, ys):
        total = total + a * b
    return total


def nested(x):
    return jnp.sin(x) * x + 1.0


def conditional_expression(x):
    return x if x > 0 else -x


def short_circuit(x, y):
    if x > 0 and y > 0:
        return x
    return y


def while_test(x):
    while jnp.sum(x) < 10.0:
        x = x * 2.0
    return x


def plain_numpy(x):
    return np.sum(np.exp(x))


def errstate_block(x):
    with np.errstate(divide="ignore"):
        for i in range(2):
            with np.errstate(invalid="ignore"):
                x = np.log(x)
    return x


def search_with_else(x):
    acc = 0.0
    for v in x:
        for w in x:
            if w > v:
                break
        if v > 0.5:
            acc = acc + v
            break
        acc = acc + v
    else:
        acc = acc * 2.0
    return acc


def while_without_break_else(x):
    while x < 10.0:
        x = x * 2.0
    else:
        x = x + 1.0
    return x


def walrus_in_while_test(x):
    i = 0
    while (t := x[i] * x[i]) < 10.0 and i < 2:
        i += 1
    return t


def delete_then_rebind(x):
    y = x * 2.0
    z = y + 1.0
    del y
    y = z * x
    del z
    return y


def delete_then_read(x):
    y = x * 2.0
    del y
    return y


def reduce_product(x):
    return functools.reduce(operator.mul, x, 2.0)
