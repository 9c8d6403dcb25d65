"""An attacker's corpus, seventh round: functional-style Python inside the differentiated function (map,
filter, zip, enumerate, reversed, sorted with a key, functools.reduce, itertools, generator expressions fed
to builtins and to jnp.stack, generators, nested and dict/set comprehensions, star unpacking, list slicing
and arithmetic, walrus, match, try/finally, assert, global counters) and compositions of transformations on
realistic programs (unrolled inner optimisation with grad inside grad, Newton steps through jacfwd/hessian,
jvp of grad, vjp of tuple/dict outputs with their cotangents, has_aux dicts, argnums tuples with keywords,
jit with static arguments steering control flow, vmap of grad over loops, custom rules inside loops and
under vmap, checkpoint, stop_gradient in closures, an RK4 integrator, lax loops closing over parameters)."""
import functools
import itertools
import math
import operator

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
