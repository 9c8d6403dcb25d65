"""A user method passed to a transformation (`grad(model.loss)`) is its function with `self` bound to the
object, as a call `model.loss(w)` inside a transformed function is: `self.predict(w)` inside it is the
object's method and `self.scale` the object's attribute, read when the function runs. (The method's
function with `self` as a plain argument refused `self.predict(...)`: astjax could not know the method.)
"""
import numpy as np

import astjax
import astjax.numpy as jnp


class Model:
    def __init__(self, scale):
        self.scale = scale

    def predict(self, w, x):
        return jnp.tanh(x @ w) * self.scale

    def loss(self, w, x):
        return jnp.mean(self.predict(w, x) ** 2)

    def __call__(self, w, x):
        return self.loss(w, x) + jnp.sum(w ** 2)


W = np.array([0.5, -1.0])
X = np.array([[1.0, 2.0], [0.3, 0.1]])


def _loss(w, x, scale):
    return np.mean((np.tanh(x @ w) * scale) ** 2)


def _fd(f, w, h=1e-6):
    return np.array([(f(w + h * e) - f(w - h * e)) / (2 * h) for e in np.eye(len(w))])


def test_grad_of_a_method_calling_another_method_of_its_object():
    model = Model(2.0)
    np.testing.assert_allclose(astjax.grad(model.loss)(W, X), _fd(lambda w: _loss(w, X, 2.0), W), rtol=1e-6)


def test_the_objects_attributes_are_read_when_the_gradient_runs():
    model = Model(2.0)
    gradient = astjax.grad(model.loss)
    gradient(W, X)
    model.scale = 3.0
    np.testing.assert_allclose(gradient(W, X), _fd(lambda w: _loss(w, X, 3.0), W), rtol=1e-6)
    other = Model(0.5)                        # another object of the class: its own scale
    np.testing.assert_allclose(astjax.grad(other.loss)(W, X), _fd(lambda w: _loss(w, X, 0.5), W), rtol=1e-6)


def test_value_and_grad_jvp_and_vmap_of_a_method():
    model = Model(2.0)
    value, gradient = astjax.value_and_grad(model.loss, argnums=1)(W, X)
    np.testing.assert_allclose(value, _loss(W, X, 2.0), rtol=1e-12)
    np.testing.assert_allclose(gradient.ravel(), _fd(lambda x: _loss(W, x.reshape(2, 2), 2.0), X.ravel()),
                               rtol=1e-6)
    t = np.array([1.0, 0.5])
    _, tangent = astjax.jvp(model.loss, (W, X), (t, np.zeros_like(X)))
    np.testing.assert_allclose(tangent, _fd(lambda w: _loss(w, X, 2.0), W) @ t, rtol=1e-6)
    batch = np.stack([W, 2 * W])
    np.testing.assert_allclose(astjax.vmap(model.loss, in_axes=(0, None))(batch, X),
                               [_loss(w, X, 2.0) for w in batch], rtol=1e-12)


def test_grad_of_a_callable_object_calling_its_methods():
    model = Model(2.0)
    expected = _fd(lambda w: _loss(w, X, 2.0) + np.sum(w ** 2), W)
    np.testing.assert_allclose(astjax.grad(model.__call__)(W, X), expected, rtol=1e-6)
    np.testing.assert_allclose(astjax.grad(model)(W, X), expected, rtol=1e-6)


class Scaler:
    factor = 3.0

    @staticmethod
    def squash(v):
        return jnp.tanh(v)

    def loss(self, w):
        return jnp.sum(self.squash(w) * self.factor)

    def plain(self, w):
        return jnp.sum(jnp.sin(w) * self.factor)


def test_a_method_calling_a_staticmethod_and_one_reading_attributes_only():
    s = Scaler()
    np.testing.assert_allclose(astjax.grad(s.loss)(W), 3.0 / np.cosh(W) ** 2, rtol=1e-12)
    # reading attributes only: one derivation for every object of the class, self an argument
    assert "def grad_plain(self, w)" in astjax.source(astjax.grad(s.plain))
    np.testing.assert_allclose(astjax.grad(s.plain)(W), 3.0 * np.cos(W), rtol=1e-12)
