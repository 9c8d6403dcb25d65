"""Loops whose headers change under the reverse sweep's feet.

Bounds that depend on outer indices and on data, empty and negative ranges,
while/break/continue nested in for, loop variables reassigned in the body,
iterated names rebound in the body, returns inside loops.
"""
import numpy as np

import astjax.numpy as jnp

from .case import case, vec, pos, mat, scalar


def triangular_inner_bound(x):
    s = 0.0
    for i in range(4):
        for j in range(4 - i):
            s = s + x[j] * x[i]
    return s


case(triangular_inner_bound, lambda r: (np.array([1.0, 2.0, 3.0, 4.0]),), "works")


def pairwise_upper(x):
    n = x.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = x[i] - x[j]
            e = e + 1.0 / (1.0 + d * d)
    return e


case(pairwise_upper, lambda r: (vec(r, 5),), "works")


def pairwise_forces_energy(pos_):
    n = pos_.shape[0]
    energy = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = np.sum((pos_[i] - pos_[j]) ** 2) + 0.5
            energy = energy + 1.0 / r2
    return energy


case(pairwise_forces_energy, lambda r: (mat(r, 4, 2),), "works")


def range_i_minus_one(x):
    s = 0.0
    for i in range(4):
        for j in range(i - 1):
            s = s + x[i] * x[j]
    return s


case(range_i_minus_one, lambda r: (vec(r, 4),), "works")


def lower_triangle_inclusive(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(i + 1):
            s = s + jnp.sin(x[i] * x[j])
    return s


case(lower_triangle_inclusive, lambda r: (vec(r, 4),), "works")


def three_level_dependent(x):
    s = 0.0
    for i in range(3):
        for j in range(i, 3):
            for k in range(j - i + 1):
                s = s + x[i] * x[j] + x[k] ** 2
    return s


case(three_level_dependent, lambda r: (vec(r, 3),), "works")


def negative_step(x):
    s = 0.0
    for i in range(x.shape[0] - 1, -1, -1):
        s = s * 0.5 + x[i] ** 2
    return s


case(negative_step, lambda r: (vec(r, 5),), "works")


def negative_step_inner_dependent(x):
    s = 0.0
    for i in range(4):
        for j in range(3, i, -1):
            s = s + x[i] * x[j]
    return s


case(negative_step_inner_dependent, lambda r: (vec(r, 4),), "works")


def step_two(x):
    s = 1.0
    for i in range(1, x.shape[0], 2):
        s = s * (1.0 + x[i] * x[i - 1])
    return s


case(step_two, lambda r: (vec(r, 6),), "works")


def data_dependent_bound(x, counts):
    s = 0.0
    for i in range(counts.shape[0]):
        for j in range(int(counts[i])):
            s = s + x[i] * (j + 1.0)
    return s


case(data_dependent_bound, lambda r: (vec(r, 4), np.array([3, 0, 2, 1])), "works")


def bound_from_round_of_data(x, m):
    s = 0.0
    n = int(m[0])
    for i in range(n):
        for j in range(n - i):
            s = s + x[i] * x[j]
    return s


case(bound_from_round_of_data, lambda r: (vec(r, 4), np.array([4.0])), "works")


def bound_changes_after_loop(x):
    n = 3
    s = 0.0
    for i in range(n):
        s = s + x[i] ** 2
        n = 1
    for i in range(n):
        s = s + x[i]
    return s


case(bound_changes_after_loop, lambda r: (vec(r, 3),), "works")


def empty_inner_loop_sometimes(x):
    s = 0.0
    for i in range(4):
        for j in range(i % 2):
            s = s + x[i] * x[j]
        s = s + x[i]
    return s


case(empty_inner_loop_sometimes, lambda r: (vec(r, 4),), "works")


def while_in_for(x):
    s = 0.0
    for i in range(3):
        k = 0
        while k < i + 1:
            s = s + x[i] * x[k]
            k = k + 1
    return s


case(while_in_for, lambda r: (vec(r, 3),), "works")


def while_data_dependent(x):
    y = x[0]
    n = 0
    while y < 10.0:
        y = y * 1.7 + x[1]
        n = n + 1
    return y * n


case(while_data_dependent, lambda r: (np.array([1.1, 0.23]),), "works")


def break_in_for_inner(x):
    s = 0.0
    for i in range(4):
        for j in range(4):
            if j > i:
                break
            s = s + x[i] * x[j]
    return s


case(break_in_for_inner, lambda r: (vec(r, 4),), "works")


def break_on_data(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + x[i] ** 2
        if s > 1.0:
            break
    return s


case(break_on_data, lambda r: (np.array([0.6, 0.5, 0.7, 0.9, 0.2]),), "works")


def continue_inner(x):
    s = 0.0
    for i in range(4):
        for j in range(4):
            if (i + j) % 2 == 0:
                continue
            s = s + x[i] * jnp.cos(x[j])
    return s


case(continue_inner, lambda r: (vec(r, 4),), "works")


def while_break_continue(x):
    i = 0
    s = 0.0
    while True:
        i = i + 1
        if i > 6:
            break
        if i % 3 == 0:
            continue
        s = s + x[i % 4] * i
    return s


case(while_break_continue, lambda r: (vec(r, 4),), "works")


def loop_var_reassigned(x):
    s = 0.0
    for i in range(3):
        i = i * 2
        s = s + x[i] ** 2
    return s


case(loop_var_reassigned, lambda r: (vec(r, 6),), "works")


def loop_var_used_after(x):
    s = 0.0
    for i in range(3):
        s = s + x[i]
    return s * x[i]


case(loop_var_used_after, lambda r: (vec(r, 4),), "works")


def iterated_name_rebound(x):
    s = 0.0
    for v in x:
        s = s + v * v
        x = x * 2.0
    return s + np.sum(x)


case(iterated_name_rebound, lambda r: (vec(r, 3),), "works")


def range_bound_rebound_in_body(x):
    n = 4
    s = 0.0
    for i in range(n):
        n = n - 1
        s = s + x[i] * n
    return s


case(range_bound_rebound_in_body, lambda r: (vec(r, 4),), "works")


def return_inside_loop_inside_if(x, flag):
    s = 0.0
    if flag > 0:
        for i in range(4):
            s = s + x[i]
            if s > 0.5:
                return s * 2.0
    s = s + np.sum(x ** 2)
    return s


case(return_inside_loop_inside_if, lambda r: (np.array([0.3, 0.4, 0.1, 0.2]), 1), "either")


def return_in_nested_loops(x):
    for i in range(4):
        for j in range(4):
            if x[i] * x[j] > 0.5:
                return x[i] * x[j] + i
    return np.sum(x)


case(return_in_nested_loops, lambda r: (np.array([0.2, 0.3, 0.9, 0.8]),), "either")


def early_return_in_loop_then_more(x):
    s = 0.0
    for i in range(5):
        s = s + x[i] ** 2
        if i == 2:
            return s * x[0]
    return s


case(early_return_in_loop_then_more, lambda r: (vec(r, 5),), "either")


def accumulate_outer_index_in_inner(x):
    s = 0.0
    for i in range(1, 4):
        acc = x[0]
        for j in range(i):
            acc = acc * x[j + 1] + x[i]
        s = s + acc
    return s


case(accumulate_outer_index_in_inner, lambda r: (vec(r, 4),), "works")


def recurrence_with_history(x):
    h = [x[0], x[1]]
    for i in range(2, 6):
        h.append(h[i - 1] * 0.5 + h[i - 2] * jnp.sin(x[i % 3]))
    return h[-1] + h[3]


case(recurrence_with_history, lambda r: (vec(r, 3),), "works")


def for_over_rows_of_matrix(A):
    s = 0.0
    for row in A:
        s = s + np.sum(row * row) * row[0]
    return s


case(for_over_rows_of_matrix, lambda r: (mat(r, 3, 4),), "works")


def nested_while_dependent(x):
    s = 0.0
    i = 0
    while i < 3:
        j = i
        while j < 3:
            s = s + x[i] * x[j]
            j = j + 1
        i = i + 1
    return s


case(nested_while_dependent, lambda r: (vec(r, 3),), "works")


def break_then_use_index(x):
    k = 0
    for k in range(5):
        if x[k] > 0.5:
            break
    return x[k] ** 3 + k


case(break_then_use_index, lambda r: (np.array([0.1, 0.2, 0.8, 0.3, 0.9]),), "works")


def for_else(x):
    s = 0.0
    for i in range(3):
        if x[i] > 2.0:
            break
        s = s + x[i]
    else:
        s = s * x[0]
    return s


case(for_else, lambda r: (vec(r, 3),), "either")


def loop_bound_from_len_of_list(x):
    items = [x[0], x[1] * 2.0]
    for i in range(len(items)):
        items.append(items[i] * x[2])
    s = 0.0
    for v in items:
        s = s + v
    return s


case(loop_bound_from_len_of_list, lambda r: (vec(r, 3),), "works")


def fixed_point_iteration(a):
    y = 1.0
    for _ in range(20):
        y = 0.5 * (y + a / y)
    return y


case(fixed_point_iteration, lambda r: (scalar(r, 1.0, 3.0),), "works")


def loop_with_scalar_index_arithmetic(x):
    s = 0.0
    n = x.shape[0]
    for i in range(n):
        j = (i * 3 + 1) % n
        s = s + x[i] * x[j]
    return s


case(loop_with_scalar_index_arithmetic, lambda r: (vec(r, 5),), "works")


def dependent_inner_then_branch_on_outer(x):
    s = 0.0 + 0.1 * x[0]
    acc = []
    for i0 in range(4):
        for i1 in range(4 - i0):
            s = 0.5 * s + -0.7 * jnp.sin(x[(i0 + 1) % 4])
            s = 0.5 * s + 0.3 * jnp.tanh(x[0] + 0.5)
        if i0 % 2 == 0:
            s = -0.6 * s + 0.3 * jnp.cos(x[1]) * 0.5
            s = -0.6 * s + 1.0 * jnp.tanh(x[0] + 0.5)
    for i2 in range(3):
        s = 0.8 * s + 1.0 * jnp.cos(x[(i2 + 1) % 4]) * 0.5
        s = 0.8 * s + 0.3 * jnp.sin(x[(i2 + 1) % 4])
    for v in acc:
        s = s + 0.1 * v
    return s


case(dependent_inner_then_branch_on_outer, lambda r: (vec(r, 4),), "works",
     note="found by tests/test_adversarial_properties.py (family dependent_bounds)")


def data_bound_capped_by_outer_index(x, m):
    s = 0.0 + 0.1 * x[0]
    acc = []
    for i0 in range(4):
        for i1 in range(min(int(m[3]), i0 + 1)):
            s = 0.8 * s + -0.7 * jnp.cos(x[(i1 + 1) % 4]) * 0.5
            s = 0.5 * s + -0.7 * x[1]
        if i0 % 2 == 0:
            s = -0.6 * s + 1.0 * jnp.tanh(x[1] + 0.5)
            if i0 % 2 == 0:
                s = 0.5 * s + -0.7 * jnp.sin(x[0])
                s = 0.5 * s + -0.7 * x[2]
            else:
                s = 0.8 * s + 0.3 * jnp.sin(x[(i0 + 1) % 4])
        if i0 % 2 == 0:
            s = -0.6 * s + -0.7 * jnp.tanh(x[i0 % 4] + 0.5)
        else:
            s = 0.5 * s + -0.7 * x[0] * x[0]
    for v in acc:
        s = s + 0.1 * v
    return s


case(data_bound_capped_by_outer_index, lambda r: (vec(r, 4), np.array([3, 3, 3, 3])), "works",
     note="found by tests/test_adversarial_properties.py (family data_bounds)")


def stale_inner_variable_after_empty_loop(x):
    s = 0.0
    j = 0
    for i in range(4):
        for j in range(i - 1):
            s = s + x[j] * x[i]
        s = s * 0.5 + x[j] ** 2
    return s


case(stale_inner_variable_after_empty_loop, lambda r: (vec(r, 4),), "works",
     note="when range(i - 1) is empty, j keeps its value from an earlier outer iteration")


def break_in_while_in_dependent_for(x):
    s = 0.0
    for i in range(4):
        k = i
        while k < 6:
            s = s + x[k % 4] * x[i]
            if k - i >= 2:
                break
            k = k + 1
    return s


case(break_in_while_in_dependent_for, lambda r: (vec(r, 4),), "works")


def continue_with_dependent_bounds(x):
    s = 0.0
    for i in range(4):
        for j in range(i, 4):
            if (i * j) % 3 == 1:
                continue
            s = s + jnp.sin(x[i] - x[j]) + x[j]
    return s


case(continue_with_dependent_bounds, lambda r: (vec(r, 4),), "works")


def range_len_of_growing_list(x):
    xs = [x[0], x[1]]
    for i in range(len(xs)):
        xs.append(xs[i] * x[2])
    return xs[0] + xs[1] * xs[2] + xs[3] * 2.0


case(range_len_of_growing_list, lambda r: (vec(r, 3),), "works")


def bound_from_int_of_differentiated_value(x):
    n = int(x[0] * 3.0) + 2
    s = 0.0
    for i in range(n):
        s = s + x[1] * (i + 1.0)
    return s * x[0]


case(bound_from_int_of_differentiated_value, lambda r: (np.array([0.55, 0.3]),), "either",
     note="int() of a differentiated value: piecewise constant, the bound has no derivative")


def outer_variable_reassigned_in_inner(x):
    s = 0.0
    for i in range(3):
        for j in range(2):
            i = i + j
            s = s + x[i % 4] * (j + 1.0)
    return s


case(outer_variable_reassigned_in_inner, lambda r: (vec(r, 4),), "works")


def return_inside_while_inside_for(x):
    s = 0.0
    for i in range(4):
        k = 0
        while k < 3:
            s = s + x[i] * x[k]
            if i == 2 and k == 1:
                return s * 2.0
            k = k + 1
    return s


case(return_inside_while_inside_for, lambda r: (vec(r, 4),), "either")


def flag_breaks_outer_loop(x):
    s = 0.0
    done = False
    for i in range(4):
        for j in range(4):
            s = s + x[i] * x[j]
            if i + j == 3:
                done = True
                break
        if done and i >= 1:
            break
    return s


case(flag_breaks_outer_loop, lambda r: (vec(r, 4),), "works")


def enumerate_reversed_slice(x):
    s = 0.0
    for i, v in enumerate(x[::-1]):
        s = s + (i + 1.0) * v ** 2
    return s


case(enumerate_reversed_slice, lambda r: (vec(r, 4),), "works")


def reversed_range_slice(x):
    s = 0.0
    for i in range(4)[::-1]:
        s = s * 0.5 + x[i]
    return s


case(reversed_range_slice, lambda r: (vec(r, 4),), "works")


def zip_range_and_array(x):
    s = 0.0
    for i, v in zip(range(3), x):
        s = s + v * x[(i + 1) % 4]
    return s


case(zip_range_and_array, lambda r: (vec(r, 4),), "works")


def counter_changed_conditionally(x):
    n = 2
    s = 0.0
    for i in range(5):
        if i % 2 == 0:
            n = n + 1
        for j in range(n - i if n > i else 0):
            s = s + x[j % 4] * 0.5
    return s


case(counter_changed_conditionally, lambda r: (vec(r, 4),), "works")


def four_level_triangular(x):
    s = 0.0
    for i in range(3):
        for j in range(i + 1):
            for k in range(j + 1):
                for l in range(k, 3):
                    s = s + x[i] * x[l] - x[j] * x[k]
    return s


case(four_level_triangular, lambda r: (vec(r, 3),), "works")


def array_shrinks_in_loop(x):
    s = 0.0
    y = x
    while y.shape[0] > 1:
        s = s + jnp.sum(y ** 2)
        y = y[1:] * y[0]
    return s + y[0]


case(array_shrinks_in_loop, lambda r: (vec(r, 4),), "works")


def loop_over_list_rebound_in_body(x):
    items = [x[0], x[1]]
    s = 0.0
    for v in items:
        s = s + v
        items = [v * 2.0]
    return s + items[0]


case(loop_over_list_rebound_in_body, lambda r: (vec(r, 2),), "works",
     note="Python iterates the original list; the rebinding only changes the name")


def while_pop_until_empty(x):
    stack = [x[0], x[1] * 2.0, x[2] * 3.0]
    s = 0.0
    while len(stack) > 0:
        v = stack.pop()
        s = s * 0.5 + v
    return s


case(while_pop_until_empty, lambda r: (vec(r, 3),), "works")


def while_true_break_on_counter(x):
    s = x[0]
    i = 0
    while True:
        i += 1
        s = s * 0.9 + x[i % 3]
        if i >= 5:
            break
    return s


case(while_true_break_on_counter, lambda r: (vec(r, 3),), "works")


def inner_bound_is_outer_loop_value_of_array(x, idx):
    s = 0.0
    for k in idx:
        for j in range(k):
            s = s + x[j] * x[k]
    return s


case(inner_bound_is_outer_loop_value_of_array, lambda r: (vec(r, 4), np.array([3, 0, 2, 1])), "works")


def loop_body_calls_helper_with_loop_bound(x):
    s = 0.0
    for i in range(4):
        s = s + _partial_sum(x, i)
    return s


def _partial_sum(v, n):
    t = 0.0
    for j in range(n):
        t = t + v[j] * v[n]
    return t


case(loop_body_calls_helper_with_loop_bound, lambda r: (vec(r, 4),), "works")
