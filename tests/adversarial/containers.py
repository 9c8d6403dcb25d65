"""Containers: list mutation, comprehensions, dicts, parameter lists, zip/map/enumerate,
carried arrays whose shape changes between iterations."""
import numpy as np

import astjax.numpy as jnp

from .case import case, vec, mat


def list_append_then_sum(x):
    xs = []
    for i in range(3):
        xs.append(x[i] * x[i + 1])
    return xs[0] + xs[1] * xs[2]


case(list_append_then_sum, lambda r: (vec(r, 4),), "works")


def list_pop(x):
    xs = [x[0], x[1] * 2.0, x[2] ** 2]
    last = xs.pop()
    return last * xs[-1] + len(xs)


case(list_pop, lambda r: (vec(r, 3),), "works")


def list_pop_front(x):
    xs = [x[0], x[1], x[2]]
    first = xs.pop(0)
    return first * 10.0 + xs[0]


case(list_pop_front, lambda r: (vec(r, 3),), "works")


def list_extend(x):
    xs = [x[0]]
    xs.extend([x[1] * 3.0, jnp.sin(x[2])])
    s = 0.0
    for v in xs:
        s = s + v * v
    return s


case(list_extend, lambda r: (vec(r, 3),), "works")


def list_insert(x):
    xs = [x[0], x[1]]
    xs.insert(1, x[2] * 5.0)
    return xs[0] + xs[1] * 2.0 + xs[2] * 3.0


case(list_insert, lambda r: (vec(r, 3),), "works")


def list_remove_loop(x):
    items = [1.0, 2.0, 3.0]
    s = 0.0
    while len(items) > 0:
        v = items[0]
        s = s + v * jnp.sum(x ** 2)
        items.remove(v)
    return s


case(list_remove_loop, lambda r: (vec(r, 3),), "works")


def list_pop_while(x):
    stack = [x[0], x[1], x[2]]
    s = 1.0
    while stack:
        s = s * stack.pop() + 0.5
    return s


case(list_pop_while, lambda r: (vec(r, 3),), "works")


def list_reverse_in_place(x):
    xs = [x[0], x[1] * 2.0, x[2] * 3.0]
    xs.reverse()
    return xs[0] * 100.0 + xs[2]


case(list_reverse_in_place, lambda r: (vec(r, 3),), "either")


def list_item_assign(x):
    xs = [x[0], x[1], x[2]]
    for i in range(3):
        xs[i] = xs[i] * x[i]
    return xs[0] + xs[1] * xs[2]


case(list_item_assign, lambda r: (vec(r, 3),), "works")


def list_comprehension_sum(x):
    return np.sum([v * 3.0 for v in x])


case(list_comprehension_sum, lambda r: (vec(r, 3),), "works")


def list_comprehension_with_if(x):
    vals = [x[i] * x[i] for i in range(4) if i != 2]
    return vals[0] + vals[1] * vals[2]


case(list_comprehension_with_if, lambda r: (vec(r, 4),), "works")


def nested_comprehension(x):
    grid = [[x[i] * x[j] for j in range(3)] for i in range(3)]
    return grid[0][1] + grid[2][2] * grid[1][0]


case(nested_comprehension, lambda r: (vec(r, 3),), "works")


def comprehension_calling_local_function(x):
    def scale(v):
        return v * x[0]
    vals = [scale(v) for v in [x[1], x[2]]]
    return vals[0] + vals[1]


case(comprehension_calling_local_function, lambda r: (vec(r, 3),), "works")


def comprehension_calling_lambda(x):
    f = lambda v: v * x[0]  # noqa: E731
    return np.sum([f(x[i]) for i in range(1, 3)])


case(comprehension_calling_lambda, lambda r: (vec(r, 3),), "works")


def dict_literal_loss(w):
    d = {"a": w[0] * 2.0, "b": jnp.sin(w[1])}
    return d["a"] * d["b"]


case(dict_literal_loss, lambda r: (vec(r, 2),), "works")


def dict_argument(params):
    return jnp.sum(params["w"] ** 2) + params["b"] * 3.0


case(dict_argument, lambda r: ({"w": vec(r, 3), "b": vec(r, 1)[0] * np.ones(())},), "works")


def dict_item_update(params):
    p = dict(params)
    p["w"] = p["w"] * 2.0
    return jnp.sum(p["w"] * params["w"])


case(dict_item_update, lambda r: ({"w": vec(r, 3)},), "works")


def dict_items_loop(params):
    s = 0.0
    for k, v in params.items():
        s = s + jnp.sum(v * v)
    return s


case(dict_items_loop, lambda r: ({"a": vec(r, 2), "b": vec(r, 3)},), "works")


def dict_comprehension(x):
    d = {i: x[i] * 2.0 for i in range(3)}
    return d[0] * d[1] + d[2]


case(dict_comprehension, lambda r: (vec(r, 3),), "works")


def for_w_b_in_params(params, x):
    h = x
    for w, b in params:
        h = jnp.tanh(w @ h + b)
    return jnp.sum(h)


def _mlp_params(r, sizes):
    return [(mat(r, m, n) * 0.7, vec(r, m) * 0.1) for n, m in zip(sizes[:-1], sizes[1:])]


case(for_w_b_in_params, lambda r: (_mlp_params(r, [8, 6, 5, 3]), vec(r, 8)), "works")


def mlp_shape_changing_carry(params, x):
    h = x
    for W, b in params:
        h = jnp.tanh(h @ W + b)
    return jnp.sum(h ** 2)


case(mlp_shape_changing_carry,
     lambda r: ([(mat(r, n, m) * 0.5, vec(r, m) * 0.1) for n, m in ((8, 6), (6, 5), (5, 3))], vec(r, 8)),
     "works")


def enumerate_tuple_target(params, x):
    h = x
    for i, (w, b) in enumerate(params):
        h = jnp.tanh(w @ h + b) * (1.0 + 0.1 * i)
    return jnp.sum(h)


case(enumerate_tuple_target, lambda r: (_mlp_params(r, [4, 3, 2]), vec(r, 4)), "works")


def zip_star_pairs(x):
    pairs = [(x[0], x[1]), (x[2], x[3])]
    firsts, seconds = zip(*pairs)
    return firsts[0] * seconds[1] + firsts[1] * seconds[0]


case(zip_star_pairs, lambda r: (vec(r, 4),), "works")


def map_builtin(x):
    vals = list(map(jnp.sin, [x[0], x[1]]))
    return vals[0] * vals[1]


case(map_builtin, lambda r: (vec(r, 2),), "works")


def map_lambda(x):
    return sum(map(lambda v: v * v, [x[0], x[1], x[2]]))


case(map_lambda, lambda r: (vec(r, 3),), "works")


def zip_two_arrays(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b * b
    return s


case(zip_two_arrays, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def enumerate_array(x):
    s = 0.0
    for i, v in enumerate(x):
        s = s + (i + 1.0) * v ** 2
    return s


case(enumerate_array, lambda r: (vec(r, 4),), "works")


def tuple_of_arrays_argument(pair):
    a, b = pair
    return jnp.sum(a * b) + jnp.sum(a ** 3)


case(tuple_of_arrays_argument, lambda r: ((vec(r, 3), vec(r, 3)),), "works")


def list_of_params_l2(params, x):
    loss = jnp.sum((params[0] * x + params[1]) ** 2)
    penalty = sum(jnp.sum(p ** 2) for p in params)
    return loss + 0.1 * penalty


case(list_of_params_l2, lambda r: ([vec(r, 3), vec(r, 3)], vec(r, 3)), "works")


def list_slice_and_concat(x):
    xs = [x[0], x[1], x[2], x[3]]
    ys = xs[1:] + xs[:1]
    return ys[0] * 1.0 + ys[3] * 10.0


case(list_slice_and_concat, lambda r: (vec(r, 4),), "works")


def list_multiply_repeat(x):
    xs = [x[0]] * 3
    xs[1] = x[1]
    return xs[0] * xs[1] + xs[2]


case(list_multiply_repeat, lambda r: (vec(r, 2),), "works")


def stack_list_built_in_loop(x):
    rows = []
    for i in range(3):
        rows.append(x * (i + 1.0))
    M = jnp.stack(rows)
    return jnp.sum(M @ x)


case(stack_list_built_in_loop, lambda r: (vec(r, 3),), "works")


def np_array_of_list_of_traced(x):
    v = np.array([x[0] * 2.0, x[1] ** 2, 1.0])
    return np.sum(v * v)


case(np_array_of_list_of_traced, lambda r: (vec(r, 2),), "works")


def list_negative_index_assign(x):
    xs = [x[0], x[1], x[2]]
    xs[-1] = xs[-1] * xs[0]
    return xs[2] + xs[-2]


case(list_negative_index_assign, lambda r: (vec(r, 3),), "works")


def list_of_lists_update(x):
    grid = [[x[0], x[1]], [x[2], x[3]]]
    grid[1][0] = grid[0][1] * 2.0
    return grid[1][0] * grid[1][1] + grid[0][0]


case(list_of_lists_update, lambda r: (vec(r, 4),), "works")


def tuple_concat(x):
    t = (x[0], x[1]) + (x[2],)
    return t[0] * t[2] + t[1]


case(tuple_concat, lambda r: (vec(r, 3),), "works")


def namedtuple_like_dict_of_lists(params):
    s = 0.0
    for layer in params["layers"]:
        s = s + jnp.sum(layer["w"] ** 2)
    return s


case(namedtuple_like_dict_of_lists, lambda r: ({"layers": [{"w": vec(r, 2)}, {"w": vec(r, 3)}]},), "works")


def list_copy_then_mutate(x):
    xs = [x[0], x[1]]
    ys = list(xs)
    ys[0] = ys[0] * 5.0
    return xs[0] + ys[0]


case(list_copy_then_mutate, lambda r: (vec(r, 2),), "works")


def list_alias_then_mutate(x):
    xs = [x[0], x[1]]
    ys = xs
    ys[0] = ys[0] * 5.0
    return xs[0] + ys[1]


case(list_alias_then_mutate, lambda r: (vec(r, 2),), "either")


def list_alias_append(x):
    xs = [x[0]]
    ys = xs
    ys.append(x[1] * 3.0)
    return xs[-1] * xs[0]


case(list_alias_append, lambda r: (vec(r, 2),), "either")


def append_then_pop_in_loop(x):
    s = 0.1 * x[0]
    acc = []
    for i in range(4):
        acc.append(jnp.tanh(x[0] + 0.5) + 0.1 * s)
        if len(acc) > 0:
            s = s + 0.3 * acc.pop()
    acc.append(jnp.cos(x[1]) * 0.5 + 0.1 * s)
    for v in acc:
        s = s + 0.1 * v
    return s


case(append_then_pop_in_loop, lambda r: (vec(r, 4),), "works",
     note="found by tests/test_adversarial_properties.py (family lists)")


def iterate_growing_list_in_inner_loop(x):
    s = 0.1 * x[0]
    acc = []
    for i in range(4):
        acc.append(jnp.tanh(x[1] + 0.5) + 0.1 * s)
        for j in range(3):
            s = 0.5 * s + 0.3 * x[2] * x[i]
            for v in acc:
                s = 0.9 * s + 0.1 * v
        s = s + 0.3 * acc.pop()
    return s


case(iterate_growing_list_in_inner_loop, lambda r: (vec(r, 4),), "works",
     note="found by tests/test_adversarial_properties.py (family lists)")


def iterate_list_while_appending(x):
    xs = [x[0], x[1]]
    for v in xs:
        if len(xs) < 5:
            xs.append(v * 2.0)
    return xs[-1] + xs[2] * xs[3]


case(iterate_list_while_appending, lambda r: (vec(r, 2),), "either",
     note="Python sees the appended items: the loop runs 5 times")


def iterate_list_while_popping(x):
    xs = [x[0], x[1], x[2], x[0] * x[1]]
    s = 0.0
    for v in xs:
        s = s + v
        xs.pop()
    return s


case(iterate_list_while_popping, lambda r: (vec(r, 3),), "either",
     note="Python stops after 2 items: the list shrinks under the iterator")


def nested_tuple_into_helper(x, y):
    return _nested_consumer(((x, [y, x * y]), 2.0))


def _nested_consumer(packed):
    (a, (b, c)), k = packed
    return jnp.sum(a * b) * k + jnp.sum(c ** 2)


case(nested_tuple_into_helper, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def helper_returns_list_then_mutate(x):
    vals = _as_list(x)
    vals[0] = vals[0] * vals[1]
    vals.append(vals[2] ** 2)
    return vals[0] + vals[3]


def _as_list(v):
    return [v[0], v[1], v[2]]


case(helper_returns_list_then_mutate, lambda r: (vec(r, 3),), "works")


def list_of_arrays_index_from_loop(params, x):
    h = x
    for i in range(len(params)):
        h = jnp.tanh(params[i] * h)
    return jnp.sum(h)


case(list_of_arrays_index_from_loop, lambda r: ([vec(r, 3), vec(r, 3), vec(r, 3)], vec(r, 3)), "works")


def dict_get_with_default(params):
    w = params.get("w")
    b = params.get("b", 0.5)
    return jnp.sum(w ** 2) * b


case(dict_get_with_default, lambda r: ({"w": vec(r, 3)},), "works")


def dict_keys_loop_sorted(params):
    s = 0.0
    for k in sorted(params):
        s = s * 0.5 + jnp.sum(params[k] ** 2)
    return s


case(dict_keys_loop_sorted, lambda r: ({"b": vec(r, 2), "a": vec(r, 3)},), "works")


def tuple_of_lists_unpacked_in_loop(x):
    pairs = ([x[0], x[1]], [x[2], x[0]])
    s = 0.0
    for a, b in pairs:
        s = s + a * b
    return s


case(tuple_of_lists_unpacked_in_loop, lambda r: (vec(r, 3),), "works")


def list_extend_with_generator(x):
    xs = []
    xs.extend(v * 2.0 for v in [x[0], x[1]])
    return xs[0] * xs[1]


case(list_extend_with_generator, lambda r: (vec(r, 2),), "works")


def list_index_with_numpy_int(x):
    xs = [x[0], x[1], x[2]]
    k = np.argmax(np.array([0.1, 0.9, 0.3]))
    return xs[k] * 3.0 + xs[0]


case(list_index_with_numpy_int, lambda r: (vec(r, 3),), "works")


def append_in_dependent_loop_then_pop(x):
    s = 0.0 + 0.1 * x[0]
    acc = []
    for i0 in range(4):
        for i1 in range(i0 - 1):
            s = 0.5 * s + -0.7 * jnp.tanh(x[i0 % 4] + 0.5)
            acc.append(x[(i1 + 1) % 4] * x[0] + 0.1 * s)
        if i0 == 2:
            continue
        s = 0.5 * s + 1.0 * jnp.tanh(x[3] + 0.5)
    if len(acc) > 0:
        s = s + 0.3 * acc.pop()
    for v in acc:
        s = s + 0.1 * v
    return s


case(append_in_dependent_loop_then_pop, lambda r: (vec(r, 4),), "works",
     note="found by tests/test_adversarial_properties.py (family everything)")
