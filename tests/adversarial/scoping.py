"""Scoping: comprehension variables, rebound lambdas, unpacking arrays, nonlocal,
walrus, names defined in one branch, swaps, star-unpacking, shadowed parameters."""
import numpy as np

import astjax.numpy as jnp

from .case import case, vec, mat, scalar


def comprehension_variable_does_not_leak(x):
    i = 2
    ys = [x[i] * 2.0 for i in range(2)]
    return ys[0] + ys[1] + x[i] * 10.0


case(comprehension_variable_does_not_leak, lambda r: (vec(r, 3),), "works")


def comprehension_variable_same_as_param(x):
    ys = [x * 2.0 for x in [x[0], x[1]]]
    return ys[0] * ys[1] + jnp.sum(x)


case(comprehension_variable_same_as_param, lambda r: (vec(r, 3),), "works")


def generator_variable_does_not_leak(x):
    v = x[0]
    total = sum(v * v for v in x)
    return total + v * 100.0


case(generator_variable_does_not_leak, lambda r: (vec(r, 3),), "works")


def lambda_rebound(x):
    f = lambda v: v * 2.0  # noqa: E731
    a = f(x[0])
    f = lambda v: v * v * 3.0  # noqa: E731
    return a + f(x[1])


case(lambda_rebound, lambda r: (vec(r, 2),), "works")


def lambda_rebound_in_branch(x):
    f = lambda v: v + 1.0  # noqa: E731
    if x[0] > 0:
        f = lambda v: v * v  # noqa: E731
    return f(x[1]) * x[0]


case(lambda_rebound_in_branch, lambda r: (np.array([0.5, 0.7]),), "works")


def local_def_rebound(x):
    def g(v):
        return v * 2.0
    a = g(x[0])

    def g(v):  # noqa: F811
        return jnp.sin(v)
    return a * g(x[1])


case(local_def_rebound, lambda r: (vec(r, 2),), "works")


def lambda_late_binding(x):
    fs = []
    for i in range(3):
        fs.append(lambda v: v * i)
    return fs[0](x[0]) + fs[1](x[1])


case(lambda_late_binding, lambda r: (vec(r, 2),), "either",
     note="Python's late binding: every lambda sees i == 2")


def unpack_array_into_self(x):
    x, w = x
    return x * w + x ** 2


case(unpack_array_into_self, lambda r: (vec(r, 2),), "works")


def unpack_matrix_rows(A):
    a, b = A
    return jnp.sum(a * b)


case(unpack_matrix_rows, lambda r: (mat(r, 2, 3),), "works")


def unpack_three(x):
    a, b, c = x
    return a * b * c + c


case(unpack_three, lambda r: (vec(r, 3),), "works")


def star_unpack_list(x):
    first, *rest = [x[0], x[1], x[2]]
    return first * rest[0] + rest[1]


case(star_unpack_list, lambda r: (vec(r, 3),), "works")


def star_unpack_array(x):
    first, *rest = x
    return first * jnp.sum(jnp.stack(rest))


case(star_unpack_array, lambda r: (vec(r, 4),), "either")


def swap_in_loop(x):
    a, b = x[0], x[1]
    for _ in range(3):
        a, b = b, a * 0.5 + b
    return a * b


case(swap_in_loop, lambda r: (vec(r, 2),), "works")


def nonlocal_accumulate(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v

    for i in range(3):
        add(x[i] ** 2)
    return total


case(nonlocal_accumulate, lambda r: (vec(r, 3),), "either")


def closure_sees_later_binding(x):
    def g():
        return y * 2.0
    y = x[0] * 3.0
    return g() + x[1]


case(closure_sees_later_binding, lambda r: (vec(r, 2),), "works")


def closure_sees_rebinding(x):
    y = x[0]

    def g():
        return y * y
    y = x[1]
    return g()


case(closure_sees_rebinding, lambda r: (vec(r, 2),), "works")


def walrus_in_condition(x):
    if (y := x[0] * 2.0) > 0.0:
        return y * x[1]
    return y


case(walrus_in_condition, lambda r: (np.array([0.4, 0.3]),), "either")


def walrus_in_comprehension(x):
    vals = [y * y for v in [x[0], x[1]] if (y := v * 2.0) is not None]
    return vals[0] + vals[1]


case(walrus_in_comprehension, lambda r: (vec(r, 2),), "either")


def defined_in_both_branches(x):
    if x[0] > 0:
        y = x[1] * 2.0
    else:
        y = x[1] * -3.0
    return y * y


case(defined_in_both_branches, lambda r: (np.array([-0.4, 0.3]),), "works")


def defined_in_loop_used_after(x):
    for i in range(3):
        last = x[i] * (i + 1.0)
    return last * x[0]


case(defined_in_loop_used_after, lambda r: (vec(r, 3),), "works")


def parameter_rebound(x):
    x = x * 2.0
    x = jnp.sin(x)
    return jnp.sum(x)


case(parameter_rebound, lambda r: (vec(r, 3),), "works")


def loop_shadows_parameter(x):
    s = 0.0
    for x in x:
        s = s + x * x
    return s


case(loop_shadows_parameter, lambda r: (vec(r, 3),), "works")


def del_statement(x):
    y = x * 2.0
    z = y + 1.0
    del y
    y = z * z
    return jnp.sum(y)


case(del_statement, lambda r: (vec(r, 3),), "either")


def try_except(x):
    try:
        y = x[0] * 2.0
    except IndexError:
        y = 0.0
    return y * x[1]


case(try_except, lambda r: (vec(r, 2),), "either")


def with_statement(x):
    with np.errstate(divide="ignore"):
        y = x / 2.0
    return jnp.sum(y * y)


case(with_statement, lambda r: (vec(r, 3),), "either")


def class_defined_inside(x):
    class Box:
        def __init__(self, v):
            self.v = v
    b = Box(x * 2.0)
    return jnp.sum(b.v ** 2)


case(class_defined_inside, lambda r: (vec(r, 3),), "either")


def chained_comparison(x):
    if 0.0 < x[0] < 1.0:
        return x[0] * x[1]
    return x[1]


case(chained_comparison, lambda r: (np.array([0.5, 0.7]),), "works")


def augmented_on_unpacked(x):
    a, b = x[0], x[1]
    a += b
    b *= a
    return a * b


case(augmented_on_unpacked, lambda r: (vec(r, 2),), "works")


def global_statement_read(x):
    global _SCOPING_CONSTANT
    return jnp.sum(x * _SCOPING_CONSTANT)


_SCOPING_CONSTANT = 2.5
case(global_statement_read, lambda r: (vec(r, 3),), "either")


def name_reused_for_int_then_array(x):
    k = 2
    y = x[k]
    k = x * 2.0
    return y * jnp.sum(k)


case(name_reused_for_int_then_array, lambda r: (vec(r, 3),), "works")


def conditional_expression_lambda(x):
    f = (lambda v: v * 2.0) if x[0] > 0 else (lambda v: v * 3.0)
    return f(x[1])


case(conditional_expression_lambda, lambda r: (np.array([-0.5, 0.7]),), "works")


def nested_function_reads_loop_variable(x):
    s = 0.0
    for i in range(3):
        def term():
            return x[i] * (i + 1.0)
        s = s + term()
    return s


case(nested_function_reads_loop_variable, lambda r: (vec(r, 3),), "works")


def match_statement(x, kind):
    match kind:
        case 0:
            y = x * 2.0
        case _:
            y = jnp.sin(x)
    return jnp.sum(y)


case(match_statement, lambda r: (vec(r, 3), 1), "either")


def else_on_while(x):
    i = 0
    s = 0.0
    while i < 3:
        s = s + x[i]
        i += 1
    else:
        s = s * 2.0
    return s


case(else_on_while, lambda r: (vec(r, 3),), "either")
