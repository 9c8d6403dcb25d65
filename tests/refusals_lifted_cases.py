"""Programs for tests/test_refusals_lifted.py: one per construct whose refusal was lifted."""
import itertools
import operator

import numpy as np


def chained(x):
    M = np.zeros((2, 3))
    M[0] = M[1] = x
    return np.sum(M * np.arange(6.0).reshape(2, 3))


def try_finally(x):
    s = np.sum(x * x)
    try:
        return s
    finally:
        s = s * 3.0


def _weighted(a, b, c):
    return a + 2.0 * b + 3.0 * c * a


def star_slice(x):
    return _weighted(*x[:3])


def sorted_by_key(x):
    s = sorted(x, key=lambda v: -v)
    return s[0] * 3.0 + s[1]


def min_by_key(x):
    return min(x, key=abs) * 2.0


def list_sort_by_key(x):
    items = [(x[0] * 2.0, 0), (x[1], 1), (x[2] - 1.0, 2)]
    items.sort(key=lambda t: t[0])
    return items[0][0] * 3.0 + items[-1][0]


def reversed_enumerate(x):
    return sum(v * i for i, v in enumerate(reversed(x), start=1))


def pairwise_starmap(x):
    return sum(a * b for a, b in itertools.pairwise(x)) + sum(itertools.starmap(operator.mul, zip(x, x)))


def zip_star(x):
    M = x.reshape(2, 2)
    return sum(a * b for a, b in zip(*M))


def accumulate(x):
    return sum(itertools.accumulate(x, operator.mul))


def _running(v):
    total = 0.0
    for e in v:
        total = total + e
        yield total


def generator(x):
    return sum(t * t for t in _running(x))


def nonlocal_total(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    for v in x:
        add(v * v)
    return total


def lambda_default(x):
    k = 2.0
    f = lambda v, k=k: v * k  # noqa: E731
    k = 5.0
    return np.sum(f(x)) + k * x[0]


def sorted_items(x):
    d = {"b": x[0], "a": x[1] * 2.0}
    return sum(v * v for _, v in sorted(d.items()))


def list_reverse(x):
    xs = [x[0], x[1] * 2.0, x[2]]
    xs.reverse()
    return xs[0] * 3.0 + xs[2]


def _power_of(k):
    def g(v):
        return v ** k
    return g


def factory_calls(x):
    sq, cube = _power_of(2), _power_of(3)
    return np.sum(sq(cube(x))) + np.sum(_power_of(1)(x))


def unpacked_items(x):
    a, b = x[0], x[1]
    a += b
    b *= a
    return a * b


def comprehension_walrus(x):
    return sum(y for v in x if (y := v * 2.0) > -0.5)


def closure_list(x):
    fs = [lambda v, k=k: v ** k for k in range(1, 4)]
    return sum(f(x[0]) for f in fs)


def closures_in_loop(x):
    fs = []
    for i in range(3):
        def g(v):
            return v * i
        fs.append(g)
    return sum(f(x[0]) for f in fs) + x[1]


def lambda_reads_loop_variable_rebound_later(x):
    fs = []
    for i in range(3):
        fs.append(i)
    g = lambda v: v * i  # noqa: E731
    s1 = g(x[0])
    i = 5.0
    return s1 * 2.0 + g(x[2])


def local_factory(x):
    def make(scale):
        def h(v):
            return v * scale
        return h
    h1 = make(x[0])
    return np.sum(h1(x))
