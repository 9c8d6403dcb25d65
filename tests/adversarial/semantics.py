"""Python and NumPy semantics where a wrong number slips through easily: dtype
promotion of float32 with Python and float64 constants, integer casts and
rounding in the path (derivative zero), powers with special exponents, negative
and fancy indexing, builtins on arrays and lists, short-circuit operators that
return values, try/with/for-else/while-else, non-differentiable points with
JAX's conventions (abs, relu, max ties, sqrt(0), where-nan, clip, sort ties,
norm at zero), broadcasting and keepdims, array methods."""
import math

import numpy as np

import astjax
import astjax.numpy as jnp

from .case import case, vec, mat, pos, scalar
from .harness import fd_grad

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)


def _as32(args):
    return tuple(np.asarray(a, dtype=np.float32) for a in args)


def _as64(args):
    return tuple(np.asarray(a, dtype=np.float64) for a in args)


# ============================================================ dtypes and promotion
def f32_times_python_float(x):
    return jnp.sum(x * 2.5 + x ** 2 * 0.1)


def _check_f32_value_and_grad(fn, args):
    a32 = _as32(args)
    value, g = astjax.value_and_grad(fn)(*a32)
    return [(value, F32, "value dtype"), (g, F32, "grad dtype"),
            (g, fd_grad(fn, _as64(a32), 0)[0], "grad")]


case(f32_times_python_float, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_f32_value_and_grad,
     rtol=2e-3)


def f32_times_float64_constant(x):
    c = np.float64(0.5)
    return jnp.sum(x * c)


def _check_f32_times_f64_scalar(fn, args):
    # NumPy 2 / JAX: a float64 NumPy scalar is not weak in JAX (x64 on) -> float64 value; gradient follows x: float32.
    a32 = _as32(args)
    value, g = astjax.value_and_grad(fn)(*a32)
    return [(g, F32, "grad dtype follows the input"), (g, np.full(3, 0.5), "grad")]


case(f32_times_float64_constant, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_f32_times_f64_scalar,
     rtol=1e-6)


def f32_plus_float64_array(x):
    w = np.array([1.0, 2.0, 3.0])
    return jnp.sum(x * w)


def _check_f32_plus_f64_array(fn, args):
    a32 = _as32(args)
    value, g = astjax.value_and_grad(fn)(*a32)
    return [(value, F64, "float32 * float64 array is float64"), (g, F32, "grad dtype follows the input"),
            (g, np.array([1.0, 2.0, 3.0]), "grad")]


case(f32_plus_float64_array, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_f32_plus_f64_array)


def int_array_times_float(x):
    k = np.arange(3)
    return jnp.sum(k * x ** 2)


case(int_array_times_float, lambda r: (vec(r, 3),), "works")


def bool_mask_multiplies(x):
    m = x > 0.1
    return jnp.sum(m * x * x) + jnp.sum(jnp.where(m, x, 0.0))


case(bool_mask_multiplies, lambda r: (np.array([0.5, -0.3, 0.9, 0.05]),), "works")


def astype_int_in_path(x):
    k = x.astype(int)
    return jnp.sum(k * 1.0 + x)


case(astype_int_in_path, lambda r: (np.array([1.3, 2.6, -0.4]),), "either")


def int_of_element(x):
    n = int(x[0])
    return x[1] * n + x[0]


case(int_of_element, lambda r: (np.array([2.7, 0.4]),), "either")


def round_builtin_of_element(x):
    return round(float(x[0])) * x[1] + x[0]


case(round_builtin_of_element, lambda r: (np.array([2.3, 0.4]),), "either")


def floordiv_and_mod(x):
    q = x // 0.5
    m = x % 0.5
    return jnp.sum(q * 0.1 + m * m)


case(floordiv_and_mod, lambda r: (np.array([0.73, 1.31, -0.42]),), "works")


def floor_ceil_rint(x):
    return jnp.sum(jnp.floor(x) * x + jnp.ceil(x) + jnp.round(x) * x ** 2 + jnp.trunc(x))


case(floor_ceil_rint, lambda r: (np.array([0.73, 1.31, -0.42]),), "works")


def float32_cast_in_float64_program(x):
    y = np.float32(2.0) * x
    return jnp.sum(y * y)


case(float32_cast_in_float64_program, lambda r: (vec(r, 3),), "works")


def jnp_float32_cast(x):
    y = jnp.float32(x)
    return jnp.sum(y * y)


def _check_jnp_float32_cast(fn, args):
    value, g = astjax.value_and_grad(fn)(*args)
    x32 = np.float32(args[0]).astype(np.float64)
    return [(g, F64, "gradient dtype follows the float64 input"), (g, 2 * x32, "grad"), (value, F32, "value dtype")]


case(jnp_float32_cast, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_jnp_float32_cast, rtol=1e-6)


# ============================================================ powers
def power_integer_cube(x):
    return jnp.sum(x ** 3)


case(power_integer_cube, lambda r: (vec(r, 3),), "works")


def power_minus_one(x):
    return jnp.sum(x ** -1 + x ** -2)


case(power_minus_one, lambda r: (pos(r, 3),), "works")


def power_half(x):
    return jnp.sum(x ** 0.5 + x ** 1.5)


case(power_half, lambda r: (pos(r, 3),), "works")


def power_base_two(x):
    return jnp.sum(2 ** x + 2.0 ** x + math.e ** x)


case(power_base_two, lambda r: (vec(r, 3),), "works")


def power_zero_base(x):
    return jnp.sum(0.0 ** x + x)


case(power_zero_base, lambda r: (pos(r, 3),), "works")


def power_zero_exponent(x):
    return jnp.sum(x ** 0 + x ** 0.0) + jnp.sum(x)


case(power_zero_exponent, lambda r: (np.array([0.0, 0.5, -0.3]),), "works")


def power_negative_base_int_exponent(x):
    return jnp.sum(x ** 3.0 + x ** 2)


case(power_negative_base_int_exponent, lambda r: (np.array([-0.7, -1.2, 0.4]),), "works")


def builtin_pow(x):
    return pow(x[0], 3) + pow(x[1], 2.0) + pow(2.0, x[2])


case(builtin_pow, lambda r: (vec(r, 3),), "works")


def power_of_tensor_exponent(x, p):
    return jnp.sum(x ** p)


case(power_of_tensor_exponent, lambda r: (pos(r, 3), pos(r, 3)), "works", argnums=(0, 1))


# ============================================================ indexing
def negative_step_slices(x):
    return jnp.sum(x[::-2] * jnp.arange(3.0)) + jnp.sum(x[-1:0:-1] ** 2) + x[-1] * x[-2]


case(negative_step_slices, lambda r: (vec(r, 6),), "works")


def newaxis_and_ellipsis(A):
    v = A[None, :, None]
    w = A[..., 0]
    u = A[:, np.newaxis, 1]
    return jnp.sum(v * v) + jnp.sum(w ** 3) + jnp.sum(u * jnp.ones((1, 2)))


case(newaxis_and_ellipsis, lambda r: (mat(r, 3),), "works")


def boolean_mask_index(x):
    return jnp.sum(x[x > 0] ** 2)


case(boolean_mask_index, lambda r: (np.array([0.5, -0.3, 0.9, -0.1]),), "either")


def fancy_index_with_repeats(x):
    y = x[[0, 0, 1]]
    return jnp.sum(y * jnp.array([1.0, 2.0, 3.0])) + jnp.sum(x[np.array([2, 2, 2])] ** 2)


case(fancy_index_with_repeats, lambda r: (vec(r, 3),), "works")


def argsort_index(x):
    idx = jnp.argsort(x)
    return jnp.sum(x[idx] * jnp.arange(4.0))


case(argsort_index, lambda r: (np.array([0.5, -0.3, 0.9, -0.1]),), "works")


def mixed_slice_and_fancy_2d(A):
    B = A[1:, [0, 2]]
    return jnp.sum(B * jnp.array([[1.0, 2.0], [3.0, 4.0]])) + jnp.sum(A[[0, 2], 1:] ** 2)


case(mixed_slice_and_fancy_2d, lambda r: (mat(r, 3),), "works")


def pairwise_differences_broadcast(x):
    D = x[:, None] - x[None, :]
    return jnp.sum(D ** 2 * jnp.arange(16.0).reshape(4, 4))


case(pairwise_differences_broadcast, lambda r: (vec(r, 4),), "works")


def transpose_reshape_ravel(A):
    B = A.T.reshape(-1)
    C = jnp.ravel(A)
    return jnp.sum(B * jnp.arange(6.0)) + jnp.sum(C * C * jnp.arange(6.0)) + jnp.sum(A.T[0])


case(transpose_reshape_ravel, lambda r: (mat(r, 2, 3),), "works")


def at_add_repeated_indices(x):
    y = jnp.zeros(3, dtype=jnp.float64)
    y = y.at[jnp.array([0, 0, 2, 0])].add(x)
    return jnp.sum(y * y * jnp.array([1.0, 2.0, 3.0]))


case(at_add_repeated_indices, lambda r: (vec(r, 4),), "works")


def at_multiply(x, v):
    y = jnp.asarray(x).at[1].multiply(v[0])
    y = y.at[jnp.array([0, 2])].multiply(v[1:])
    return jnp.sum(y ** 2)


case(at_multiply, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def at_min_max(x, v):
    y = jnp.asarray(x).at[0].min(v[0])
    y = y.at[1].max(v[1])
    return jnp.sum(y * jnp.array([1.0, 2.0, 3.0]))


case(at_min_max, lambda r: (np.array([0.5, -0.2, 0.1]), np.array([0.3, 0.4])), "works", argnums=(0, 1))


def at_set_then_get(x):
    y = jnp.asarray(x).at[-1].set(x[0] * 3.0)
    return y.at[-1].get() * y[1] + jnp.sum(y)


case(at_set_then_get, lambda r: (vec(r, 3),), "works")


def negative_index_on_2d(A):
    return A[-1, -1] * A[-2, 0] + jnp.sum(A[-1]) + jnp.sum(A[:, -1] ** 2)


case(negative_index_on_2d, lambda r: (mat(r, 3),), "works")


def integer_array_scalar_index(x, i):
    return x[i] ** 2 + x[i - 1]


case(integer_array_scalar_index, lambda r: (vec(r, 4), np.int64(0)), "works")


def take_along_and_take(A):
    idx = jnp.argmax(A, axis=1)
    return jnp.sum(jnp.take_along_axis(A, idx[:, None], axis=1)) + jnp.sum(jnp.take(A, jnp.array([0, 0, 3])))


case(take_along_and_take, lambda r: (mat(r, 3),), "works")


# ============================================================ builtins
def builtin_min_max_on_list(x):
    vals = [x[0] * 2.0, x[1], x[2] - 1.0]
    return max(vals) - min(vals) + max(x[0], x[1]) * min(x[1], 0.5)


case(builtin_min_max_on_list, lambda r: (np.array([0.3, 0.8, 0.5]),), "works")


def builtin_max_tie(x):
    return max(x[0], x[1]) * 3.0 + min(x[0], x[1])


def _check_builtin_max_tie(fn, args):
    x = np.array([0.5, 0.5])
    g = astjax.grad(fn)(x)
    # Python's max/min return the first argument on a tie: the gradient goes to it (docs/semantics.md).
    return [(g, np.array([4.0, 0.0]), "tie: the first argument gets the gradient")]


case(builtin_max_tie, lambda r: (vec(r, 2),), "works", mode="custom", check=_check_builtin_max_tie)


def builtin_abs_and_sum(x):
    return sum([abs(x[0]), abs(x[1] - 1.0)]) + sum(x) + abs(x).sum()


case(builtin_abs_and_sum, lambda r: (np.array([-0.3, 0.4, 0.2]),), "works")


def builtin_sum_with_start(x):
    return sum((v * v for v in x), 1.0) + sum([x[0], x[1]], x[2])


case(builtin_sum_with_start, lambda r: (vec(r, 3),), "works")


def builtin_divmod_scalar(x):
    q, m = divmod(x[0], 0.3)
    return q * x[1] + m * m


case(builtin_divmod_scalar, lambda r: (np.array([0.71, 0.4]),), "works")


def builtin_sorted_list(x):
    vals = sorted([x[0], x[1] * 2.0, x[2]])
    return vals[0] * 1.0 + vals[1] * 2.0 + vals[2] * 3.0


case(builtin_sorted_list, lambda r: (np.array([0.3, -0.4, 0.6]),), "either")


def builtin_reversed_list(x):
    acc = 0.0
    k = 1.0
    for v in reversed([x[0], x[1], x[2]]):
        acc = acc + k * v
        k = k * 2.0
    return acc


case(builtin_reversed_list, lambda r: (vec(r, 3),), "works")


def builtin_len_on_array_and_list(x):
    n = len(x)
    ys = [x[i] for i in range(n)]
    return sum(ys) / len(ys) + x[len(x) - 1]


case(builtin_len_on_array_and_list, lambda r: (vec(r, 4),), "works")


def builtin_any_all_on_arrays(x):
    if any(x > 0.5) and all(x > -1.0):
        return jnp.sum(x ** 2)
    return jnp.sum(x)


case(builtin_any_all_on_arrays, lambda r: (np.array([0.7, -0.3, 0.2]),), "works")


def builtin_enumerate_zip_start(x, y):
    acc = 0.0
    for i, (a, b) in enumerate(zip(x, y), start=1):
        acc = acc + i * a * b
    return acc


case(builtin_enumerate_zip_start, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def builtin_float_of_zero_d(x):
    s = jnp.sum(x)
    return float(s) * 0.0 + s * s


case(builtin_float_of_zero_d, lambda r: (vec(r, 3),), "either")


def builtin_max_of_array(x):
    return max(x) + min(x) * 2.0


case(builtin_max_of_array, lambda r: (np.array([0.3, -0.4, 0.6]),), "either")


# ============================================================ control flow
def and_or_return_values(x, scale):
    s = scale or 2.0
    t = (x[0] > 0 and x[1]) or x[2]
    return s * t + x[0]


case(and_or_return_values, lambda r: (np.array([-0.4, 0.3, 0.7]), 0.0), "works", jvp=False,
     note="False or x[2] is x[2]; scale 0.0 is falsy")
case(and_or_return_values, lambda r: (np.array([0.4, 0.3, 0.7]), 3.0), "works", jvp=False,
     name="and_or_return_values_first", note="True and x[1] is x[1]")


def and_returns_first_falsy(x):
    a = x[0] * 0.0
    v = a and x[1]
    return v + x[2] * 2.0


case(and_returns_first_falsy, lambda r: (np.array([0.4, 0.3, 0.7]),), "works")


def chained_comparison(x):
    if 0 < x[0] < 1 < x[1]:
        return x[0] * x[1]
    return x[0] - x[1]


case(chained_comparison, lambda r: (np.array([0.4, 1.5]),), "works")


def chained_comparison_false_middle(x):
    if x[0] < x[1] < x[2]:
        return x[0] * x[1] * x[2]
    return x[0] + x[1] + x[2]


case(chained_comparison_false_middle, lambda r: (np.array([0.1, 0.6, 0.3]),), "works")


def walrus_in_condition(x):
    acc = 0.0
    if (s := jnp.sum(x * x)) > 0.1:
        acc = acc + s * 2.0
    return acc + s


case(walrus_in_condition, lambda r: (vec(r, 3),), "either")


def walrus_in_comprehension(x):
    ys = [y for v in x if (y := v * v) > 0.05]
    return sum(ys)


case(walrus_in_comprehension, lambda r: (np.array([0.5, 0.1, -0.6]),), "either")


def try_except_finally(x):
    try:
        y = jnp.sum(x ** 2)
    except ValueError:
        y = 0.0
    finally:
        z = 1.0
    return y * z


case(try_except_finally, lambda r: (vec(r, 3),), "either")


def with_block(x):
    with np.errstate(divide="ignore"):
        y = jnp.sum(x * x)
    return y


case(with_block, lambda r: (vec(r, 3),), "either")


def assert_on_data(x):
    assert x.shape == (3,), "three entries"
    assert jnp.all(jnp.isfinite(x))
    return jnp.sum(jnp.exp(x))


case(assert_on_data, lambda r: (vec(r, 3),), "works")


def for_else(x):
    acc = 0.0
    for v in x:
        if v > 10.0:
            break
        acc = acc + v * v
    else:
        acc = acc * 2.0
    return acc


case(for_else, lambda r: (vec(r, 3),), "either")


def while_else(x):
    i = 0
    acc = x[0]
    while i < 3:
        acc = acc * x[1]
        i += 1
    else:
        acc = acc + 1.0
    return acc


case(while_else, lambda r: (vec(r, 2),), "either")


def continue_in_nested_loops(A):
    acc = 0.0
    for i in range(3):
        for j in range(3):
            if j == i:
                continue
            if A[i, j] < 0:
                continue
            acc = acc + A[i, j] ** 2
    return acc


case(continue_in_nested_loops, lambda r: (mat(r, 3),), "works")


def del_statement(x):
    y = x * 2.0
    z = jnp.sum(y)
    del y
    return z * z


case(del_statement, lambda r: (vec(r, 3),), "either")


_COUNTER = [0]
_CALLS = 0


def global_counter(x):
    global _CALLS
    _CALLS += 1
    return jnp.sum(x * x)


case(global_counter, lambda r: (vec(r, 3),), "either")


def nonlocal_counter(x):
    count = 0

    def bump(v):
        nonlocal count
        count += 1
        return v * 2.0
    y = bump(x[0]) + bump(x[1])
    return y * count


case(nonlocal_counter, lambda r: (vec(r, 2),), "either")


def _fib_like(x, n, memo):
    if n in memo:
        return memo[n]
    if n < 2:
        v = x * (n + 1.0)
    else:
        v = _fib_like(x, n - 1, memo) + 0.5 * _fib_like(x, n - 2, memo)
    memo[n] = v
    return v


def recursion_with_memo(x):
    return _fib_like(x[0], 5, {}) * x[1]


case(recursion_with_memo, lambda r: (vec(r, 2),), "either")


def generator_expressions(x):
    return sum(v * v for v in x) + max(abs(v) for v in x) + sum(x[i] * i for i in range(len(x)))


case(generator_expressions, lambda r: (np.array([0.3, -0.8, 0.5]),), "either")


def lambda_defaults_capture_loop_variable(x):
    fs = []
    for k in range(3):
        fs.append(lambda v, k=k: v * (k + 1.0))
    return sum(f(x[i]) for i, f in enumerate(fs))


case(lambda_defaults_capture_loop_variable, lambda r: (vec(r, 3),), "either")


def late_binding_closure(x):
    fs = [lambda v: v * k for k in range(1, 4)]
    return fs[0](x[0]) + fs[1](x[1])


case(late_binding_closure, lambda r: (vec(r, 2),), "either",
     note="Python's late binding: every lambda sees k == 3")


def conditional_expression_picks_array(x):
    y = x if x[0] > 0 else -x
    z = (y ** 2 if jnp.sum(y) > 0 else y ** 3)
    return jnp.sum(z)


case(conditional_expression_picks_array, lambda r: (np.array([-0.4, 0.3, 0.9]),), "works")


def loop_variable_after_loop(x):
    for i in range(3):
        y = x[i] * 2.0
    return y * i + x[i]


case(loop_variable_after_loop, lambda r: (vec(r, 3),), "works")


def empty_loop_keeps_previous(x):
    v = x[0]
    for v in x[3:]:
        pass
    return v * 2.0


case(empty_loop_keeps_previous, lambda r: (vec(r, 3),), "works")


def augmented_assign_on_int_then_float(x):
    n = 0
    n += 1
    n *= 2.5
    return x[0] * n
    

case(augmented_assign_on_int_then_float, lambda r: (vec(r, 2),), "works")


# ============================================================ non-differentiable points (JAX's conventions)
def _grad_at(point, expected, label, jvp_tangent=None, jvp_expected=None):
    """A check: the gradient at `point` is `expected` (JAX's convention, or astjax's documented one);
    jvp along `jvp_tangent` (ones) is grad . t, or `jvp_expected` where forward mode differs (as in JAX)."""
    def check(fn, args):
        x = np.array(point, dtype=np.float64)
        triples = [(astjax.grad(fn)(x), np.array(expected, dtype=np.float64), label)]
        t = np.ones_like(x) if jvp_tangent is None else np.array(jvp_tangent, dtype=np.float64)
        _, tangent = astjax.jvp(fn, (x,), (t,))
        want = float(np.dot(expected, t)) if jvp_expected is None else jvp_expected
        triples.append((tangent, want, label + " (jvp)"))
        return triples
    return check


def abs_at_zero(x):
    return jnp.sum(jnp.abs(x)) + abs(x[0])


case(abs_at_zero, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, -0.5], [2.0, -1.0], "abs'(0) = 1 for jnp.abs and for the builtin abs (JAX's convention)"))


def relu_at_zero(x):
    return jnp.sum(jnp.maximum(x, 0.0)) + jnp.sum(jnp.minimum(x, 0.0) * 2.0)


case(relu_at_zero, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, 0.5], [1.5, 1.0], "maximum/minimum tie: half each (JAX)"))


def nn_relu_at_zero(x):
    return jnp.sum(astjax.nn.relu(x) * jnp.array([1.0, 2.0]))


case(nn_relu_at_zero, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, 0.5], [0.0, 2.0], "nn.relu'(0) = 0 (JAX)"))


def max_reduction_ties(x):
    return jnp.max(x) + x.min() * 2.0


case(max_reduction_ties, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.5, 0.5, 0.1], [0.5, 0.5, 2.0], "max ties share the gradient (JAX)"))


def maximum_of_two_inputs_tie(x):
    return jnp.maximum(x[0], x[1]) * 2.0 + jnp.minimum(x[0], x[1])


case(maximum_of_two_inputs_tie, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.5, 0.5], [1.5, 1.5], "maximum(a, a): half each, directional derivative 3 along (1, 1)"))


def fmax_of_two_inputs_tie(x):
    return jnp.fmax(x[0], x[1]) + jnp.fmin(x[0], x[1])


def _check_fmax_tie(fn, args):
    x = np.array([0.5, 0.5])
    g = astjax.grad(fn)(x)
    _, t = astjax.jvp(fn, (x,), (np.ones(2),))
    # Any split is a subgradient; the directional derivative along (1, 1) must be 2 (the function is x + y there).
    return [(np.sum(g), 2.0, "gradient sums to 2 on the diagonal"), (t, 2.0, "jvp along (1, 1)")]


case(fmax_of_two_inputs_tie, lambda r: (vec(r, 2),), "works", mode="custom", check=_check_fmax_tie)


def sqrt_at_zero(x):
    return jnp.sum(jnp.sqrt(x))


case(sqrt_at_zero, lambda r: (pos(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, 1.0], [np.inf, 0.5], "sqrt'(0) = inf (JAX)", jvp_tangent=[0.0, 1.0]))


def where_sqrt_negative(x):
    return jnp.sum(jnp.where(x > 0, jnp.sqrt(x), 0.0))


case(where_sqrt_negative, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([-1.0, 1.0], [np.nan, 0.5], "where(x > 0, sqrt(x), 0) at x < 0: nan in reverse mode (JAX: "
                    "zero cotangent times the untaken branch's nan); forward mode selects the taken tangent",
                    jvp_expected=0.5))


def where_double_trick(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.sum(jnp.where(x > 0, jnp.sqrt(safe), 0.0))


case(where_double_trick, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([-1.0, 1.0], [0.0, 0.5], "the double-where trick gives 0"))


def clip_at_bounds(x):
    return jnp.sum(jnp.clip(x, 0.0, 1.0) * jnp.array([1.0, 2.0, 3.0]))


case(clip_at_bounds, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.0, 1.0, 0.5], [0.5, 1.0, 3.0], "clip at its bounds: half (JAX)"))


def clip_method_at_bounds(x):
    return jnp.sum(jnp.asarray(x).clip(0.0, 1.0) * jnp.array([1.0, 2.0, 3.0]))


case(clip_method_at_bounds, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.0, 1.0, 0.5], [0.5, 1.0, 3.0], "x.clip at its bounds: half (JAX)"))


def sort_with_ties(x):
    return jnp.sum(jnp.sort(x) * jnp.arange(3.0))


case(sort_with_ties, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.5, 0.5, 0.1], [1.0, 2.0, 0.0], "sort ties: stable order (JAX)"))


def norm_at_zero(x):
    return jnp.linalg.norm(x)


case(norm_at_zero, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, 0.0], [np.nan, np.nan], "norm'(0) is nan (JAX)"))


def norm_rows_one_zero(x):
    return jnp.sum(jnp.linalg.norm(x.reshape(2, 2), axis=1))


case(norm_rows_one_zero, lambda r: (vec(r, 4),), "works", mode="custom",
     check=_grad_at([0.0, 0.0, 3.0, 4.0], [np.nan, np.nan, 0.6, 0.8], "norm of a zero row: nan (JAX)",
                    jvp_tangent=[0.0, 0.0, 1.0, 1.0]))


def sign_times_x(x):
    return jnp.sum(jnp.sign(x) * x)


case(sign_times_x, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, -0.5], [0.0, -1.0], "sign is piecewise constant: sign(x) * x has 0 at 0"))


def prod_with_zeros(x):
    return jnp.prod(x) + jnp.sum(jnp.cumprod(x))


case(prod_with_zeros, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.0, 0.5, 2.0], [3.5, 0.0, 0.0], "prod with a zero: exact, not 0/0"))


def prod_with_two_zeros(x):
    return jnp.prod(x)


case(prod_with_two_zeros, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.0, 0.0, 2.0], [0.0, 0.0, 0.0], "prod with two zeros"))


def std_of_constant(x):
    return jnp.var(x) + jnp.std(x * 0.0 + 1.0)


case(std_of_constant, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.5, 0.5], [np.nan, np.nan], "var at a constant vector: 0; std at zero spread: nan (JAX: "
                    "sqrt'(0) times a zero)"))


def power_zero_to_zero(x):
    return jnp.sum(x ** 0.0 + jnp.power(x, 0))


case(power_zero_to_zero, lambda r: (vec(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, -0.5], [0.0, 0.0], "d/dx x**0 = 0 everywhere (JAX gives nan at 0 for a float 0.0)"))


def pow_half_at_zero(x):
    return jnp.sum(x ** 1.5 + x ** 2.0)


case(pow_half_at_zero, lambda r: (pos(r, 2),), "works", mode="custom",
     check=_grad_at([0.0, 1.0], [0.0, 3.5], "x**1.5 and x**2.0 at 0"))


# ============================================================ shapes, broadcasting, methods
def broadcast_column_row(x, y):
    M = x.reshape(3, 1) + y.reshape(1, 4)
    return jnp.sum(jnp.sin(M) * jnp.arange(12.0).reshape(3, 4))


case(broadcast_column_row, lambda r: (vec(r, 3), vec(r, 4)), "works", argnums=(0, 1))


def keepdims_reductions(A):
    m = jnp.mean(A, axis=1, keepdims=True)
    s = jnp.sum(A ** 2, axis=0, keepdims=True)
    mx = jnp.max(A, axis=-1, keepdims=True)
    return jnp.sum((A - m) ** 2 * s) + jnp.sum(mx * m)


case(keepdims_reductions, lambda r: (mat(r, 3, 4),), "works")


def zero_d_array_versus_python_float(x):
    c = np.array(2.0)
    s = jnp.sum(x)
    return s * c + float(c) * s ** 2 + jnp.asarray(3.0) * x[0]


case(zero_d_array_versus_python_float, lambda r: (vec(r, 3),), "works")


def sum_negative_axis_and_tuple_axes(T):
    a = jnp.sum(T, axis=-1)
    b = jnp.mean(T, axis=(0, 2))
    c = T.sum(axis=(1,))
    return jnp.sum(a ** 2) + jnp.sum(b * jnp.arange(3.0)) + jnp.sum(c ** 3)


case(sum_negative_axis_and_tuple_axes, lambda r: (r.uniform(-1, 1, size=(2, 3, 4)),), "works")


def tuple_output_jacobian(x):
    return x ** 2, jnp.sum(x) * x[0]


case(tuple_output_jacobian, lambda r: (vec(r, 3),), "works", mode="jac")


def dict_output_jacobian(x):
    return {"b": jnp.sin(x), "a": x[:2] * x[1:]}


case(dict_output_jacobian, lambda r: (vec(r, 3),), "either", mode="jac")


def array_methods(x, y):
    a = jnp.asarray(x)
    return (a.sum() + a.mean(0) * 2.0 + a.max() + a.dot(y) + (a @ y) * 0.5 + a.prod() + a.var()
            + a.std() + a.cumsum()[-1] * a.min())


case(array_methods, lambda r: (pos(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def numpy_array_methods_on_arguments(x, y):
    return x.sum() + x.mean() * 2.0 + x.max() + x.dot(y) + (x @ y) * 0.5 + x.T.sum() + x.ravel()[0]


case(numpy_array_methods_on_arguments, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def matmul_shapes(A, v):
    return jnp.sum(A @ v) + v @ A @ v + jnp.sum(v[None, :] @ A.T) + jnp.sum(jnp.outer(v, v) @ A)


case(matmul_shapes, lambda r: (mat(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def scalar_times_zero_d_gradient_shape(x):
    return x * x * 3.0


def _check_zero_d_gradient_shape(fn, args):
    g0 = astjax.grad(fn)(np.array(0.7))
    g1 = astjax.grad(fn)(0.7)
    assert np.shape(g0) == () and np.shape(g1) == (), (np.shape(g0), np.shape(g1))
    return [(g0, 4.2, "0-d array: a 0-d gradient"), (g1, 4.2, "Python float: a scalar gradient")]


case(scalar_times_zero_d_gradient_shape, lambda r: (scalar(r),), "works")
case(scalar_times_zero_d_gradient_shape, lambda r: (scalar(r),), "works", mode="custom",
     check=_check_zero_d_gradient_shape, rtol=1e-6, name="zero_d_and_python_float_gradient_shapes")


def broadcast_against_size_one(x):
    a = x[:1]
    b = x[1:]
    return jnp.sum(a * b) + jnp.sum((a + b[:, None]) ** 2)


case(broadcast_against_size_one, lambda r: (vec(r, 4),), "works")


def inplace_broadcast_add_to_copy(x):
    y = jnp.zeros((3, 2), dtype=jnp.float64) + x[:, None]
    y = y + x[:2]
    return jnp.sum(y * y)


case(inplace_broadcast_add_to_copy, lambda r: (vec(r, 3),), "works")


def squeeze_expand_dims(x):
    y = jnp.expand_dims(x, 0)
    z = jnp.squeeze(y[:, :1])
    w = x[np.newaxis, :, np.newaxis].squeeze(axis=2)
    return z * jnp.sum(w) + jnp.sum(jnp.atleast_2d(x) ** 2)


case(squeeze_expand_dims, lambda r: (vec(r, 3),), "works")


def reshape_with_order_of_flattening(A):
    v = A.reshape(-1)
    w = A.T.reshape(6)
    return jnp.sum(v * jnp.arange(6.0)) + jnp.sum(w * jnp.arange(6.0) ** 2)


case(reshape_with_order_of_flattening, lambda r: (mat(r, 2, 3),), "works")


def flatten_then_index_diagonal(A):
    f = A.flatten()
    return f[0] + f[4] * 2.0 + f[8] * 3.0 + jnp.trace(A) + jnp.sum(jnp.diag(A) ** 2)


case(flatten_then_index_diagonal, lambda r: (mat(r, 3),), "works")


# ============================================================ Python protocols on array items
def builtin_sum_over_matrix_rows(A):
    return jnp.sum(sum(A) * jnp.array([1.0, 2.0, 3.0])) + sum(A[0]) ** 2


case(builtin_sum_over_matrix_rows, lambda r: (mat(r, 2, 3),), "works",
     note="sum(A) adds A's rows; its adjoint used to be list-shaped (crash in materialize)")


def builtin_sum_of_vector_only(x):
    return sum(x) ** 3


case(builtin_sum_of_vector_only, lambda r: (vec(r, 3),), "works")


def round_with_ndigits_of_item(x):
    return round(x[0], 1) * x[1] + round(x[1]) + x[0] ** 2


case(round_with_ndigits_of_item, lambda r: (np.array([0.37, 0.61]),), "works",
     note="x[0] of a NumPy argument has __round__; astjax's 0-d Array used to lack it (TypeError)")


def math_trunc_floor_ceil_of_item(x):
    return math.trunc(x[0]) * x[1] + math.floor(x[1] * 3.0) * x[0] + math.ceil(x[0]) + x[1]


case(math_trunc_floor_ceil_of_item, lambda r: (np.array([2.37, 0.61]),), "works")


def math_functions_of_items(x):
    a, b = x[0], x[1]
    return (math.sqrt(a) + math.exp(b) * math.sin(a) + math.log(a) * math.pow(b, 3) + math.tanh(a) + math.fabs(b)
            + math.atan2(a, b) + math.log10(a) + math.log2(b) + math.log1p(a) + math.expm1(b) + math.cosh(a)
            + math.degrees(a) + math.radians(b) + math.asin(b * 0.5) + math.acos(a * 0.5) + math.atan(a))


case(math_functions_of_items, lambda r: (np.array([0.7, 0.4]),), "works")


def math_functions_without_rules(x):
    return math.erf(x[0]) + math.lgamma(x[1] + 1.0) + math.hypot(x[0], x[1])


case(math_functions_without_rules, lambda r: (np.array([0.7, 0.4]),), "either")


def math_copysign_and_fmod(x):
    return math.copysign(x[0], -1.0) + math.fmod(x[1], 0.3) * x[0]


case(math_copysign_and_fmod, lambda r: (np.array([0.7, 0.4]),), "either")


def list_of_bools_is_a_mask(x):
    return jnp.sum(x[[True, False, True]] * jnp.array([1.0, 2.0])) + jnp.sum(x[np.array([False, True, True])] ** 2)


case(list_of_bools_is_a_mask, lambda r: (vec(r, 3),), "works",
     note="a list of bools is a boolean mask, not the integer indices [1, 0, 1]")


def tuple_index_versus_list_index(A):
    idx = (0, 1)
    return A[idx] * 2.0 + jnp.sum(A[list(idx)]) + jnp.sum(A[np.array(idx)] ** 2)


case(tuple_index_versus_list_index, lambda r: (mat(r, 3),), "works",
     note="A[(0, 1)] is one element; A[[0, 1]] two rows")


def nested_list_index(A):
    return jnp.sum(A[[[0, 1]]] * jnp.arange(6.0).reshape(1, 2, 3))


case(nested_list_index, lambda r: (mat(r, 3),), "works")


def unpack_matrix_rows_in_loop(A):
    acc = 0.0
    for a, b in A:
        acc = acc + a * b * 2.0
    return acc


case(unpack_matrix_rows_in_loop, lambda r: (mat(r, 3, 2),), "works")


def sort_method_on_copy(x):
    y = x.copy()
    y.sort()
    return jnp.sum(y * jnp.arange(3.0))


case(sort_method_on_copy, lambda r: (np.array([0.7, -0.4, 0.3]),), "either")


def reductions_with_where_and_ddof(x):
    return (jnp.sum(x, where=x > 0) + jnp.mean(x ** 2, where=x > 0) + jnp.var(x, ddof=1) + jnp.std(x, ddof=1)
            + jnp.max(x, initial=-5.0))


case(reductions_with_where_and_ddof, lambda r: (np.array([0.7, -0.4, 0.3, 0.1]),), "works")


def astype_int_of_large_values(x, n):
    k = np.asarray(n * 1e10).astype(int)
    j = jnp.asarray(n * 1e10).astype(int)
    return x[0] * (k[0] % 7) + x[1] * (j[0] % 7)


case(astype_int_of_large_values, lambda r: (vec(r, 2), np.array([0.7, -0.4, 0.3])), "works",
     note="astype(int) of float64 data is int64 (NumPy; JAX x64): 7e9 must not wrap; jnp once gave int32")


def round_decimals_and_around(x):
    return jnp.sum(jnp.round(x, 2) * x + jnp.around(x, 1))


case(round_decimals_and_around, lambda r: (np.array([0.734, -0.456, 0.3]),), "works")


def where_one_argument_and_nonzero(x):
    (idx,) = jnp.where(x > 0)
    return jnp.sum(x[idx] ** 2) + jnp.sum(x[jnp.nonzero(x < 0)] * 3.0)


case(where_one_argument_and_nonzero, lambda r: (np.array([0.7, -0.4, 0.3]),), "works")


def slices_beyond_bounds(x):
    return (jnp.sum(x[-10:2] * 2.0) + jnp.sum(x[1:100] ** 2) + jnp.sum(x[5:1])
            + jnp.sum(x[::-1][:2] * jnp.array([1.0, 3.0])))


case(slices_beyond_bounds, lambda r: (vec(r, 3),), "works")


def bool_arithmetic(x):
    m = x > 0
    n = m.sum() + True + m[0]
    return x[0] * n + jnp.sum(x * ~m) + jnp.sum(x * (m ^ True))


case(bool_arithmetic, lambda r: (np.array([0.7, -0.4, 0.3]),), "works")


def python_int_arithmetic(x):
    k = 2 ** -1
    j = (-7) // 2
    return x[0] * k + x[1] * j + x[0] * ((-7) % 3) + x[1] * (7 % -3)


case(python_int_arithmetic, lambda r: (vec(r, 2),), "works")


def real_imag_conj_of_real(x):
    return jnp.sum(x.real * 2.0 + jnp.real(x) + x.conj() + jnp.imag(x))


case(real_imag_conj_of_real, lambda r: (vec(r, 3),), "works")


# ============================================================ type inspection (astjax holds Arrays where NumPy holds scalars)
def isinstance_float_of_item(x):
    s = x[0]
    if isinstance(s, float):
        return s * 2.0
    return s * 3.0


case(isinstance_float_of_item, lambda r: (vec(r, 2),), "either",
     note="x[0] of a NumPy array is an np.float64, a float; astjax's 0-d Array is not: once silently the "
          "other branch (grad 3 instead of 2)")


def type_is_ndarray(x):
    if type(x) is np.ndarray:
        return jnp.sum(x ** 2)
    return jnp.sum(x ** 3)


case(type_is_ndarray, lambda r: (vec(r, 2),), "either",
     note="type(x) of astjax's Array is not np.ndarray: once silently the x ** 3 branch under grad")


def isinstance_ndarray_or_tuple(x):
    if isinstance(x, np.ndarray) and not isinstance(x, (list, tuple, dict)):
        return jnp.sum(x ** 2)
    return jnp.sum(x ** 3)


case(isinstance_ndarray_or_tuple, lambda r: (vec(r, 2),), "works",
     note="answers every object the original may hold agrees on: no refusal")


def isinstance_of_python_float_argument(x, scale):
    if isinstance(scale, float):
        return jnp.sum(x) * scale
    return jnp.sum(x) * 10.0


case(isinstance_of_python_float_argument, lambda r: (vec(r, 2), 0.5), "works", argnums=0, jvp=False,
     note="a Python float argument not differentiated stays a float (jvp differentiates every argument)")


def isinstance_of_differentiated_python_float(x):
    if isinstance(x, float):
        return x * 2.0
    return x * 3.0


def _check_differentiated_python_float(fn, args):
    return [(astjax.grad(fn)(0.7), 2.0, "x is a float in the original program: the first branch")]


case(isinstance_of_differentiated_python_float, lambda r: (scalar(r),), "either", mode="custom",
     check=_check_differentiated_python_float)


def astype_float_keeps_float64(x):
    return (x.astype(float)[0] - 1.0) * 1e9 * x[1] + jnp.sum(jnp.asarray(x, dtype=float) ** 2)


case(astype_float_keeps_float64, lambda r: (np.array([1.000000001, 0.5]),), "works", rtol=1e-6,
     note="x.astype(float) of a float64 argument once gave float32: the 1e-9 vanished (value 0 instead of 0.5)")


def astype_int_method_of_argument(x):
    k = x.astype(int)
    return x[1] * (k[0] % 7) + x[1]


case(astype_int_method_of_argument, lambda r: (np.array([7e9 + 3.25, 0.5]),), "works",
     note="x.astype(int) of float64 data is int64 (NumPy; JAX x64): int32 wrapped 7e9")


# ============================================================ in-place operators on NumPy arrays (NumPy keeps shape and dtype)
def iadd_into_float32_numpy_array(x):
    y = np.zeros(2, dtype=np.float32)
    y += x
    return (y[0] - 1.0) * 1e9 * x[1]


def _check_iadd_into_float32(fn, args):
    x = args[0]
    value, g = astjax.value_and_grad(fn)(x.copy())
    # The float32 rounding is a cast: its derivative is 1 (finite differences below float32's resolution see 0).
    return [(value, fn(x.copy()), "value: y stays float32, the 1e-9 is rounded away"), (value, 0.0, "value"),
            (g, np.array([1e9 * x[1], 0.0]), "gradient through the cast")]


case(iadd_into_float32_numpy_array, lambda r: (np.array([1.000000001, 0.5]),), "works", mode="custom",
     check=_check_iadd_into_float32,
     note="NumPy's `y += x` keeps y float32 (value 0); astjax's y = y + x once was float64 (value 0.5)")


def iadd_broadcasting_up(x):
    y = x.copy()
    y += np.ones((2, 2))
    return jnp.sum(y * x)


case(iadd_broadcasting_up, lambda r: (vec(r, 2),), "refuse",
     note="NumPy raises (non-broadcastable output operand); y = y + A once gave a number")


def iadd_float_into_int_numpy_array(x):
    k = np.arange(2)
    k += x[0]
    return jnp.sum(k * x)


case(iadd_float_into_int_numpy_array, lambda r: (vec(r, 2),), "refuse", errors=(TypeError,),
     error_match="Cannot cast|cast ufunc",
     note="NumPy raises UFuncTypeError; astjax refuses")


def iadd_accumulator_stays_functional(x):
    acc = jnp.zeros(2)
    tot = np.zeros(2)
    for i in range(3):
        acc += x * (i + 1.0)
        tot += x * 0.5
    return jnp.sum(acc * acc) + jnp.sum(tot ** 2)


case(iadd_accumulator_stays_functional, lambda r: (vec(r, 2),), "works")


def enumerate_with_start(x, y):
    acc = 0.0
    for i, p in enumerate(x, start=1):
        acc = acc + i * p * y[i - 1]
    for k, q in enumerate(y, 2):
        acc = acc + k * q
    return acc


case(enumerate_with_start, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1),
     note="enumerate's start was ignored: every i shifted by one, silently (grad [0, y0, 2 y1] for [y0, 2 y1, 3 y2])")


def enumerate_with_start_in_comprehensions(x):
    return sum([i * v for i, v in enumerate(x, 1)]) + sum(i * v * v for i, v in enumerate(x, start=2))


case(enumerate_with_start_in_comprehensions, lambda r: (vec(r, 3),), "works")


def enumerate_start_loop_variable_after_loop(x):
    for i, v in enumerate(x, 5):
        pass
    return v * i
    

case(enumerate_start_loop_variable_after_loop, lambda r: (vec(r, 3),), "works")


# ============================================================ jnp.pad modes
def pad_reflect_wrap_symmetric(x):
    return (jnp.sum(jnp.pad(x, (1, 2), mode="reflect") * jnp.arange(7.0))
            + jnp.sum(jnp.pad(x, (2, 1), mode="wrap") ** 2) + jnp.sum(jnp.pad(x, 2, mode="symmetric") * x[0]))


case(pad_reflect_wrap_symmetric, lambda r: (vec(r, 4),), "works",
     note="the reverse rule raised NotImplementedError for these modes")


def pad_maximum_mode(x):
    return jnp.sum(jnp.pad(x, (2, 1), mode="maximum") * jnp.arange(7.0))


case(pad_maximum_mode, lambda r: (np.array([0.3, -0.2, 0.9, 0.1]),), "either",
     note="jvp padded the tangent with the tangents' maximum: a silently wrong jvp (34 for 16.5)")


def pad_median_mode(x):
    return jnp.sum(jnp.pad(x, (2, 1), mode="median") * jnp.arange(7.0))


case(pad_median_mode, lambda r: (np.array([0.3, -0.2, 0.9, 0.1]),), "either")


def numerical_gradient_default_spacing(x):
    return jnp.sum(jnp.gradient(x) * jnp.arange(4.0)) + jnp.sum(jnp.gradient(x, 0.5) ** 2)


case(numerical_gradient_default_spacing, lambda r: (vec(r, 4),), "works",
     note="jnp.gradient(x) without spacings: NameError 'varargs' in the generated rule")


def builtin_max_min_of_several(x):
    return max(x[0], x[1] * 2.0, x[2]) + min([x[0], x[1], x[2] - 1.0]) * 3.0 - min((x[2], 0.2, x[1]))


case(builtin_max_min_of_several, lambda r: (np.array([0.3, 0.1, 0.5]),), "works",
     note="max(a, b, c) / min([a, b, c]) were refused (no rule for max of an iterable)")


def builtin_max_of_several_ties(x):
    return max(x[0], x[1], x[2]) * 2.0 + min([x[1], x[0]])


case(builtin_max_of_several_ties, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_grad_at([0.5, 0.5, 0.5], [2.0, 1.0, 0.0], "ties: Python returns the first, which gets the gradient"))
