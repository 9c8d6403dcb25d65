"""An attacker's corpus, seventh round: functional-style Python inside the differentiated function (map,
filter, zip, enumerate, reversed, sorted with a key, functools.reduce, itertools, generator expressions fed
to builtins and to jnp.stack, generators, nested and dict/set comprehensions, star unpacking, list slicing
and arithmetic, walrus, match, try/finally, assert, global counters) and compositions of transformations on
realistic programs (unrolled inner optimisation with grad inside grad, Newton steps through jacfwd/hessian,
jvp of grad, vjp of tuple/dict outputs with their cotangents, has_aux dicts, argnums tuples with keywords,
jit with static arguments steering control flow, vmap of grad over loops, custom rules inside loops and
under vmap, checkpoint, stop_gradient in closures, an RK4 integrator, lax loops closing over parameters)."""
import functools
import heapq
import itertools
import math
import operator
import statistics

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax

from .case import case, vec, mat, pos, spd, scalar


def _x(*values):
    return np.array(values, dtype=np.float64)


# ============================================================ functional-style Python
def map_lambda_sum(x):
    return sum(map(lambda v: v * v, x))


case(map_lambda_sum, lambda r: (vec(r, 4),), "works")


def map_two_iterables(x):
    ys = list(map(lambda a, b: a * b, x, x[::-1]))
    return sum(ys)


case(map_two_iterables, lambda r: (vec(r, 4),), "works")


def map_builtin_function(x):
    return sum(map(jnp.sin, x))


case(map_builtin_function, lambda r: (vec(r, 4),), "works")


def filter_on_data(x):
    return sum(filter(lambda v: v > 0, x))


case(filter_on_data, lambda r: (_x(0.5, -0.3, 1.2, -0.7),), "either")


def filter_none_truthy(x):
    ys = [x[0], 0.0, x[1] * 2]
    return sum(filter(None, ys))


case(filter_none_truthy, lambda r: (_x(0.5, 1.5),), "either")


def zip_three_lists(x):
    a, b, c = [x[0], x[1]], [x[2], x[3]], [2.0, 3.0]
    return sum(p * q * s for p, q, s in zip(a, b, c))


case(zip_three_lists, lambda r: (vec(r, 4),), "works")


def enumerate_start(x):
    s = 0.0
    for i, v in enumerate(x, start=1):
        s = s + i * v ** 2
    return s


case(enumerate_start, lambda r: (vec(r, 4),), "works")


def enumerate_zip_nested_unpack(x):
    s = 0.0
    for i, (a, b) in enumerate(zip(x, x[1:])):
        s = s + (i + 1) * a * b
    return s


case(enumerate_zip_nested_unpack, lambda r: (vec(r, 5),), "works")


def reversed_list_horner(x):
    coeffs = [1.0, -2.0, 0.5, 3.0]
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


case(reversed_list_horner, lambda r: (scalar(r),), "works")


def reversed_array_weights(x):
    s = 0.0
    w = 1.0
    for v in reversed(x):
        s = s + w * v
        w = w * 2.0
    return s * x[0]


case(reversed_array_weights, lambda r: (vec(r, 4),), "works")


def sorted_key_abs(x):
    ys = sorted([x[0], x[1], x[2]], key=abs)
    return ys[0] * 1.0 + ys[1] * 2.0 + ys[2] * 3.0


case(sorted_key_abs, lambda r: (_x(0.5, -1.3, 0.9),), "works")


def sorted_reverse_true(x):
    ys = sorted(list(x), reverse=True)
    return ys[0] - 2 * ys[-1]


case(sorted_reverse_true, lambda r: (_x(0.2, -0.5, 1.1, 0.4),), "works")


def sorted_pairs_by_second(x):
    pairs = [(x[0], x[3]), (x[1], x[2]), (x[2], x[0])]
    ps = sorted(pairs, key=lambda p: p[1])
    return ps[0][0] * 3.0 + ps[2][0]


case(sorted_pairs_by_second, lambda r: (_x(0.3, 0.8, -0.4, 1.2),), "works")


def reduce_lambda(x):
    return functools.reduce(lambda a, b: a * b + 1.0, x)


case(reduce_lambda, lambda r: (vec(r, 4),), "works")


def reduce_operator_add_initial(x):
    return functools.reduce(operator.add, [v * v for v in x], 1.0)


case(reduce_operator_add_initial, lambda r: (vec(r, 4),), "works")


def reduce_operator_mul(x):
    return functools.reduce(operator.mul, x)


case(reduce_operator_mul, lambda r: (pos(r, 4),), "works")


def reduce_matmul_chain(A):
    return jnp.sum(functools.reduce(operator.matmul, [A, A.T, A]))


case(reduce_matmul_chain, lambda r: (mat(r, 3),), "works")


def accumulate_running_sum(x):
    cs = list(itertools.accumulate(x))
    return sum(c * c for c in cs)


case(accumulate_running_sum, lambda r: (vec(r, 4),), "works")


def accumulate_with_mul(x):
    cs = list(itertools.accumulate(x, operator.mul))
    return cs[-1] + cs[1]


case(accumulate_with_mul, lambda r: (pos(r, 4),), "works")


def accumulate_with_lambda_max(x):
    cs = list(itertools.accumulate(x, lambda a, b: a * 0.5 + b))
    return sum(cs)


case(accumulate_with_lambda_max, lambda r: (vec(r, 4),), "works")


def product_repeat_two(x):
    s = 0.0
    for a, b in itertools.product(x, repeat=2):
        s = s + a * b * b
    return s


case(product_repeat_two, lambda r: (vec(r, 3),), "either")


def combinations_indices(x):
    s = 0.0
    for i, j in itertools.combinations(range(len(x)), 2):
        s = s + (x[i] - x[j]) ** 2
    return s


case(combinations_indices, lambda r: (vec(r, 4),), "works")


def combinations_with_replacement_values(x):
    s = 0.0
    for a, b in itertools.combinations_with_replacement(x, 2):
        s = s + a * b
    return s


case(combinations_with_replacement_values, lambda r: (vec(r, 3),), "either")


def chain_two_lists(x):
    s = 0.0
    for v in itertools.chain([x[0], x[1]], [x[2] * 2]):
        s = s + v ** 3
    return s


case(chain_two_lists, lambda r: (vec(r, 3),), "either")


def chain_from_iterable(x):
    rows = [[x[0], x[1]], [x[2]]]
    return sum(v * v for v in itertools.chain.from_iterable(rows))


case(chain_from_iterable, lambda r: (vec(r, 3),), "either")


def starmap_pow(x):
    return sum(itertools.starmap(lambda a, b: a ** b, [(x[0], 2), (x[1], 3)]))


case(starmap_pow, lambda r: (pos(r, 2),), "either")


def islice_first_three(x):
    return sum(v * v for v in itertools.islice(x, 3))


case(islice_first_three, lambda r: (vec(r, 5),), "either")


def islice_step(x):
    return sum(v ** 3 for v in itertools.islice(x, 1, None, 2))


case(islice_step, lambda r: (vec(r, 5),), "either")


def pairwise_differences(x):
    return sum((b - a) ** 2 for a, b in itertools.pairwise(x))


case(pairwise_differences, lambda r: (vec(r, 5),), "either")


def genexpr_max(x):
    return max(v * v for v in x)


case(genexpr_max, lambda r: (_x(0.3, -1.2, 0.8),), "works")


def genexpr_min_with_condition(x):
    return min(v for v in x if v > 0.0)


case(genexpr_min_with_condition, lambda r: (_x(0.3, -1.2, 0.8),), "works")


def genexpr_any_all_gate(x):
    s = jnp.sum(x ** 2)
    if any(v > 1.0 for v in x):
        s = s * 2.0
    if all(v > -2.0 for v in x):
        s = s + x[0]
    return s


case(genexpr_any_all_gate, lambda r: (_x(0.3, 1.2, 0.8),), "works")


def genexpr_stack(x):
    return jnp.sum(jnp.stack([x * k for k in range(1, 4)]) ** 2)


case(genexpr_stack, lambda r: (vec(r, 3),), "works")


def genexpr_into_stack_directly(x):
    return jnp.sum(jnp.stack(tuple(jnp.sin(x * k) for k in range(3))))


case(genexpr_into_stack_directly, lambda r: (vec(r, 3),), "works")


def sum_with_start(x):
    return sum((v * v for v in x), 10.0 * x[0])


case(sum_with_start, lambda r: (vec(r, 3),), "works")


def sum_lists_with_start_list(x):
    parts = [[x[0]], [x[1], x[2]]]
    flat = sum(parts, [])
    return flat[0] * flat[2] + flat[1]


case(sum_lists_with_start_list, lambda r: (vec(r, 3),), "works")


def sum_tuples_with_empty_tuple(x):
    parts = [(x[0],), (x[1], x[2])]
    flat = sum(parts, ())
    return flat[0] * flat[2] + flat[1] * flat[-1]


case(sum_tuples_with_empty_tuple, lambda r: (vec(r, 3),), "works")


def sum_lists_with_nonempty_start(x):
    parts = [[x[0]], [x[1], x[2]]]
    flat = sum(parts, [x[2] * 3])
    return flat[0] * flat[2] + flat[1] * flat[-1]


case(sum_lists_with_nonempty_start, lambda r: (vec(r, 3),), "works")


def sum_lists_start_keyword_in_loop(x):
    s = 0.0
    for k in range(2):
        flat = sum([[x[k]], [x[k + 1] * 2, x[2]]], start=[])
        s = s + flat[0] * flat[1] - flat[2] ** 2
    return s


case(sum_lists_start_keyword_in_loop, lambda r: (vec(r, 3),), "works")


def sum_tuples_with_nonempty_tuple_start(x):
    parts = [(x[0],), (x[1], x[2])]
    flat = sum(parts, (x[2] * 3,))
    return flat[0] * flat[2] + flat[1] * flat[-1]


case(sum_tuples_with_nonempty_tuple_start, lambda r: (vec(r, 3),), "either")


def sum_lists_variable_start(x):
    start = []
    flat = sum([[x[0]], [x[1], x[2]]], start)
    return flat[0] * flat[2] + flat[1]


case(sum_lists_variable_start, lambda r: (vec(r, 3),), "either", jvp=False,
     note="forward mode raises Python's TypeError for the list sum; the reverse refuses")


def sum_lists_of_names_variable_start(x):
    a = [x[0]]
    b = [x[1], x[2]]
    parts = [a, b]
    acc = []
    flat = sum(parts, acc)
    return flat[0] * 2.0


case(sum_lists_of_names_variable_start, lambda r: (vec(r, 3),), "either", jvp=False,
     note="forward mode raises Python's TypeError for the list sum; the reverse refuses")


def sum_numbers_literal_list_start(x):
    return sum([x[0] * x[1], jnp.sin(x[2]), x[2]], x[0])


case(sum_numbers_literal_list_start, lambda r: (vec(r, 3),), "works")


def sum_arrays_array_start(x):
    return jnp.sum(sum([x[0] * x[1], jnp.sin(x), x[2]], x) ** 2)


case(sum_arrays_array_start, lambda r: (vec(r, 3),), "works")


def max_with_key(x):
    rows = [x[0:2], x[2:4], x[4:6]]
    best = max(rows, key=lambda row: float(row[0]))
    return jnp.sum(best ** 2)


case(max_with_key, lambda r: (_x(0.1, 0.5, 0.9, -0.2, 0.4, 0.3),), "works")


def max_of_two_with_key(x):
    a = x[0] * 2
    b = x[1] * 3
    return max(a, b, key=lambda v: -v) * x[2]


case(max_of_two_with_key, lambda r: (_x(0.4, 0.1, 0.7),), "either")


def _gen_squares(x):
    for v in x:
        yield v * v


def generator_function_sum(x):
    return sum(_gen_squares(x))


case(generator_function_sum, lambda r: (vec(r, 3),), "either")


def _gen_running(x):
    acc = 0.0
    for v in x:
        acc = acc + v
        yield acc


def generator_state_across_yields(x):
    return sum(a * a for a in _gen_running(x))


case(generator_state_across_yields, lambda r: (vec(r, 3),), "either")


def _gen_yield_from(x):
    yield from x
    yield x[0] * 10


def generator_yield_from(x):
    return sum(list(_gen_yield_from(x)))


case(generator_yield_from, lambda r: (vec(r, 3),), "either")


def nested_comprehension_with_conditions(x):
    vals = [x[i] * x[j] for i in range(len(x)) for j in range(len(x)) if i < j if (i + j) % 2 == 1]
    return sum(vals)


case(nested_comprehension_with_conditions, lambda r: (vec(r, 4),), "works")


def nested_comprehension_inner_depends(x):
    rows = [[x[i] * x[j] for j in range(i + 1)] for i in range(len(x))]
    return sum(sum(row) for row in rows)


case(nested_comprehension_inner_depends, lambda r: (vec(r, 4),), "works")


def comprehension_data_condition(x):
    return sum([v * 3 for v in x if v * v > 0.25])


case(comprehension_data_condition, lambda r: (_x(0.2, -0.8, 0.9, 0.1),), "works")


def dict_comprehension_keyed(x):
    d = {k: x[i] ** 2 for i, k in enumerate("abc")}
    return d["a"] + 2 * d["c"]


case(dict_comprehension_keyed, lambda r: (vec(r, 3),), "works")


def dict_comprehension_over_items(x):
    p = {"w": x[:2], "b": x[2:]}
    q = {k: v * 2 for k, v in p.items()}
    return jnp.sum(q["w"] ** 2) + jnp.sum(q["b"])


case(dict_comprehension_over_items, lambda r: (vec(r, 4),), "works")


def set_comprehension_of_indices(x):
    idx = {i % 3 for i in range(7)}
    return sum(x[i] ** 2 for i in sorted(idx))


case(set_comprehension_of_indices, lambda r: (vec(r, 3),), "either")


def star_unpack_head_rest(x):
    a, *rest = [x[0], x[1], x[2]]
    return a * sum(rest)


case(star_unpack_head_rest, lambda r: (vec(r, 3),), "works")


def star_unpack_middle(x):
    first, *mid, last = [x[0], x[1], x[2], x[3]]
    return first * last + mid[0] * mid[1] * 3


case(star_unpack_middle, lambda r: (vec(r, 4),), "works")


def star_unpack_in_for(x):
    s = 0.0
    for a, *bs in [(x[0], x[1], x[2]), (x[2], x[0], x[1])]:
        s = s + a * bs[1]
    return s


case(star_unpack_in_for, lambda r: (vec(r, 3),), "either")


def list_reverse_slice(x):
    xs = [x[0], x[1] * 2, x[2] * 3]
    ys = xs[::-1]
    return ys[0] * 5 + ys[2]


case(list_reverse_slice, lambda r: (vec(r, 3),), "works")


def list_rotate(x):
    xs = [x[0], x[1], x[2]]
    ys = xs[1:] + xs[:1]
    return sum(a * b for a, b in zip(xs, ys))


case(list_rotate, lambda r: (vec(r, 3),), "works")


def list_times_int(x):
    xs = [x[0], x[1]] * 3
    return sum(v * (i + 1) for i, v in enumerate(xs))


case(list_times_int, lambda r: (vec(r, 2),), "works")


def list_index_of_value(x):
    names = ["a", "b", "c"]
    xs = [x[0], x[1], x[2]]
    return xs[names.index("c")] * 4 + xs[names.count("b")]


case(list_index_of_value, lambda r: (vec(r, 3),), "works")


def conditional_expression_on_data(x):
    return sum(v * v if v > 0 else -3.0 * v for v in x)


case(conditional_expression_on_data, lambda r: (_x(0.3, -0.7, 1.1),), "works")


def walrus_in_comprehension(x):
    ys = [y for v in x if (y := v * 2.0) > 0.0]
    return sum(t ** 2 for t in ys)


case(walrus_in_comprehension, lambda r: (_x(0.3, -0.7, 1.1),), "either")


def walrus_in_while(x):
    s = 0.0
    i = 0
    while (t := x[i] * 2.0) < 1.0 and i < 3:
        s = s + t * t
        i += 1
    return s + t


case(walrus_in_while, lambda r: (_x(0.1, 0.3, 0.8, 0.2),), "either")


def match_on_len(x):
    xs = [x[0], x[1]]
    match len(xs):
        case 2:
            return xs[0] * xs[1]
        case _:
            return xs[0]


case(match_on_len, lambda r: (vec(r, 2),), "either")


def match_sequence_pattern(x):
    match [x[0], x[1], x[2]]:
        case [a, b, c]:
            return a * b + c
        case _:
            return 0.0


case(match_sequence_pattern, lambda r: (vec(r, 3),), "either")


def try_finally_no_exception(x):
    s = x[0] * 2
    try:
        s = s * x[1]
    finally:
        s = s + x[2]
    return s


case(try_finally_no_exception, lambda r: (vec(r, 3),), "either")


def try_except_index_fallback(x):
    xs = [x[0], x[1]]
    try:
        v = xs[5]
    except IndexError:
        v = xs[1] * 3
    return v * x[0]


case(try_except_index_fallback, lambda r: (vec(r, 2),), "either")


def assert_on_traced(x):
    s = jnp.sum(x ** 2)
    assert s >= 0.0, "negative"
    return s * x[0]


case(assert_on_traced, lambda r: (vec(r, 3),), "works")


_COUNTER = [0]


def global_counter_list(x):
    _COUNTER[0] += 1
    return jnp.sum(x ** 2)


case(global_counter_list, lambda r: (vec(r, 3),), "either")


_CALLS = 0


def global_counter_statement(x):
    global _CALLS
    _CALLS += 1
    return jnp.sum(x ** 3)


case(global_counter_statement, lambda r: (vec(r, 3),), "either")


def itemgetter_on_list(x):
    g = operator.itemgetter(0, 2)
    a, b = g([x[0], x[1], x[2]])
    return a * b


case(itemgetter_on_list, lambda r: (vec(r, 3),), "either")


def itemgetter_sorted_key(x):
    pairs = [(1, x[0]), (0, x[1]), (2, x[2])]
    ps = sorted(pairs, key=operator.itemgetter(0))
    return ps[0][1] * 5 + ps[2][1]


case(itemgetter_sorted_key, lambda r: (vec(r, 3),), "either")


def math_fsum_traced(x):
    return math.fsum([x[0] * x[1], x[2]]) * x[0]


case(math_fsum_traced, lambda r: (vec(r, 3),), "either")


def math_prod_traced(x):
    return math.prod([x[0], x[1], x[2]])


case(math_prod_traced, lambda r: (vec(r, 3),), "either")


def math_hypot_traced(x):
    return math.hypot(x[0], x[1], x[2])


case(math_hypot_traced, lambda r: (vec(r, 3),), "either")


def zip_strict_unequal(x):
    return sum(a * b for a, b in zip(x[:2], x[1:]))


case(zip_strict_unequal, lambda r: (vec(r, 4),), "works")


def enumerate_reversed_list(x):
    s = 0.0
    for i, v in enumerate(reversed([x[0], x[1], x[2]])):
        s = s + (i + 1) * v * v
    return s


case(enumerate_reversed_list, lambda r: (vec(r, 3),), "works")


def reversed_enumerate(x):
    s = 0.0
    for i, v in reversed(list(enumerate(x))):
        s = s * 0.5 + i * v
    return s


case(reversed_enumerate, lambda r: (vec(r, 3),), "either")


def map_over_zip_star(x):
    pairs = [(x[0], x[1]), (x[1], x[2])]
    return sum(map(lambda p: p[0] * p[1], pairs)) + sum(map(operator.mul, *zip(*pairs)))


case(map_over_zip_star, lambda r: (vec(r, 3),), "either")


def lambda_default_capture(x):
    fs = [lambda v, k=k: v * k for k in range(1, 4)]
    return sum(f(x[0]) for f in fs)


case(lambda_default_capture, lambda r: (vec(r, 2),), "works")


def comprehension_shadowing_param(x):
    y = [x * 2 for x in [x[0], x[1]]]
    return y[0] * x[1] + y[1]


case(comprehension_shadowing_param, lambda r: (vec(r, 2),), "works")


def list_sort_method_key(x):
    xs = [x[0], x[1], x[2]]
    xs.sort(key=lambda v: -v)
    return xs[0] * 3 + xs[2]


case(list_sort_method_key, lambda r: (_x(0.2, 0.9, -0.4),), "either")


def list_reverse_method(x):
    xs = [x[0], x[1] * 2, x[2]]
    xs.reverse()
    return xs[0] * 5 + xs[1]


case(list_reverse_method, lambda r: (vec(r, 3),), "either")


def min_index_by_key(x):
    i = min(range(len(x)), key=lambda k: x[k])
    return x[i] * 3 + x[0]


case(min_index_by_key, lambda r: (_x(0.4, -0.2, 0.7),), "either")


def dict_get_default(x):
    d = {"a": x[0] * 2}
    return d.get("a", 0.0) * d.get("b", x[1])


case(dict_get_default, lambda r: (vec(r, 2),), "works")


def dict_update_then_values(x):
    d = {"a": x[0]}
    d.update({"b": x[1] * 2, "a": x[2]})
    return sum(d.values()) * d["a"]


case(dict_update_then_values, lambda r: (vec(r, 3),), "either")


def zip_dict_keys_values(x):
    d = dict(zip(["a", "b"], [x[0] * 3, x[1]]))
    return d["a"] * d["b"]


case(zip_dict_keys_values, lambda r: (vec(r, 2),), "either")


# ============================================================ compositions on realistic programs
def _inner_loss(w, x):
    return jnp.sum((jnp.tanh(x * w) - 0.5) ** 2)


def maml_unrolled_inner_steps(w):
    x = jnp.array([0.3, -0.7, 1.1])
    v = w
    for _ in range(3):
        v = v - 0.1 * astjax.grad(_inner_loss)(v, x)
    return _inner_loss(v, x * 2.0)


case(maml_unrolled_inner_steps, lambda r: (vec(r, 3),), "works")


def maml_inner_lambda_loss(w):
    x = jnp.array([0.3, -0.7, 1.1])
    loss = lambda p: jnp.sum(jnp.sin(p * x) ** 2)
    v = w
    for _ in range(2):
        v = v - 0.2 * astjax.grad(loss)(v)
    return jnp.sum(v ** 2) + loss(v)


case(maml_inner_lambda_loss, lambda r: (vec(r, 3),), "either")


def _lr_loss(w, lr):
    v = w
    for _ in range(2):
        v = v - lr * astjax.grad(_inner_loss)(v, jnp.array([0.5, 0.2]))
    return _inner_loss(v, jnp.array([1.0, -1.0]))


def bilevel_learning_rate(lr):
    return _lr_loss(jnp.array([0.4, -0.3]), lr)


case(bilevel_learning_rate, lambda r: (scalar(r, 0.1, 0.5),), "works")


def maml_value_and_grad_inside(w):
    v = w
    total = 0.0
    for k in range(2):
        l, g = astjax.value_and_grad(_inner_loss)(v, jnp.array([0.5, -0.2, 0.1]) * (k + 1))
        total = total + l
        v = v - 0.3 * g
    return total + jnp.sum(v ** 2)


case(maml_value_and_grad_inside, lambda r: (vec(r, 3),), "works")


def _energy(x):
    return jnp.sum(x ** 4) / 4.0 + jnp.sum(x ** 2) + x[0] * x[1]


def newton_step_with_hessian(x):
    g = astjax.grad(_energy)(x)
    H = astjax.hessian(_energy)(x)
    x1 = x - jnp.linalg.solve(H, g)
    return _energy(x1)


case(newton_step_with_hessian, lambda r: (vec(r, 2),), "works")


def newton_step_jacfwd_of_grad(x):
    H = astjax.jacfwd(astjax.grad(_energy))(x)
    g = astjax.grad(_energy)(x)
    return jnp.sum(jnp.linalg.solve(H, g) ** 2)


case(newton_step_jacfwd_of_grad, lambda r: (vec(r, 2),), "works")


def _residual(x):
    return jnp.array([x[0] ** 2 + x[1] - 2.0, x[0] - x[1] ** 3])


def gauss_newton_jacfwd_inside(x):
    v = x
    for _ in range(2):
        J = astjax.jacfwd(_residual)(v)
        v = v - jnp.linalg.solve(J, _residual(v))
    return jnp.sum(v ** 2)


case(gauss_newton_jacfwd_inside, lambda r: (_x(1.2, 0.9),), "works", rtol=1e-4)


def gauss_newton_jacrev_inside(x):
    J = astjax.jacrev(_residual)(x)
    return jnp.sum(J ** 2) + jnp.linalg.det(J)


case(gauss_newton_jacrev_inside, lambda r: (_x(1.2, 0.9),), "works")


def _hvp(f, x, v):
    return astjax.jvp(astjax.grad(f), (x,), (v,))[1]


def hvp_jvp_of_grad_inside(x):
    v = jnp.array([1.0, -0.5])
    return jnp.sum(_hvp(_energy, x, v) ** 2)


case(hvp_jvp_of_grad_inside, lambda r: (vec(r, 2),), "either")


def _jvp_grad_check(fn, args):
    (x,) = args
    v = np.array([0.3, -1.0, 0.5])
    f = lambda z: np.sum(np.sin(z) * z ** 2) + z[0] * z[2]
    _, t = astjax.jvp(astjax.grad(fn), (x,), (v,))
    h = 1e-5
    fd_grad = lambda z: np.array([(f(z + h * e) - f(z - h * e)) / (2 * h) for e in np.eye(3)])
    expected = (fd_grad(x + 1e-4 * v) - fd_grad(x - 1e-4 * v)) / 2e-4
    return [(t, expected, "jvp(grad(f)) vs differences of the gradient")]


def jvp_of_grad_outside(x):
    return jnp.sum(jnp.sin(x) * x ** 2) + x[0] * x[2]


case(jvp_of_grad_outside, lambda r: (vec(r, 3),), "works", mode="custom", check=_jvp_grad_check)


def _fd_vjp(f, x, ct, h=1e-6):
    out = []
    for e in np.eye(x.size):
        up, dn = f(x + h * e), f(x - h * e)
        out.append(sum(np.vdot(np.asarray(c), (np.asarray(a) - np.asarray(b)) / (2 * h))
                       for a, b, c in zip(up, dn, ct)))
    return np.array(out)


def vjp_tuple_output(x):
    return jnp.sin(x) * x[0], jnp.sum(x ** 2) * jnp.ones(2)


def _vjp_tuple_check(fn, args):
    (x,) = args
    out, pullback = astjax.vjp(fn, x)
    ct = (np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.7]))
    (g,) = pullback(ct)
    expected = _fd_vjp(lambda z: vjp_tuple_output(z), x, ct)
    return [(out[0], fn(x)[0], "first output"), (g, expected, "vjp with a tuple cotangent")]


case(vjp_tuple_output, lambda r: (vec(r, 3),), "works", mode="custom", check=_vjp_tuple_check)


def vjp_dict_output(x):
    return {"a": x * x[1], "b": jnp.cos(x[:2])}


def _vjp_dict_check(fn, args):
    (x,) = args
    out, pullback = astjax.vjp(fn, x)
    ct = {"a": np.array([1.0, -2.0, 0.5]), "b": np.array([0.3, 0.7])}
    (g,) = pullback(ct)
    f = lambda z: (vjp_dict_output(z)["a"], vjp_dict_output(z)["b"])
    expected = _fd_vjp(f, x, (ct["a"], ct["b"]))
    return [(out["b"], fn(x)["b"], "dict output"), (g, expected, "vjp with a dict cotangent")]


case(vjp_dict_output, lambda r: (vec(r, 3),), "works", mode="custom", check=_vjp_dict_check)


def _aux_loss(w, x):
    pred = jnp.tanh(x @ w)
    loss = jnp.mean(pred ** 2)
    return loss, {"pred_mean": jnp.mean(pred), "n": x.shape[0], "w2": jnp.sum(w ** 2)}


def value_and_grad_aux_dict(w, x):
    (loss, aux), g = astjax.value_and_grad(_aux_loss, has_aux=True)(w, x)
    return loss + aux["w2"] * 0.1 + jnp.sum(g ** 2) + aux["pred_mean"] * aux["n"]


case(value_and_grad_aux_dict, lambda r: (vec(r, 2), mat(r, 4, 2)), "works", argnums=(0, 1))


def _aux_outer_check(fn, args):
    w, x = args
    (loss, aux), g = astjax.value_and_grad(_aux_loss, has_aux=True)(w, x)
    ref_loss, ref_aux = _aux_loss(w, x)
    h = 1e-6
    fd = np.array([(_aux_loss(w + h * e, x)[0] - _aux_loss(w - h * e, x)[0]) / (2 * h) for e in np.eye(2)])
    return [(loss, ref_loss, "loss"), (aux["pred_mean"], ref_aux["pred_mean"], "aux pred_mean"),
            (aux["n"], 4, "aux n"), (g, fd, "grad with has_aux")]


case(_aux_loss, lambda r: (vec(r, 2), mat(r, 4, 2)), "works", mode="custom", check=_aux_outer_check,
     name="has_aux_dict_outer")


def _three_args(a, b, c, *, scale=1.0):
    return scale * (jnp.sum(a * b) + jnp.sum(jnp.sin(c) * a))


def _argnums_kw_check(fn, args):
    a, b, c = args
    ga, gc = astjax.grad(fn, argnums=(0, 2))(a, b, c, scale=2.5)
    ref = lambda a_, c_: 2.5 * (np.sum(a_ * b) + np.sum(np.sin(c_) * a_))
    h = 1e-6
    fa = np.array([(ref(a + h * e, c) - ref(a - h * e, c)) / (2 * h) for e in np.eye(3)])
    fc = np.array([(ref(a, c + h * e) - ref(a, c - h * e)) / (2 * h) for e in np.eye(3)])
    gb_only = astjax.grad(fn, argnums=1)(a, b, c=c, scale=0.5)
    return [(ga, fa, "d/da"), (gc, fc, "d/dc"), (gb_only, 0.5 * a, "d/db with c as a keyword")]


case(_three_args, lambda r: (vec(r, 3), vec(r, 3), vec(r, 3)), "works", mode="custom", check=_argnums_kw_check,
     name="grad_argnums_tuple_with_keywords")


def _static_steps(x, n):
    s = x
    for _ in range(n):
        s = jnp.sin(s) + 0.5 * s
    if n > 2:
        s = s * 2.0
    return jnp.sum(s ** 2)


def _jit_static_check(fn, args):
    (x,) = args
    g = astjax.jit(astjax.grad(fn), static_argnums=1)
    out = []
    for n in (1, 3, 1, 4):
        ref = lambda z: _static_steps(z, n)
        h = 1e-6
        fd = np.array([(ref(x + h * e) - ref(x - h * e)) / (2 * h) for e in np.eye(3)])
        out.append((g(x, n), fd, f"jit(grad) with static n={n}"))
    return out


case(_static_steps, lambda r: (vec(r, 3),), "works", mode="custom", check=_jit_static_check,
     name="jit_grad_static_argnum_changes_control_flow")


def _loop_loss(w, x):
    h = x
    for k in range(3):
        h = jnp.tanh(w * h + k * 0.1)
    return jnp.sum(h ** 2)


def _vmap_grad_check(fn, args):
    w, X = args
    gs = astjax.vmap(astjax.grad(fn), in_axes=(None, 0))(w, X)
    h = 1e-6
    expected = np.stack([np.array([(fn(w + h * e, xi) - fn(w - h * e, xi)) / (2 * h) for e in np.eye(2)])
                         for xi in X])
    gx = astjax.vmap(astjax.grad(fn, argnums=1), in_axes=(None, 0))(w, X)
    expected_x = np.stack([np.array([(fn(w, xi + h * e) - fn(w, xi - h * e)) / (2 * h) for e in np.eye(2)])
                           for xi in X])
    return [(gs, expected, "vmap(grad) over rows"), (gx, expected_x, "vmap(grad wrt x)")]


case(_loop_loss, lambda r: (vec(r, 2), mat(r, 4, 2)), "works", mode="custom", check=_vmap_grad_check,
     name="vmap_grad_in_axes_none_zero_loop")


def _while_loss(w, x):
    h = x
    k = 0
    while k < 3:
        h = h * w + jnp.sin(h)
        k += 1
    return jnp.sum(h)


case(_while_loss, lambda r: (vec(r, 2), mat(r, 3, 2)), "either", mode="custom", check=_vmap_grad_check,
     name="vmap_grad_while_loop")


@astjax.custom_jvp
def _softclip(x):
    return jnp.tanh(x) * 2.0


@_softclip.defjvp
def _softclip_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _softclip(x), 2.0 * (1.0 - jnp.tanh(x) ** 2) * t


def custom_jvp_in_loop(x):
    h = x
    for _ in range(3):
        h = _softclip(h * 0.8 + 0.1)
    return jnp.sum(h ** 2)


case(custom_jvp_in_loop, lambda r: (vec(r, 3),), "works")


@astjax.custom_vjp
def _scaled_sq(x, s):
    return s * x ** 2


def _scaled_sq_fwd(x, s):
    return s * x ** 2, (x, s)


def _scaled_sq_bwd(res, g):
    x, s = res
    return 2.0 * s * x * g, jnp.sum(x ** 2 * g) if jnp.ndim(s) == 0 else x ** 2 * g


_scaled_sq.defvjp(_scaled_sq_fwd, _scaled_sq_bwd)


def custom_vjp_in_loop_carried(x):
    h = x
    for k in range(3):
        h = _scaled_sq(h, 0.5 + 0.1 * k) + 0.1
    return jnp.sum(h)


case(custom_vjp_in_loop_carried, lambda r: (vec(r, 3),), "either")


def custom_vjp_param_in_loop(s):
    h = jnp.array([0.3, -0.2, 0.8])
    for _ in range(2):
        h = _scaled_sq(h, s) + h
    return jnp.sum(h)


case(custom_vjp_param_in_loop, lambda r: (scalar(r, 0.3, 0.9),), "either")


def _custom_vmap_check(fn, args):
    (X,) = args
    row = lambda x: jnp.sum(_softclip(x) * _scaled_sq(x, 0.7))
    gs = astjax.vmap(astjax.grad(row))(X)
    ref = lambda x: np.sum(np.tanh(x) * 2.0 * 0.7 * x ** 2)
    h = 1e-6
    expected = np.stack([np.array([(ref(xi + h * e) - ref(xi - h * e)) / (2 * h) for e in np.eye(3)]) for xi in X])
    vals = astjax.vmap(row)(X)
    return [(gs, expected, "vmap(grad) of custom rules"), (vals, [ref(xi) for xi in X], "vmap values")]


def vmap_of_grad_of_custom_rules(X):
    return X


case(vmap_of_grad_of_custom_rules, lambda r: (mat(r, 4, 3),), "works", mode="custom", check=_custom_vmap_check)


def _block(h, w):
    return jnp.tanh(h * w) + h


def checkpoint_in_loop(w):
    h = jnp.array([0.2, -0.4, 0.9])
    blk = astjax.checkpoint(_block)
    for _ in range(3):
        h = blk(h, w)
    return jnp.sum(h ** 2)


case(checkpoint_in_loop, lambda r: (vec(r, 3),), "either")


def stop_gradient_in_closure(x):
    target = astjax.lax.stop_gradient(x * 2.0)
    err = lambda v: jnp.sum((v - target) ** 2)
    return err(x) + err(x * 0.5)


def _stop_gradient_ref(x):
    target = x * 2.0
    return np.sum((x - target) ** 2) + np.sum((x * 0.5 - target) ** 2)


def _stop_grad_check(fn, args):
    (x,) = args
    g = astjax.grad(fn)(x)
    target = 2.0 * x
    expected = 2 * (x - target) + 0.5 * 2 * (0.5 * x - target)
    _, t = astjax.jvp(fn, (x,), (np.ones(3),))
    return [(g, expected, "stop_gradient read by a closure"), (t, np.sum(expected), "jvp")]


case(stop_gradient_in_closure, lambda r: (vec(r, 3),), "works", mode="custom", check=_stop_grad_check)


def stop_gradient_closure_in_loop(x):
    s = 0.0
    for k in range(3):
        anchor = astjax.lax.stop_gradient(x * k)
        pull = lambda v: jnp.sum((v - anchor) ** 2)
        s = s + pull(x)
    return s


def _stop_grad_loop_check(fn, args):
    (x,) = args
    g = astjax.grad(fn)(x)
    expected = sum(2 * (x - k * x) for k in range(3))
    return [(g, expected, "stop_gradient per iteration, read by a closure")]


case(stop_gradient_closure_in_loop, lambda r: (vec(r, 3),), "works", mode="custom", check=_stop_grad_loop_check)


def _rk4(f, y, t, h, p):
    k1 = f(y, t, p)
    k2 = f(y + h / 2 * k1, t + h / 2, p)
    k3 = f(y + h / 2 * k2, t + h / 2, p)
    k4 = f(y + h * k3, t + h, p)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def _lotka(y, t, p):
    return jnp.array([p[0] * y[0] - p[1] * y[0] * y[1], -p[2] * y[1] + p[1] * y[0] * y[1]])


def rk4_lotka_volterra(y0, p):
    y = y0
    t = 0.0
    for _ in range(8):
        y = _rk4(_lotka, y, t, 0.1, p)
        t = t + 0.1
    return jnp.sum(y ** 2)


case(rk4_lotka_volterra, lambda r: (pos(r, 2), pos(r, 3)), "works", argnums=(0, 1))


def rk4_lambda_rhs_closure(y0, k):
    rhs = lambda y, t, p: jnp.array([y[1], -k * y[0] - 0.1 * y[1] + jnp.sin(t)])
    y = y0
    for i in range(6):
        y = _rk4(rhs, y, i * 0.2, 0.2, None)
    return y[0] * y[1]


case(rk4_lambda_rhs_closure, lambda r: (vec(r, 2), scalar(r, 0.5, 2.0)), "either", argnums=(0, 1))


def rk4_time_varying_while(y0):
    y = y0
    t = 0.0
    while t < 0.55:
        y = _rk4(_lotka, y, t, 0.1, jnp.array([1.0, 0.5, 0.7]))
        t = t + 0.1
    return y[0] + 2 * y[1]


case(rk4_time_varying_while, lambda r: (pos(r, 2),), "works")


def scan_closes_over_params(w, xs):
    def step(h, x):
        h = jnp.tanh(w[0] * h + w[1] * x)
        return h, h * w[2]
    h, ys = lax.scan(step, 0.0, xs)
    return h + jnp.sum(ys ** 2)


case(scan_closes_over_params, lambda r: (vec(r, 3), vec(r, 4)), "works", argnums=(0, 1))


def fori_loop_closes_over_params(w):
    def body(i, h):
        return h * w[0] + jnp.sin(h) * w[1] + i * 0.01
    return jnp.sum(lax.fori_loop(0, 4, body, jnp.array([0.3, -0.2])))


case(fori_loop_closes_over_params, lambda r: (vec(r, 2),), "works")


def while_loop_closes_over_params(w):
    def cond(c):
        return c[0] < 5
    def body(c):
        k, h = c
        return k + 1, h * w + 0.1
    _, h = lax.while_loop(cond, body, (0, jnp.array([0.5, 1.0])))
    return jnp.sum(h)


case(while_loop_closes_over_params, lambda r: (vec(r, 2),), "either")


def scan_body_calls_grad(w, xs):
    def step(h, x):
        g = astjax.grad(lambda v: jnp.sum(jnp.sin(v * x) ** 2))(h)
        return h - 0.1 * g * w, jnp.sum(h)
    h, ys = lax.scan(step, jnp.array([0.5, -0.5]), xs)
    return jnp.sum(h ** 2) + jnp.sum(ys)


case(scan_body_calls_grad, lambda r: (vec(r, 2), vec(r, 3)), "either", argnums=(0, 1))


def grad_inside_vmap_inside_loss(w, X):
    per_row = astjax.vmap(astjax.grad(_inner_loss), in_axes=(None, 0))(w, X)
    return jnp.sum(per_row ** 2)


case(grad_inside_vmap_inside_loss, lambda r: (vec(r, 3), mat(r, 4, 3)), "either", argnums=(0, 1))


def hessian_trace_penalty(x):
    H = astjax.hessian(lambda z: jnp.sum(jnp.sin(z) * z[0]))(x)
    return jnp.trace(H) + jnp.sum(x ** 2)


case(hessian_trace_penalty, lambda r: (vec(r, 3),), "either")


def grad_of_grad_norm_penalty(w):
    g = astjax.grad(_inner_loss)(w, jnp.array([1.0, 0.5, -0.3]))
    return _inner_loss(w, jnp.array([0.2, 0.2, 0.2])) + 0.5 * jnp.sum(g ** 2)


case(grad_of_grad_norm_penalty, lambda r: (vec(r, 3),), "works")


def _adam_like(w, steps):
    m = jnp.zeros_like(w)
    v = w
    for t in range(1, steps + 1):
        g = astjax.grad(_inner_loss)(v, jnp.array([0.4, -0.6, 0.2]))
        m = 0.9 * m + 0.1 * g
        v = v - 0.05 * m / (1 - 0.9 ** t)
    return v


def unrolled_momentum_optimizer(w):
    v = _adam_like(w, 3)
    return jnp.sum(v ** 3)


case(unrolled_momentum_optimizer, lambda r: (vec(r, 3),), "works")


def linearize_inside(x):
    y, f_jvp = astjax.linearize(lambda z: jnp.sin(z) * z, x)
    return jnp.sum(y * f_jvp(jnp.ones_like(x)))


case(linearize_inside, lambda r: (vec(r, 3),), "either")


def vjp_inside_loss(x):
    y, pull = astjax.vjp(lambda z: jnp.sin(z) * z[0], x)
    (g,) = pull(jnp.ones_like(y))
    return jnp.sum(g ** 2) + jnp.sum(y)


case(vjp_inside_loss, lambda r: (vec(r, 3),), "either")


def jacrev_tuple_output_inside(x):
    ja, jb = astjax.jacrev(lambda z: (z * z[0], jnp.sum(jnp.sin(z))))(x)
    return jnp.sum(ja ** 2) + jnp.sum(jb)


case(jacrev_tuple_output_inside, lambda r: (vec(r, 3),), "either")


def grad_dict_params_inner_sgd(p0):
    def loss(p):
        return jnp.sum((p["w"] * jnp.array([1.0, 2.0]) + p["b"]) ** 2)
    p = p0
    for _ in range(2):
        g = astjax.grad(loss)(p)
        p = {k: p[k] - 0.1 * g[k] for k in p}
    return loss(p)


case(grad_dict_params_inner_sgd, lambda r: ({"w": vec(r, 2), "b": vec(r, 1)},), "either")


def tree_map_sgd_inside(p0):
    def loss(p):
        return jnp.sum(jnp.tanh(p["w"]) ** 2) + p["b"][0] ** 2 * p["w"][0]
    p = p0
    for _ in range(2):
        g = astjax.grad(loss)(p)
        p = astjax.tree_util.tree_map(lambda a, b: a - 0.2 * b, p, g)
    return loss(p)


case(tree_map_sgd_inside, lambda r: ({"w": vec(r, 2), "b": vec(r, 1)},), "either")


# ============================================================ iterators consumed once, in-place list sorts
def map_object_consumed_twice(x):
    m = map(lambda v: v * v, x)
    a = sum(m)
    b = sum(m)
    return a + 3 * b


case(map_object_consumed_twice, lambda r: (vec(r, 3),), "either")


def generator_consumed_twice(x):
    g = (v * v for v in x)
    a = sum(g)
    return a + 3 * sum(g)


case(generator_consumed_twice, lambda r: (vec(r, 3),), "either")


def filter_object_consumed_twice(x):
    g = filter(lambda v: v > 0, x)
    a = sum(g)
    return a + 3 * sum(g)


case(filter_object_consumed_twice, lambda r: (_x(0.5, -0.3, 1.2),), "either")


def zip_same_iterator_pairs(x):
    it = iter([x[0], x[1], x[2], x[3]])
    s = 0.0
    for a, b in zip(it, it):
        s = s + a * b
    return s


case(zip_same_iterator_pairs, lambda r: (vec(r, 4),), "either")


def generator_next_then_rest(x):
    g = (v * 2 for v in x)
    first = next(g)
    return first * sum(g)


case(generator_next_then_rest, lambda r: (vec(r, 3),), "either")


def zip_truncation_leaves_iterator(x):
    it = iter([x[0], x[1], x[2]])
    s = 0.0
    for a, b in zip(it, [1.0]):
        s = s + a * b
    return s + 5 * sum(it)


case(zip_truncation_leaves_iterator, lambda r: (vec(r, 3),), "either")


def enumerate_object_consumed_twice(x):
    e = enumerate(x)
    s = sum(v * i for i, v in e)
    return s + sum(v for i, v in e)


case(enumerate_object_consumed_twice, lambda r: (vec(r, 3),), "either")


def reversed_object_consumed_twice(x):
    r = reversed([x[0], x[1]])
    return sum(r) + 3 * sum(r)


case(reversed_object_consumed_twice, lambda r: (vec(r, 2),), "either")


def genexpr_late_bound_name(x):
    k = 1.0
    g = (v * k for v in x)
    k = 5.0
    return sum(g)


case(genexpr_late_bound_name, lambda r: (vec(r, 3),), "either")


def accumulate_initial_keyword(x):
    cs = list(itertools.accumulate(x, initial=1.0))
    return cs[0] * cs[-1] + cs[1]


case(accumulate_initial_keyword, lambda r: (vec(r, 3),), "either")


def next_with_default(x):
    it = iter([x[0]])
    a = next(it)
    b = next(it, x[1] * 2)
    return a * b


case(next_with_default, lambda r: (vec(r, 2),), "either")


def dict_insertion_order_values(x):
    d = {"b": x[1], "a": x[0]}
    d["c"] = x[2] * 2
    vals = list(d.values())
    return vals[0] * 5 + vals[2]


case(dict_insertion_order_values, lambda r: (vec(r, 3),), "either")


def list_sort_through_alias(x):
    xs = [x[0], x[1], x[2]]
    ys = xs
    ys.sort()
    return xs[0] * 3 + xs[2]


case(list_sort_through_alias, lambda r: (_x(0.5, -0.3, 1.2),), "either")


def list_sort_key_through_alias(x):
    xs = [x[0], x[1], x[2]]
    ys = xs
    ys.sort(key=lambda v: -v)
    return xs[0] * 3 + xs[2]


case(list_sort_key_through_alias, lambda r: (_x(0.5, -0.3, 1.2),), "either")


def list_sort_in_branch(x):
    xs = [x[0], x[1], x[2]]
    if x[3] > 0:
        xs.sort()
    return xs[0] * 3 + xs[2]


case(list_sort_in_branch, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def list_sort_in_loop_then_write(x):
    xs = [x[0], x[1], x[2]]
    s = 0.0
    for k in range(2):
        xs.sort()
        s = s + xs[0] * (k + 1)
        xs[0] = xs[0] + 1.0
    return s


case(list_sort_in_loop_then_write, lambda r: (_x(0.5, -0.3, 1.2),), "works")


def _list_arg_check(fn, args):
    xs = [np.float64(v) for v in args[0]]
    g = astjax.grad(fn)(list(xs))
    h = 1e-6
    expected = [(fn([v + h * (i == k) for i, v in enumerate(xs)]) - fn([v - h * (i == k) for i, v in enumerate(xs)]))
                / (2 * h) for k in range(len(xs))]
    return [(np.array(g), np.array(expected), "gradient of a list argument")]


def list_argument_sorted_in_place(xs):
    xs.sort()
    return xs[0] * 3 + xs[2]


case(list_argument_sorted_in_place, lambda r: (_x(0.5, -0.3, 1.2),), "works", mode="custom", check=_list_arg_check)


def list_argument_jnp_sort(xs):
    return jnp.sum(jnp.sort(xs) * jnp.array([3.0, 0.0, 1.0]))


case(list_argument_jnp_sort, lambda r: (_x(0.5, -0.3, 1.2),), "works", mode="custom", check=_list_arg_check)


def list_argument_jnp_cumsum(xs):
    return jnp.sum(jnp.cumsum(xs) ** 2)


case(list_argument_jnp_cumsum, lambda r: (_x(0.5, -0.3, 1.2),), "works", mode="custom", check=_list_arg_check)


def list_argument_rebound_to_array(xs):
    xs = jnp.flip(xs) * jnp.array([1.0, 2.0, 3.0])
    return xs[0] * xs[2] + xs[1]


case(list_argument_rebound_to_array, lambda r: (_x(0.5, -0.3, 1.2),), "works", mode="custom", check=_list_arg_check)


# ============================================================ `+` and `*` on lists whose type the transform cannot see
def reduce_operator_add_joins_lists(x):
    flat = functools.reduce(operator.add, [[x[0]], [x[1], x[2]]])
    return flat[0] * flat[2] + flat[1]


case(reduce_operator_add_joins_lists, lambda r: (vec(r, 3),), "either")


def reduce_lambda_add_joins_lists(x):
    flat = functools.reduce(lambda a, b: a + b, [[x[0]], [x[1], x[2]]])
    return flat[0] * flat[2] + flat[1]


case(reduce_lambda_add_joins_lists, lambda r: (vec(r, 3),), "either")


def reduce_operator_add_joins_tuples(x):
    flat = functools.reduce(operator.add, [(x[0],), (x[1], x[2])])
    return flat[0] * flat[2] + flat[1]


case(reduce_operator_add_joins_tuples, lambda r: (vec(r, 3),), "either")


def accumulate_joins_lists(x):
    acc = list(itertools.accumulate([[x[0]], [x[1], x[2]]]))
    return acc[-1][0] * acc[-1][2] + acc[-1][1]


case(accumulate_joins_lists, lambda r: (vec(r, 3),), "either")


def _joined_with_itself(a):
    return a + a


def helper_joins_list_with_itself(x):
    b = _joined_with_itself([x[0], x[1]])
    return b[0] * b[3] + b[1]


case(helper_joins_list_with_itself, lambda r: (vec(r, 2),), "either")


def item_list_joined_with_itself(x):
    parts = [[x[0], x[1]]]
    a = parts[0]
    b = a + a
    return b[0] * b[3] + b[1]


case(item_list_joined_with_itself, lambda r: (vec(r, 2),), "either")


def item_list_joined_reads_first_only(x):
    parts = [[x[0], x[1]]]
    a = parts[0]
    b = a + a
    return b[0] * 3.0


case(item_list_joined_reads_first_only, lambda r: (vec(r, 2),), "either")


def item_list_repeated(x):
    parts = [[x[0], x[1]]]
    a = parts[0]
    b = a * 2
    return b[0] * b[3] + b[1]


case(item_list_repeated, lambda r: (vec(r, 2),), "either")


def _list_arg_joined(xs):
    b = xs + xs
    return b[0] * b[3] + b[1]


case(_list_arg_joined, lambda r: (_x(0.5, -0.3),), "either", mode="custom", check=_list_arg_check,
     name="list_argument_joined_with_itself")


def running_total_of_arrays(x):
    parts = [x[:2], x[1:3], x[2:]]
    total = parts[0]
    for k in range(1, 3):
        total = total + parts[k]
    return jnp.sum(total ** 2)


case(running_total_of_arrays, lambda r: (vec(r, 4),), "works")


def accumulate_arrays_default_add(x):
    rows = [x[:2], x[2:4], x[4:]]
    acc = list(itertools.accumulate(rows))
    return jnp.sum(acc[-1] * acc[1])


case(accumulate_arrays_default_add, lambda r: (vec(r, 6),), "works")


def array_doubled_by_helper(x):
    return jnp.sum(_joined_with_itself(x) ** 2) + jnp.sum(_joined_with_itself(x[0]) * x)


case(array_doubled_by_helper, lambda r: (vec(r, 3),), "works")


def reduce_add_arrays(x):
    return jnp.sum(functools.reduce(operator.add, [x * k for k in range(1, 4)]) ** 2)


case(reduce_add_arrays, lambda r: (vec(r, 3),), "works")


def max_of_tuples_lexicographic(x):
    best = max([(x[0], x[1]), (x[2], x[3])])
    return best[1] * 3 + best[0]


case(max_of_tuples_lexicographic, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def min_of_value_index_pairs(x):
    v, i = min((v, i) for i, v in enumerate(x))
    return v * 2 + x[(i + 1) % 4] * 3


case(min_of_value_index_pairs, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def min_of_zip_value_index(x):
    v, i = min(zip(x, range(4)))
    return v * 2 + x[(i + 1) % 4] * 3


case(min_of_zip_value_index, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def max_itemgetter_key(x):
    pairs = [(1, x[0]), (2, x[1]), (3, x[2])]
    return max(pairs, key=operator.itemgetter(1))[0] * x[3]


case(max_itemgetter_key, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def sorted_tuples_lexicographic(x):
    ps = sorted([(x[0], 1.0), (x[1], 2.0), (x[2], 3.0)])
    return ps[0][0] * ps[0][1] + ps[2][0] * 10


case(sorted_tuples_lexicographic, lambda r: (_x(0.5, -0.3, 1.2),), "works")


def sorted_tuples_int_first(x):
    ps = sorted([(1, x[0]), (0, x[1]), (1, x[2] - 5)])
    return ps[0][1] * 3 + ps[1][1]


case(sorted_tuples_int_first, lambda r: (_x(0.5, -0.3, 1.2),), "works")


def sum_dict_values_with_start(x):
    d = {"a": x[0], "b": x[1] * 2}
    return sum(d.values(), 1.0) * x[2]


case(sum_dict_values_with_start, lambda r: (vec(r, 3),), "either")


def list_plus_equals_in_loop(x):
    acc = []
    for v in x:
        acc += [v * 2]
    return acc[0] * acc[-1]


case(list_plus_equals_in_loop, lambda r: (vec(r, 3),), "either")


def extend_pairs_in_loop(x):
    acc = []
    for v in x:
        acc.extend([v, v * v])
    return acc[1] * acc[-2] + acc[5]


case(extend_pairs_in_loop, lambda r: (vec(r, 4),), "works")


def tuple_concat_of_names(x):
    a = (x[0],)
    b = (x[1], x[2])
    c = a + b
    return c[0] * c[2] + c[1]


case(tuple_concat_of_names, lambda r: (vec(r, 3),), "either")


def list_concat_of_names(x):
    a = [x[0]]
    b = [x[1], x[2]]
    c = a + b
    return c[0] * c[2] + c[1]


case(list_concat_of_names, lambda r: (vec(r, 3),), "works")


def zip_star_transpose_rows(x):
    rows = [[x[0], x[1]], [x[2], x[3]]]
    cols = list(zip(*rows))
    return cols[0][1] * 3 + cols[1][0]


case(zip_star_transpose_rows, lambda r: (vec(r, 4),), "works")


def map_builtin_pow_two_lists(x):
    return sum(map(pow, x, [2, 3, 2, 1]))


case(map_builtin_pow_two_lists, lambda r: (vec(r, 4),), "works")


def reduce_builtin_max(x):
    return functools.reduce(max, x) * 2


case(reduce_builtin_max, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def reduce_lambda_min(x):
    return functools.reduce(lambda a, b: a if a < b else b, x) * 2


case(reduce_lambda_min, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def grid_rows_share_one_list(x):
    grid = [[0.0] * 3] * 2
    grid[0][1] = x[0]
    grid[1][2] = x[1]
    return grid[1][1] * 3 + grid[0][2] * 5 + x[2]


case(grid_rows_share_one_list, lambda r: (vec(r, 3),), "either")


def fromkeys_shares_one_list(x):
    d = dict.fromkeys(["a", "b"], [])
    d["a"].append(x[0])
    return sum(d["b"]) * 2 + x[1]


case(fromkeys_shares_one_list, lambda r: (vec(r, 2),), "either")


def star_unpack_array_rest(x):
    a, *rest = x
    return a * rest[-1] + sum(rest)


case(star_unpack_array_rest, lambda r: (vec(r, 4),), "works")


def chained_comparison_filter(x):
    return sum(v * v for v in x if -0.5 < v < 0.9)


case(chained_comparison_filter, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def count_of_positive_times_value(x):
    return sum(x > 0) * jnp.sum(x ** 2)


case(count_of_positive_times_value, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def list_map_float_items(x):
    ys = list(map(float, x))
    return ys[0] * ys[1]


case(list_map_float_items, lambda r: (vec(r, 3),), "works")


def accumulate_builtin_max(x):
    return sum(itertools.accumulate(x, max))


case(accumulate_builtin_max, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def reversed_inner_range_on_outer(x):
    s = 0.0
    for i in range(4):
        for j in reversed(range(i)):
            s = s + x[i] * x[j] * (j + 1)
    return s


case(reversed_inner_range_on_outer, lambda r: (vec(r, 4),), "works")


def list_negative_step_slices(x):
    xs = [x[0], x[1], x[2], x[3]]
    a = xs[::-2]
    b = xs[-1:0:-1]
    return a[0] * a[1] + b[2] * 7


case(list_negative_step_slices, lambda r: (vec(r, 4),), "works")


def nested_rows_copied_then_written(x):
    g = [[x[0], x[1]], [x[2], x[3]]]
    h = [row[:] for row in g]
    h[0][0] = h[0][0] * 10
    return g[0][0] + h[0][0] + h[1][1]


case(nested_rows_copied_then_written, lambda r: (vec(r, 4),), "works")


def min_with_default_keyword(x):
    return min([v for v in x if v > 10.0], default=x[0] * 2)


case(min_with_default_keyword, lambda r: (vec(r, 3),), "either")


def zip_strict_keyword(x):
    return sum(a * b for a, b in zip(x[:2], x[2:], strict=True))


case(zip_strict_keyword, lambda r: (vec(r, 4),), "works")


def enumerate_dict_keys(x):
    d = {"a": x[0], "b": x[1]}
    s = 0.0
    for i, k in enumerate(d):
        s = s + (i + 1) * d[k]
    return s


case(enumerate_dict_keys, lambda r: (vec(r, 2),), "either")


def any_generator_times_sum(x):
    return jnp.sum(x) * any(v > 0.8 for v in x)


case(any_generator_times_sum, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def builtin_max_min_of_two(x):
    return max(x[0], x[1]) * x[2] + min(x[0] * 2, x[1])


case(builtin_max_min_of_two, lambda r: (_x(0.5, -0.3, 1.2),), "works")


def builtin_max_min_over_array(x):
    return max(x) + min(x) * 2


case(builtin_max_min_over_array, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def tuple_repeated(x):
    t = (x[0], x[1]) * 2
    return t[3] * t[0] + t[2]


case(tuple_repeated, lambda r: (vec(r, 2),), "works")


def list_times_equals(x):
    xs = [x[0], x[1]]
    xs *= 2
    return xs[2] * xs[3]


case(list_times_equals, lambda r: (vec(r, 2),), "either")


def list_slice_assignment(x):
    xs = [x[0], x[1], x[2]]
    xs[0:2] = [x[2], x[2] * 2]
    return xs[0] * xs[1] + xs[2]


case(list_slice_assignment, lambda r: (vec(r, 3),), "either")


def list_insert_at_front(x):
    xs = [x[0], x[1]]
    xs.insert(0, x[2] * 3)
    return xs[0] * xs[1]


case(list_insert_at_front, lambda r: (vec(r, 3),), "works")


def list_pop_at_front(x):
    xs = [x[0], x[1], x[2]]
    a = xs.pop(0)
    return a * 2 + xs[0]


case(list_pop_at_front, lambda r: (vec(r, 3),), "works")


def list_extend_with_itself(x):
    xs = [x[0], x[1]]
    xs.extend(xs)
    return xs[3] * 5 + xs[0]


case(list_extend_with_itself, lambda r: (vec(r, 2),), "either")


def same_row_appended_twice(x):
    row = [x[0]]
    rows = []
    rows.append(row)
    rows.append(row)
    row.append(x[1])
    return rows[0][1] * 2 + rows[1][1]


case(same_row_appended_twice, lambda r: (vec(r, 2),), "either")


def nonlocal_counter_in_mapped_function(x):
    n = 0

    def f(v):
        nonlocal n
        n += 1
        return v * n
    return sum(map(f, x))


case(nonlocal_counter_in_mapped_function, lambda r: (vec(r, 3),), "either")


def joined_list_read_as_array(x):
    parts = [[x[0]], [x[1]]]
    a = parts[0]
    b = a + a
    return jnp.sum(jnp.array(b) * jnp.array([1.0, 3.0]))


case(joined_list_read_as_array, lambda r: (vec(r, 2),), "either")


def joined_list_stacked(x):
    parts = [[x[0], x[1]]]
    a = parts[0]
    b = a + a
    return jnp.sum(jnp.stack(b) * jnp.arange(4.0))


case(joined_list_stacked, lambda r: (vec(r, 2),), "either")


def joined_items_np_sum(x):
    parts = [[x[0]], [x[1]]]
    a = parts[0]
    b = a + parts[1]
    return np.sum(np.array(b) * np.array([1.0, 3.0]))


case(joined_items_np_sum, lambda r: (vec(r, 2),), "either")


def reduce_joined_then_np_sum(x):
    flat = functools.reduce(operator.add, [[x[0]], [x[1]]])
    return np.sum(flat) * x[2]


case(reduce_joined_then_np_sum, lambda r: (vec(r, 3),), "either")


def joined_list_summed_by_builtin(x):
    parts = [[x[0], x[1]]]
    a = parts[0]
    b = a + a
    return sum(b) * x[2]


case(joined_list_summed_by_builtin, lambda r: (vec(r, 3),), "either")


def joined_list_unpacked(x):
    parts = [[x[0], x[1]]]
    a = parts[0]
    p, q, r, s = a + a
    return p * s + q


case(joined_list_unpacked, lambda r: (vec(r, 2),), "either")


def joined_list_enumerated(x):
    parts = [[x[0], x[1]]]
    a = parts[0]
    t = 0.0
    for k, v in enumerate(a + a):
        t = t + v * (k + 1)
    return t


case(joined_list_enumerated, lambda r: (vec(r, 2),), "either")


def params_added_to_each_other(a, b):
    return jnp.sum((a + b) ** 2) + jnp.sum(a + a)


case(params_added_to_each_other, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


# ============================================================ more functional idioms

def sort_zip_unzip(x):
    keys = [3, 1, 2, 0]
    _, vals = zip(*sorted(zip(keys, x)))
    return vals[0] * 5 + vals[3]


case(sort_zip_unzip, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def sort_zip_data_keys(x):
    pairs = sorted(zip(x, [1.0, 2.0, 3.0, 4.0]))
    return pairs[0][1] * pairs[0][0] + pairs[-1][0] * 3


case(sort_zip_data_keys, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def reduce_tuple_state(x):
    s, p = functools.reduce(lambda acc, v: (acc[0] + v, acc[1] * v), x, (0.0, 1.0))
    return s * p


case(reduce_tuple_state, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def accumulate_tuple_state(x):
    st = list(itertools.accumulate(x, lambda acc, v: acc * 0.5 + v))
    return st[-1] * st[0]


case(accumulate_tuple_state, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def map_to_pairs_unzip(x):
    pairs = list(map(lambda v: (v, v * v), x))
    a, b = zip(*pairs)
    return sum(a) * sum(b)


case(map_to_pairs_unzip, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def group_pairs_idiom(x):
    it = iter([x[0], x[1], x[2], x[3]])
    return sum(a * b for a, b in zip(it, it))


case(group_pairs_idiom, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def list_reversed_of_array(x):
    ys = list(reversed(x))
    return ys[0] * 3 + ys[-1]


case(list_reversed_of_array, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def argsort_gather(x):
    idx = np.argsort(x)
    return x[idx[0]] * 3 + x[idx[-1]]


case(argsort_gather, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def enumerate_sorted_key(x):
    order = sorted(enumerate(x), key=lambda p: p[1])
    return order[0][1] * (order[0][0] + 1) + order[-1][1]


case(enumerate_sorted_key, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def max_by_index_key(x):
    i = max(range(4), key=x.__getitem__)
    return x[i] * 2


case(max_by_index_key, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def comprehension_over_zip_dict(x):
    d = dict(zip("abcd", x))
    return sum(v * (ord(k) - 96) for k, v in d.items())


case(comprehension_over_zip_dict, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def nested_map_filter(x):
    return sum(map(lambda v: v ** 2, filter(lambda v: v > 0, x)))


case(nested_map_filter, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def sum_nested_generators(x):
    return sum(sum(x[i] * x[j] for j in range(i)) for i in range(4))


case(sum_nested_generators, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def min_max_generator_tuple(x):
    return max(x[i] - x[j] for i in range(4) for j in range(4) if i != j)


case(min_max_generator_tuple, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def reduce_over_enumerate(x):
    return functools.reduce(lambda acc, p: acc + p[0] * p[1], enumerate(x), 0.0)


case(reduce_over_enumerate, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def starmap_mul_zip(x):
    return sum(itertools.starmap(operator.mul, zip(x, x[::-1])))


case(starmap_mul_zip, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def walrus_plain_statement(x):
    if (s := jnp.sum(x ** 2)) > 0.1:
        return s * 2
    return s


case(walrus_plain_statement, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def try_finally_return(x):
    try:
        return x[0] * 2
    finally:
        pass


case(try_finally_return, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def lambda_immediately_called(x):
    return (lambda v: v * v)(x[0]) + (lambda a, b=2.0: a * b)(x[1])


case(lambda_immediately_called, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")

def conditional_lambda_choice(x):
    f = (lambda v: v * 2) if x[0] > 0 else (lambda v: v * 3)
    return f(x[1])


case(conditional_lambda_choice, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")

def generator_send_like(x):
    g = (v * 2 for v in x)
    return next(g) + next(g)


case(generator_send_like, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


# ============================================================ the standard library's Python functions
def heapq_nsmallest_of_values(x):
    return sum(heapq.nsmallest(2, [x[0], x[1], x[2], x[3]]))


case(heapq_nsmallest_of_values, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def heapq_push_then_pop(x):
    h = []
    for v in [x[0], x[1], x[2]]:
        heapq.heappush(h, v)
    return heapq.heappop(h) * 3


case(heapq_push_then_pop, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def statistics_mean_of_values(x):
    return statistics.mean([x[0], x[1], x[2]]) * x[3]


case(statistics_mean_of_values, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def statistics_median_of_values(x):
    return statistics.median([x[0], x[1], x[2]]) * 2


case(statistics_median_of_values, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def statistics_fmean_of_values(x):
    return statistics.fmean([x[0], x[1]]) * x[2]


case(statistics_fmean_of_values, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def math_dist_of_points(x):
    return math.dist([x[0], x[1]], [x[2], x[3]])


case(math_dist_of_points, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "either")


def sorted_reverse_keeps_tie_order(x):
    ys = sorted([(1, x[0]), (1, x[1]), (0, x[2])], key=lambda p: p[0], reverse=True)
    return ys[0][1] * 5 + ys[1][1] * 2


case(sorted_reverse_keeps_tie_order, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def max_key_tie_keeps_first(x):
    pairs = [(1.0, x[0]), (1.0, x[1])]
    return max(pairs, key=lambda p: p[0])[1] * 3


case(max_key_tie_keeps_first, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def sorted_key_returns_tuple(x):
    ys = sorted([x[0], x[1], x[2], x[3]], key=lambda v: (v > 0, -v))
    return ys[0] * 4 + ys[1] * 3 + ys[2] * 2 + ys[3]


case(sorted_key_returns_tuple, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


def np_median_of_list(x):
    return np.median([x[0], x[1], x[2]]) * 2


case(np_median_of_list, lambda r: (_x(0.5, -0.3, 1.2, 0.7),), "works")


# ============================================================ helpers that join or repeat what they are given
def _repeated(a, n):
    return a * n


def _joined(a, b):
    return a + b


def helper_repeats_list(x):
    b = _repeated([x[0], x[1]], 2)
    return b[0] * b[3]


case(helper_repeats_list, lambda r: (vec(r, 2),), "either")


def helper_adds_arrays(x):
    return jnp.sum(_joined(x, x * 2) ** 2)


case(helper_adds_arrays, lambda r: (vec(r, 3),), "works")


def helper_joins_lists(x):
    c = _joined([x[0]], [x[1], x[2]])
    return c[0] * c[2] + c[1]


case(helper_joins_lists, lambda r: (vec(r, 3),), "either")


def helper_joins_tuples(x):
    c = _joined((x[0],), (x[1], x[2]))
    return c[0] * c[2] + c[1]


case(helper_joins_tuples, lambda r: (vec(r, 3),), "either")


def helper_adds_list_to_array(x):
    c = _joined([x[0], x[1]], x[2:4])
    return jnp.sum(c ** 2)


case(helper_adds_list_to_array, lambda r: (vec(r, 4),), "works")


def helper_joins_nested(x):
    c = _joined(_joined([x[0]], [x[1]]), [x[2]])
    return c[2] * c[0]


case(helper_joins_nested, lambda r: (vec(r, 3),), "either")


def helper_joins_in_loop(x):
    acc = [x[0]]
    for k in range(1, 3):
        acc = _joined(acc, [x[k] * k])
    return acc[-1] * acc[0]


case(helper_joins_in_loop, lambda r: (vec(r, 3),), "either")


# ============================================================ sum(parts, []) fed by generators, maps and loops
def sum_start_list_of_generator_parts(x):
    flat = sum(([x[i], x[i] * 2] for i in range(3)), [])
    return flat[1] * flat[4] + flat[5]


case(sum_start_list_of_generator_parts, lambda r: (vec(r, 3),), "works")


def sum_start_list_of_mapped_tuples(x):
    flat = sum(map(list, [(x[0], x[1]), (x[2],)]), [])
    return flat[0] * flat[2] + flat[1]


case(sum_start_list_of_mapped_tuples, lambda r: (vec(r, 3),), "works")


def sum_start_list_nested(x):
    flat = sum([[x[0]], sum([[x[1]], [x[2]]], [])], [])
    return flat[0] * flat[2] + flat[1]


case(sum_start_list_nested, lambda r: (vec(r, 3),), "works")


def sum_start_list_in_loop_rebuilt(x):
    s = 0.0
    rows = [[x[0], x[1]], [x[2]]]
    for k in range(2):
        flat = sum(rows, [])
        s = s + flat[k] * flat[-1]
        rows = [[flat[0] * 2], flat[1:]]
    return s


case(sum_start_list_in_loop_rebuilt, lambda r: (vec(r, 3),), "works")


# The default profile (the suite's time budget) runs the cases of the mechanisms fixed with this module, the
# first case of each mode of check, and every third other case; ASTJAX_LONG_PROPERTIES=1 runs them all.
from .case import long_only  # noqa: E402

_FIXED_HERE = {"sum_lists_with_start_list", "sum_tuples_with_empty_tuple", "sum_lists_variable_start",
               "list_sort_through_alias", "list_argument_sorted_in_place", "list_argument_jnp_cumsum",
               "reduce_operator_add_joins_lists", "accumulate_joins_lists", "helper_joins_list_with_itself",
               "item_list_joined_reads_first_only", "item_list_repeated", "list_argument_joined_with_itself",
               "joined_items_np_sum", "reduce_joined_then_np_sum", "params_added_to_each_other",
               "statistics_mean_of_values", "helper_joins_lists", "helper_adds_list_to_array"}
LONG_ONLY = long_only("attacks7", _FIXED_HERE)
