"""Python control flow that astjax transforms (not unrolls): branches on array values,
conditional expressions, loops with runtime bounds, loops over arrays, enumerate,
zip, while loops with data-dependent conditions, break, continue, early and
multiple returns, returns inside loops, nested loops.

Branch conditions are kept far from their thresholds by the input ranges, one
case per branch where it matters.
"""
import astjax.numpy as jnp

from .registry import entry, mat, scalar, vec


# ----------------------------------------------------------------- if / elif / else
@entry(case="pos", args=lambda r: (scalar(r, 0.5, 1.5),), tags={"if_else", "if_scalar"})
@entry(case="neg", args=lambda r: (scalar(r, -1.5, -0.5),), tags={"if_else", "if_scalar"})
def if_scalar_positive(x):
    if x > 0:
        y = jnp.sin(x) * x
    else:
        y = x ** 3
    return y


@entry(case="big", args=lambda r: (vec(r, 4, 0.5, 1.0),), tags={"if_else", "if_array_reduction"})
@entry(case="small", args=lambda r: (vec(r, 4, -1.0, 0.0),), tags={"if_else", "if_array_reduction"})
def if_sum_of_array(x):
    if jnp.sum(x) > 1:
        y = jnp.sum(jnp.exp(x))
    else:
        y = jnp.sum(x * x) * 3.0
    return y


@entry(case="low", args=lambda r: (scalar(r, -2.0, -1.2),), tags={"if_elif_else", "if_scalar"})
@entry(case="mid", args=lambda r: (scalar(r, -0.8, 0.8),), tags={"if_elif_else", "if_scalar"})
@entry(case="high", args=lambda r: (scalar(r, 1.2, 2.0),), tags={"if_elif_else", "if_scalar"})
def piecewise_elif(x):
    if x < -1.0:
        y = -x * x
    elif x < 1.0:
        y = jnp.sin(x) + 2.0 * x
    else:
        y = jnp.log(x) + x
    return y * x


@entry(case="taken", args=lambda r: (scalar(r, 0.3, 1.0),), tags={"if_no_else", "overwrite"})
@entry(case="skipped", args=lambda r: (scalar(r, -1.0, -0.3),), tags={"if_no_else", "overwrite"})
def if_without_else(x):
    y = x * x
    if x > 0:
        y = y + jnp.sin(x)
        y = y * x
    return y + x


@entry(case="pp", args=lambda r: (scalar(r, 0.5, 1.0), scalar(r, 0.5, 1.0)), argnums=(0, 1),
       tags={"nested_if", "two_args"})
@entry(case="pn", args=lambda r: (scalar(r, 0.5, 1.0), scalar(r, -1.0, -0.5)), argnums=(0, 1),
       tags={"nested_if", "two_args"})
@entry(case="n", args=lambda r: (scalar(r, -1.0, -0.5), scalar(r, -1.0, 1.0)), argnums=(0, 1),
       tags={"nested_if", "two_args"})
def nested_branches(x, y):
    if x > 0:
        if y > 0:
            z = x * y
        else:
            z = x - jnp.exp(y)
    else:
        z = jnp.cos(x * y)
    return z * z


@entry(args=lambda r: (vec(r, 4), 0.5), argnums=0, tags={"if_else", "fixed_float_arg", "if_array_reduction"})
def branch_on_fixed_threshold(x, threshold):
    total = jnp.sum(x * x)
    if total > threshold * 100.0:
        return total
    return total * jnp.sum(jnp.sin(x))


@entry(case="pos", args=lambda r: (scalar(r, 0.5, 1.5),), tags={"conditional_expression"})
@entry(case="neg", args=lambda r: (scalar(r, -1.5, -0.5),), tags={"conditional_expression"})
def conditional_expression(x):
    y = x * x if x > 0 else -jnp.sin(x)
    return y * x + (2.0 * x if y > 0.5 else x)


@entry(args=lambda r: (vec(r, 5, -2.0, 2.0),), tags={"conditional_expression", "for_array", "reduction"})
def conditional_expression_in_loop(x):
    acc = 0.0
    for v in x:
        acc = acc + (v * v if v > 0 else 0.5 * v)
    return acc


# ----------------------------------------------------------------- for loops
@entry(args=lambda r: (vec(r, 3), 4), argnums=0, tags={"for_range", "runtime_bound", "loop_carried", "int_arg"})
def repeated_sine_map(x, n):
    y = x
    for i in range(n):
        y = jnp.sin(y) * x + 0.1 * i
    return jnp.sum(y)


@entry(args=lambda r: (scalar(r, 0.5, 1.0), 7), argnums=0, tags={"for_range", "start_stop_step", "int_arg"})
def range_with_start_and_step(x, n):
    acc = 0.0
    for k in range(1, n, 2):
        acc = acc + x ** k / k
    return acc


@entry(args=lambda r: (vec(r, 5), 5), argnums=0, tags={"for_range", "negative_step", "int_arg"})
def horner_reversed_range(coeffs, n):
    acc = coeffs[n - 1] * 0.0
    for i in range(n - 1, -1, -1):
        acc = acc * 0.7 + coeffs[i]
    return acc * acc


@entry(args=lambda r: (mat(r, 4, 3),), tags={"for_array", "rows", "reduction"})
def loop_over_rows(a):
    acc = 0.0
    for row in a:
        acc = acc + jnp.sum(jnp.tanh(row) ** 2)
    return acc


@entry(args=lambda r: (vec(r, 5),), tags={"enumerate"})
def weighted_by_enumerate(x):
    acc = 0.0
    for i, v in enumerate(x):
        acc = acc + (i + 1) * jnp.sin(v)
    return acc


@entry(args=lambda r: (vec(r, 4), vec(r, 4)), argnums=(0, 1), tags={"zip"})
def zip_inner_product(x, y):
    acc = 0.0
    for a, b in zip(x, y):
        acc = acc + a * b + jnp.sin(a - b)
    return acc


@entry(args=lambda r: (vec(r, 6, -2.0, 2.0),), tags={"for_array", "if_in_loop", "data_dependent_branch"})
def branch_inside_loop(x):
    acc = 0.0
    for v in x:
        if v > 0:
            acc = acc + v * v
        else:
            acc = acc - jnp.sin(v)
    return acc


@entry(args=lambda r: (scalar(r, 0.5, 0.9), 6), argnums=0, tags={"for_range", "loop_carried", "product", "int_arg"})
def running_product(x, n):
    p = 1.0
    for i in range(n):
        p = p * (x + 0.1 * i)
    return p


@entry(args=lambda r: (vec(r, 3), mat(r, 3, 3, -0.5, 0.5), 4), argnums=(0, 1),
       tags={"for_range", "loop_carried", "matmul", "rnn", "int_arg"})
def recurrent_cell(x, w, n):
    h = x
    for t in range(n):
        h = jnp.tanh(w @ h + x)
    return jnp.sum(h * h)


@entry(args=lambda r: (scalar(r, 0.1, 0.9), 5), argnums=0, tags={"for_range", "overwrite_in_branch", "int_arg"})
def loop_with_overwrite_in_branch(x, n):
    y = x
    for i in range(n):
        if i % 2 == 0:
            y = y * x + 0.5
        else:
            y = jnp.sin(y)
    return y


# ----------------------------------------------------------------- nested loops
@entry(args=lambda r: (mat(r, 3, 4), vec(r, 4), 3, 4), argnums=(0, 1), tags={"nested_loops", "indexing", "int_arg"})
def nested_loop_matvec(a, x, m, n):
    acc = 0.0
    for i in range(m):
        row = 0.0
        for j in range(n):
            row = row + a[i, j] * x[j]
        acc = acc + row * row
    return acc


@entry(args=lambda r: (vec(r, 5), 5), argnums=0, tags={"nested_loops", "triangular", "int_arg"})
def triangular_nested_loop(x, n):
    acc = 0.0
    for i in range(n):
        for j in range(i):
            acc = acc + x[i] * jnp.cos(x[j])
    return acc


# ----------------------------------------------------------------- while loops
@entry(args=lambda r: (scalar(r, 1.0, 4.0),), tags={"while", "newton", "data_dependent_loop"})
def newton_sqrt(a):
    y = a
    while jnp.abs(y * y - a) > 1e-12:
        y = 0.5 * (y + a / y)
    return y


@entry(args=lambda r: (scalar(r, 0.5, 2.0),), tags={"while", "newton", "data_dependent_loop", "cubic"})
def newton_cube_root(a):
    y = 1.0 + a * 0.0
    step = 1.0
    while jnp.abs(step) > 1e-13:
        step = (y ** 3 - a) / (3.0 * y ** 2)
        y = y - step
    return y


@entry(args=lambda r: (scalar(r, 0.3, 0.6),), tags={"while", "data_dependent_loop"})
def grow_until_threshold(x):
    y = x
    while y < 10.0:
        y = y * 1.7 + x
    return y


@entry(args=lambda r: (vec(r, 3), 4), argnums=0, tags={"while", "counter", "int_arg"})
def while_with_counter(x, n):
    i = 0
    y = x
    while i < n:
        y = jnp.cos(y) + x
        i = i + 1
    return jnp.sum(y)


@entry(args=lambda r: (scalar(r, 0.2, 0.4),), tags={"while", "break", "data_dependent_loop"})
def while_true_with_break(x):
    y = x
    k = 0
    while True:
        y = y + jnp.sin(y) * x
        k = k + 1
        if k >= 20 or y > 2.0:
            break
    return y


# ----------------------------------------------------------------- break / continue
@entry(args=lambda r: (vec(r, 8, 0.5, 1.0), 8), argnums=0, tags={"for_range", "break", "int_arg"})
def break_when_large(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x[i] * x[i]
        if acc > 2.2:
            break
    return acc


@entry(args=lambda r: (vec(r, 8, -2.0, 2.0),), tags={"for_array", "continue"})
def continue_skips_negatives(x):
    acc = 0.0
    for v in x:
        if v < 0:
            continue
        acc = acc + jnp.sqrt(v + 1.0)
    return acc


@entry(args=lambda r: (vec(r, 8, -2.0, 2.0), 8), argnums=0, tags={"for_range", "break", "continue", "int_arg"})
def break_and_continue(x, n):
    acc = 0.0
    for i in range(n):
        if x[i] < -1.5:
            break
        if x[i] < 0:
            continue
        acc = acc + x[i] ** 3
    return acc


# ----------------------------------------------------------------- returns
@entry(case="early", args=lambda r: (scalar(r, -1.5, -0.5),), tags={"early_return"})
@entry(case="late", args=lambda r: (scalar(r, 0.5, 1.5),), tags={"early_return"})
def early_return(x):
    if x < 0:
        return -x * x
    y = jnp.sin(x)
    y = y * jnp.exp(x)
    return y


@entry(case="a", args=lambda r: (scalar(r, -2.0, -1.2),), tags={"multiple_returns", "if_elif_else"})
@entry(case="b", args=lambda r: (scalar(r, -0.8, 0.8),), tags={"multiple_returns", "if_elif_else"})
@entry(case="c", args=lambda r: (scalar(r, 1.2, 2.0),), tags={"multiple_returns", "if_elif_else"})
def multiple_returns(x):
    if x < -1.0:
        return jnp.exp(x)
    elif x < 1.0:
        return x * x * x
    else:
        return jnp.log(x) * 2.0


@entry(args=lambda r: (vec(r, 8, 0.3, 1.0), 8), argnums=0, tags={"return_in_loop", "for_range", "int_arg"})
def return_inside_loop(x, n):
    acc = 0.0
    for i in range(n):
        acc = acc + x[i] * x[i]
        if acc > 1.5:
            return acc * jnp.sin(x[i])
    return acc


@entry(args=lambda r: (vec(r, 6, -2.0, 2.0),), tags={"return_in_loop", "for_array"})
def first_large_element_scaled(x):
    for v in x:
        if v > 0.5:
            return v * v + jnp.sum(x) * 0.1
    return jnp.sum(x)
