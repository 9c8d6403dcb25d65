"""Fixes for silent wrong numbers found by the attacker's corpus (tests/adversarial/attacks.py):
each test pins the mechanism, not only the corpus case."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError


# ------------------------------------------------------------ arange moves with a float start and step
def arange_from_traced_start(x):
    t = np.arange(x[0], 3.0, 1.0)
    return np.sum(t * t)


def arange_with_traced_step(x):
    t = jnp.arange(0.0, 2.0, x[1])
    return jnp.sum(t)


def arange_of_a_length(x):
    return jnp.sum(x * jnp.arange(len(x)) + x * np.arange(1.0, 4.0))


@pytest.mark.parametrize("fn", [arange_from_traced_start, arange_with_traced_step])
@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_arange_with_a_varied_argument_is_refused_at_its_line(fn, transform):
    x = np.array([0.4, 0.7, 0.1])
    with pytest.raises(AstjaxError, match=r"(?s)test_attack_fixes\.py.*arange"):
        if transform == "grad":
            astjax.grad(fn)(x)
        else:
            astjax.jvp(fn, (x,), (np.ones(3),))


def test_arange_of_constants_still_differentiates():
    x = np.array([0.4, 0.7, 0.1])
    np.testing.assert_allclose(astjax.grad(arange_of_a_length)(x), np.arange(3.0) + np.arange(1.0, 4.0))


# ------------------------------------------------------------ a local function read as a value
def _make_scaled_square(a):
    return lambda y: a * y * y


def local_def_passed_to_grad(x):
    def inner(y):
        return x * y

    return x * astjax.grad(inner)(1.0)


def factory_closure_passed_to_grad(x):
    f = _make_scaled_square(x)
    return x * astjax.grad(f)(1.0)


@pytest.mark.parametrize("fn", [local_def_passed_to_grad, factory_closure_passed_to_grad])
def test_local_function_as_value_is_refused_not_a_name_error(fn):
    # Was a NameError from the generated code (the definition was inlined away); the closure over x would
    # also have carried no derivative (perturbation confusion's setting).
    with pytest.raises(AstjaxError, match=r"(?s)test_attack_fixes\.py.*used as a value"):
        astjax.grad(fn)(np.float64(0.7))


# ------------------------------------------------------------ introspection of a value the original holds as a NumPy scalar
def isscalar_branch(x):
    v = x[0]
    if np.isscalar(v):
        return v * 2.0 + x[1]
    return v * 3.0 + x[1]


def hasattr_branch(x):
    v = x[0]
    if hasattr(v, "__len__"):
        return v * 3.0 + x[1]
    return v * 2.0 + x[1]


def class_branch(x):
    v = x[0]
    if v.__class__ is np.float64:
        return v * 2.0 + x[1]
    return v * 3.0 + x[1]


@pytest.mark.parametrize("fn", [isscalar_branch, hasattr_branch, class_branch])
@pytest.mark.parametrize("transform", ["grad", "jvp"])
def test_introspection_of_an_item_is_refused(fn, transform):
    # x[0] is an np.float64 in the original program, a 0-d Array in the transformed one: each of these took
    # the other branch and gave value 1.4, gradient [3, 1] where the program computes 1.1 and [2, 1].
    x = np.array([0.3, 0.5])
    with pytest.raises(AstjaxError, match=r"(?s)test_attack_fixes\.py"):
        if transform == "grad":
            astjax.value_and_grad(fn)(x)
        else:
            astjax.jvp(fn, (x,), (np.ones(2),))


def iterable_branch(x):
    v = x[0]
    if np.iterable(v):
        return v * 3.0 + x[1]
    return v * 2.0 + x[1]


def test_a_zero_d_array_is_not_iterable():
    # Array.__iter__ was a generator: iter() of a 0-d Array succeeded, so np.iterable said True.
    value, g = astjax.value_and_grad(iterable_branch)(np.array([0.3, 0.5]))
    np.testing.assert_allclose(value, 1.1)
    np.testing.assert_allclose(g, [2.0, 1.0])
    assert not np.iterable(jnp.asarray(0.5)) and not jnp.iterable(jnp.asarray(0.5))


# ------------------------------------------------------------ negative argnums in jacfwd (and so hessian)
def weighted_cosine(a, x):
    return jnp.sum(a * jnp.cos(x) * x)


def test_hessian_and_jacfwd_with_negative_argnums():
    # jacfwd held every argument when argnums=-1 (it compared -1 with positions 0 and 1): a zero Hessian.
    a, x = np.array([0.5, -1.0, 2.0]), np.array([0.3, 0.9, -0.4])
    expected = np.diag(a * (-2.0 * np.sin(x) - x * np.cos(x)))
    np.testing.assert_allclose(astjax.hessian(weighted_cosine, argnums=-1)(a, x), expected, rtol=1e-10)
    np.testing.assert_allclose(astjax.hessian(weighted_cosine, argnums=1)(a, x), expected, rtol=1e-10)
    np.testing.assert_allclose(astjax.jacfwd(lambda a_, x_: a_ * x_, argnums=-1)(a, x), np.diag(a))


# ------------------------------------------------------------ vjp's primal output comes from the generated code
def float_branch(x):
    if isinstance(x[0], float):
        return x * 2.0
    return x * 3.0


def writes_into_copy(x):
    y = x.copy()
    y[0] = 5.0
    return {"y": y * x}


def test_vjp_primal_output_follows_the_program_or_refuses():
    # vjp ran the function itself on astjax Arrays (JAX's semantics): x[0] was a 0-d Array, not a float,
    # and vjp returned x * 3 where the program computes x * 2.
    # The output now runs the program on the NumPy array it was given (x * 2, as the program computes); the
    # pullback, which differentiates on astjax Arrays, refuses there.
    x = np.array([0.3, 0.5])
    out, pullback = astjax.vjp(float_branch, x)
    np.testing.assert_allclose(out, x * 2.0)
    with pytest.raises(AstjaxError, match=r"(?s)isinstance.*test_attack_fixes\.py"):
        pullback(np.ones(2))


def test_vjp_and_jacrev_of_item_assignment():
    # Arrays are immutable: running the function itself raised TypeError at `y[0] = 5.0`.
    x = np.array([0.3, 0.5])
    out, pullback = astjax.vjp(writes_into_copy, x)
    np.testing.assert_allclose(out["y"], [1.5, 0.25])
    np.testing.assert_allclose(pullback({"y": np.ones(2)})[0], [5.0, 1.0])
    np.testing.assert_allclose(astjax.jacrev(writes_into_copy)(x)["y"], np.diag([5.0, 1.0]))


# ------------------------------------------------------------ calls without rules and storage attributes that steer branches
def repr_branch(x):
    s = repr(x[0])
    if s.startswith("np.float64"):
        return x[0] * 2.0
    return x[0] * 3.0


def getattr_branch(x):
    v = x[0]
    if getattr(v, "__len__", None) is not None:
        return v * 3.0 + x[1]
    return v * 2.0 + x[1]


def base_branch(x):
    y = x.copy()
    if y.base is None:
        return jnp.sum(y * 2.0)
    return jnp.sum(y * 3.0)


@pytest.mark.parametrize("fn", [repr_branch, getattr_branch, base_branch])
def test_opaque_inspection_of_a_varied_value_is_refused_in_reverse_mode(fn):
    # Reverse mode let a call without a rule (repr, getattr, dir) run on the transformed program's Array when
    # only a branch read its result: 1.5x the program's value. Forward mode refused them already.
    x = np.array([0.3, 0.5])
    for transform in (astjax.value_and_grad(fn), lambda v: astjax.jvp(fn, (v,), (np.ones(2),))):
        with pytest.raises(AstjaxError, match=r"(?s)test_attack_fixes\.py"):
            transform(x)


# ------------------------------------------------------------ crashes turned into numbers or clear refusals
def scan_reverse_loss(x):
    def step(c, v):
        c = c * 0.5 + v
        return c, c * v

    c, ys = astjax.lax.scan(step, 0.0, x, reverse=True)
    return c + jnp.sum(ys * np.arange(1.0, 5.0))


def test_scan_reverse_matches_jax():
    # lax.scan had no `reverse` (a TypeError); the numbers are jax.lax.scan's (x64).
    x = np.array([0.3, -0.2, 0.5, 0.9])
    value, g = astjax.value_and_grad(scan_reverse_loss)(x)
    np.testing.assert_allclose(value, 5.12375)
    np.testing.assert_allclose(g, [1.7375, 0.8, 4.475, 8.0125])
    np.testing.assert_allclose(scan_reverse_loss(x), 5.12375)


def np_linspace_of_items(x):
    return np.sum(np.linspace(x[0], x[1], 5) ** 2) + np.sum(np.geomspace(1.0, x[1], 3))


def test_np_linspace_of_arrays_differentiates():
    # np.linspace writes into the array it allocates: on astjax's immutable arrays a TypeError.
    x = np.array([0.4, 1.3])
    t = np.linspace(0.0, 1.0, 5)
    g = astjax.grad(np_linspace_of_items)(x)
    expected_0 = np.sum(2 * (x[0] + (x[1] - x[0]) * t) * (1 - t))
    assert np.isclose(g[0], expected_0)


def flat_loop(A):
    s = 0.0
    for v in A.flat:
        s = s + v * v
    return s


def test_flat_iteration_is_a_clear_refusal():
    with pytest.raises(AstjaxError, match="namedtuples only"):
        astjax.grad(flat_loop)(np.eye(2))


# ------------------------------------------------------------ a cached derivative notices rebound class and object attributes
class Activations:
    fn = staticmethod(jnp.sin)


class Layer:
    def __init__(self):
        self.act = jnp.sin


LAYER = Layer()


def class_attribute_loss(x):
    return jnp.sum(Activations.fn(x))


def object_attribute_loss(x):
    return jnp.sum(LAYER.act(x))


@pytest.mark.parametrize("fn, rebind, undo", [
    (class_attribute_loss, lambda: setattr(Activations, "fn", staticmethod(jnp.cos)),
     lambda: setattr(Activations, "fn", staticmethod(jnp.sin))),
    (object_attribute_loss, lambda: setattr(LAYER, "act", jnp.cos), lambda: setattr(LAYER, "act", jnp.sin))])
def test_rebound_attribute_rebuilds_the_derivative(fn, rebind, undo):
    # The value followed the new function (read when it runs) but the gradient kept sin's rule: cos(x).
    x = np.array([0.3, 0.5])
    g = astjax.grad(fn)
    np.testing.assert_allclose(g(x), np.cos(x))
    rebind()
    try:
        np.testing.assert_allclose(g(x), -np.sin(x))
        np.testing.assert_allclose(astjax.grad(fn)(x), -np.sin(x))
    finally:
        undo()
