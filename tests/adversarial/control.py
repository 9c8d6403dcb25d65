"""Branches: conditions on data, elif chains inside loops, short-circuit and/or,
conditional expressions, early returns at several depths, branches that change
shapes or which variables exist, recursion depth decided by data."""
import numpy as np

import astjax.numpy as jnp

from .case import case, vec, mat, scalar


def elif_chain_in_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.5:
            s = s + x[i] ** 2
        elif x[i] > 0.0:
            s = s + jnp.sin(x[i])
        elif x[i] > -0.5:
            s = s - x[i] * 3.0
        else:
            s = s * 0.5
    return s


case(elif_chain_in_loop, lambda r: (np.array([0.8, 0.2, -0.3, -0.9, 0.6]),), "works")


def branch_changes_shape(x):
    if x[0] > 0:
        y = jnp.stack([x, x])
    else:
        y = x[None, :]
    return jnp.sum(y ** 2)


case(branch_changes_shape, lambda r: (np.array([0.3, -0.2, 0.5]),), "works")


def branch_defines_extra_variable(x):
    extra = 0.0
    if x[0] > 0:
        extra = x[1] * 3.0
        bonus = extra * x[2]
        extra = extra + bonus
    return extra + x[0]


case(branch_defines_extra_variable, lambda r: (np.array([0.3, -0.2, 0.5]),), "works")


def short_circuit_and(x):
    if x[0] > 0 and x[1] > 0:
        return x[0] * x[1]
    return x[0] + x[1]


case(short_circuit_and, lambda r: (np.array([0.3, -0.2]),), "works")


def short_circuit_or_value(x, flag):
    scale = flag or 2.0
    return jnp.sum(x * scale)


case(short_circuit_or_value, lambda r: (vec(r, 3), 0.0), "works")


def conditional_expression_in_loop(x):
    s = 0.0
    for i in range(4):
        s = s + (x[i] ** 2 if i % 2 == 0 else -x[i])
    return s


case(conditional_expression_in_loop, lambda r: (vec(r, 4),), "works")


def nested_conditional_expression(x):
    a = x[0] * 2.0 if x[0] > 0 else (x[0] * 3.0 if x[1] > 0 else x[0] * 4.0)
    return a * x[1]


case(nested_conditional_expression, lambda r: (np.array([-0.3, 0.5]),), "works")


def early_return_at_depth_two(x):
    if x[0] > 0:
        if x[1] > 0:
            return x[0] * x[1]
        y = x[0] * 2.0
    else:
        y = x[1] * 3.0
    return y * y


case(early_return_at_depth_two, lambda r: (np.array([0.3, -0.5]),), "works")


def multiple_returns_in_sequence(x):
    if x[0] < -0.5:
        return x[0]
    if x[0] < 0.0:
        return x[0] ** 2
    if x[0] < 0.5:
        return x[0] ** 3
    return jnp.sin(x[0])


case(multiple_returns_in_sequence, lambda r: (np.array([0.3]),), "works")


def _depth_by_data(x, level):
    if x * level > 2.0 or level > 6:
        return x
    return _depth_by_data(jnp.sin(x) + x, level + 1)


def recursion_depth_from_data(x):
    return _depth_by_data(x[0], 1) * x[1]


case(recursion_depth_from_data, lambda r: (np.array([0.7, 0.4]),), "works")


def while_condition_on_traced(x):
    y = x[0]
    while y < 3.0:
        y = y * 2.0
    return y * x[1]


case(while_condition_on_traced, lambda r: (np.array([0.7, 0.4]),), "works")


def while_with_two_exits(x):
    y = x[0]
    i = 0
    while i < 10:
        y = y * 1.5
        if y > 4.0:
            break
        i += 1
    return y + i


case(while_with_two_exits, lambda r: (np.array([0.7]),), "works")


def branch_in_while_in_branch(x):
    s = 0.0
    if x[0] > 0:
        k = 0
        while k < 4:
            if k % 2:
                s = s + x[k]
            else:
                s = s * x[k]
            k += 1
    return s + x[0]


case(branch_in_while_in_branch, lambda r: (np.array([0.3, -0.5, 0.7, 0.2]),), "works")


def not_operator_condition(x):
    if not x[0] > 0:
        return x[1] ** 2
    return x[1]


case(not_operator_condition, lambda r: (np.array([-0.3, 0.5]),), "works")


def any_all_conditions(x):
    if jnp.all(x > -1.0) and not jnp.any(x > 0.9):
        return jnp.sum(x ** 2)
    return jnp.sum(x)


case(any_all_conditions, lambda r: (np.array([0.3, -0.5, 0.7]),), "works")


def if_on_shape(x):
    if x.shape[0] > 2:
        return jnp.sum(x[:2] * x[2])
    return jnp.sum(x)


case(if_on_shape, lambda r: (vec(r, 3),), "works")


def if_on_int_argument(x, mode):
    if mode == 0:
        y = jnp.sin(x)
    elif mode == 1:
        y = jnp.cos(x)
    else:
        y = x ** 2
    return jnp.sum(y)


case(if_on_int_argument, lambda r: (vec(r, 3), 2), "works")


def if_on_string_argument(x, kind):
    if kind == "l2":
        return jnp.sum(x ** 2)
    return jnp.sum(jnp.abs(x))


case(if_on_string_argument, lambda r: (vec(r, 3), "l2"), "works", jvp=False)


def loop_with_conditional_accumulator_reset(x):
    acc = 0.0
    best = 0.0
    for i in range(5):
        acc = acc + x[i]
        if acc < 0.0:
            acc = 0.0
        best = best + acc * 0.5
    return best


case(loop_with_conditional_accumulator_reset, lambda r: (np.array([0.3, -0.9, 0.7, 0.2, -0.1]),), "works")


def branch_assigns_different_types(x):
    if x[0] > 0:
        y = 2
    else:
        y = x[1]
    return x[0] * y


case(branch_assigns_different_types, lambda r: (np.array([0.3, -0.5]),), "works")


def branch_on_python_float_of_data(x):
    if float(x[0]) > 0.0:
        return x[0] * x[1]
    return x[1]


case(branch_on_python_float_of_data, lambda r: (np.array([0.3, -0.5]),), "works")


def pass_and_ellipsis(x):
    if x[0] > 0:
        pass
    else:
        ...
    return jnp.sum(x ** 2)


case(pass_and_ellipsis, lambda r: (vec(r, 2),), "works")


def assert_in_function(x):
    assert x.shape == (3,), "wrong shape"
    return jnp.sum(x ** 3)


case(assert_in_function, lambda r: (vec(r, 3),), "works")


def raise_in_unreached_branch(x):
    if x.shape[0] == 0:
        raise ValueError("empty")
    return jnp.sum(jnp.tanh(x))


case(raise_in_unreached_branch, lambda r: (vec(r, 3),), "works")


def loop_over_reversed_and_sliced_range(x):
    s = 0.0
    for i in reversed(range(1, 4)):
        s = s * 0.5 + x[i]
    for i in range(6)[1:4]:
        s = s + x[i - 1] ** 2
    return s


case(loop_over_reversed_and_sliced_range, lambda r: (vec(r, 4),), "works")


def loop_over_tuple_of_ints(x):
    s = 0.0
    for k in (2, 0, 1):
        s = s * x[k] + 1.0
    return s


case(loop_over_tuple_of_ints, lambda r: (vec(r, 3),), "works")


def loop_over_numpy_int_array(x, idx):
    s = 0.0
    for k in idx:
        s = s + x[k] ** 2
    return s


case(loop_over_numpy_int_array, lambda r: (vec(r, 4), np.array([3, 1, 1])), "works")


def loop_over_matrix_columns(A):
    s = 0.0
    for col in A.T:
        s = s + jnp.sum(col) ** 2
    return s


case(loop_over_matrix_columns, lambda r: (mat(r, 3, 2),), "works")
