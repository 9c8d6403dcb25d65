"""An attacker's corpus for grad/value_and_grad/jvp: programs built to slip a
silently wrong number past the transformation -- Python semantics (walrus,
chained comparisons with effects, and/or returning operands, match, star
unpacking, iter/next, generators consumed by builtins), NumPy aliasing (views
written through, copyto, out=, fill, put, flat), numerical algorithms (ODE
integrators, Newton, bisection, fixed points, soft-min recurrences, Kahan
summation, Gram-Schmidt, power iteration, sorting networks) and derivative
traps (kinks at the evaluation point, integer casts, round/floor, sort,
argmax indexing)."""
import math

import numpy as np

import astjax
import astjax.lax as lax
import astjax.nn as nn
import astjax.numpy as jnp

from .case import case, vec, mat, pos, scalar, spd


# ============================================================ Python semantics
def walrus_in_while_condition(x):
    s = 0.0
    i = 0
    while (t := x[i] * x[i]) < 10.0 and i < 2:
        s = s + t
        i += 1
    return s + t


case(walrus_in_while_condition, lambda r: (vec(r, 3),), "works")


def walrus_in_comprehension_filter(x):
    return sum(y for v in x if (y := v * 2.0) > -0.5)


case(walrus_in_comprehension_filter, lambda r: (np.array([0.3, -0.9, 0.7, -0.1]),), "works")


def walrus_binding_leaks_from_comprehension(x):
    total = sum([(last := v ** 2) for v in x])
    return total + 3.0 * last


case(walrus_binding_leaks_from_comprehension, lambda r: (vec(r, 4),), "works")


def _bump(counter, v):
    counter.append(1)
    return v


def chained_comparison_evaluates_middle_once(x):
    calls = []
    if -1.0 < _bump(calls, x[0]) < 1.0:
        return x[0] * len(calls) + x[1]
    return x[1] * 7.0


case(chained_comparison_evaluates_middle_once, lambda r: (np.array([0.4, 0.8]),), "works")


def chained_comparison_three_links(x):
    a, b, c = x[0], x[1], x[2]
    if a < b < c:
        return a * b * c
    if a > b > c:
        return a + b + c
    return a * a - b * c


case(chained_comparison_three_links, lambda r: (np.array([0.1, 0.5, 0.9]),), "works", name="chain3_increasing")
case(chained_comparison_three_links, lambda r: (np.array([0.9, 0.5, 0.1]),), "works", name="chain3_decreasing")
case(chained_comparison_three_links, lambda r: (np.array([0.5, 0.9, 0.1]),), "works", name="chain3_neither")


def and_or_abs(x):
    s = 0.0
    for v in x:
        s = s + (v > 0 and v or -v)
    return s


case(and_or_abs, lambda r: (np.array([0.3, -0.8, 0.6]),), "works")


def or_default_zero_scalar(x):
    # 0.0 is falsy: `or` falls back to the second operand.
    a = x[0] * 0.0 or x[1]
    return a * 2.0


case(or_default_zero_scalar, lambda r: (np.array([0.3, 0.8]),), "works")


def and_returns_second_operand(x):
    w = (x[0] > -5.0) and x[1] * 3.0
    return w * x[0]


case(and_returns_second_operand, lambda r: (np.array([0.3, 0.8]),), "works")


def nested_conditional_expression(x):
    s = 0.0
    for v in x:
        s = s + (v * v if v > 0.5 else (-v if v < -0.5 else v * 3.0))
    return s


case(nested_conditional_expression, lambda r: (np.array([0.9, -0.7, 0.2, 0.6, -0.1]),), "works")


def conditional_expression_in_return_of_arrays(x):
    y = x * 2.0 if jnp.sum(x) > 0 else x * -3.0
    return jnp.sum(y * x)


case(conditional_expression_in_return_of_arrays, lambda r: (np.array([0.9, -0.2, 0.3]),), "works")


def try_except_zero_division(x):
    d = 0.0
    try:
        v = x[0] / d
    except ZeroDivisionError:
        v = x[0] * 5.0
    return v + x[1]


case(try_except_zero_division, lambda r: (np.array([0.3, 0.8]),), "either")


def try_except_python_float_division(x):
    total = 0.0
    for k in range(3):
        try:
            total = total + x[k] / (k - 1)
        except ZeroDivisionError:
            total = total + x[k] * 10.0
    return total


case(try_except_python_float_division, lambda r: (vec(r, 3),), "either")


def try_else_finally_order(x):
    out = x[0]
    try:
        out = out * 2.0
    except ValueError:
        out = out * 100.0
    else:
        out = out + x[1]
    finally:
        out = out * x[1]
    return out


case(try_else_finally_order, lambda r: (np.array([0.3, 0.8]),), "either")


class _Scale:
    def __init__(self, k):
        self.k = k

    def __enter__(self):
        return self.k

    def __exit__(self, *exc):
        return False


def with_block_value(x):
    with _Scale(3.0) as k:
        y = x * k
    return jnp.sum(y * y)


case(with_block_value, lambda r: (vec(r, 3),), "either")


def assert_then_compute(x):
    assert x.shape == (3,), "bad shape"
    assert len(x) == 3
    return jnp.sum(x ** 3)


case(assert_then_compute, lambda r: (vec(r, 3),), "works")


def del_then_rebind(x):
    y = x * 2.0
    z = y + 1.0
    del y
    y = z * x
    return jnp.sum(y)


case(del_then_rebind, lambda r: (vec(r, 3),), "works")


_COUNT = [0]


def global_list_counter_scales(x):
    _COUNT[0] = 0
    for v in x:
        _COUNT[0] += 1
    return jnp.sum(x) * _COUNT[0]


case(global_list_counter_scales, lambda r: (vec(r, 4),), "either")


def nonlocal_accumulator_closure(x):
    acc = 0.0

    def add(v):
        nonlocal acc
        acc = acc + v * v

    for v in x:
        add(v)
    return acc


case(nonlocal_accumulator_closure, lambda r: (vec(r, 4),), "either")


def fibonacci_tuple_swap(x):
    a, b = x[0], x[1]
    for _ in range(5):
        a, b = b, a + b
    return a * b


case(fibonacci_tuple_swap, lambda r: (vec(r, 2),), "works")


def tuple_swap_of_arrays(x):
    a, b = x, x * 2.0
    for _ in range(3):
        a, b = b * a, a
    return jnp.sum(a + b)


case(tuple_swap_of_arrays, lambda r: (vec(r, 3),), "works")


def rotate_three_way(x):
    a, b, c = x[0], x[1], x[2]
    for _ in range(4):
        a, b, c = c * 0.5, a + c, b * a
    return a + b * c


case(rotate_three_way, lambda r: (vec(r, 3),), "works")


def star_unpack_middle(x):
    first, *mid, last = x
    return first * last + sum(m * m for m in mid)


case(star_unpack_middle, lambda r: (vec(r, 5),), "works")


def star_unpack_list_of_scalars(x):
    vals = [x[0], x[1] * 2.0, x[2] ** 2, x[3]]
    a, *rest = vals
    *init, z = rest
    return a * z + sum(init)


case(star_unpack_list_of_scalars, lambda r: (vec(r, 4),), "works")


def match_on_int(x):
    k = 2
    match k:
        case 1:
            return jnp.sum(x)
        case 2:
            return jnp.sum(x * x)
        case _:
            return jnp.sum(x * 3.0)


case(match_on_int, lambda r: (vec(r, 3),), "either")


def match_sequence_pattern(x):
    match [x[0], x[1]]:
        case [a, b]:
            return a * b + a
    return x[0]


case(match_sequence_pattern, lambda r: (vec(r, 2),), "either")


def iter_next_pairs(x):
    it = iter(x)
    a = next(it)
    b = next(it)
    c = next(it, None)
    return a * b + (c if c is not None else 0.0)


case(iter_next_pairs, lambda r: (vec(r, 3),), "either")


def next_with_generator_default(x):
    first_big = next((v for v in x if v > 0.5), x[0])
    return first_big * 3.0 + x[0]


case(next_with_generator_default, lambda r: (np.array([0.1, 0.7, 0.9]),), "either")


def generator_into_max(x):
    return max(v * v for v in x) + min(v for v in x)


case(generator_into_max, lambda r: (np.array([0.3, -0.8, 0.6]),), "works")


def generator_into_sorted_with_key(x):
    vals = sorted((v * 2.0 for v in x), key=lambda t: -abs(t))
    return vals[0] * 10.0 + vals[-1]


case(generator_into_sorted_with_key, lambda r: (np.array([0.3, -0.8, 0.6]),), "either")


def any_all_gate(x):
    if any(v > 0.5 for v in x) and all(v > -1.0 for v in x):
        return jnp.sum(x * x)
    return jnp.sum(x)


case(any_all_gate, lambda r: (np.array([0.3, 0.8, -0.6]),), "works")


def zip_of_slices(x):
    return sum(a * b for a, b in zip(x[:-1], x[1:]))


case(zip_of_slices, lambda r: (vec(r, 5),), "works")


def enumerate_weights_reversed(x):
    s = 0.0
    for i, v in enumerate(reversed(list(x))):
        s = s + (i + 1) * v * v
    return s


case(enumerate_weights_reversed, lambda r: (vec(r, 4),), "works")


def reversed_range_index(x):
    s = x[0] * 0.0
    for i in reversed(range(len(x))):
        s = s * 0.5 + x[i]
    return s


case(reversed_range_index, lambda r: (vec(r, 4),), "works")


def list_of_lists_augmented(x):
    a = [[x[0], x[1]], [x[2], x[3]]]
    a[0][1] += x[2] * 3.0
    a[1][0] *= x[0]
    return a[0][0] + a[0][1] * a[1][0] + a[1][1]


case(list_of_lists_augmented, lambda r: (vec(r, 4),), "works")


def list_aliasing_rows(x):
    row = [x[0], x[1]]
    grid = [row, row]
    grid[0][0] = x[2]
    return grid[1][0] * 5.0 + grid[0][1]


case(list_aliasing_rows, lambda r: (vec(r, 3),), "either")


def list_multiplication_aliasing(x):
    grid = [[0.0] * 2] * 2
    grid[0][0] = x[0]
    return grid[1][0] * x[1]


case(list_multiplication_aliasing, lambda r: (vec(r, 2),), "either")


class _Box:
    def __init__(self, v):
        self.v = v


def attribute_augmented_assign(x):
    b = _Box(x[0])
    for k in range(3):
        b.v += x[k] * b.v
    return b.v


case(attribute_augmented_assign, lambda r: (vec(r, 3),), "either")


def dict_accumulate(x):
    d = {"a": 0.0, "b": 1.0}
    for v in x:
        d["a"] += v
        d["b"] *= v
    return d["a"] * d["b"]


case(dict_accumulate, lambda r: (vec(r, 3),), "works")


def dict_get_default(x):
    d = {"w": x[0] * 2.0}
    return d.get("w", 0.0) * d.get("missing", x[1])


case(dict_get_default, lambda r: (vec(r, 2),), "works")


def list_pop_and_insert(x):
    xs = [x[0], x[1], x[2]]
    last = xs.pop()
    xs.insert(0, last * 2.0)
    return xs[0] * xs[1] + xs[2]


case(list_pop_and_insert, lambda r: (vec(r, 3),), "works")


def list_extend_and_reverse(x):
    xs = [x[0]]
    xs.extend([x[1] * 2.0, x[2]])
    xs.reverse()
    return xs[0] * 3.0 + xs[2]


case(list_extend_and_reverse, lambda r: (vec(r, 3),), "works")


def list_sort_in_place(x):
    xs = [x[0], x[1], x[2]]
    xs.sort()
    return xs[0] * 1.0 + xs[1] * 2.0 + xs[2] * 3.0


case(list_sort_in_place, lambda r: (np.array([0.7, -0.2, 0.4]),), "either")


def integer_counter_float_weight(x):
    n = 0
    s = 0.0
    for v in x:
        if v > 0:
            n += 1
            s = s + v
    return s / n


case(integer_counter_float_weight, lambda r: (np.array([0.3, -0.4, 0.8, 0.1]),), "works")


def lambda_in_loop_captures_late(x):
    fs = []
    for k in range(3):
        fs.append(lambda v: v * k)
    return sum(f(x[0]) for f in fs)


case(lambda_in_loop_captures_late, lambda r: (vec(r, 2),), "either")


def lambda_default_captures_early(x):
    fs = [lambda v, k=k: v * k for k in range(3)]
    return sum(f(x[0]) for f in fs) + x[1]


case(lambda_default_captures_early, lambda r: (vec(r, 2),), "either")


def recursion_power(x, n=4):
    if n == 0:
        return x[0] * 0.0 + 1.0
    return x[0] * recursion_power(x, n - 1)


case(recursion_power, lambda r: (vec(r, 2),), "works")


def while_true_break(x):
    y = x[0]
    k = 0
    while True:
        y = y * 0.9 + x[1]
        k += 1
        if k >= 4:
            break
    return y


case(while_true_break, lambda r: (vec(r, 2),), "works")


def for_else_break_data_dependent(x):
    acc = 0.0
    for v in x:
        if v > 0.5:
            acc = acc + v * 10.0
            break
        acc = acc + v
    else:
        acc = acc * 2.0
    return acc


case(for_else_break_data_dependent, lambda r: (np.array([0.1, 0.2, 0.7, 0.9]),), "works", name="for_else_breaks")
case(for_else_break_data_dependent, lambda r: (np.array([0.1, 0.2, 0.3, 0.4]),), "works", name="for_else_runs_else")


# ============================================================ NumPy aliasing: views, out=, copyto, fill, put, flat
def view_slice_write_through(x):
    y = x.copy()
    v = y[1:]
    v[0] = 5.0 * x[0]
    return jnp.sum(y * y)


case(view_slice_write_through, lambda r: (vec(r, 4),), "either")


def view_write_through_numpy(x):
    y = np.array(x)
    v = y[::2]
    v *= 3.0
    return np.sum(y * x)


case(view_write_through_numpy, lambda r: (vec(r, 5),), "either")


def reshape_view_inplace(A):
    B = A.copy()
    flat = B.reshape(-1)
    flat[0] = flat[0] * 10.0
    return jnp.sum(B * A)


case(reshape_view_inplace, lambda r: (mat(r, 2),), "either")


def transpose_view_inplace(A):
    B = A.copy()
    T = B.T
    T[0, 1] = 2.0 * A[0, 0]
    return jnp.sum(B ** 2)


case(transpose_view_inplace, lambda r: (mat(r, 2),), "either")


def double_transpose_is_same(A):
    B = A.copy()
    C = B.T.T
    C[0, 0] = 0.0
    return jnp.sum(B * A)


case(double_transpose_is_same, lambda r: (mat(r, 2),), "either")


def ravel_view_write(A):
    B = A.copy()
    r_ = B.ravel()
    r_[1] += A[1, 1]
    return jnp.sum(B * B)


case(ravel_view_write, lambda r: (mat(r, 2),), "either")


def flatten_is_copy(A):
    B = A.copy()
    f = B.flatten()
    f[0] = 100.0
    return jnp.sum(B * A) + f[0] * A[0, 0]


case(flatten_is_copy, lambda r: (mat(r, 2),), "either")


def basic_index_row_view(A):
    B = A.copy()
    row = B[0]
    row += A[1]
    return jnp.sum(B * B)


case(basic_index_row_view, lambda r: (mat(r, 2),), "either")


def fancy_index_is_copy(x):
    y = x.copy()
    z = y[[0, 1]]
    z[0] = 7.0
    return jnp.sum(y * x) + z[0]


case(fancy_index_is_copy, lambda r: (vec(r, 3),), "either")


def np_copyto_from_expression(x):
    y = np.zeros(3)
    np.copyto(y, x * x)
    return np.sum(y * x)


case(np_copyto_from_expression, lambda r: (vec(r, 3),), "either")


def np_copyto_with_where(x):
    y = x.copy()
    np.copyto(y, x * 3.0, where=x > 0)
    return np.sum(y * y)


case(np_copyto_with_where, lambda r: (np.array([0.5, -0.3, 0.8]),), "either")


def out_argument_add(x):
    y = np.empty(3)
    np.add(x, x * x, out=y)
    return np.sum(y)


case(out_argument_add, lambda r: (vec(r, 3),), "either")


def out_argument_into_input(x):
    y = x.copy()
    np.multiply(y, x, out=y)
    np.exp(y, out=y)
    return np.sum(y)


case(out_argument_into_input, lambda r: (vec(r, 3),), "either")


def fill_then_add(x):
    y = np.empty(3)
    y.fill(x[0])
    return np.sum(y * x)


case(fill_then_add, lambda r: (vec(r, 3),), "either")


def np_put_values(x):
    y = np.zeros(4)
    np.put(y, [0, 2], x[:2] * 3.0)
    return np.sum(y * y)


case(np_put_values, lambda r: (vec(r, 3),), "either")


def flat_iterator_sum(A):
    s = 0.0
    for v in A.flat:
        s = s + v * v
    return s


case(flat_iterator_sum, lambda r: (mat(r, 2),), "either")


def flat_assignment(A):
    B = A.copy()
    B.flat[3] = A[0, 0] * 2.0
    return jnp.sum(B * B)


case(flat_assignment, lambda r: (mat(r, 2),), "either")


def float_of_traced_scalar(x):
    s = float(jnp.sum(x * x))
    return s * x[0]


case(float_of_traced_scalar, lambda r: (vec(r, 3),), "either")


def item_of_traced_scalar(x):
    s = (x[1] * x[1]).item()
    return s + x[0]


case(item_of_traced_scalar, lambda r: (vec(r, 3),), "either")


def tolist_of_traced_array(x):
    vals = (x * 2.0).tolist()
    return vals[0] * x[1] + vals[2]


case(tolist_of_traced_array, lambda r: (vec(r, 3),), "either")


def int_cast_scale_is_flat(x):
    n = int(x[0] * 10.0)
    return n * 1.0 + x[1]


case(int_cast_scale_is_flat, lambda r: (np.array([0.33, 0.7]),), "either")


def astype_int_then_float(x):
    k = (x * 4.0).astype(np.int64).astype(np.float64)
    return jnp.sum(k * x)


case(astype_int_then_float, lambda r: (np.array([0.33, 0.71, -0.2]),), "works")


def setitem_of_argument_copy_twice(x):
    y = x.copy()
    z = y
    z[0] = x[1] * 2.0
    return jnp.sum(y * x)


case(setitem_of_argument_copy_twice, lambda r: (vec(r, 3),), "either")


def mutate_argument_then_read_original(x):
    x2 = x
    x2 = x2 * 2.0
    return jnp.sum(x2 * x)


case(mutate_argument_then_read_original, lambda r: (vec(r, 3),), "works")


def iadd_on_argument_alias(x):
    y = np.array(x, copy=True)
    z = y
    z += x
    return np.sum(y * x)


case(iadd_on_argument_alias, lambda r: (vec(r, 3),), "either")


def inplace_on_slice_of_slice(x):
    y = x.copy()
    y[1:][1:] = x[:2] * 4.0
    return jnp.sum(y * y)


case(inplace_on_slice_of_slice, lambda r: (vec(r, 4),), "either")


def reversed_slice_then_slice(x):
    return jnp.sum(x[::-1][1:] * x[:-1])


case(reversed_slice_then_slice, lambda r: (vec(r, 4),), "works")


def negative_step_with_bounds(x):
    return jnp.sum(x[3:0:-2] * x[:2] ** 2)


case(negative_step_with_bounds, lambda r: (vec(r, 5),), "works")


def ellipsis_none_broadcast(x):
    return jnp.sum(x[..., None] * x[None, ...])


case(ellipsis_none_broadcast, lambda r: (vec(r, 3),), "works")


def boolean_mask_read(x):
    return jnp.sum(x[x > 0] ** 2)


case(boolean_mask_read, lambda r: (np.array([0.5, -0.3, 0.8, -0.1]),), "either")


def boolean_mask_write(x):
    y = x.copy()
    y[y < 0] = 0.0
    return jnp.sum(y * x)


case(boolean_mask_write, lambda r: (np.array([0.5, -0.3, 0.8, -0.1]),), "either")


def boolean_mask_write_from_other_array(x):
    y = x.copy()
    m = x > 0
    y[m] = x[m] ** 3
    return jnp.sum(y)


case(boolean_mask_write_from_other_array, lambda r: (np.array([0.5, -0.3, 0.8, -0.1]),), "either")


def where_one_argument_index(x):
    idx = np.where(x > 0)[0]
    return jnp.sum(x[idx] * 2.0)


case(where_one_argument_index, lambda r: (np.array([0.5, -0.3, 0.8, -0.1]),), "either")


def duplicate_index_setitem_last_wins(x):
    y = np.zeros(3)
    y[[0, 0, 1]] = x[:3]
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


case(duplicate_index_setitem_last_wins, lambda r: (vec(r, 3),), "either")


def duplicate_index_iadd_buffered(x):
    y = x.copy()
    y[[0, 0, 1]] += x[:3] * 2.0
    return jnp.sum(y * y)


case(duplicate_index_iadd_buffered, lambda r: (vec(r, 3),), "either")


def np_add_at_unbuffered(x):
    y = x.copy()
    np.add.at(y, [0, 0, 1], x[:3] * 2.0)
    return np.sum(y * y)


case(np_add_at_unbuffered, lambda r: (vec(r, 3),), "either")


def duplicate_gather_grad_accumulates(x):
    idx = np.array([2, 2, 0, 2])
    return jnp.sum(x[idx] ** 2)


case(duplicate_gather_grad_accumulates, lambda r: (vec(r, 3),), "works")


def at_set_duplicates(x):
    y = jnp.zeros(3, dtype=jnp.float64).at[np.array([1, 1])].set(x[:2])
    return jnp.sum(y * y)


case(at_set_duplicates, lambda r: (vec(r, 3),), "either")


# ============================================================ numerical programs
def _hessian_check(fn, args):
    import astjax
    from .harness import fd_hessian
    H = fd_hessian(fn, args)
    return [(astjax.hessian(fn)(*args), H, "hessian(f)"),
            (astjax.jacfwd(astjax.grad(fn))(*args), H, "jacfwd(grad(f))")]


def hess(fn, make_args, outcome="works", rtol=1e-4, name=None):
    """Register fn's Hessian (forward over reverse, both ways) against second finite differences."""
    case(fn, make_args, outcome, mode="custom", check=_hessian_check, rtol=rtol,
         name=(name or fn.__name__) + "_hessian")


def euler_ode_decay(p):
    y = 1.0
    dt = 0.1
    for _ in range(10):
        y = y + dt * (-p[0] * y + p[1] * math.sin(0.3))
    return y


case(euler_ode_decay, lambda r: (pos(r, 2),), "works")
hess(euler_ode_decay, lambda r: (pos(r, 2),))


def rk4_pendulum(p):
    th, om = p[0], p[1]
    h = 0.05

    def f(a, b):
        return b, -jnp.sin(a) - 0.1 * b

    for _ in range(4):
        k1a, k1b = f(th, om)
        k2a, k2b = f(th + h / 2 * k1a, om + h / 2 * k1b)
        k3a, k3b = f(th + h / 2 * k2a, om + h / 2 * k2b)
        k4a, k4b = f(th + h * k3a, om + h * k3b)
        th = th + h / 6 * (k1a + 2 * k2a + 2 * k3a + k4a)
        om = om + h / 6 * (k1b + 2 * k2b + 2 * k3b + k4b)
    return th * th + om


case(rk4_pendulum, lambda r: (vec(r, 2),), "works")


def rk4_vector_state(y0):
    y = y0
    A = np.array([[0.0, 1.0, 0.0], [-1.0, -0.2, 0.3], [0.1, 0.0, -0.5]])
    h = 0.1
    for _ in range(5):
        k1 = A @ y
        k2 = A @ (y + h / 2 * k1)
        k3 = A @ (y + h / 2 * k2)
        k4 = A @ (y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return jnp.sum(y * y * y)


case(rk4_vector_state, lambda r: (vec(r, 3),), "works")


def newton_sqrt_tolerance(a):
    x = a[0]
    while abs(x * x - a[0]) > 1e-12:
        x = 0.5 * (x + a[0] / x)
    return x + a[1]


case(newton_sqrt_tolerance, lambda r: (pos(r, 2, 2.0, 3.0),), "works", rtol=1e-4)


def newton_cubic_root_fixed_iterations(c):
    x = 1.0
    for _ in range(30):
        x = x - (x ** 3 + c[0] * x - c[1]) / (3 * x ** 2 + c[0])
    return x


case(newton_cubic_root_fixed_iterations, lambda r: (pos(r, 2),), "works", rtol=1e-4)
hess(newton_cubic_root_fixed_iterations, lambda r: (pos(r, 2),), rtol=1e-3)


def bisection_root(c):
    lo, hi = 0.0, 2.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if mid * mid - c[0] > 0:
            hi = mid
        else:
            lo = mid
    return lo * c[1]


def _check_bisection(fn, args):
    # lo is a constant chosen by branches: the program's derivative in c[0] is zero almost everywhere
    # (as JAX gives), though finite differences see the sqrt the steps approximate; in c[1] it is lo.
    import astjax
    value, g = astjax.value_and_grad(fn)(*args)
    lo = fn(np.array([args[0][0], 1.0]))
    return [(value, fn(*args), "value"), (g, np.array([0.0, lo]), "grad")]


case(bisection_root, lambda r: (pos(r, 2),), "works", mode="custom", check=_check_bisection)


def fixed_point_cosine(p):
    x = 0.5
    for _ in range(60):
        x = jnp.cos(p[0] * x)
    return x


case(fixed_point_cosine, lambda r: (pos(r, 1, 0.5, 0.9),), "works", rtol=1e-4)


def fixed_point_while_tolerance(p):
    x = 0.5
    dx = 1.0
    while dx > 1e-13:
        x_new = jnp.cos(p[0] * x)
        dx = abs(x_new - x)
        x = x_new
    return x


case(fixed_point_while_tolerance, lambda r: (pos(r, 1, 0.5, 0.9),), "works", rtol=1e-4)


def _softmin(a, b, c, gamma):
    m = min(a, b, c)
    return m - gamma * jnp.log(jnp.exp(-(a - m) / gamma) + jnp.exp(-(b - m) / gamma)
                               + jnp.exp(-(c - m) / gamma))


def soft_dtw(x):
    y = np.array([0.2, -0.4, 0.9])
    n, m = len(x), len(y)
    R = [[np.inf] * (m + 1) for _ in range(n + 1)]
    R[0][0] = 0.0
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (x[i - 1] - y[j - 1]) ** 2
            R[i][j] = cost + _softmin(R[i - 1][j], R[i][j - 1], R[i - 1][j - 1], 0.5)
    return R[n][m]


case(soft_dtw, lambda r: (vec(r, 3),), "either")


def soft_dtw_array_table(x):
    y = np.array([0.2, -0.4, 0.9])
    n, m = 3, 3
    R = jnp.full((n + 1, m + 1), 1e10, dtype=jnp.float64)
    R = R.at[0, 0].set(0.0)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = (x[i - 1] - y[j - 1]) ** 2
            a, b, c = R[i - 1, j], R[i, j - 1], R[i - 1, j - 1]
            mn = jnp.minimum(jnp.minimum(a, b), c)
            sm = mn - 0.5 * jnp.log(jnp.exp(-(a - mn) / 0.5) + jnp.exp(-(b - mn) / 0.5) + jnp.exp(-(c - mn) / 0.5))
            R = R.at[i, j].set(cost + sm)
    return R[n, m]


case(soft_dtw_array_table, lambda r: (vec(r, 3),), "works")


def edit_distance_soft(x):
    # Soft Levenshtein-like recurrence over Python floats/scalars kept in a 1D rolling list.
    prev = [float(j) for j in range(4)]
    for i in range(3):
        cur = [prev[0] + 1.0]
        for j in range(1, 4):
            sub = prev[j - 1] + (x[i] - 0.1 * j) ** 2
            ins = cur[j - 1] + 1.0
            dele = prev[j] + 1.0
            cur.append(-jnp.log(jnp.exp(-sub) + jnp.exp(-ins) + jnp.exp(-dele)))
        prev = cur
    return prev[3]


case(edit_distance_soft, lambda r: (vec(r, 3),), "works")


def running_max_by_hand(x):
    m = x[0]
    out = 0.0
    for v in x:
        if v > m:
            m = v
        out = out + m
    return out


case(running_max_by_hand, lambda r: (np.array([0.1, 0.5, 0.3, 0.8, 0.2]),), "works")


def running_min_builtin(x):
    m = x[0]
    out = 0.0
    for k in range(1, len(x)):
        m = min(m, x[k])
        out = out + m * x[k]
    return out


case(running_min_builtin, lambda r: (np.array([0.9, 0.5, 0.7, 0.2, 0.4]),), "works")


def cumsum_by_hand_into_array(x):
    c = np.zeros_like(x)
    c[0] = x[0]
    for k in range(1, len(x)):
        c[k] = c[k - 1] + x[k]
    return np.sum(c * c)


case(cumsum_by_hand_into_array, lambda r: (vec(r, 4),), "works")


def cumprod_by_hand_list(x):
    out = [x[0]]
    for v in x[1:]:
        out.append(out[-1] * v)
    return sum(out)


case(cumprod_by_hand_list, lambda r: (vec(r, 4),), "works")


def softmax_max_trick(x):
    z = x - jnp.max(x)
    e = jnp.exp(z)
    p = e / jnp.sum(e)
    return jnp.sum(p * np.array([1.0, -2.0, 3.0, 0.5]))


case(softmax_max_trick, lambda r: (vec(r, 4),), "works")
hess(softmax_max_trick, lambda r: (vec(r, 4),))


def softmax_max_trick_with_tie(x):
    z = x - np.max(x)
    e = np.exp(z)
    return np.sum(e / np.sum(e) * np.array([1.0, -2.0, 3.0, 0.5]))


case(softmax_max_trick_with_tie, lambda r: (np.array([0.7, 0.7, -0.2, 0.1]),), "works")
hess(softmax_max_trick_with_tie, lambda r: (np.array([0.7, 0.7, -0.2, 0.1]),))


def logsumexp_by_hand(x):
    m = jnp.max(x)
    return m + jnp.log(jnp.sum(jnp.exp(x - m)))


case(logsumexp_by_hand, lambda r: (vec(r, 4),), "works")
hess(logsumexp_by_hand, lambda r: (vec(r, 4),))


def logsumexp_stop_gradient_max(x):
    m = lax.stop_gradient(jnp.max(x))
    return m + jnp.log(jnp.sum(jnp.exp(x - m)))


case(logsumexp_stop_gradient_max, lambda r: (vec(r, 4),), "works")


def stable_sigmoid_branches(x):
    s = 0.0
    for v in x:
        if v >= 0:
            s = s + 1.0 / (1.0 + jnp.exp(-v))
        else:
            e = jnp.exp(v)
            s = s + e / (1.0 + e)
    return s


case(stable_sigmoid_branches, lambda r: (np.array([0.4, -1.3, 2.0, -0.1]),), "works")
hess(stable_sigmoid_branches, lambda r: (np.array([0.4, -1.3, 2.0, -0.1]),))


def stable_sigmoid_where(x):
    e = jnp.exp(-jnp.abs(x))
    return jnp.sum(jnp.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e)))


case(stable_sigmoid_where, lambda r: (np.array([0.4, -1.3, 2.0, -0.1]),), "works")
hess(stable_sigmoid_where, lambda r: (np.array([0.4, -1.3, 2.0, -0.1]),))


def horner_polynomial(x):
    coeffs = [0.5, -1.0, 2.0, 0.3, -0.7]
    acc = 0.0
    for c in coeffs:
        acc = acc * x[0] + c
    return acc * x[1]


case(horner_polynomial, lambda r: (vec(r, 2),), "works")
hess(horner_polynomial, lambda r: (vec(r, 2),))


def horner_coefficients_are_input(c):
    acc = c[0] * 0.0
    t = 0.7
    for k in range(len(c)):
        acc = acc * t + c[k]
    return acc * acc


case(horner_coefficients_are_input, lambda r: (vec(r, 5),), "works")


def gram_schmidt(A):
    Q = []
    for k in range(A.shape[1]):
        v = A[:, k]
        for q in Q:
            v = v - jnp.dot(q, v) * q
        Q.append(v / jnp.linalg.norm(v))
    return jnp.sum(jnp.stack(Q, axis=1) * np.arange(1.0, 10.0).reshape(3, 3))


case(gram_schmidt, lambda r: (mat(r, 3) + 2 * np.eye(3),), "works", rtol=1e-4)


def gram_schmidt_modified_in_place(A):
    V = A.copy()
    n = V.shape[1]
    for k in range(n):
        V[:, k] = V[:, k] / np.sqrt(np.sum(V[:, k] ** 2))
        for j in range(k + 1, n):
            V[:, j] = V[:, j] - np.dot(V[:, k], V[:, j]) * V[:, k]
    return np.sum(V * np.arange(1.0, 10.0).reshape(3, 3))


case(gram_schmidt_modified_in_place, lambda r: (mat(r, 3) + 2 * np.eye(3),), "works", rtol=1e-4)


def power_iteration(A):
    S = A @ A.T + 3.0 * np.eye(3)
    v = np.ones(3) / np.sqrt(3.0)
    for _ in range(60):
        w = S @ v
        v = w / jnp.linalg.norm(w)
    return v @ S @ v


case(power_iteration, lambda r: (mat(r, 3),), "works", rtol=1e-3)


def kahan_summation(x):
    s = 0.0
    c = 0.0
    for v in x:
        y = v * v - c
        t = s + y
        c = (t - s) - y
        s = t
    return s


case(kahan_summation, lambda r: (vec(r, 5),), "works")


def sorting_network_4(x):
    a, b, c, d = x[0], x[1], x[2], x[3]

    def cs(p, q):
        return (p, q) if p < q else (q, p)

    a, b = cs(a, b)
    c, d = cs(c, d)
    a, c = cs(a, c)
    b, d = cs(b, d)
    b, c = cs(b, c)
    return a * 1.0 + b * 2.0 + c * 3.0 + d * 4.0


case(sorting_network_4, lambda r: (np.array([0.7, -0.2, 0.4, 0.1]),), "works")


def sorting_network_min_max(x):
    a, b, c = x[0], x[1], x[2]
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    b, c = jnp.minimum(b, c), jnp.maximum(b, c)
    a, b = jnp.minimum(a, b), jnp.maximum(a, b)
    return a + 2.0 * b + 3.0 * c * c


case(sorting_network_min_max, lambda r: (np.array([0.7, -0.2, 0.4]),), "works")


def bubble_sort_list(x):
    xs = [x[k] for k in range(len(x))]
    n = len(xs)
    for i in range(n):
        for j in range(n - 1 - i):
            if xs[j] > xs[j + 1]:
                xs[j], xs[j + 1] = xs[j + 1], xs[j]
    return sum((k + 1) * v for k, v in enumerate(xs))


case(bubble_sort_list, lambda r: (np.array([0.7, -0.2, 0.4, 0.1]),), "works")


def bubble_sort_array_swap(x):
    y = x.copy()
    n = len(y)
    for i in range(n):
        for j in range(n - 1 - i):
            if y[j] > y[j + 1]:
                y[j], y[j + 1] = y[j + 1], y[j]
    return jnp.sum(y * np.arange(1.0, n + 1.0))


case(bubble_sort_array_swap, lambda r: (np.array([0.7, -0.2, 0.4, 0.1]),), "either")


def array_swap_via_tuple(x):
    y = x.copy()
    y[0], y[2] = y[2], y[0]
    return jnp.sum(y * np.array([1.0, 2.0, 3.0]))


case(array_swap_via_tuple, lambda r: (vec(r, 3),), "either")


def array_row_swap_via_fancy(A):
    B = A.copy()
    B[[0, 1]] = B[[1, 0]]
    return jnp.sum(B * np.array([[1.0, 2.0], [3.0, 4.0]]))


case(array_row_swap_via_fancy, lambda r: (mat(r, 2),), "either")


def array_row_swap_via_views(A):
    B = A.copy()
    B[0], B[1] = B[1], B[0]
    return jnp.sum(B * np.array([[1.0, 2.0], [3.0, 4.0]]))


# NumPy: B[1] is a view; after B[0] = B[1] the view B[0] (the right side's second item) now holds row 1.
case(array_row_swap_via_views, lambda r: (mat(r, 2),), "either")


# ============================================================ library keywords a rule may ignore
def norm_ord_one(x):
    return np.linalg.norm(x, ord=1) + np.linalg.norm(x, 1) * 0.5


case(norm_ord_one, lambda r: (np.array([0.3, -0.8, 0.6]),), "works")


def norm_ord_inf(x):
    return jnp.linalg.norm(x, ord=np.inf) + jnp.linalg.norm(x, -np.inf)


case(norm_ord_inf, lambda r: (np.array([0.3, -0.8, 0.6]),), "works")


def norm_ord_three(x):
    return jnp.linalg.norm(x, ord=3)


case(norm_ord_three, lambda r: (np.array([0.3, -0.8, 0.6]),), "works")


def norm_matrix_fro_and_nuc(A):
    return jnp.linalg.norm(A, "fro") + jnp.linalg.norm(A, ord=1) + jnp.linalg.norm(A, np.inf)


case(norm_matrix_fro_and_nuc, lambda r: (mat(r, 3),), "works")


def norm_axis_keepdims(A):
    n = np.linalg.norm(A, axis=0, keepdims=True)
    return np.sum(A / n * np.arange(1.0, 7.0).reshape(2, 3))


case(norm_axis_keepdims, lambda r: (mat(r, 2, 3),), "works")


def norm_matrix_two(A):
    return jnp.linalg.norm(A, ord=2)


case(norm_matrix_two, lambda r: (mat(r, 3),), "either")


def diff_second_order(x):
    return np.sum(np.diff(x, n=2) ** 2) + np.sum(np.diff(x, 1) * x[1:])


case(diff_second_order, lambda r: (vec(r, 5),), "works")


def diff_axis_zero_with_prepend(A):
    return jnp.sum(jnp.diff(A, axis=0) ** 2) + jnp.sum(jnp.diff(A, prepend=0.0) * A)


case(diff_axis_zero_with_prepend, lambda r: (mat(r, 3),), "works")


def trace_with_offset(A):
    return jnp.trace(A, offset=1) * 3.0 + jnp.trace(A, -1) + jnp.trace(A)


case(trace_with_offset, lambda r: (mat(r, 3),), "works")


def diagonal_offset(A):
    return jnp.sum(jnp.diagonal(A, offset=-1) ** 2) + jnp.sum(A.diagonal(1) * 2.0)


case(diagonal_offset, lambda r: (mat(r, 3),), "works")


def roll_with_axis(A):
    W = np.arange(6.0).reshape(2, 3)
    return np.sum(np.roll(A, 1, axis=1) * W) + np.sum(np.roll(A, -1) * W ** 2)


case(roll_with_axis, lambda r: (mat(r, 2, 3),), "works")


def var_std_ddof(x):
    return jnp.var(x, ddof=1) * 3.0 + jnp.std(x, ddof=1) + x.var() + x.std(ddof=2)


case(var_std_ddof, lambda r: (vec(r, 5),), "works")


def mean_with_where(x):
    return jnp.mean(x, where=x > 0) + jnp.sum(x * x, where=np.array([True, False, True, True]))


case(mean_with_where, lambda r: (np.array([0.5, -0.3, 0.8, 0.2]),), "works")


def average_with_weights(x):
    w = np.array([1.0, 2.0, 3.0, 4.0])
    return np.average(x ** 2, weights=w) + np.average(x, weights=x * x + 1.0)


case(average_with_weights, lambda r: (vec(r, 4),), "works")


def cumsum_axis_and_reverse(A):
    W = np.arange(6.0).reshape(3, 2)
    return jnp.sum(jnp.cumsum(A, axis=0) * W) + jnp.sum(jnp.cumsum(A[::-1], axis=1) * W)


case(cumsum_axis_and_reverse, lambda r: (mat(r, 3, 2),), "works")


def cumprod_with_zero(x):
    y = x.copy()
    y[1] = 0.0
    return jnp.sum(jnp.cumprod(y) * np.array([1.0, 2.0, 3.0, 4.0]))


case(cumprod_with_zero, lambda r: (vec(r, 4),), "either")


def cumprod_plain(x):
    return jnp.sum(jnp.cumprod(x) * np.array([1.0, 2.0, 3.0, 4.0]))


case(cumprod_plain, lambda r: (vec(r, 4),), "works")


def prod_axis_keepdims(A):
    return jnp.sum(jnp.prod(A, axis=1, keepdims=True) * A)


case(prod_axis_keepdims, lambda r: (mat(r, 3),), "works")


def repeat_with_axis(A):
    W = np.arange(12.0).reshape(2, 6)
    return jnp.sum(jnp.repeat(A, 2, axis=1) * W) + jnp.sum(jnp.repeat(A, np.array([1, 2]), axis=0) ** 2)


case(repeat_with_axis, lambda r: (mat(r, 2, 3),), "works")


def tile_and_flip(x):
    W = np.arange(8.0)
    return jnp.sum(jnp.tile(x, 2) * W) + jnp.sum(jnp.flip(x) * W[:4] ** 2)


case(tile_and_flip, lambda r: (vec(r, 4),), "works")


def tril_triu_offsets(A):
    return jnp.sum(jnp.tril(A, -1) * 2.0) + jnp.sum(jnp.triu(A, 1) ** 2) + jnp.sum(jnp.tril(A) * A)


case(tril_triu_offsets, lambda r: (mat(r, 3),), "works")


def einsum_repeated_index(A):
    return jnp.einsum("ii->", A) * 2.0 + jnp.sum(jnp.einsum("ii->i", A) ** 2) + jnp.einsum("ij,ij->", A, A)


case(einsum_repeated_index, lambda r: (mat(r, 3),), "works")


def einsum_broadcast_ellipsis(A):
    return jnp.sum(jnp.einsum("...ij,...jk->...ik", A, A) * 0.5)


case(einsum_broadcast_ellipsis, lambda r: (mat(r, 3),), "works")


def tensordot_axes(A):
    B = np.arange(9.0).reshape(3, 3)
    return jnp.sum(jnp.tensordot(A, B, axes=([0], [1])) ** 2) + jnp.tensordot(A, A, axes=2)


case(tensordot_axes, lambda r: (mat(r, 3),), "works")


def outer_kron(x):
    return jnp.sum(jnp.outer(x, x[::-1]) ** 2) + jnp.sum(jnp.kron(x, np.array([1.0, -1.0])) * np.arange(6.0))


case(outer_kron, lambda r: (vec(r, 3),), "works")


def interp_and_polyval(x):
    return np.interp(0.3, np.array([0.0, 0.5, 1.0]), x) + np.polyval(x, 0.7)


case(interp_and_polyval, lambda r: (vec(r, 3),), "works")


def convolve_modes(x):
    k = np.array([0.25, 0.5, 0.25])
    return jnp.sum(jnp.convolve(x, k, mode="same") ** 2) + jnp.sum(jnp.convolve(x, k, mode="valid") * 3.0)


case(convolve_modes, lambda r: (vec(r, 5),), "works")


def trapezoid_with_x(y):
    t = np.array([0.0, 0.1, 0.4, 1.0])
    return np.trapezoid(y ** 2, t) + np.trapezoid(y, dx=0.5)


case(trapezoid_with_x, lambda r: (vec(r, 4),), "works")


def hypot_arctan2_logaddexp(x):
    return jnp.hypot(x[0], x[1]) + jnp.arctan2(x[1], x[0]) + jnp.logaddexp(x[0], x[2]) + jnp.logaddexp2(x[1], x[2])


case(hypot_arctan2_logaddexp, lambda r: (vec(r, 3),), "works")
hess(hypot_arctan2_logaddexp, lambda r: (vec(r, 3),))


def expm1_log1p_sinc(x):
    return jnp.sum(jnp.expm1(x) * jnp.log1p(x * x) + jnp.sinc(x))


case(expm1_log1p_sinc, lambda r: (vec(r, 3),), "works")
hess(expm1_log1p_sinc, lambda r: (vec(r, 3),))


def median_and_percentile(x):
    return jnp.median(x) * 2.0 + jnp.percentile(x, 30.0) + jnp.quantile(x, 0.75)


case(median_and_percentile, lambda r: (np.array([0.3, -0.8, 0.6, 0.1, 0.9]),), "works")


def median_even_count(x):
    return jnp.median(x ** 2)


case(median_even_count, lambda r: (np.array([0.3, -0.8, 0.6, 0.1]),), "works")


def max_axis_with_column_tie(A):
    B = jnp.concatenate([A, A[:1]], axis=0)
    return jnp.sum(jnp.max(B, axis=0) * np.array([1.0, 2.0]))


case(max_axis_with_column_tie, lambda r: (np.array([[0.9, 0.1], [0.2, 0.3]]),), "either")


def maximum_accumulate(x):
    return np.sum(np.maximum.accumulate(x) * np.arange(1.0, 5.0))


case(maximum_accumulate, lambda r: (np.array([0.1, 0.5, 0.3, 0.8]),), "either")


def ufunc_reduce(x):
    return np.add.reduce(x * x) + np.multiply.reduce(x)


case(ufunc_reduce, lambda r: (vec(r, 3),), "either")


def slogdet_and_eigh(A):
    S = A @ A.T + 3.0 * np.eye(3)
    sign, logdet = jnp.linalg.slogdet(S)
    w, V = jnp.linalg.eigh(S)
    return logdet * sign + jnp.sum(w * np.array([1.0, 2.0, 3.0]))


case(slogdet_and_eigh, lambda r: (mat(r, 3),), "either", rtol=1e-4)


def cholesky_solve(A):
    S = A @ A.T + 3.0 * np.eye(3)
    L = jnp.linalg.cholesky(S)
    return jnp.sum(L * np.arange(9.0).reshape(3, 3))


case(cholesky_solve, lambda r: (mat(r, 3),), "either", rtol=1e-4)


def dot_matrix_vector_orders(A):
    v = np.array([1.0, -2.0, 0.5])
    return jnp.dot(v, A) @ jnp.dot(A, v) + A.dot(v).dot(v) + jnp.inner(A, A)[0, 1] + jnp.vdot(A, A)


case(dot_matrix_vector_orders, lambda r: (mat(r, 3),), "works")


def sum_with_initial_and_dtype(x):
    return jnp.sum(x, initial=2.0) * x[0] + jnp.sum(x * x, dtype=jnp.float64)


case(sum_with_initial_and_dtype, lambda r: (vec(r, 3),), "works")


def max_with_initial(x):
    return jnp.max(x, initial=0.5) + jnp.min(x, initial=-0.5)


case(max_with_initial, lambda r: (np.array([0.3, -0.2, 0.1]),), "works", name="max_with_initial_wins")
case(max_with_initial, lambda r: (np.array([0.9, -0.8, 0.1]),), "works", name="max_with_initial_loses")


def clip_with_array_bounds(x):
    lo = np.array([-0.5, 0.0, 0.2])
    return jnp.sum(jnp.clip(x, lo, 0.6) ** 2) + jnp.sum(x.clip(max=0.1) * 3.0)


case(clip_with_array_bounds, lambda r: (np.array([-0.9, 0.3, 0.9]),), "works")


def where_with_nan_guard(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.sum(jnp.where(x > 0, jnp.log(safe), x * 2.0))


case(where_with_nan_guard, lambda r: (np.array([0.5, -0.3, 0.8]),), "works")
hess(where_with_nan_guard, lambda r: (np.array([0.5, -0.3, 0.8]),))


def heaviside_and_sign(x):
    return jnp.sum(jnp.heaviside(x, 0.5) * x * x + jnp.sign(x) * x)


case(heaviside_and_sign, lambda r: (np.array([0.5, -0.3, 0.8]),), "works")


# ============================================================ values the activity analysis may drop
def _write_into(buf, v):
    buf[0] = v * 2.0


def helper_mutates_buffer_result_ignored(x):
    buf = np.zeros(2)
    _write_into(buf, x[0])
    return np.sum(buf * x)


case(helper_mutates_buffer_result_ignored, lambda r: (vec(r, 2),), "either")


def _append_square(acc, v):
    acc.append(v * v)


def helper_appends_to_list(x):
    acc = []
    for v in x:
        _append_square(acc, v)
    return sum(acc)


case(helper_appends_to_list, lambda r: (vec(r, 3),), "either")


def _scale_in_place(a, k):
    a *= k
    return None


def helper_scales_argument_in_place(x):
    y = x.copy()
    _scale_in_place(y, x[0])
    return jnp.sum(y)


case(helper_scales_argument_in_place, lambda r: (vec(r, 3),), "either")


class _Accumulator:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total = self.total + v * v
        return self


def method_stores_on_self(x):
    acc = _Accumulator()
    for v in x:
        acc.add(v)
    return acc.total


case(method_stores_on_self, lambda r: (vec(r, 3),), "either")


def _gen_squares(x):
    for v in x:
        yield v * v


def generator_function_consumed(x):
    return sum(_gen_squares(x))


case(generator_function_consumed, lambda r: (vec(r, 3),), "either")


def functools_reduce_product(x):
    import functools
    return functools.reduce(lambda a, b: a * b, x)


case(functools_reduce_product, lambda r: (vec(r, 3),), "either")


def map_lambda_sum(x):
    return sum(map(lambda v: v ** 3, x))


case(map_lambda_sum, lambda r: (vec(r, 3),), "either")


def np_array_of_traced_scalars(x):
    y = np.array([x[0] * x[1], x[2], 3.0])
    return np.sum(y * y)


case(np_array_of_traced_scalars, lambda r: (vec(r, 3),), "works")


def np_asarray_of_list(x):
    lst = [v * 2.0 for v in x]
    return np.sum(np.asarray(lst) ** 2)


case(np_asarray_of_list, lambda r: (vec(r, 3),), "works")


def np_fromiter_generator(x):
    y = np.fromiter((v * v for v in x), dtype=float)
    return np.sum(y)


case(np_fromiter_generator, lambda r: (vec(r, 3),), "either")


def np_float64_cast_of_traced(x):
    a = np.float64(x[0] * x[1])
    return a * x[2]


case(np_float64_cast_of_traced, lambda r: (vec(r, 3),), "works")


def astype_float_copy(x):
    y = (x * x).astype(float)
    y[0] = 0.0
    return jnp.sum(y) + x[0]


case(astype_float_copy, lambda r: (vec(r, 3),), "either")


def copy_module_deepcopy(x):
    import copy
    y = copy.deepcopy(x)
    return jnp.sum(y * x)


case(copy_module_deepcopy, lambda r: (vec(r, 3),), "either")


def ascontiguous_and_view(x):
    y = np.ascontiguousarray(x)
    z = y.view()
    return np.sum(z * y)


case(ascontiguous_and_view, lambda r: (vec(r, 3),), "either")


def np_vectorize_python(x):
    f = np.vectorize(lambda v: v * v if v > 0 else -v)
    return np.sum(f(x))


case(np_vectorize_python, lambda r: (np.array([0.5, -0.3, 0.8]),), "either")


def apply_along_axis(A):
    return np.sum(np.apply_along_axis(lambda row: np.sum(row ** 2), 1, A))


case(apply_along_axis, lambda r: (mat(r, 2),), "either")


def hstack_vstack_generator(x):
    a = np.hstack([x, x ** 2])
    b = np.vstack((x, x * 3.0))
    return np.sum(a * np.arange(6.0)) + np.sum(b ** 2)


case(hstack_vstack_generator, lambda r: (vec(r, 3),), "works")


def stack_list_axis1(x):
    a, b, c = x * 1.0, x * 2.0, x ** 2
    s = jnp.stack([a, b, c], axis=1)
    return jnp.sum(s * np.arange(9.0).reshape(3, 3))


case(stack_list_axis1, lambda r: (vec(r, 3),), "works")


def stack_of_scalars_axis0(x):
    s = jnp.stack([x[0], x[1] * 2.0, x[2] ** 2])
    return jnp.sum(s * np.array([1.0, 2.0, 3.0]))


case(stack_of_scalars_axis0, lambda r: (vec(r, 3),), "works")


def stack_negative_axis_of_matrices(A):
    s = jnp.stack([A, A.T, A * A], axis=-1)
    return jnp.sum(s * np.arange(12.0).reshape(2, 2, 3))


case(stack_negative_axis_of_matrices, lambda r: (mat(r, 2),), "works")


def stack_built_in_loop(x):
    rows = []
    for k in range(3):
        rows.append(x * (k + 1.0))
    return jnp.sum(jnp.stack(rows, axis=1) ** 2 * np.arange(9.0).reshape(3, 3))


case(stack_built_in_loop, lambda r: (vec(r, 3),), "works")


def concatenate_generator(x):
    return jnp.sum(jnp.concatenate([x[k:k + 2] for k in range(2)]) * np.arange(4.0))


case(concatenate_generator, lambda r: (vec(r, 3),), "works")


# ============================================================ the tape: values overwritten before the reverse sweep reads them
def parameter_rebound_in_loop(x):
    for _ in range(3):
        x = jnp.sin(x) * x
    return jnp.sum(x)


case(parameter_rebound_in_loop, lambda r: (vec(r, 3),), "works")
hess(parameter_rebound_in_loop, lambda r: (vec(r, 3),))


def self_multiply_in_place(x):
    y = x.copy()
    y *= y
    y *= y
    return jnp.sum(y)


case(self_multiply_in_place, lambda r: (vec(r, 3),), "works")


def slice_assign_whole(x):
    y = x.copy()
    for _ in range(3):
        y[:] = y * x
    return jnp.sum(y)


case(slice_assign_whole, lambda r: (vec(r, 3),), "works")


def overlapping_slice_shift(x):
    y = x.copy()
    y[1:] = y[:-1] * 2.0
    return jnp.sum(y * np.arange(1.0, 5.0))


case(overlapping_slice_shift, lambda r: (vec(r, 4),), "works")


def overlapping_slice_shift_left(x):
    y = x.copy()
    y[:-1] = y[1:] + y[:-1] * y[1:]
    return jnp.sum(y * np.arange(1.0, 5.0))


case(overlapping_slice_shift_left, lambda r: (vec(r, 4),), "works")


def element_recurrence_reads_itself(x):
    y = x.copy()
    for k in range(1, 4):
        y[k] = y[k] * y[k - 1] + y[k]
    return jnp.sum(y)


case(element_recurrence_reads_itself, lambda r: (vec(r, 4),), "works")


def reversed_slice_assign(x):
    y = x.copy()
    y[:] = y[::-1]
    return jnp.sum(y * np.arange(1.0, 5.0))


case(reversed_slice_assign, lambda r: (vec(r, 4),), "works")


def column_update_in_loop(A):
    B = A.copy()
    for j in range(1, 3):
        B[:, j] = B[:, j] * B[:, j - 1]
    return jnp.sum(B)


case(column_update_in_loop, lambda r: (mat(r, 3),), "works")


def iadd_of_self_slice(x):
    y = x.copy()
    y[1:] += y[:-1]
    return jnp.sum(y * np.arange(1.0, 5.0))


case(iadd_of_self_slice, lambda r: (vec(r, 4),), "works")


def python_float_accumulator_then_array(x):
    s = 0.0
    for k in range(3):
        s += x[k]
        s *= x[k]
    return s


case(python_float_accumulator_then_array, lambda r: (vec(r, 3),), "works")


def nested_loop_with_shadowed_index(x):
    s = 0.0
    for i in range(3):
        for i in range(2):
            s = s + x[i] * x[2]
    return s + i


case(nested_loop_with_shadowed_index, lambda r: (vec(r, 3),), "works")


def loop_variable_is_array_row(A):
    s = 0.0
    for row in A:
        row = row * 2.0
        s = s + jnp.sum(row * row)
    return s


case(loop_variable_is_array_row, lambda r: (mat(r, 2),), "works")


def loop_variable_row_mutated(A):
    B = A.copy()
    for row in B:
        row *= 2.0
    return jnp.sum(B * A)


case(loop_variable_row_mutated, lambda r: (mat(r, 2),), "either")


def while_loop_data_dependent_trip(x):
    y = x[0]
    n = 0
    while y < 5.0:
        y = y * 1.7 + x[1]
        n += 1
    return y * n


case(while_loop_data_dependent_trip, lambda r: (pos(r, 2),), "works")


def break_in_middle_of_update(x):
    y = x * 1.0
    for k in range(5):
        y = y * 1.1
        if k == 2:
            break
        y = y + x
    return jnp.sum(y * y)


case(break_in_middle_of_update, lambda r: (vec(r, 3),), "works")


def continue_skips_update(x):
    y = 0.0
    for k in range(4):
        if k % 2 == 1:
            continue
        y = y + x[k] * x[k]
    return y


case(continue_skips_update, lambda r: (vec(r, 4),), "works")


def return_inside_loop(x):
    acc = x[0] * 0.0
    for k in range(4):
        acc = acc + x[k]
        if acc > 0.5:
            return acc * x[k]
    return acc


case(return_inside_loop, lambda r: (np.array([0.3, 0.4, 0.2, 0.1]),), "works", name="return_inside_loop_early")
case(return_inside_loop, lambda r: (np.array([0.1, 0.1, 0.1, 0.1]),), "works", name="return_inside_loop_late")


def multiple_returns_in_branches(x):
    if x[0] > 0:
        if x[1] > 0:
            return x[0] * x[1]
        return x[0] - x[1]
    elif x[1] > 0:
        return x[1] ** 3
    return x[0] * 0.0


case(multiple_returns_in_branches, lambda r: (np.array([0.3, -0.4]),), "works")
case(multiple_returns_in_branches, lambda r: (np.array([-0.3, 0.4]),), "works", name="multiple_returns_elif")


# ============================================================ API: argnums order, aux, keywords, nested derivatives
def two_args_product(x, y):
    return jnp.sum(x * x * y) + jnp.sum(y ** 3)


def _check_argnums_reversed(fn, args):
    from .harness import fd_grad
    value, (gy, gx) = astjax.value_and_grad(fn, argnums=(1, 0))(*args)
    return [(gy, fd_grad(fn, args, 1)[0], "d/dy first (argnums=(1, 0))"),
            (gx, fd_grad(fn, args, 0)[0], "d/dx second"), (value, fn(*args), "value")]


case(two_args_product, lambda r: (vec(r, 3), vec(r, 3)), "works", mode="custom", check=_check_argnums_reversed,
     name="argnums_reversed_order")


def _check_argnums_repeated(fn, args):
    from .harness import fd_grad
    g = astjax.grad(fn, argnums=(0, 0))(*args)
    expected = fd_grad(fn, args, 0)[0]
    return [(g[0], expected, "first"), (g[1], expected, "second")]


case(two_args_product, lambda r: (vec(r, 3), vec(r, 3)), "either", mode="custom", check=_check_argnums_repeated,
     name="argnums_repeated")


def _check_keyword_argument(fn, args):
    from .harness import fd_grad
    x, y = args
    g = astjax.grad(fn)(x, y=y)
    return [(g, fd_grad(fn, args, 0)[0], "grad with y by keyword")]


case(two_args_product, lambda r: (vec(r, 3), vec(r, 3)), "either", mode="custom", check=_check_keyword_argument,
     name="keyword_second_argument")


def _check_jvp_second_argument_only(fn, args):
    from .harness import fd_directional
    x, y = args
    t = (np.zeros(3), np.array([0.3, -1.0, 2.0]))
    _, tan = astjax.jvp(fn, (x, y), t)
    [expected] = fd_directional(fn, args, t, (0, 1))
    return [(tan, expected, "jvp along y only")]


case(two_args_product, lambda r: (vec(r, 3), vec(r, 3)), "works", mode="custom",
     check=_check_jvp_second_argument_only, name="jvp_second_argument_only")


def loss_with_aux(x):
    y = x * x
    return jnp.sum(y), {"y": y, "n": 3}


def _check_has_aux(fn, args):
    (value, aux), g = astjax.value_and_grad(fn, has_aux=True)(*args)
    x = args[0]
    return [(value, np.sum(x * x), "value"), (aux["y"], x * x, "aux"), (g, 2 * x, "grad")]


case(loss_with_aux, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_has_aux)


def perturbation_confusion(x):
    def inner(y):
        return x * y

    return x * astjax.grad(inner)(1.0)


# d/dx [x * d/dy (x y)] = d/dx [x * x] = 2x (a confused implementation mixes x's perturbation into inner's).
def _check_perturbation(fn, args):
    x = args[0]
    return [(astjax.grad(fn)(x), 2.0 * x, "d/dx x * grad(lambda y: x*y)(1)")]


case(perturbation_confusion, lambda r: (np.float64(0.7),), "either", mode="custom", check=_check_perturbation)


def perturbation_confusion_siskind(x):
    def inner(y):
        return x + y

    return x * astjax.grad(inner)(1.0)


# The classic example: D(x -> x * D(y -> x + y)(1))(1) = 1, a confused AD gives 2.
def _check_siskind(fn, args):
    return [(astjax.grad(fn)(np.float64(1.0)), 1.0, "Siskind-Pearlmutter")]


case(perturbation_confusion_siskind, lambda r: (np.float64(1.0),), "either", mode="custom", check=_check_siskind)


def grad_inside_loss(x):
    g = astjax.grad(lambda v: jnp.sum(jnp.sin(v) * v))(x)
    return jnp.sum(g * g)


case(grad_inside_loss, lambda r: (vec(r, 3),), "either")


def _sin_cubed(x):
    return jnp.sum(jnp.sin(x) ** 3)


def hessian_vector_via_jvp_of_grad(x):
    v = np.array([1.0, -0.5, 0.25])
    _, hv = astjax.jvp(astjax.grad(_sin_cubed), (x,), (v,))
    return jnp.sum(hv * x)


case(hessian_vector_via_jvp_of_grad, lambda r: (vec(r, 3),), "either")


@astjax.custom_jvp
def _soft_clip(x):
    return jnp.sin(x) * 2.0


@_soft_clip.defjvp
def _soft_clip_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _soft_clip(x), 2.0 * jnp.cos(x) * t


def custom_jvp_under_hessian(x):
    return jnp.sum(_soft_clip(x) * x)


case(custom_jvp_under_hessian, lambda r: (vec(r, 3),), "works")
hess(custom_jvp_under_hessian, lambda r: (vec(r, 3),), outcome="either")


@astjax.custom_vjp
def _cube(x):
    return x ** 3


def _cube_fwd(x):
    return x ** 3, x


def _cube_bwd(x, g):
    return (3.0 * x ** 2 * g,)


_cube.defvjp(_cube_fwd, _cube_bwd)


def custom_vjp_in_loss(x):
    return jnp.sum(_cube(x) * jnp.sin(x))


case(custom_vjp_in_loss, lambda r: (vec(r, 3),), "either")
hess(custom_vjp_in_loss, lambda r: (vec(r, 3),), outcome="either")


@astjax.custom_vjp
def _clip_gradient(x):
    return x


def _clip_fwd(x):
    return x, None


def _clip_bwd(_, g):
    return (jnp.clip(g, -0.1, 0.1),)


_clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def custom_vjp_changes_gradient(x):
    return jnp.sum(_clip_gradient(x) * 3.0)


def _check_clipped(fn, args):
    g = astjax.grad(fn)(*args)
    return [(g, np.full(3, 0.1), "custom bwd clips the cotangent 3.0 to 0.1")]


case(custom_vjp_changes_gradient, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_clipped)


# ============================================================ lax control flow
def fori_loop_tuple_carry(x):
    def body(i, c):
        a, b = c
        return b * x[i % 3], a + b

    a, b = lax.fori_loop(0, 5, body, (x[0], x[1]))
    return a * b


case(fori_loop_tuple_carry, lambda r: (vec(r, 3),), "works")


def fori_loop_traced_bound_read(x):
    def body(i, acc):
        return acc * 0.9 + x[i]

    return lax.fori_loop(1, 3, body, x[0] * 0.0)


case(fori_loop_traced_bound_read, lambda r: (vec(r, 3),), "works")


def scan_cumulative_with_outputs(x):
    def step(c, v):
        c = c * 0.5 + v * v
        return c, c * v

    c, ys = lax.scan(step, 0.0, x)
    return c + jnp.sum(ys * np.arange(1.0, 5.0))


case(scan_cumulative_with_outputs, lambda r: (vec(r, 4),), "works")
hess(scan_cumulative_with_outputs, lambda r: (vec(r, 4),))


def scan_reverse(x):
    def step(c, v):
        c = c * 0.5 + v
        return c, c

    c, ys = lax.scan(step, 0.0, x, reverse=True)
    return c + jnp.sum(ys * np.arange(1.0, 5.0))


case(scan_reverse, lambda r: (vec(r, 4),), "works")
hess(scan_reverse, lambda r: (vec(r, 4),))


def scan_pytree_xs(x):
    def step(c, item):
        a, b = item
        return c + a * b, a - b

    c, ys = lax.scan(step, 0.0, (x, x[::-1] * 2.0))
    return c * jnp.sum(ys ** 2)


case(scan_pytree_xs, lambda r: (vec(r, 4),), "works")


def scan_none_xs_with_length(x):
    def step(c, _):
        return c * x[0] + x[1], c

    c, ys = lax.scan(step, x[2], None, length=4)
    return c + jnp.sum(ys)


case(scan_none_xs_with_length, lambda r: (vec(r, 3),), "works")


def while_loop_newton(a):
    def cond(s):
        return jnp.abs(s[0] * s[0] - a[0]) > 1e-12

    def body(s):
        return (0.5 * (s[0] + a[0] / s[0]), s[1] + 1)

    r_, n = lax.while_loop(cond, body, (a[0], 0))
    return r_ * a[1]


case(while_loop_newton, lambda r: (pos(r, 2, 2.0, 3.0),), "works", rtol=1e-4)


def cond_with_operands(x):
    return lax.cond(x[0] > 0, lambda a, b: a * b, lambda a, b: a - b, x[1], x[2]) * x[0]


case(cond_with_operands, lambda r: (np.array([0.4, 0.3, 0.8]),), "works")
case(cond_with_operands, lambda r: (np.array([-0.4, 0.3, 0.8]),), "works", name="cond_with_operands_false")


def switch_clamped_index(x):
    branches = [lambda v: v * 2.0, lambda v: v ** 2, lambda v: jnp.sin(v)]
    return jnp.sum(lax.switch(7, branches, x)) + jnp.sum(lax.switch(-3, branches, x))


case(switch_clamped_index, lambda r: (vec(r, 3),), "works")


def dynamic_slice_update(x):
    i = 1
    s = lax.dynamic_slice(x, (i,), (2,))
    y = lax.dynamic_update_slice(x, s * s, (i + 1,))
    return jnp.sum(y * np.arange(1.0, 5.0))


case(dynamic_slice_update, lambda r: (vec(r, 4),), "works")


def dynamic_slice_clamped_start(x):
    s = lax.dynamic_slice(x, (3,), (2,))
    return jnp.sum(s * np.array([1.0, 10.0]))


# JAX clamps the start so the slice fits: (3,) on length 4 with size 2 reads x[2:4].
case(dynamic_slice_clamped_start, lambda r: (vec(r, 4),), "works",
     reference=lambda x: float(x[2] * 1.0 + x[3] * 10.0))


def dynamic_update_slice_clamped(x):
    y = lax.dynamic_update_slice(x, x[:2] * 5.0, (3,))
    return jnp.sum(y * np.arange(1.0, 5.0))


def _dus_reference(x):
    y = x.copy()
    y[2:4] = x[:2] * 5.0
    return float(np.sum(y * np.arange(1.0, 5.0)))


case(dynamic_update_slice_clamped, lambda r: (vec(r, 4),), "works", reference=_dus_reference)


def lax_map_square(x):
    return jnp.sum(lax.map(lambda v: v * jnp.sin(v), x))


case(lax_map_square, lambda r: (vec(r, 3),), "works")


def lax_select_and_clamp(x):
    return jnp.sum(lax.select(x > 0, x * x, -x)) + jnp.sum(lax.clamp(-0.2, x, 0.5) ** 2)


case(lax_select_and_clamp, lambda r: (np.array([0.4, -0.3, 0.8]),), "works")


def lax_cumsum_reverse(x):
    return jnp.sum(lax.cumsum(x, reverse=True) * np.arange(1.0, 5.0)) + jnp.sum(lax.cummax(x, reverse=True))


case(lax_cumsum_reverse, lambda r: (np.array([0.1, 0.5, 0.3, 0.8]),), "works")


def lax_cumprod_and_cummin(x):
    return jnp.sum(lax.cumprod(x) * np.arange(1.0, 5.0)) + jnp.sum(lax.cummin(x) * 2.0)


case(lax_cumprod_and_cummin, lambda r: (np.array([0.9, 0.5, 0.7, 0.2]),), "works")


# ============================================================ constructors with traced arguments, shape functions, rule variants
def linspace_traced_endpoints(x):
    t = np.linspace(x[0], x[1], 5)
    return np.sum(t ** 2)


case(linspace_traced_endpoints, lambda r: (vec(r, 2),), "works")


def linspace_endpoint_false(x):
    t = jnp.linspace(0.0, x[0], 4, endpoint=False)
    return jnp.sum(t * np.arange(1.0, 5.0))


case(linspace_endpoint_false, lambda r: (pos(r, 1),), "works")


def logspace_geomspace_traced(x):
    return jnp.sum(jnp.logspace(0.0, x[0], 3)) + jnp.sum(jnp.geomspace(1.0, x[1], 3))


case(logspace_geomspace_traced, lambda r: (pos(r, 2),), "works")


def arange_float_traced_start(x):
    t = np.arange(x[0], 3.0, 1.0)
    return np.sum(t * t)


case(arange_float_traced_start, lambda r: (pos(r, 1, 0.2, 0.8),), "either")


def full_with_traced_fill(x):
    return jnp.sum(jnp.full(3, x[0]) * np.array([1.0, 2.0, 3.0])) + jnp.sum(jnp.full_like(x, x[1]) ** 2)


case(full_with_traced_fill, lambda r: (vec(r, 3),), "works")


def np_full_traced_fill(x):
    return np.sum(np.full((2, 2), x[0] * x[1]))


case(np_full_traced_fill, lambda r: (vec(r, 2),), "works")


def diag_build_and_extract(x):
    D = jnp.diag(x)
    A = D + jnp.outer(x, x)
    return jnp.sum(jnp.diag(A) * np.arange(1.0, 4.0)) + jnp.sum(jnp.diag(A, k=1)) + jnp.sum(jnp.diagflat(x[:2]) ** 2)


case(diag_build_and_extract, lambda r: (vec(r, 3),), "works")


def meshgrid_traced(x):
    X, Y = np.meshgrid(x, x[:2] * 2.0)
    return np.sum(X * Y * np.arange(6.0).reshape(2, 3))


case(meshgrid_traced, lambda r: (vec(r, 3),), "works")


def meshgrid_ij_indexing(x):
    X, Y = jnp.meshgrid(x, x[:2] * 2.0, indexing="ij")
    return jnp.sum(X * Y * np.arange(6.0).reshape(3, 2))


case(meshgrid_ij_indexing, lambda r: (vec(r, 3),), "works")


def vander_traced(x):
    return jnp.sum(jnp.vander(x, 3) * np.arange(9.0).reshape(3, 3)) + jnp.sum(jnp.vander(x, increasing=True))


case(vander_traced, lambda r: (vec(r, 3),), "works")


def eye_times_traced(x):
    return jnp.sum((jnp.eye(3) * x[0] + x[1]) @ np.arange(9.0).reshape(3, 3))


case(eye_times_traced, lambda r: (vec(r, 2),), "either")


def transpose_non_involutive(T):
    U = jnp.transpose(T, (1, 2, 0))
    return jnp.sum(U * np.arange(24.0).reshape(U.shape))


case(transpose_non_involutive, lambda r: (r.uniform(-1, 1, (2, 3, 4)),), "works")


def transpose_method_args_and_moveaxis(T):
    W = np.arange(24.0)
    a = T.transpose(2, 0, 1).reshape(-1)
    b = jnp.moveaxis(T, 0, -1).reshape(-1)
    c = jnp.swapaxes(T, 0, 2).reshape(-1)
    return jnp.sum(a * W) + jnp.sum(b * W ** 2) + jnp.sum(c * jnp.sqrt(W))


case(transpose_method_args_and_moveaxis, lambda r: (r.uniform(-1, 1, (2, 3, 4)),), "works")


def reshape_fortran_order(A):
    v = jnp.reshape(A, (6,), order="F")
    w = A.ravel(order="F")
    return jnp.sum(v * np.arange(6.0)) + jnp.sum(w * np.arange(6.0) ** 2)


case(reshape_fortran_order, lambda r: (mat(r, 2, 3),), "works")


def flatten_fortran(A):
    return jnp.sum(A.flatten("F") * np.arange(6.0)) + jnp.sum(A.reshape(3, 2, order="F") * np.arange(6.0).reshape(3, 2))


case(flatten_fortran, lambda r: (mat(r, 2, 3),), "works")


def einsum_implicit_output(A):
    T = jnp.einsum("ji", A)
    return jnp.sum(T * np.arange(6.0).reshape(T.shape)) + jnp.sum(jnp.einsum("ba,bc", A, A) * 0.5)


case(einsum_implicit_output, lambda r: (mat(r, 2, 3),), "works")


def einsum_transpose_output(A):
    return jnp.sum(jnp.einsum("ij->ji", A) * np.arange(6.0).reshape(3, 2))


case(einsum_transpose_output, lambda r: (mat(r, 2, 3),), "works")


def split_uneven_sections(x):
    a, b, c = jnp.split(x, [1, 4])
    return jnp.sum(a) * 3.0 + jnp.sum(b * b) + jnp.sum(c * np.arange(1.0, 3.0))


case(split_uneven_sections, lambda r: (vec(r, 6),), "works")


def array_split_uneven(x):
    parts = jnp.array_split(x, 3)
    return sum(jnp.sum(p * (k + 1.0)) for k, p in enumerate(parts)) + jnp.sum(parts[0] ** 2)


case(array_split_uneven, lambda r: (vec(r, 7),), "either")


def take_modes(x):
    idx = np.array([0, 4, -6, 2])
    return jnp.sum(jnp.take(x, idx, mode="wrap") * np.arange(1.0, 5.0)) + \
        jnp.sum(jnp.take(x, idx, mode="clip") * np.arange(1.0, 5.0) ** 2)


case(take_modes, lambda r: (vec(r, 4),), "works")


def take_axis_one(A):
    return jnp.sum(jnp.take(A, np.array([2, 0, 2]), axis=1) * np.arange(6.0).reshape(2, 3))


case(take_axis_one, lambda r: (mat(r, 2, 3),), "works")


def take_along_axis_argsort(A):
    idx = jnp.argsort(A, axis=1)
    S = jnp.take_along_axis(A, idx, axis=1)
    return jnp.sum(S * np.arange(6.0).reshape(2, 3))


case(take_along_axis_argsort, lambda r: (mat(r, 2, 3),), "works")


def pad_edge_and_constant_values(x):
    a = jnp.pad(x, (2, 1), mode="edge")
    b = jnp.pad(x, ((1, 0),), constant_values=x[0])
    return jnp.sum(a * np.arange(6.0)) + jnp.sum(b * np.arange(4.0))


case(pad_edge_and_constant_values, lambda r: (vec(r, 3),), "works")


def pad_linear_ramp(x):
    return jnp.sum(jnp.pad(x, 2, mode="linear_ramp", end_values=(0.5, -0.5)) * np.arange(7.0))


case(pad_linear_ramp, lambda r: (vec(r, 3),), "either")


def broadcast_to_then_weight(x):
    B = jnp.broadcast_to(x, (2, 3))
    return jnp.sum(B * np.arange(6.0).reshape(2, 3))


case(broadcast_to_then_weight, lambda r: (vec(r, 3),), "works")


def expand_dims_tuple_and_squeeze(x):
    y = jnp.expand_dims(x, (0, 2))
    z = jnp.squeeze(y, axis=0)
    return jnp.sum(z * np.arange(3.0).reshape(3, 1)) + jnp.sum(jnp.atleast_2d(x) * 2.0)


case(expand_dims_tuple_and_squeeze, lambda r: (vec(r, 3),), "works")


def solve_matrix_rhs_and_column(A):
    S = A + 3.0 * np.eye(3)
    B = np.arange(6.0).reshape(3, 2)
    b = np.array([[1.0], [2.0], [3.0]])
    return jnp.sum(jnp.linalg.solve(S, B) * np.array([1.0, -1.0])) + jnp.sum(jnp.linalg.solve(S, b) ** 2)


case(solve_matrix_rhs_and_column, lambda r: (mat(r, 3),), "works")


def solve_batched(A):
    S = jnp.stack([A + 3.0 * np.eye(3), A.T + 4.0 * np.eye(3)])
    b = np.arange(6.0).reshape(2, 3, 1)
    return jnp.sum(jnp.linalg.solve(S, b) ** 2)


case(solve_batched, lambda r: (mat(r, 3),), "works")


def inv_det_batched(A):
    S = jnp.stack([A + 3.0 * np.eye(3), A @ A.T + np.eye(3)])
    return jnp.sum(jnp.linalg.inv(S) * np.arange(18.0).reshape(2, 3, 3)) + jnp.sum(jnp.linalg.det(S) * np.array([1.0, 2.0]))


case(inv_det_batched, lambda r: (mat(r, 3),), "works")


def det_singular_matrix(x):
    A = jnp.outer(x, x)
    return jnp.linalg.det(A + np.diag([0.0, 0.0, 1.0]))


# det of a rank-2 3x3 matrix: cofactor derivative finite, a rule through inv(A) gives nan/inf.
case(det_singular_matrix, lambda r: (vec(r, 3),), "either")


def matmul_batched_vector(A):
    T = jnp.stack([A, A * A])
    v = np.array([1.0, -2.0, 0.5])
    return jnp.sum((T @ v) * np.arange(6.0).reshape(2, 3)) + jnp.sum((v @ T) ** 2)


case(matmul_batched_vector, lambda r: (mat(r, 3),), "works")


def cross_product(x):
    return jnp.sum(jnp.cross(x, np.array([0.3, -1.0, 2.0])) * np.array([1.0, 2.0, 3.0])) + \
        jnp.sum(jnp.cross(x, x[::-1]) ** 2)


case(cross_product, lambda r: (vec(r, 3),), "works")


def cbrt_negative(x):
    return jnp.sum(jnp.cbrt(x) * np.array([1.0, 2.0, 3.0]))


case(cbrt_negative, lambda r: (np.array([-0.8, 0.4, -0.2]),), "works")


def float_power_negative_base(x):
    return jnp.sum(x ** 2.0) + jnp.sum(x ** 3.0 * 2.0) + jnp.sum(jnp.power(x, -2.0))


case(float_power_negative_base, lambda r: (np.array([-0.8, 0.4, -0.2]),), "works")
hess(float_power_negative_base, lambda r: (np.array([-0.8, 0.4, -0.2]),))


def power_integer_array_exponent(x):
    return jnp.sum(jnp.power(x, np.array([1, 2, 3])) * np.array([1.0, 2.0, 3.0]))


case(power_integer_array_exponent, lambda r: (np.array([-0.8, 0.4, -0.2]),), "works")


def power_traced_exponent_positive_base(x):
    return jnp.sum(jnp.power(np.array([0.5, 2.0, 3.0]), x)) + x[0] ** x[1]


case(power_traced_exponent_positive_base, lambda r: (pos(r, 3),), "works")


def remainder_wrt_divisor(x):
    return (x[0] % x[1]) * 2.0 + jnp.fmod(x[0], x[1]) + jnp.remainder(-x[0], x[1])


case(remainder_wrt_divisor, lambda r: (np.array([2.3, 0.7]),), "works")


def floor_divide_and_modulo_python(x):
    q = x[0] // x[1]
    return q * x[1] + x[0] % x[1]


case(floor_divide_and_modulo_python, lambda r: (np.array([2.3, 0.7]),), "works")


def divmod_numpy(x):
    q, m = np.divmod(x, 0.3)
    return np.sum(q * x + m * m)


case(divmod_numpy, lambda r: (np.array([2.3, 0.7, -0.4]),), "either")


def copysign_traced_sign(x):
    return jnp.sum(jnp.copysign(x[:2], x[2:]) * np.array([1.0, 2.0]))


case(copysign_traced_sign, lambda r: (np.array([0.3, -0.8, -0.5, 0.6]),), "works")


def inverse_trig_hyperbolic(x):
    return jnp.sum(jnp.arcsin(x) + jnp.arccos(x * 0.5) + jnp.arctan(x) + jnp.arcsinh(x) + jnp.arctanh(x * 0.5) +
                   jnp.arccosh(2.0 + x) + jnp.log10(2.0 + x) + jnp.log2(2.0 + x) + jnp.exp2(x) + jnp.deg2rad(x))


case(inverse_trig_hyperbolic, lambda r: (vec(r, 3, -0.9, 0.9),), "works")
hess(inverse_trig_hyperbolic, lambda r: (vec(r, 3, -0.9, 0.9),))


def reciprocal_square_sqrt(x):
    return jnp.sum(jnp.reciprocal(x) + jnp.square(x) * jnp.sqrt(x) + jnp.rsqrt(x) if hasattr(jnp, "rsqrt") else
                   jnp.reciprocal(x) + jnp.square(x) * jnp.sqrt(x))


case(reciprocal_square_sqrt, lambda r: (pos(r, 3),), "either")


def nan_reductions(x):
    y = jnp.where(x > 0.5, jnp.nan, x)
    return jnp.nansum(y * y) + jnp.nanmean(y) + jnp.nanmax(y)


case(nan_reductions, lambda r: (np.array([0.2, 0.9, -0.4, 0.1]),), "either")


def ptp_of_data(x):
    return jnp.ptp(x) * 2.0 + np.ptp(x * x)


case(ptp_of_data, lambda r: (np.array([0.2, 0.9, -0.4, 0.1]),), "works")


def partition_kth(x):
    p = np.partition(x, 2)
    return p[2] * 3.0 + np.sum(p[:2])


case(partition_kth, lambda r: (np.array([0.2, 0.9, -0.4, 0.1, 0.5]),), "either")


def sort_descending_slice(x):
    s = jnp.sort(x)[::-1]
    return jnp.sum(s * np.arange(1.0, 5.0))


case(sort_descending_slice, lambda r: (np.array([0.2, 0.9, -0.4, 0.1]),), "works")


def argmax_index_value(x):
    return x[jnp.argmax(x)] * 2.0 + x[jnp.argmin(x * x)]


case(argmax_index_value, lambda r: (np.array([0.2, 0.9, -0.4, 0.1]),), "works")


def sum_multiple_axes_negative(T):
    return jnp.sum(jnp.sum(T, axis=(0, -1)) * np.array([1.0, 2.0, 3.0])) + jnp.sum(jnp.mean(T, axis=(-2, 0), keepdims=True) ** 2)


case(sum_multiple_axes_negative, lambda r: (r.uniform(-1, 1, (2, 3, 4)),), "works")


def std_axis_ddof(A):
    return jnp.sum(jnp.std(A, axis=0, ddof=1) * np.array([1.0, 2.0, 3.0])) + jnp.sum(jnp.var(A, axis=1, keepdims=True))


case(std_axis_ddof, lambda r: (mat(r, 3),), "works")


# ============================================================ aliases NumPy keeps and a functional rewrite may lose
def _identity_helper(a):
    return a


def alias_through_identity_helper(x):
    y = x.copy()
    z = _identity_helper(y)
    z[0] = x[1] * 5.0
    return jnp.sum(y * x)


case(alias_through_identity_helper, lambda r: (vec(r, 3),), "either")


def alias_through_list_item(x):
    y = x.copy()
    lst = [y]
    lst[0][0] = x[1] * 5.0
    return jnp.sum(y * x)


case(alias_through_list_item, lambda r: (vec(r, 3),), "either")


def alias_through_dict_item(x):
    y = x.copy()
    d = {"a": y}
    d["a"][1] = x[0] * 3.0
    return jnp.sum(y * x)


case(alias_through_dict_item, lambda r: (vec(r, 3),), "either")


def chained_assignment_alias(x):
    a = b = x.copy()
    a[0] = x[1] * 4.0
    return jnp.sum(b * x)


case(chained_assignment_alias, lambda r: (vec(r, 3),), "either")


def full_slice_is_view(x):
    y = x.copy()
    z = y[:]
    z[0] = x[2] * 6.0
    return jnp.sum(y * x)


case(full_slice_is_view, lambda r: (vec(r, 3),), "either")


def ellipsis_index_is_view(x):
    y = x.copy()
    z = y[...]
    z[1] = x[0] ** 2
    return jnp.sum(y * x)


case(ellipsis_index_is_view, lambda r: (vec(r, 3),), "either")


def asarray_is_same_object(x):
    y = x.copy()
    z = np.asarray(y)
    z[0] = x[1] * 2.0
    return np.sum(y * x)


case(asarray_is_same_object, lambda r: (vec(r, 3),), "either")


def astype_copy_false_same_object(x):
    y = x.copy()
    z = y.astype(np.float64, copy=False)
    z[2] = x[0] * 7.0
    return np.sum(y * x)


case(astype_copy_false_same_object, lambda r: (vec(r, 3),), "either")


def np_transpose_function_view(A):
    B = A.copy()
    C = np.transpose(B)
    C[0, 1] = A[1, 1] * 3.0
    return np.sum(B * A)


case(np_transpose_function_view, lambda r: (mat(r, 2),), "either")


def expand_dims_view(x):
    y = x.copy()
    z = np.expand_dims(y, 0)
    z[0, 1] = x[0] * 9.0
    return np.sum(y * x)


case(expand_dims_view, lambda r: (vec(r, 3),), "either")


def conditional_alias(x):
    y = x.copy()
    w = x * 2.0
    z = y if x[0] > -5.0 else w
    z[0] = x[2] * 3.0
    return jnp.sum(y * x) + jnp.sum(w)


case(conditional_alias, lambda r: (vec(r, 3),), "either")


def tuple_unpack_same_object(x):
    y = x.copy()
    a, b = y, y
    a[0] = x[1] * 8.0
    return jnp.sum(b * x)


case(tuple_unpack_same_object, lambda r: (vec(r, 3),), "either")


def mutate_argument_directly(x):
    x[0] = x[1] * 3.0
    return jnp.sum(x * x)


case(mutate_argument_directly, lambda r: (vec(r, 3),), "either")


def mutate_argument_after_reading(x):
    s = jnp.sum(x)
    x *= 2.0
    return s * jnp.sum(x)


case(mutate_argument_after_reading, lambda r: (vec(r, 3),), "either")


_W = np.array([1.0, 2.0, 3.0])


def mutate_global_array(x):
    w = _W.copy()
    w[0] = x[0]
    return jnp.sum(w * x)


case(mutate_global_array, lambda r: (vec(r, 3),), "works")


def mutate_closure_after_definition(x):
    w = np.array([1.0, 2.0, 3.0])

    def f(v):
        return jnp.sum(v * w)

    w[1] = 10.0
    return f(x)


case(mutate_closure_after_definition, lambda r: (vec(r, 3),), "either")


def closure_over_rebound_name(x):
    k = 2.0

    def f(v):
        return v * k

    k = 5.0
    return jnp.sum(f(x))


case(closure_over_rebound_name, lambda r: (vec(r, 3),), "either")


def closure_over_traced_value_rebound(x):
    s = x[0]

    def f(v):
        return v * s

    s = x[1] * x[1]
    return f(x[2])


case(closure_over_traced_value_rebound, lambda r: (vec(r, 3),), "either")


def default_argument_array_mutated(x, w=np.array([1.0, 2.0, 3.0])):
    w2 = w
    return jnp.sum(x * w2)


case(default_argument_array_mutated, lambda r: (vec(r, 3),), "works")


def inner_function_with_default_traced(x):
    def f(v, s=x[0]):
        return v * s

    return f(x[1]) + f(x[2], x[1])


case(inner_function_with_default_traced, lambda r: (vec(r, 3),), "either")


def in_place_sort_of_copy(x):
    y = x.copy()
    y.sort()
    return jnp.sum(y * np.arange(1.0, 5.0))


case(in_place_sort_of_copy, lambda r: (np.array([0.2, 0.9, -0.4, 0.1]),), "either")


def in_place_sort_of_view(A):
    B = A.copy()
    B[0].sort()
    return jnp.sum(B * np.arange(6.0).reshape(2, 3))


case(in_place_sort_of_view, lambda r: (mat(r, 2, 3),), "either")


def ndarray_clip_out_self(x):
    y = x.copy()
    np.clip(y, -0.5, 0.5, out=y)
    return np.sum(y * x)


case(ndarray_clip_out_self, lambda r: (np.array([0.2, 0.9, -0.7]),), "either")


def ufunc_method_at_multiply(x):
    y = x.copy()
    np.multiply.at(y, [0, 0, 2], x[1])
    return np.sum(y)


case(ufunc_method_at_multiply, lambda r: (vec(r, 3),), "either")


def setitem_with_broadcast_row(A):
    B = A.copy()
    B[:, 0] = A[0]
    return jnp.sum(B * np.arange(9.0).reshape(3, 3))


case(setitem_with_broadcast_row, lambda r: (mat(r, 3),), "works")


def setitem_scalar_broadcast_into_slice(x):
    y = x.copy()
    y[1:3] = x[0] * 2.0
    return jnp.sum(y * np.arange(1.0, 5.0))


case(setitem_scalar_broadcast_into_slice, lambda r: (vec(r, 4),), "works")


def setitem_negative_index_and_step(x):
    y = x.copy()
    y[-1] = x[0]
    y[::2] = y[::2] * 3.0
    return jnp.sum(y * np.arange(1.0, 6.0))


case(setitem_negative_index_and_step, lambda r: (vec(r, 5),), "works")


def setitem_2d_fancy_pairs(A):
    B = A.copy()
    B[[0, 2], [1, 1]] = A[1, 1] * np.array([2.0, 3.0])
    return jnp.sum(B * np.arange(9.0).reshape(3, 3))


case(setitem_2d_fancy_pairs, lambda r: (mat(r, 3),), "works")


def setitem_bool_mask_2d_with_scalar(A):
    B = A.copy()
    B[A > 0.3] = A[0, 0]
    return jnp.sum(B * np.arange(9.0).reshape(3, 3))


case(setitem_bool_mask_2d_with_scalar, lambda r: (mat(r, 3),), "either")


# ============================================================ Jacobians of outputs that alias, repeat or ignore the input
def returns_input_itself(x):
    return x


case(returns_input_itself, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_reversed_view(x):
    return x[::-1]


case(returns_reversed_view, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_same_array_twice(x):
    y = x * 2.0
    return y, y


case(returns_same_array_twice, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_constant_and_input(x):
    return np.array([1.0, 2.0]), x * x


case(returns_constant_and_input, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_buffer_mutated_after(x):
    y = x.copy()
    out = y * 1.0
    y[0] = 100.0
    return out + y


case(returns_buffer_mutated_after, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_transpose_of_outer(x):
    return jnp.outer(x, x * x).T


case(returns_transpose_of_outer, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_list_of_scalars(x):
    return [x[0] * x[1], x[2], jnp.sin(x[1])]


case(returns_list_of_scalars, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_dict_nested(x):
    return {"b": [x * 2.0, x[0]], "a": (jnp.sum(x),)}


case(returns_dict_nested, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_zero_d_from_index(x):
    return x[1] * x[2]


case(returns_zero_d_from_index, lambda r: (vec(r, 3),), "works", mode="jac")


def returns_broadcast_scalar_input(x):
    return x[0] + np.zeros(3)


case(returns_broadcast_scalar_input, lambda r: (vec(r, 3),), "works", mode="jac")


def matrix_input_row_output(A):
    return A[1] * A[:, 0]


case(matrix_input_row_output, lambda r: (mat(r, 3),), "works", mode="jac")


# ============================================================ pytree and Python-number arguments
def dict_argument_loss(p):
    return jnp.sum(p["w"] * p["w"]) * p["b"] + p["b"] ** 3


case(dict_argument_loss, lambda r: ({"w": vec(r, 3), "b": np.float64(0.7)},), "works")


def list_of_arrays_argument(ps):
    s = 0.0
    for p in ps:
        s = s + jnp.sum(p ** 2) * ps[0][0]
    return s


case(list_of_arrays_argument, lambda r: ([vec(r, 2), vec(r, 3)],), "works")


def tuple_argument_unpacked(t):
    a, (b, c) = t
    return jnp.sum(a * b) + c * c


case(tuple_argument_unpacked, lambda r: ((vec(r, 2), (vec(r, 2), np.float64(0.3))),), "works")


def python_float_argument(x, k):
    return jnp.sum(x * k) + k * k


case(python_float_argument, lambda r: (vec(r, 3), 0.7), "works", argnums=(0, 1))


def zero_d_argument_loop(x):
    y = x
    for _ in range(3):
        y = y * x + 1.0
    return y


case(zero_d_argument_loop, lambda r: (np.float64(0.8),), "works")


def int_argument_used_as_count(x, n):
    s = 0.0
    for k in range(n):
        s = s + x[k % 3] * k
    return s


case(int_argument_used_as_count, lambda r: (vec(r, 3), 5), "works")


def argument_list_mutated(xs):
    xs.append(xs[0] * 2.0)
    return sum(jnp.sum(v * v) for v in xs)


case(argument_list_mutated, lambda r: ([vec(r, 2), vec(r, 2)],), "either")


def argument_dict_mutated(p):
    p["w"] = p["w"] * 3.0
    return jnp.sum(p["w"] * p["v"])


case(argument_dict_mutated, lambda r: ({"w": vec(r, 2), "v": vec(r, 2)},), "either")


# ============================================================ negative argnums in every transformation
def weighted_cosine(a, x):
    return jnp.sum(a * jnp.cos(x) * x)


def _check_negative_argnums(fn, args):
    from .harness import fd_grad, fd_hessian, fd_jacobian
    a, x = args
    H = fd_hessian(fn, args, 1)
    g = fd_grad(fn, args, 1)[0]
    vec_fn = lambda a_, x_: a_ * jnp.cos(x_) * x_  # noqa: E731
    J = fd_jacobian(vec_fn, args, 1)[0]
    return [(astjax.hessian(fn, argnums=-1)(a, x), H, "hessian argnums=-1"),
            (astjax.jacfwd(astjax.grad(fn, argnums=-1), argnums=-1)(a, x), H, "jacfwd(grad) argnums=-1"),
            (astjax.jacrev(astjax.grad(fn, argnums=-1), argnums=-1)(a, x), H, "jacrev(grad) argnums=-1"),
            (astjax.grad(fn, argnums=-1)(a, x), g, "grad argnums=-1"),
            (astjax.jacfwd(vec_fn, argnums=-1)(a, x), J, "jacfwd argnums=-1"),
            (astjax.jacrev(vec_fn, argnums=-1)(a, x), J, "jacrev argnums=-1"),
            (astjax.jacfwd(vec_fn, argnums=(-1, 0))(a, x)[0], J, "jacfwd argnums=(-1, 0)")]


case(weighted_cosine, lambda r: (vec(r, 3), vec(r, 3)), "works", mode="custom", check=_check_negative_argnums,
     rtol=1e-4, name="negative_argnums_everywhere")


def isscalar_of_item(x):
    v = x[0]
    if np.isscalar(v):
        return v * 2.0 + x[1]
    return v * 3.0 + x[1]


case(isscalar_of_item, lambda r: (vec(r, 2),), "either")


def isscalar_of_vector(x):
    if np.isscalar(x):
        return x[0] * 2.0
    return jnp.sum(x * 3.0)


case(isscalar_of_vector, lambda r: (vec(r, 2),), "works")


def jnp_isscalar_of_item(x):
    if jnp.isscalar(x[0]):
        return x[0] * 2.0 + x[1]
    return x[0] * 3.0 + x[1]


case(jnp_isscalar_of_item, lambda r: (vec(r, 2),), "works")


def hasattr_len_of_item(x):
    v = x[0]
    if hasattr(v, "__len__"):
        return v * 3.0 + x[1]
    return v * 2.0 + x[1]


case(hasattr_len_of_item, lambda r: (vec(r, 2),), "either")


def hasattr_shape_of_item(x):
    v = x[0]
    if hasattr(v, "shape"):
        return v * 3.0 + x[1]
    return v * 2.0 + x[1]


case(hasattr_shape_of_item, lambda r: (vec(r, 2),), "either")


def class_attribute_of_item(x):
    v = x[0]
    if v.__class__ is np.float64:
        return v * 2.0 + x[1]
    return v * 3.0 + x[1]


case(class_attribute_of_item, lambda r: (vec(r, 2),), "either")


def iterable_of_item(x):
    v = x[0]
    if np.iterable(v):
        return v * 3.0 + x[1]
    return v * 2.0 + x[1]


case(iterable_of_item, lambda r: (vec(r, 2),), "works")


def iterable_of_vector(x):
    if np.iterable(x):
        return jnp.sum(x * x)
    return x * 3.0


case(iterable_of_vector, lambda r: (vec(r, 2),), "works")


# ============================================================ vjp's primal output and jacrev's aux follow the program
def isinstance_float_branch_vector(x):
    v = x[0]
    if isinstance(v, float):
        return x * 2.0
    return x * 3.0


def _check_vjp_primal(fn, args):
    out, pullback = astjax.vjp(fn, *args)
    (g,) = pullback(np.ones(np.shape(out)))
    from .harness import fd_jacobian
    J = fd_jacobian(fn, args, 0)[0]
    return [(out, fn(*args), "vjp's primal output"), (g, np.ones(np.shape(out)) @ J.reshape(np.size(out), -1)
                                                        if np.ndim(out) else J, "pullback of ones")]


# x[0] is an np.float64 (a float) in the original: vjp ran the function on Arrays and returned x * 3.
case(isinstance_float_branch_vector, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_vjp_primal,
     name="vjp_primal_isinstance_branch")


def item_assignment_into_copy_vector(x):
    y = x.copy()
    y[0] = 5.0
    return y * x


# vjp and jacrev ran the function on Arrays, whose item assignment raises TypeError.
case(item_assignment_into_copy_vector, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_vjp_primal,
     name="vjp_primal_item_assignment")
case(item_assignment_into_copy_vector, lambda r: (vec(r, 3),), "works", mode="jac",
     name="jacrev_item_assignment")


def loss_with_item_aux(x):
    v = x[0]
    kind = 1.0 if isinstance(v, float) else 2.0
    return jnp.sum(x * x), kind * x


def _check_jacrev_aux(fn, args):
    J, aux = astjax.jacrev(fn, has_aux=True)(*args)
    return [(aux, fn(*args)[1], "jacrev's aux"), (J, 2.0 * args[0], "jacrev")]


case(loss_with_item_aux, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_jacrev_aux,
     name="jacrev_aux_isinstance_branch")


# ============================================================ kinks at the evaluation point: forward and reverse mode must agree
def _check_modes_agree(fn, args):
    """At a kink finite differences say nothing; JAX's conventions make jvp(t) equal grad . t and jacfwd equal
    jacrev. Each is compared with the other (and the value with the program's)."""
    x = args[0]
    value, g = astjax.value_and_grad(fn)(*args)
    out = [(value, fn(*args), "value")]
    rng = np.random.default_rng(3)
    for _ in range(3):
        t = rng.standard_normal(np.shape(x))
        _, tangent = astjax.jvp(fn, (x,), (t,))
        out.append((tangent, float(np.vdot(g, t)), "jvp(t) vs grad . t"))
    out.append((astjax.jacfwd(fn)(x), g, "jacfwd vs grad"))
    return out


def kink(fn, x, name=None):
    case(fn, lambda r: (np.array(x, dtype=np.float64),), "works", mode="custom", check=_check_modes_agree,
         name=(name or fn.__name__) + "_modes_agree")


def max_reduction_tie(x):
    return jnp.max(x) * 2.0 + jnp.min(x[1:])


kink(max_reduction_tie, [0.5, 0.5, 0.2, 0.2])


def max_axis_ties(A):
    return jnp.sum(jnp.max(A, axis=0) * np.array([1.0, 2.0])) + jnp.sum(jnp.min(A, axis=1, keepdims=True))


kink(max_axis_ties, [[0.5, 0.1], [0.5, 0.1]])


def builtin_max_min_ties(x):
    return max(x[0], x[1]) * 3.0 + min(x[1], x[2], x[0])


kink(builtin_max_min_ties, [0.4, 0.4, 0.4])


def maximum_minimum_ties(x):
    return jnp.sum(jnp.maximum(x, x[::-1]) * np.arange(1.0, 5.0)) + jnp.sum(jnp.minimum(x, 0.3))


kink(maximum_minimum_ties, [0.3, 0.7, 0.7, 0.3])


def abs_relu_sign_at_zero(x):
    return jnp.sum(jnp.abs(x) * 2.0 + jnp.maximum(x, 0.0) * 3.0 + jnp.sign(x) * x)


kink(abs_relu_sign_at_zero, [0.0, 0.5, 0.0])


def sort_ties(x):
    return jnp.sum(jnp.sort(x) * np.arange(1.0, 5.0)) + jnp.sum(jnp.sort(x * x)[:2])


kink(sort_ties, [0.5, 0.2, 0.5, 0.2])


def clip_at_both_bounds(x):
    return jnp.sum(jnp.clip(x, -0.5, 0.5) * np.arange(1.0, 4.0))


kink(clip_at_both_bounds, [-0.5, 0.5, 0.1])


def median_percentile_ties(x):
    return jnp.median(x) * 3.0 + jnp.percentile(x, 50.0) + jnp.quantile(x, 0.25)


kink(median_percentile_ties, [0.3, 0.3, 0.3, 0.9, -0.2])


def norm_and_sqrt_sum_at_zero(x):
    return jnp.linalg.norm(x[:2]) + jnp.sqrt(jnp.sum(x[2:] ** 2) + 1.0)


# At x[:2] = 0 both modes give nan as JAX does (jacfwd nan in every entry, as jax.jacfwd): checked off the kink.
kink(norm_and_sqrt_sum_at_zero, [0.0, 0.3, 0.4, 0.3])


def where_at_boundary(x):
    return jnp.sum(jnp.where(x >= 0.5, x * x, x * 3.0))


kink(where_at_boundary, [0.5, 0.1, 0.9])


def cummax_ties(x):
    return jnp.sum(lax.cummax(x) * np.arange(1.0, 5.0))


# A tie of a running maximum: JAX splits its derivative by the shape of its parallel scan; astjax refuses.
case(cummax_ties, lambda r: (np.array([0.5, 0.5, 0.2, 0.5]),), "refuse")


def ptp_and_argmax_ties(x):
    return jnp.ptp(x) * 2.0 + x[jnp.argmax(x)] * 3.0


kink(ptp_and_argmax_ties, [0.5, -0.2, 0.5, -0.2])


def eigh_degenerate(A):
    S = (A + A.T) * 0.0 + np.diag([1.0, 1.0, 2.0]) + 0.1 * (A + A.T)
    w, _ = jnp.linalg.eigh(S)
    return jnp.sum(w * np.array([1.0, 2.0, 3.0]))


def _zero_matrix(r):
    return (np.zeros((3, 3)),)


case(eigh_degenerate, _zero_matrix, "either", mode="custom", check=_check_modes_agree,
     name="eigh_degenerate_modes_agree")


def top_k_ties(x):
    vals, _ = lax.top_k(x, 2)
    return jnp.sum(vals * np.array([3.0, 1.0]))


kink(top_k_ties, [0.5, 0.5, 0.5, 0.1])


def logsumexp_and_softmax_equal_inputs(x):
    return jnp.sum(nn.softmax(x) * np.arange(1.0, 4.0)) + nn.logsumexp(x)


kink(logsumexp_and_softmax_equal_inputs, [0.5, 0.5, 0.5])


def floor_at_integer(x):
    return jnp.sum(jnp.floor(x) * x + jnp.round(x) * x * x)


kink(floor_at_integer, [1.0, 2.5, -1.0])


def power_at_zero_base(x):
    return jnp.sum(x ** 2.0 + x ** 3 + jnp.abs(x) ** 1.5)


kink(power_at_zero_base, [0.0, 0.3, -0.2])


def hypot_at_origin(x):
    return jnp.hypot(x[0], x[1]) + jnp.arctan2(x[1], x[2])


kink(hypot_at_origin, [0.0, 0.0, 1.0])


# ============================================================ Python's answers about the object, not its value
def getattr_len_of_item(x):
    v = x[0]
    if getattr(v, "__len__", None) is not None:
        return v * 3.0 + x[1]
    return v * 2.0 + x[1]


case(getattr_len_of_item, lambda r: (vec(r, 2),), "either")


def base_of_copy_is_none(x):
    y = x.copy()
    if y.base is None:
        return jnp.sum(y * 2.0)
    return jnp.sum(y * 3.0)


case(base_of_copy_is_none, lambda r: (vec(r, 3),), "either")


def flags_owndata_of_product(x):
    y = x * 1.0
    if y.flags.owndata:
        return jnp.sum(y * 2.0)
    return jnp.sum(y * 3.0)


case(flags_owndata_of_product, lambda r: (vec(r, 3),), "either")


def dir_of_item(x):
    v = x[0]
    if "__len__" in dir(v):
        return v * 3.0 + x[1]
    return v * 2.0 + x[1]


case(dir_of_item, lambda r: (vec(r, 2),), "either")


def repr_of_item(x):
    s = repr(x[0])
    if s.startswith("np.float64"):
        return x[0] * 2.0
    return x[0] * 3.0


case(repr_of_item, lambda r: (vec(r, 2),), "either")


def shares_memory_of_slice(x):
    y = x[1:]
    if np.shares_memory(y, x):
        return jnp.sum(y * 2.0)
    return jnp.sum(y * 3.0)


case(shares_memory_of_slice, lambda r: (vec(r, 3),), "either")


def str_of_item_as_key(x):
    table = {"0.5": 2.0}
    return x[1] * table.get(str(x[0]), 3.0)


case(str_of_item_as_key, lambda r: (np.array([0.5, 0.7]),), "either")


def np_logspace_geomspace_traced(x):
    return np.sum(np.logspace(0.0, x[0], 3)) + np.sum(np.geomspace(1.0, x[1], 3)) + np.sum(np.linspace(x, 2.0 * x, 3))


case(np_logspace_geomspace_traced, lambda r: (pos(r, 2),), "works")


# ============================================================ class and object attributes rebound between calls
class _Ops:
    fn = staticmethod(jnp.sin)


def uses_class_function(x):
    return jnp.sum(_Ops.fn(x) * x)


def _check_class_function_rebound(fn, args):
    from .harness import fd_grad
    x = args[0]
    g = astjax.value_and_grad(fn)
    before = g(x)[1]
    expected_before = fd_grad(fn, args, 0)[0]
    _Ops.fn = staticmethod(jnp.cos)
    try:
        after = g(x)[1]
        expected_after = fd_grad(fn, args, 0)[0]
    finally:
        _Ops.fn = staticmethod(jnp.sin)
    return [(before, expected_before, "before"), (after, expected_after, "after _Ops.fn = cos")]


# The cached derivative kept sin's rule after the class attribute was rebound (value cos, gradient sin's).
case(uses_class_function, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_class_function_rebound,
     name="class_attribute_rebound_between_calls")


class _Model:
    def __init__(self):
        self.act = jnp.sin


_MODEL = _Model()


def uses_object_function(x):
    return jnp.sum(_MODEL.act(x) * x)


def _check_object_function_rebound(fn, args):
    from .harness import fd_grad
    x = args[0]
    g = astjax.grad(fn)
    before = g(x)
    expected_before = fd_grad(fn, args, 0)[0]
    _MODEL.act = jnp.tanh
    try:
        after = g(x)
        expected_after = fd_grad(fn, args, 0)[0]
    finally:
        _MODEL.act = jnp.sin
    return [(before, expected_before, "before"), (after, expected_after, "after _MODEL.act = tanh")]


case(uses_object_function, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_object_function_rebound,
     name="object_attribute_rebound_between_calls")
