"""A generator expression bound to a name runs where it is consumed, not where it is written. astjax
turns it into a list at the binding, so code in between that may change what it reads is refused.

Found probing the lifted-refusal passes as an attacker: `g = (v * v for v in xs); xs.append(x[2]);
sum(g)` gave the gradient [2, 0.4, 0] (the list made at the binding has two items); Python sums three,
truth [2, 0.4, 7].
"""
import numpy as np
import pytest

import astjax
from astjax.errors import TransformError

X = np.array([1.0, 0.2, 3.5])


def append_between(x):
    xs = [x[0], x[1]]
    g = (v * v for v in xs)
    xs.append(x[2])
    return sum(g)


def rebind_element_name(x):
    w = x[0]
    g = (v * w for v in [x[1], x[2]])
    w = x[2] * 10
    return sum(g)


def local_call_between(x):
    xs = [x[0]]

    def add():
        xs.append(x[2])

    g = (v * v for v in xs)
    add()
    return sum(g)


def setitem_between(x):
    a = x.copy()
    g = (v * 2 for v in a)
    a[0] = 100.0 * x[1]
    return sum(g)


def alias_method_between(x):
    xs = [x[0], x[1]]
    ys = xs
    g = (v * v for v in xs)
    ys.append(x[2])
    return sum(g)


def mutation_inside_if(x):
    xs = [x[0], x[1]]
    g = (v * v for v in xs)
    if x[2] > 0:
        xs.append(x[2])
        t = sum(g)
    else:
        t = 0.0
    return t


@pytest.mark.parametrize("f", [append_between, rebind_element_name, local_call_between, setitem_between,
                               alias_method_between, mutation_inside_if], ids=lambda f: f.__name__)
def test_a_change_between_binding_and_consumption_is_refused(f):
    with pytest.raises(TransformError, match="runs where it is consumed"):
        astjax.grad(f)(X)


def pure_code_between(x):
    g = (v * v for v in [x[1], x[2]])
    y = np.sin(x[0]) * 2
    return sum(g) + y


def test_pure_code_between_keeps_the_generator():
    h = 1e-6
    fd = np.array([(pure_code_between(X + h * e) - pure_code_between(X - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(astjax.grad(pure_code_between)(X), fd, atol=1e-5)
