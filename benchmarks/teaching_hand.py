"""The derivatives of `teaching_functions.py` as a teacher writes them by hand.

Each function has the name and arguments of the function it differentiates and returns the
derivative with respect to the argument `teaching_length.CORPUS` names. They are written the way
one writes them on a board: the chain rule line by line, loops carried forward, no tape.
`tests/test_teaching_length.py` checks each against finite differences.
"""
import numpy as np


def saxpy(a, b, c):
    return b


def overwrite_call(x):
    s = np.sum(x)
    return 2 * s * np.ones_like(x)


def overwrite_if(a):
    if a > 0:
        return 3.0
    return 2.0


def nested_if(a):
    if a > 0:
        if a < 10:
            return 2 * a
        return 1.0
    return 3.0


def multiarg_if(a):
    b = 3.0 if a * a / 3.0 > 0 else 4.0
    a1 = a * b
    if a1 < b - a1 * b:
        return 2 * a1 * b
    elif a1 > b + 3.0 * a1:
        if a1 / 2.0 < 0:
            return 1.0
        return b * b
    return -b


def serial_for(a, n):
    da = 1.0
    for i in range(n):
        da = 2 * a * da
        a = a * a
    return da * 2.0 * 3.0 ** (n + 1)


def serial_ifthenfor(a, n):
    da = 1.0
    if a > 0:
        da = 2 * a
        a = a * a
    da, a = 2.0 * da, 2.0 * a
    for i in range(n):
        da = 2 * a * da
        a = a * a
    return da


def iterpower(a, n):
    da = 1.0
    for i in range(n):
        da = 2 * a * da
        a = a * a
    return da


def cond_iterpower1(a):
    da = 1.0
    for i in range(3):
        if a < 20:
            da = 2 * a * da
            a = a * a
    return da


def superfor_iterpower(a):
    da = 1.0
    for i in range(2):
        for j in range(3):
            da = 2 * a * da
            a = a * a
    return da


def super_iterpower(a):
    da = 1.0
    for i in range(3):
        da = 3 * a * a * da
        a = a * a * a
    return da


def numpy_exp2(a):
    return np.exp(np.exp(a)) * np.exp(a)


def logistic_regression(input, label, W, b):
    t = np.tanh(np.dot(input, W) + b)
    p = 0.5 * (t + 1)
    q = p * label + (1 - p) * (1 - label)
    dh1 = -(2 * label - 1) / q * 0.5 * (1 - t * t)
    return np.dot(input.T, dh1)


def mul_with_call(a, b):
    return b


def if_mul_with_call(a, b):
    return b


def iterpower_with_call(a, n):
    da = 1.0
    for i in range(n):
        da = 2 * a * da
        a = a * a
    return da


def nested_call(a, b):
    return b


def while_big(a):
    da = 1.0
    while np.abs(a) > 0.1:
        a, da = a * 0.5, da * 0.5
    return da


def active_subscript(x):
    return np.ones_like(x)


def slicing(x):
    dx = np.ones_like(x)
    dx[0] = 0.0
    return dx


def rnn(inputs, W):
    dW = np.zeros_like(W)
    for t in range(3):
        dW += (3 - t) * np.outer(inputs[t], np.ones(3))
    return dW


def augassign(a):
    return 4 * a ** 3


def bilinear(x, h, U, W, b):
    y = np.tanh(np.dot(x, W) + np.dot(h, U) + b)
    return np.dot(W, 1 - y * y)


def gradgrad_chain_of_multcalls(a):
    b = a * a
    c = b * b
    return 8 * c * b * a


def subscript3(x):
    y = x ** 2.0
    dx = 3 * y
    dx[0] = 2 * x[0] * y[1] * y[2]
    dx[1] += 2 * x[1] * y[0] * y[2]
    dx[2] += 2 * x[2] * y[0] * y[1]
    return dx
