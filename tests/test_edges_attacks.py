"""Fixes for what the edges corpus (tests/adversarial/edges.py: NumPy and Python at their edges) found:
each test pins the mechanism, not only the corpus case."""
import numpy as np
import pytest

import astjax
from astjax.errors import AstjaxError

X = np.array([0.4, -0.7, 0.1])


# ------------------------------------------------------------ a generator expression is consumed once
def generator_read_twice(x):
    g = (v * v for v in x)
    first = sum(g)
    second = sum(g)          # Python: 0, g is exhausted
    return first + 100.0 * second


def generator_zipped_with_itself(x):
    g = (v for v in x)
    return sum(a * b for a, b in zip(g, g))      # pairs consecutive items


def generator_read_in_a_loop(x):
    g = (v for v in x)
    s = 0.0
    for k in range(2):
        s = s + sum(g) * (k + 1.0)
    return s


def generator_returned_in_a_tuple(x):
    t = (x[0], (v for v in x))
    return t[0] + sum(t[1])


def generator_read_once(x):
    g = (v * v for v in x)
    return sum(g) * x[0]


def generators_where_they_stand(x):
    s = sum(v * v for v in x) + max(v for v in x)
    for v in (w * 2.0 for w in x):
        s = s + v
    return s + sum([a * b for a in x for b in (x[0], x[1])])


@pytest.mark.parametrize("fn", [generator_read_twice, generator_zipped_with_itself, generator_read_in_a_loop,
                                generator_returned_in_a_tuple])
def test_a_generator_read_again_is_refused_at_its_line(fn):
    with pytest.raises(AstjaxError, match=r"(?s)test_edges_attacks\.py.*generator expression"):
        astjax.grad(fn)(X)


def test_a_generator_read_once_or_where_it_stands_differentiates():
    value, g = astjax.value_and_grad(generator_read_once)(X)
    assert np.isclose(value, generator_read_once(X))
    np.testing.assert_allclose(g, 2.0 * X * X[0] + np.eye(3)[0] * np.sum(X * X))
    value, g = astjax.value_and_grad(generators_where_they_stand)(X)
    assert np.isclose(value, generators_where_they_stand(X))
    expected = 2.0 * X + np.eye(3)[np.argmax(X)] + 2.0 + (X[0] + X[1]) + np.array([1.0, 1.0, 0.0]) * np.sum(X)
    np.testing.assert_allclose(g, expected)


# ------------------------------------------------------------ a method of an object known now gets its object
class Scaler:
    factor = 2.0

    def apply(self, v):
        return v * self.factor

    @classmethod
    def doubled(cls, v):
        return v * cls.factor * 2.0


SCALER = Scaler()


def method_of_global_instance(x):
    return np.sum(SCALER.apply(x) ** 2) + SCALER.apply(x[0]) * x[1]


def classmethod_of_global_class(x):
    return np.sum(Scaler.doubled(x) * x)


def test_method_of_a_global_instance_differentiates_with_its_object():
    # was: TypeError "vjp_apply() missing 1 required positional argument" from generated code
    g = astjax.grad(method_of_global_instance)(X)
    expected = 8.0 * X + np.array([2.0 * X[1], 2.0 * X[0], 0.0])
    np.testing.assert_allclose(g, expected)
    _, t = astjax.jvp(method_of_global_instance, (X,), (np.ones(3),))
    assert np.isclose(t, expected.sum())
    np.testing.assert_allclose(astjax.hessian(method_of_global_instance)(X),
                               8.0 * np.eye(3) + 2.0 * (np.eye(3)[[1, 0, 2]] * np.array([1, 1, 0])[:, None]))


def test_method_of_a_global_instance_reads_the_object_when_it_runs():
    grad = astjax.grad(method_of_global_instance)
    grad(X)
    Scaler.factor = 3.0
    try:
        g = grad(X)
    finally:
        Scaler.factor = 2.0
    np.testing.assert_allclose(g, 18.0 * X + np.array([3.0 * X[1], 3.0 * X[0], 0.0]))


def test_classmethod_of_a_global_class():
    np.testing.assert_allclose(astjax.grad(classmethod_of_global_class)(X), 8.0 * X)


# ------------------------------------------------------------ objects with a computed __getitem__
class Lookup:
    def __getitem__(self, v):
        return v * 2.0


LOOKUP = Lookup()


def r_of_computed_values(x):
    return np.sum(np.r_[x, 0.5, x[:2]] * np.arange(6.0))


def c_of_computed_values(x):
    return np.sum(np.c_[x, x * 2.0] * np.arange(6.0).reshape(3, 2))


def user_getitem_of_computed_index(x):
    return np.sum(LOOKUP[x] * x)


def index_tricks_of_constants(x):
    return np.sum(np.r_[0.0, 0.5, 1.0] * x) + np.sum(x[np.s_[1:3]] ** 2) + np.sum(np.mgrid[0:3] * x)


@pytest.mark.parametrize("fn", [r_of_computed_values, c_of_computed_values, user_getitem_of_computed_index])
def test_indexing_an_object_by_computed_values_is_refused_at_its_line(fn):
    # was: a gradient of exactly zero (the result taken for a constant)
    with pytest.raises(AstjaxError, match=r"(?s)test_edges_attacks\.py.*__getitem__"):
        astjax.grad(fn)(X)


def test_index_tricks_of_constants_still_differentiate():
    expected = np.array([0.0, 0.5, 1.0]) + np.array([0.0, 2.0 * X[1], 2.0 * X[2]]) + np.arange(3.0)
    np.testing.assert_allclose(astjax.grad(index_tricks_of_constants)(X), expected)


# ------------------------------------------------------------ jit: a default array written into between calls
DEFAULT_W = np.array([0.5, 0.5, 0.5])


def _with_default(v, w=DEFAULT_W):
    return np.sum(w * v ** 3)


def default_array_loss(x):
    return _with_default(x) + np.sum(x)


def test_jit_sees_a_default_array_written_into_between_calls(tmp_path, monkeypatch):
    # was: the disk cache's key digested the globals a generated function names but not its default
    # values, so the recompiled signature loaded machine code with the old array compiled in
    pytest.importorskip("numba")
    monkeypatch.setenv("ASTJAX_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("ASTJAX_DISK_CACHE", "1")
    monkeypatch.setenv("ASTJAX_NUMBA_CACHE", "1")
    jitted = astjax.jit(astjax.grad(default_array_loss))
    np.testing.assert_allclose(jitted(X), 3.0 * DEFAULT_W * X * X + 1.0)
    old = DEFAULT_W.copy()
    DEFAULT_W[1] = 4.0
    try:
        np.testing.assert_allclose(jitted(X), 3.0 * DEFAULT_W * X * X + 1.0)
        np.testing.assert_allclose(astjax.jit(astjax.grad(default_array_loss))(X), 3.0 * DEFAULT_W * X * X + 1.0)
    finally:
        DEFAULT_W[:] = old


# ------------------------------------------------------------ vmap(grad): a zero adjoint lifted to the batch's rank
def rows_rebound_in_loop(x):
    M = np.outer(x[:2], x)
    for row in M:
        row = row + x
    return np.sum(row)


def test_vmap_of_grad_with_a_loop_variable_rebound_in_the_body():
    # was: ValueError "cannot reshape array of size 3 into shape (3,4)" from generated code (unbroadcast of
    # the reset adjoint `brow = 0.0`, batched to (B, 1), into the row's per-example shape)
    xs = np.array([[0.3, -0.2, 0.5, 0.1], [0.1, 0.2, 0.3, 0.4], [0.5, 0.6, -0.7, 0.8]])
    expected = np.stack([(x[1] + 1.0) * np.ones(4) + np.eye(4)[1] * np.sum(x) for x in xs])
    np.testing.assert_allclose(astjax.vmap(astjax.grad(rows_rebound_in_loop))(xs), expected)
    np.testing.assert_allclose(astjax.grad(rows_rebound_in_loop)(xs[0]), expected[0])
