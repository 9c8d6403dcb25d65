"""25 functions of Tangent's test corpus, as a student writes them with astjax.numpy.

Chosen from google/tangent tests/functions.py (Apache-2.0) for variety: scalar arithmetic,
branches, loops, a while loop, nested calls, arrays, item updates and NumPy calls. Rewritten
here (jnp for np, one argument order) for `benchmarks/teaching_length.py`; the hand-written
derivatives are in `teaching_hand.py`.
"""
import astjax.numpy as jnp


def saxpy(a, b, c):
    return a * b + c


def overwrite_call(x):
    x = jnp.sum(x)
    x = x * x
    return x


def overwrite_if(a):
    if a > 0:
        a = a * 3.0
    else:
        a = a * 2.0
    return a


def nested_if(a):
    if a > 0:
        if a < 10:
            a = a * a
    else:
        a = 3.0 * a
    return a


def multiarg_if(a):
    if a * a / 3.0 > 0:
        b = 3.0
    else:
        b = 4.0
    a = a * b
    if a < b - a * b:
        a = a * a
    elif a > b + 3.0 * a:
        if a / 2.0 < 0:
            a = a / b
        else:
            a = a * b
    else:
        a = -a
    return a


def serial_for(a, n):
    for i in range(n):
        a = a * a
    a = 2.0 * a
    for i in range(n + 1):
        a = a * 3.0
    return a


def serial_ifthenfor(a, n):
    if a > 0:
        a = a * a
    a = 2.0 * a
    for i in range(n):
        a = a * a
    return a


def iterpower(a, n):
    for i in range(n):
        a = a * a
    return a


def cond_iterpower1(a):
    for i in range(3):
        if a < 20:
            a = a * a
    return a


def superfor_iterpower(a):
    for i in range(2):
        for j in range(3):
            a = a * a
    return a


def super_iterpower(a):
    for i in range(3):
        a = a * a * a
    return a


def numpy_exp2(a):
    return jnp.exp(jnp.exp(a))


def logistic_regression(input, label, W, b):
    h1 = jnp.dot(input, W) + b
    prediction = 0.5 * (jnp.tanh(h1) + 1)
    label_probabilities = prediction * label + (1 - prediction) * (1 - label)
    loss = -jnp.sum(jnp.log(label_probabilities))
    return loss


def mul(a, b):
    return a * b


def _inner_fn(a, b):
    return a * b


def mul_with_call(a, b):
    return _inner_fn(a, b)


def if_mul_with_call(a, b):
    if a > b:
        o = _inner_fn(a, b)
    else:
        o = _inner_fn(b, a)
    return o


def iterpower_with_call(a, n):
    for i in range(n):
        a = _inner_fn(a, a)
    return a


def nested_call(a, b):
    return mul_with_call(a, b)


def while_big(a):
    while jnp.abs(a) > 0.1:
        a = a * 0.5
    return a


def active_subscript(x):
    y = jnp.zeros_like(x)
    for i in range(len(x)):
        y[i] = x[i]
    return jnp.sum(y)


def slicing(x):
    return jnp.sum(x[1:])


def rnn(inputs, W):
    h = jnp.zeros((4, 3))
    for t in range(3):
        h[t + 1] = jnp.dot(inputs[t], W) + h[t]
    return jnp.sum(h[1:])


def augassign(a):
    x = a * a
    x *= x
    return x


def bilinear(x, h, U, W, b):
    y = jnp.dot(x, W)
    y = y + jnp.dot(h, U)
    y = y + b
    y = jnp.tanh(y)
    return jnp.sum(y)


def gradgrad_chain_of_multcalls(a):
    b = mul(a, a)
    c = mul(b, b)
    d = mul(c, c)
    return d


def subscript3(x):
    y = x ** 2.0
    x[0] = y[1] * y[2]
    return jnp.sum(x * y)
