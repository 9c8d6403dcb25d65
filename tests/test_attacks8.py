"""Regression tests for what redteam8 (issue 6, round VIII: higher-order user code, views, casts, statements,
classes) fixed; the corpus cases are tests/adversarial/attacks8.py."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

X = np.array([0.5, -1.0, 2.0])


# ------------------------------------------------------------ (a) a closure factory whose function keeps state
def _make_counter():
    calls = [0]

    def scale(t):
        calls[0] += 1
        return t * calls[0]
    return scale


def _counted_twice(x):
    s = _make_counter()
    return jnp.sum(s(x) + s(x) * 10.0)


def _make_scale(k):
    def scale(t):
        return t * k
    return scale


def _scaled_twice(x):
    s = _make_scale(3.0)
    return jnp.sum(s(x) + s(x) * 10.0)


def test_a_factory_function_changing_its_closure_is_refused_at_the_users_line():
    """Each inlined call of `s` read a cell no statement bound: UnboundLocalError from generated code."""
    for transform in (astjax.grad, lambda f: (lambda x: astjax.jvp(f, (x,), (x,)))):
        with pytest.raises(AstjaxError, match="changes `calls` of its closure in place") as info:
            transform(_counted_twice)(X)
        assert "test_attacks8.py" in str(info.value) and "s = _make_counter()" in str(info.value)


def test_a_factory_function_reading_its_closure_still_differentiates():
    np.testing.assert_allclose(astjax.grad(_scaled_twice)(X), np.full(3, 33.0))


# ------------------------------------------------------------ (b) del of an item
def _deleted_item(x):
    xs = [x[0], x[1], x[2]]
    del xs[1]
    return xs[0] * 2.0 + xs[1] * 3.0


def _popped_item(x):
    xs = [x[0], x[1], x[2]]
    xs.pop(1)
    return xs[0] * 2.0 + xs[1] * 3.0


def test_del_of_an_item_is_refused_with_what_to_write_instead():
    """The hint said to let the *name* go out of use, which does not remove an item."""
    with pytest.raises(AstjaxError, match=r"(?s)`del` of an item or slice.*xs\.pop\(i\)"):
        astjax.grad(_deleted_item)(X)
    np.testing.assert_allclose(astjax.grad(_popped_item)(X), [2.0, 0.0, 3.0])


# ------------------------------------------------------------ (c) dict views read whole where they are made
def _sum_of_values(x):
    d = {k: x[k] * (k + 1) for k in range(3)}
    return sum(d.values()) + max(d.values()) * 2.0


def _items_in_a_comprehension(x):
    d = {"a": x[0], "bb": x[1]}
    return sum([v * len(k) for k, v in d.items()]) + list(d.values())[0]


def _generator_of_values_held(x):
    d = {"a": x[0], "b": x[1]}
    gen = (v * 2.0 for v in d.values())
    d["a"] = x[2] * 5.0
    return sum(gen)


def test_dict_values_and_items_consumed_at_once_differentiate():
    """`sum(d.values())` was refused as a call without a derivative rule (`.values()` of `d`)."""
    np.testing.assert_allclose(astjax.grad(_sum_of_values)(X), [1.0, 2.0, 9.0])
    np.testing.assert_allclose(astjax.grad(_items_in_a_comprehension)(X), [2.0, 2.0, 0.0])
    _, t = astjax.jvp(_sum_of_values, (X,), (np.array([0.0, 0.0, 1.0]),))
    np.testing.assert_allclose(t, 9.0)


def test_a_view_read_after_the_dict_changes_is_still_refused():
    """A generator over `d.values()` runs when consumed and sees the new value: it is not read early."""
    with pytest.raises(AstjaxError, match="generator expression"):
        astjax.grad(_generator_of_values_held)(X)


# ------------------------------------------------------------ (d) a factory's closure changed through an alias
def _make_accumulator():
    state = np.zeros(2)

    def accumulate(t):
        view = state
        view += t
        return t * state[0]
    return accumulate


def _accumulated(x):
    f = _make_accumulator()
    return f(x[0]) + f(x[1]) * 3.0


def test_a_factory_function_changing_its_closure_through_an_alias_is_refused():
    """Silently wrong before: a gradient of zeros for truth [2 * x0, 4 * x1 + 3 * x0] (the aliasing check ran
    before the factory was inlined, and the inlined copy never saw `view += t` change `state`)."""
    with pytest.raises(AstjaxError, match="changes `state` of its closure in place"):
        astjax.grad(_accumulated)(X)
