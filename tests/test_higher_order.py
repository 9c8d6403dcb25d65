"""Higher-order derivatives: grad of grad of ..., and forward mode over generated reverse mode.

Every order is checked against central differences (float64) of the order
below it, and compositions against each other (jacrev(grad), jacfwd(grad),
hessian, jvp(grad)).
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax


def central_difference(f, x, h=1e-5):
    """d/dx f at x, in float64, elementwise over a 1-d x (a Jacobian, rows = f's output)."""
    x = np.asarray(x, dtype=np.float64)
    columns = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = h
        columns.append((np.asarray(f(jnp.array(x + e)), np.float64) - np.asarray(f(jnp.array(x - e)), np.float64))
                       / (2 * h))
    return np.stack(columns, axis=-1).reshape(np.shape(columns[0]) + x.shape)


# ---------------------------------------------------------------- helpers returning tuples
def pair(p):
    return p[0], p[1]


def uses_pair(p):
    a, b = pair(p)
    return a * a * b + jnp.sin(b)


def pair_in_loop(p):
    s = 0.0
    for i in range(2):
        a, b = pair(p)
        s = s + a * b * b + jnp.exp(a * s)
    return s


@pytest.mark.parametrize("fn", [uses_pair, pair_in_loop])
def test_second_derivatives_through_a_helper_returning_a_tuple(fn):
    x = jnp.array(np.array([0.5, 1.3]))
    by_reverse = np.asarray(astjax.jacrev(astjax.grad(fn))(x))
    by_forward = np.asarray(astjax.jacfwd(astjax.grad(fn))(x))
    by_hessian = np.asarray(astjax.hessian(fn)(x))
    numeric = central_difference(astjax.grad(fn), x)
    assert np.any(numeric != 0)
    np.testing.assert_allclose(by_reverse, numeric, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(by_forward, numeric, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(by_hessian, numeric, rtol=1e-5, atol=1e-6)
    for k in range(2):
        direction = np.eye(2)[k]
        _, tangent = astjax.jvp(astjax.grad(fn), (x,), (jnp.array(direction),))
        np.testing.assert_allclose(np.asarray(tangent), numeric[:, k], rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- orders 1 to 6
def tanh_by_exp(x):
    return (1 - jnp.exp(-2 * x)) / (1 + jnp.exp(-2 * x))


def tanh_direct(x):
    return jnp.tanh(x)


def x_sin_x(x):
    return x * jnp.sin(x)


def sin_loop(x):
    y = x
    for i in range(3):
        y = jnp.sin(y) * x
    return y


def tanh_derivatives(x, orders):
    """d^k tanh / dx^k at x for k = 1..orders, from d/dx P(t) = P'(t) (1 - t^2) with t = tanh x (exact)."""
    t = np.tanh(x)
    p = np.polynomial.Polynomial([0.0, 1.0])
    out = []
    for _ in range(orders):
        p = p.deriv() * np.polynomial.Polynomial([1.0, 0.0, -1.0])
        out.append(p(t))
    return out


def nested_grads(fn, orders):
    fns, g = [], fn
    for _ in range(orders):
        g = astjax.grad(g)
        fns.append(g)
    return fns


@pytest.mark.parametrize("fn", [tanh_by_exp, tanh_direct])
def test_six_derivatives_of_tanh_are_exact(fn):
    x = np.float64(0.3)
    grads = nested_grads(fn, 6)
    for order, (g, expected) in enumerate(zip(grads, tanh_derivatives(x, 6)), start=1):
        np.testing.assert_allclose(float(g(jnp.array(x))), expected, rtol=1e-9, err_msg=f"order {order}")


@pytest.mark.parametrize("fn, orders", [(x_sin_x, 5), (sin_loop, 4)])
def test_each_order_is_the_derivative_of_the_one_below(fn, orders):
    x = np.array([0.3])
    lower = fn
    for order, g in enumerate(nested_grads(fn, orders), start=1):
        numeric = central_difference(lambda v, lower=lower: lower(v[0]), x, h=1e-4)
        value = float(g(jnp.array(np.float64(0.3))))
        np.testing.assert_allclose(value, float(numeric.ravel()[0]), rtol=1e-6, atol=1e-7, err_msg=f"order {order}")
        lower = g


@pytest.mark.parametrize("fn", [tanh_by_exp, sin_loop, uses_pair.__class__ and x_sin_x])
def test_forward_over_reverse_agrees_with_reverse_over_reverse(fn):
    """grad(grad(f)) of a scalar runs as forward over reverse; jacrev(grad(f)) is reverse over reverse."""
    x = jnp.array(np.float64(0.7))
    forward_over = astjax.grad(astjax.grad(fn))
    assert "def grad_grad_" in astjax.source(forward_over)
    reverse_over = astjax.jacrev(astjax.grad(fn))
    np.testing.assert_allclose(float(forward_over(x)), float(reverse_over(x)), rtol=1e-10)
    value, derivative = astjax.value_and_grad(astjax.grad(fn))(x)
    np.testing.assert_allclose(float(value), float(astjax.grad(fn)(x)), rtol=1e-12)
    np.testing.assert_allclose(float(derivative), float(forward_over(x)), rtol=1e-12)


def test_grad_of_a_gradient_of_an_array_is_refused_as_before():
    with pytest.raises(TypeError, match="scalar output"):
        astjax.grad(astjax.grad(lambda x: jnp.sum(jnp.sin(x))))(jnp.ones(3))


def test_float32_stays_float32_through_orders():
    g = astjax.grad(astjax.grad(astjax.grad(tanh_by_exp)))
    assert g(jnp.array(0.3, dtype=jnp.float32)).dtype == np.float32


def _lines(fn):
    return len(astjax.source(fn).splitlines())


def test_generated_source_at_most_twice_larger_per_order():
    grads = nested_grads(tanh_by_exp, 8)
    for g in grads:
        g(jnp.array(0.3))
    lines = [_lines(g) for g in grads]
    # each composed gradient shapes its result like its parameter (`broadcast_like(bx, x)`, api.py's
    # _COMPOSED_GRAD): its tangent is two more lines per order
    for order in range(1, 8):
        assert lines[order] <= 2.0 * lines[order - 1] + 2, lines
    assert lines[5] <= 98, lines        # the 6th derivative: 98 lines (JAX's jaxpr: 1,812)
    assert lines[7] <= 252, lines       # the 8th: 252 lines


def test_each_order_is_generated_once():
    """grad of a gradient calls the same generated function the next order composes."""
    grads = nested_grads(tanh_by_exp, 4)
    grads[-1](jnp.array(0.3))
    for g in grads[1:]:
        assert list(g.__astjax_transform__._built) == ["grad"]


def names_like_generated_ones(x):
    d_t1 = jnp.sin(x) * x
    dd_t2 = d_t1 * x
    _t3_ = dd_t2 + d_t1
    for i in range(2):
        d_t4 = _t3_ * x
        _t3_ = _t3_ + d_t4
    return _t3_ * dd_t2


def test_user_names_shaped_like_tangents_survive_three_orders():
    lower = names_like_generated_ones
    for order, g in enumerate(nested_grads(names_like_generated_ones, 3), start=1):
        numeric = central_difference(lambda v, lower=lower: lower(v[0]), np.array([0.4]), h=1e-4)
        np.testing.assert_allclose(float(g(jnp.array(np.float64(0.4)))), float(numeric.ravel()[0]), rtol=1e-6,
                                   err_msg=f"order {order}")
        lower = g


def vector_output(x):
    return jnp.sin(x) * jnp.ones(3)


@pytest.mark.parametrize("composed", [
    lambda: astjax.grad(astjax.grad(vector_output))(1.0),
    lambda: astjax.value_and_grad(astjax.grad(vector_output))(1.0),
    lambda: astjax.jacfwd(astjax.grad(vector_output))(1.0),
    lambda: astjax.jacrev(astjax.grad(vector_output))(1.0),
    lambda: astjax.hessian(astjax.grad(vector_output))(1.0),
    lambda: astjax.jvp(astjax.grad(vector_output), (1.0,), (1.0,)),
    lambda: astjax.vmap(astjax.grad(vector_output))(jnp.ones(4)),
], ids=["grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "jvp", "vmap"])
def test_a_composed_gradient_of_a_vector_output_raises(composed):
    """The inner grad's output is never handed to its wrapper: its generated code checks it."""
    with pytest.raises(TypeError, match="Gradient only defined for scalar-output functions"):
        composed()


# ---------------------------------------------------------------- what cleanup may share
def _shared(source):
    import gast

    from astjax.codegen.unparse import unparse
    from astjax.optimize.common_subexpressions import share_common_subexpressions
    node = gast.parse(source).body[0]
    return unparse(share_common_subexpressions(node)).strip()


def test_pure_expressions_are_computed_once_and_copies_are_read_through():
    out = _shared("def f(x):\n    a = jnp.exp(-2 * x)\n    b = jnp.exp(-2 * x)\n    c = b\n    c = c\n"
                  "    return 1 + c * -2 * x\n")
    assert out.count("jnp.exp") == 1
    assert "c = c" not in out
    assert "return 1 + a * a" not in out and out.endswith("return 1 + a * -2 * x")


def test_effects_and_user_calls_are_never_merged():
    source = ("def f(x, xs, _tape):\n    a = pop(_tape)\n    b = pop(_tape)\n    c = g(x)\n    d = g(x)\n"
              "    e = np.random.randn()\n    h = np.random.randn()\n    k = Tape()\n    m = Tape()\n"
              "    return a + b + c + d + e + h + k + m\n")
    out = _shared(source)
    for call in ("pop(_tape)", "g(x)", "np.random.randn()", "Tape()"):
        assert out.count(call) == 2, out


def test_a_shared_value_is_forgotten_when_what_it_reads_changes():
    out = _shared("def f(x, xs):\n    a = x * 2\n    x = x + 1\n    b = x * 2\n    c = xs[0] * 3\n"
                  "    xs.append(x)\n    d = xs[0] * 3\n    for i in range(3):\n        x = x * 2\n"
                  "        e = x * 2\n    return a + b + c + d + e\n")
    assert out.count("x * 2") == 4 and out.count("xs[0] * 3") == 2, out


def test_values_are_numbered_through_the_names_that_hold_them():
    out = _shared("def f(x, c):\n    t1 = x / c\n    t2 = x * x / c\n    y = t1 + t2\n    z = x / c + x * x / c\n"
                  "    return y * z\n")
    assert out.endswith("return y * y"), out
    # the same text after a name it reads was assigned again is a new value
    out = _shared("def f(x):\n    a = x * 2\n    b = a + 1\n    x = x + 5.0\n    c = x * 2\n    d = c + 1\n"
                  "    return b * d\n")
    assert out.endswith("return b * d") and out.count("+ 1") == 2, out


@pytest.mark.parametrize("fn", [uses_pair, lambda x: jnp.sum(jnp.sin(x) * x)])
def test_float32_inputs_stay_float32_through_second_derivatives(fn):
    x = jnp.array([0.5, 1.3], dtype=jnp.float32)
    _, tangent = astjax.jvp(astjax.grad(fn), (x,), (jnp.ones(2, dtype=jnp.float32),))
    assert tangent.dtype == np.float32
    assert astjax.hessian(fn)(x).dtype == np.float32
    assert astjax.jacfwd(astjax.grad(fn))(x).dtype == np.float32
    numeric = central_difference(astjax.grad(fn), np.array([0.5, 1.3]))
    np.testing.assert_allclose(np.asarray(astjax.hessian(fn)(x)), numeric, rtol=1e-4, atol=1e-4)


# ---------------------------------------------------------------- forward over forward (order 3) through helpers
def product_and_sine(a, b):
    return a * b, jnp.sin(a)


def helper_in_a_while_loop(x, y):
    p, q = product_and_sine(x, y)
    s = 0.0
    i = 0
    while i < 3:
        s = s + p * q * x
        i = i + 1
    return s + y * x ** 3


def test_third_derivative_through_a_tuple_returning_helper_and_a_while_loop():
    x, y = np.float64(0.4), np.float64(1.7)
    g1 = astjax.grad(helper_in_a_while_loop)
    g2 = astjax.grad(g1)
    g3 = astjax.grad(g2)
    for lower, higher in ((g1, g2), (g2, g3)):
        numeric = central_difference(lambda v, lower=lower: lower(v[0], y), np.array([x]))
        np.testing.assert_allclose(float(higher(x, y)), float(numeric.ravel()[0]), rtol=1e-6)
    mixed = astjax.grad(astjax.grad(helper_in_a_while_loop, 1), 0)
    numeric = central_difference(lambda v: astjax.grad(helper_in_a_while_loop, 1)(v[0], y), np.array([x]))
    np.testing.assert_allclose(float(mixed(x, y)), float(numeric.ravel()[0]), rtol=1e-6)



def cubic_with_default(x, a=2.0):
    return a * x ** 3


def test_grad_of_grad_keeps_the_defaults_of_the_function():
    """The seeded forward-mode function keeps the primal's defaults (its tangent parameter is bound)."""
    x = jnp.array(np.float64(1.5))
    grads = nested_grads(cubic_with_default, 3)
    assert [float(g(x)) for g in grads] == [6 * 1.5 ** 2, 12 * 1.5, 12.0]
    assert float(astjax.grad(astjax.grad(cubic_with_default))(x, 3.0)) == 18 * 1.5


# ---------------------------------------------------------------- found by sweeping hessian over the corpus
def _returns_early_in_loop(x):
    v = x
    for i in range(4):
        if i == 2:
            return jnp.sum(v * (i + 1.0))
        v = jnp.sin(v)
    return jnp.sum(v)


def _helper_returning_early(v):
    for i in range(4):
        if i == 2:
            return v * (i + 1.0)
        v = jnp.sin(v)
    return v


def _calls_helper_returning_early(x):
    return jnp.sum(_helper_returning_early(x))


@pytest.mark.parametrize("fn", [_returns_early_in_loop, _calls_helper_returning_early])
def test_second_derivative_through_a_return_inside_a_loop(fn):
    """The gradient's own early-return flag once met the flag of normalizing it again: jvp(grad) returned
    (None, 0) without an error."""
    x = np.array([0.1, 0.2, 0.3])
    expected = central_difference(astjax.grad(fn), x)
    np.testing.assert_allclose(np.asarray(astjax.hessian(fn)(x)), expected, rtol=1e-6, atol=1e-8)
    value, tangent = astjax.jvp(astjax.grad(fn), (x,), (np.array([1.0, 0.0, 0.0]),))
    np.testing.assert_allclose(np.asarray(value), np.asarray(astjax.grad(fn)(x)))
    np.testing.assert_allclose(np.asarray(tangent), expected[:, 0], rtol=1e-6, atol=1e-8)


def _inner_break(x):
    s = 0.0
    for i in range(4):
        for j in range(4):
            if j > i:
                break
            s = s + x[i] * x[j] * x[j]
    return s


def _reversed_list(x):
    s = 0.0
    items = [x[0], x[1] * 2.0, x[2]]
    for v in reversed(items):
        s = s * v + v
    for w in reversed(x):
        s = s + w * s
    return s


@pytest.mark.parametrize("fn", [_inner_break, _reversed_list])
def test_second_derivative_through_break_and_reversed_loops(fn):
    """A loop that may break runs backwards over `reversed(range(n)[:count])`, and users write
    `for v in reversed(xs)`: neither has a len(), and forward mode over them once crashed."""
    x = np.array([0.3, -0.7, 1.1, 0.5])
    np.testing.assert_allclose(np.asarray(astjax.grad(fn)(x)), central_difference(fn, x), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.asarray(astjax.hessian(fn)(x)), central_difference(astjax.grad(fn), x),
                               rtol=1e-6, atol=1e-8)


def _with_mode(x, mode):
    s = jnp.sum(x ** 3)
    return s * 2.0 if "double" in mode else s


def test_hessian_with_a_string_argument():
    x = np.array([0.5, -1.0])
    np.testing.assert_allclose(np.asarray(astjax.hessian(_with_mode)(x, "double_it")), np.diag(12.0 * x))


def _prod_plus_sum(x):
    return jnp.prod(x) + jnp.sum(x)


@pytest.mark.parametrize("x", [[1.0, 2.0, 3.0], [0.0, 2.0, 3.0]])
def test_second_derivative_of_prod_with_at_most_one_zero(x):
    x = np.array(x)
    expected = np.array([[0.0 if i == j else np.prod(np.delete(x, [i, j])) for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(np.asarray(astjax.hessian(_prod_plus_sum)(x)), expected, atol=1e-12)
    np.testing.assert_allclose(np.asarray(astjax.jacfwd(astjax.jacfwd(_prod_plus_sum))(x)), expected, atol=1e-12)


def test_second_derivative_of_prod_at_two_zeros_is_refused():
    """The truth there is the product of the rest (3 here), which prod's first-derivative formula does not
    carry: refused, never the 0 it once gave."""
    from astjax.errors import AstjaxError
    for transform in (astjax.hessian, lambda f: astjax.jacfwd(astjax.jacfwd(f))):
        with pytest.raises(AstjaxError, match="two or more zeros"):
            transform(_prod_plus_sum)(np.array([0.0, 0.0, 3.0]))


def _signed_square(x, n):
    return jnp.sum((-1.0) ** n * x * x)


def test_jacfwd_does_not_differentiate_arguments_outside_argnums():
    """jacfwd gave the other float arguments a zero tangent; d/dn (-1.0) ** n is nan, and 0 * nan made the
    whole Hessian nan. JAX closes over them: no tangent at all."""
    x = np.array([0.3, -0.2, 0.5])
    np.testing.assert_allclose(np.asarray(astjax.hessian(_signed_square)(x, 2.0)), 2.0 * np.eye(3))
    np.testing.assert_allclose(np.asarray(astjax.jacfwd(astjax.grad(_signed_square))(x, 3.0)), -2.0 * np.eye(3))


def _running_sum_step(carry, x):
    carry = carry + x * x
    return carry, carry


def _scan_product(x):
    final, ys = lax.scan(_running_sum_step, 0.0, x)
    return final * jnp.sum(ys)


def test_second_derivative_through_lax_scan():
    """The saved-shape zeros helper was not a primitive: the second sweep transformed its source and
    refused at astjax's own line. It is a constant now, and the Hessian is right."""
    x = np.array([0.3, -0.2, 0.5, 0.1])
    np.testing.assert_allclose(np.asarray(astjax.hessian(_scan_product)(x)),
                               central_difference(astjax.grad(_scan_product), x), rtol=1e-6, atol=1e-8)


class _Scale:
    def __init__(self, w, b, name):
        self.w, self.b = w, b
        self.name = name

    def forward(self, h):
        return jnp.tanh(self.w * h + self.b)


def _through_objects_in_a_list(x):
    layers = [_Scale(0.5, 0.1, "first"), _Scale(1.5, -0.2, "second")]
    h = x
    for layer in layers:
        h = layer.forward(h)
    return jnp.sum(h * h)


def test_hessian_through_a_method_called_on_a_loop_variable():
    """The loop variable is an object record: its zero tangent is a record of zeros (its name none),
    not `zeros_like` of the record, which the method's forward sweep could not read `w` from."""
    x = np.array([0.3, -0.2, 0.5])
    hess = astjax.hessian(_through_objects_in_a_list)(x)
    eps = 1e-5
    grad = astjax.grad(_through_objects_in_a_list)
    fd = np.stack([(grad(x + eps * e) - grad(x - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(hess, fd, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(astjax.jacrev(grad)(x), hess, rtol=1e-10, atol=1e-12)


def _scaled_when_asked(g, x, k):
    if k > 0:
        g = g * x
    return g * 2.0


def _calls_with_an_untangented_argument(x):
    return jnp.sum(_scaled_when_asked(jnp.ones(3), x, 0) + _scaled_when_asked(jnp.ones(3), x, 1) * x)


def test_forward_mode_of_a_callee_whose_parameter_becomes_varied_in_a_branch_not_taken():
    """`g` comes in without a tangent and is varied only inside `if k > 0`: with k == 0 its tangent
    is zero (it was read before assignment, an UnboundLocalError, in multi_dot's Hessian)."""
    x, t = np.array([0.3, -0.2, 0.5]), np.array([1.0, 2.0, -1.0])
    _, tangent = astjax.jvp(_calls_with_an_untangented_argument, (x,), (t,))
    np.testing.assert_allclose(tangent, np.sum(astjax.grad(_calls_with_an_untangented_argument)(x) * t), rtol=1e-12)
    np.testing.assert_allclose(tangent, np.sum(4.0 * x * t), rtol=1e-12)      # f = sum(2 + 2 x^2)


def test_hessian_of_multi_dot():
    def loss(x):
        a = jnp.reshape(x, (2, 2))
        return jnp.sum(jnp.linalg.multi_dot([a, a.T, a]))
    x = np.array([0.9, -0.3, 0.5, 0.2])
    np.testing.assert_allclose(astjax.hessian(loss)(x), astjax.jacrev(astjax.grad(loss))(x), rtol=1e-10, atol=1e-12)
