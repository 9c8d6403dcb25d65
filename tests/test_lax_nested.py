"""lax combinators nested in expressions, with tuple carries and tuple xs / ys (issue 6).

normalize/lax_control_flow.py hoists a combinator call out of an expression into an assignment of
its own, and lets carries, xs and ys be tuples. Each program is checked against running it (values),
central finite differences in float64 and forward mode; refusals name the user's line.
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.errors import AstjaxError


def _fd_grad(f, args, argnum, eps=1e-6):
    args = [np.array(a, dtype=np.float64) for a in args]
    x = args[argnum]
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = [a.copy() for a in args], [a.copy() for a in args]
        up[argnum][i] += eps
        down[argnum][i] -= eps
        out[i] = (float(f(*up)) - float(f(*down))) / (2 * eps)
    return out


def check(f, *args):
    """Value as running f; each argument's gradient as finite differences and as forward mode."""
    args = tuple(np.asarray(a, dtype=np.float64) for a in args)
    argnums = tuple(range(len(args)))
    value, grads = astjax.value_and_grad(f, argnums=argnums)(*args)
    np.testing.assert_allclose(float(value), float(f(*args)), rtol=1e-12)
    for k, g in enumerate(grads):
        np.testing.assert_allclose(np.asarray(g), _fd_grad(f, args, k), rtol=1e-6, atol=1e-8)
        tangent = [np.zeros_like(a) for a in args]
        for i in np.ndindex(args[k].shape):
            tangent[k][i] = 1.0
            _, dy = astjax.jvp(f, args, tuple(tangent))
            tangent[k][i] = 0.0
            np.testing.assert_allclose(float(dy), np.asarray(g)[i], rtol=1e-9, atol=1e-12)


def _body(i, acc):
    return acc + jnp.sin(acc) * i


def _pair_body(i, carry):
    a, b = carry
    return (a * 0.9 + b, b * a)


def _square(v):
    return v * v


def _sine(v):
    return jnp.sin(v)


def _step_tuple(carry, xs):
    a, (b, c) = xs
    carry = carry * a + b * c
    return carry, (carry, [carry * carry])


def _step_pair_carry(carry, x):
    h, c = carry
    h = jnp.tanh(h * 0.5 + x * c)
    return (h, c * 1.1), h


def _step_plain(carry, x):
    return carry * x, carry + x


def _step_returning_tuple_ys(carry, x):
    return carry * x, (carry, x)


def fori_in_sum(x):
    return jnp.sum(lax.fori_loop(1, 4, _body, x)) * 2.0 + x[0]


def fori_twice_in_one_expression(x):
    return jnp.sum(lax.fori_loop(0, 2, _body, x) * lax.fori_loop(1, 3, _body, x * 0.5))


def fori_nested_in_fori_argument(x):
    return jnp.sum(lax.fori_loop(0, 2, _body, lax.fori_loop(1, 3, _body, x)))


def cond_in_return(x):
    return jnp.sum(lax.cond(x[0] > 0, _square, _sine, x))


def cond_in_if_test_and_loop(x):
    s = 0.0
    for i in range(2):
        if jnp.sum(lax.cond(x[i] > 0, _square, _sine, x)) > 0.0:
            s = s + jnp.sum(lax.fori_loop(0, 2, _body, x)) * x[i]
    return s


def fori_tuple_carry(x):
    a, b = lax.fori_loop(0, 3, _pair_body, (x[0], x[1]))
    return a + b * x[2]


def fori_carry_held_in_name(x):
    pair = lax.fori_loop(0, 3, _pair_body, (x[0], x[1]))
    return pair[0] * pair[1]


def while_tuple_carry(x):
    n, v = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * jnp.cos(c[1])), (0, x))
    return jnp.sum(v) * n


def scan_pytrees(x, y, z):
    final, (cs, [sq]) = lax.scan(_step_tuple, 0.5, (x, (y, z)))
    return final + jnp.sum(cs) + jnp.sum(sq * x)


def scan_tuple_carry(x):
    (h, c), hs = lax.scan(_step_pair_carry, (0.1, 0.9), x)
    return h * c + jnp.sum(hs * hs)


def scan_in_expression(x):
    return jnp.sum(lax.scan(_step_plain, 1.0, x)[1]) + lax.scan(_step_plain, 1.0, x)[0]


def map_tuple_ys(x):
    a, b = lax.map(lambda v: (v * 2.0, jnp.sin(v)), x)
    return jnp.sum(a * b)


def scan_result_in_name(x):
    r = lax.scan(_step_plain, 1.0, x)
    return r[0] * jnp.sum(r[1])


def fori_bound_reads_target(x):
    v = 3
    v = lax.fori_loop(0, v, _body, x)
    return jnp.sum(v)


def fori_tuple_carry_from_name(x):
    start = (x[0], x[1])
    a, b = lax.fori_loop(0, 3, _pair_body, start)
    return a * b


def _nested_item_step(carry, xs):
    a, (b, c) = xs
    return carry * a + b * c


def nested_tuple_into_helper_in_loop(x):
    """A nested tuple temporary in a loop: its adjoint is a tree, never float32 zeros of its saved shape."""
    carry = 0.5
    for i in range(3):
        carry = _nested_item_step(carry, (x[i], (x[i] * 2.0, x[(i + 1) % 3])))
    return carry


@pytest.mark.parametrize("f", [fori_bound_reads_target, fori_tuple_carry_from_name, nested_tuple_into_helper_in_loop,
                               fori_in_sum, fori_twice_in_one_expression, fori_nested_in_fori_argument,
                               cond_in_return, cond_in_if_test_and_loop, fori_tuple_carry,
                               fori_carry_held_in_name, while_tuple_carry, scan_tuple_carry, scan_in_expression,
                               scan_result_in_name, map_tuple_ys])
def test_nested_and_tuple_combinators(f):
    check(f, [0.4, -0.3, 0.7])


def test_scan_over_nested_tuple_xs_with_nested_ys():
    check(scan_pytrees, [0.4, -0.3, 0.7], [0.2, 0.5, -0.6], [1.1, 0.9, 1.3])


def in_and(x):
    return jnp.sum(x) > 0 and jnp.sum(lax.fori_loop(0, 2, _body, x)) > 0


def in_conditional_expression(x):
    return jnp.sum(lax.fori_loop(0, 2, _body, x)) if x[0] > 0 else jnp.sum(x)


def in_comprehension(x):
    return sum([jnp.sum(lax.fori_loop(0, k, _body, x)) for k in range(3)])


def in_while_test(x):
    s = x[0]
    while jnp.sum(lax.fori_loop(0, 2, _body, x)) > s:
        s = s + 1.0
    return s


def ys_tuple_bound_to_one_name(x):
    c, ys = lax.scan(_step_returning_tuple_ys, 1.0, x)
    return c + jnp.sum(ys)


def xs_of_different_lengths(x):
    c, ys = lax.scan(_step_tuple, 1.0, (x, (x[1:], x)))
    return c


@pytest.mark.parametrize("f, message", [
    (in_and, "`and` / `or`"), (in_conditional_expression, "conditional expression"),
    (in_comprehension, "comprehension"), (in_while_test, "`while` condition"),
    (ys_tuple_bound_to_one_name, "Unpack a tuple of ys"), (xs_of_different_lengths, "leading axis length")])
def test_refused_where_the_rewrite_would_change_meaning(f, message):
    with pytest.raises((AstjaxError, AssertionError), match=message):
        astjax.grad(f)(np.array([0.4, -0.3, 0.7]))


# ------------------------------------ ordinary code around these: casts, real/imag/conj, builtins, annotations
def scalar_constructors(x):
    return np.float64(x[0]) * x[1] + np.float32(2.0) * x[2] + jnp.float64(x[1] * x[2])


def float32_cast(x):
    return jnp.sum(jnp.float32(x) * 3.0)


def int_cast_of_a_value(x):
    return x[0] * np.int32(3.7) + x[1] * np.float64(np.int64(2.0))


def real_imag_conj(x):
    return jnp.sum(x.real * x.conj() + x.imag + jnp.real(x) * jnp.conj(x) + x.conjugate() * jnp.imag(x))


def builtins_on_scalars(x):
    return abs(x[0]) * 2.0 + max(x[1], 0.0) + min(x[2], 5.0) + pow(x[0], 2) + max(x[0], x[1])


def bare_annotation(x):
    y: float
    y = jnp.sum(x) * 3.0
    return y * y


def nested_unpacking(x):
    a, (b, [c]) = x, (x * 2.0, [x * 3.0])
    return jnp.sum(a * b * c)


@pytest.mark.parametrize("f", [scalar_constructors, int_cast_of_a_value, real_imag_conj, builtins_on_scalars,
                               bare_annotation, nested_unpacking])
def test_ordinary_code(f):
    check(f, [0.4, -0.3, 0.7])


def test_float32_cast_keeps_float32_and_passes_the_adjoint():
    x = np.array([0.4, -0.3, 0.7], dtype=np.float32)
    value, g = astjax.value_and_grad(float32_cast)(x)
    assert np.asarray(value).dtype == np.float32 and np.asarray(g).dtype == np.float32
    np.testing.assert_allclose(np.asarray(g), np.full(3, 3.0))


def real_of_complex(x):
    return jnp.sum((x * (1.0 + 2.0j)).real)


def max_of_a_list(x):
    return max([x[0], x[1], x[2]])


def bare_annotation_never_assigned(x):
    y: float
    return jnp.sum(x)


@pytest.mark.parametrize("f", [bare_annotation_never_assigned])
def test_still_refused(f):
    with pytest.raises(AstjaxError, match="test_lax_nested.py"):
        astjax.grad(f)(np.array([0.4, -0.3, 0.7]))


def test_real_of_a_complex_literal_product_now_works():
    """Once refused; a complex literal operand of * is differentiated in JAX's convention (analyses/complex_flow.py):
    real(x * (1 + 2j)) = x."""
    np.testing.assert_allclose(np.asarray(astjax.grad(real_of_complex)(np.array([0.4, -0.3, 0.7]))), np.ones(3))


def test_max_of_a_list_written_in_the_call_now_works():
    """Once refused; max([a, b, c]) is now nested two-value maxima, whose derivative goes to the one returned."""
    np.testing.assert_allclose(np.asarray(astjax.grad(max_of_a_list)(np.array([0.4, -0.3, 0.7]))), [0.0, 0.0, 1.0])


# ----------------------------------------- a discarded call: dropped when the callee is pure, else refused
def _pure_helper(a):
    _ = jnp.exp(a)
    return a * 3.0


def _appends(xs, v):
    xs.append(v)
    return 0.0


def _extends_in_place(xs, v):
    xs += [v]
    return 0.0


_COUNT = [0.0]


def _rebinds_global(v):
    global _COUNT
    _COUNT = [v]
    return v


def _calls_impure(xs, v):
    return _extends_in_place(xs, v) * 2.0


def discarded_pure_call(x):
    _pure_helper(x)
    return jnp.sum(_pure_helper(x))


def discarded_append(x):
    xs = [x]
    _appends(xs, x * 2.0)
    return jnp.sum(xs[-1])


def discarded_augmented(x):
    xs = [x]
    _extends_in_place(xs, x * 2.0)
    return jnp.sum(xs[-1])


def discarded_global(x):
    _rebinds_global(x[0])
    return jnp.sum(x)


def discarded_impure_callee_of_callee(x):
    xs = [x]
    _calls_impure(xs, x * 2.0)
    return jnp.sum(xs[-1])


def test_discarded_pure_call_is_dropped():
    check(discarded_pure_call, [0.4, -0.3, 0.7])


@pytest.mark.parametrize("f", [discarded_append, discarded_augmented, discarded_global,
                               discarded_impure_callee_of_callee])
def test_discarded_impure_call_is_refused(f):
    with pytest.raises(AstjaxError, match="test_lax_nested.py"):
        astjax.grad(f)(np.array([0.4, -0.3, 0.7]))


# ------------------------------------------ custom_jvp under reverse mode: the transpose of its jvp rule
@astjax.custom_jvp
def _softclip(x):
    return jnp.tanh(x) * 2.0


@_softclip.defjvp
def _softclip_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _softclip(x), t * 2.0 * (1.0 - jnp.tanh(x) ** 2)


@astjax.custom_jvp
def _scaled_product(a, b):
    return a * b * 3.0


@_scaled_product.defjvp
def _scaled_product_jvp(primals, tangents):
    (a, b), (ta, tb) = primals, tangents
    return _scaled_product(a, b), (ta * b + a * tb) * 3.0


@astjax.custom_jvp
def _clipped_gradient(x):
    return jnp.sin(x)


@_clipped_gradient.defjvp
def _clipped_gradient_jvp(primals, tangents):
    """A rule that is not sin's derivative: reverse mode must follow the rule, not the primal."""
    (x,), (t,) = primals, tangents
    return jnp.sin(x), t * 0.5


def uses_custom_jvp(x):
    return jnp.sum(_softclip(x) ** 2)


def custom_jvp_in_loop_two_arguments(x):
    s = 0.0
    for i in range(3):
        s = s + jnp.sum(_scaled_product(x * i, jnp.sin(x)))
    return s


def custom_jvp_rule_followed(x):
    return jnp.sum(_clipped_gradient(x) * x[0])


@pytest.mark.parametrize("f", [uses_custom_jvp, custom_jvp_in_loop_two_arguments])
def test_custom_jvp_under_grad(f):
    check(f, [0.4, -0.3, 0.7])


def test_custom_jvp_rule_is_what_reverse_mode_transposes():
    x = np.array([0.4, -0.3, 0.7])
    g = astjax.grad(custom_jvp_rule_followed)(x)
    expected = 0.5 * x[0] * np.ones(3)
    expected[0] += np.sum(np.sin(x))
    np.testing.assert_allclose(np.asarray(g), expected)


def test_custom_jvp_second_derivative_differentiates_its_rule():
    """hessian through a custom_jvp function differentiates its jvp rule (as JAX does): against central
    differences of the gradient, and the same by forward-over-reverse and reverse-over-reverse."""
    x = np.array([0.4, -0.3, 0.7])
    h = 1e-6
    H_fd = np.stack([(np.asarray(astjax.grad(uses_custom_jvp)(x + h * e)) - np.asarray(
        astjax.grad(uses_custom_jvp)(x - h * e))) / (2 * h) for e in np.eye(3)], axis=-1)
    np.testing.assert_allclose(astjax.hessian(uses_custom_jvp)(x), H_fd, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(astjax.jacrev(astjax.grad(uses_custom_jvp))(x), H_fd, rtol=1e-5, atol=1e-7)
