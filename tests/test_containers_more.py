"""Dicts and lists inside differentiated functions (issue 6): idioms that work, and the clear refusals.

Each case is judged by the adversarial harness: values against running the function itself,
derivatives against central finite differences in float64, forward mode against both; a
refusal must be an astjax error naming a line of this file.
"""
import sys
from pathlib import Path

import numpy as np
import pytest

import astjax.numpy as jnp

sys.path.insert(0, str(Path(__file__).parent))
from adversarial.case import Case, vec  # noqa: E402
from adversarial.harness import run_case  # noqa: E402

CASES = []


def case(fn, make_args, outcome, argnums=0, reference=None, errors=(), error_match=None):
    CASES.append(Case(name=f"containers_more.{fn.__name__}", fn=fn, make_args=make_args, outcome=outcome,
                      category="containers_more", argnums=argnums, file=__file__, reference=reference,
                      errors=errors, error_match=error_match))
    return fn


def _sorted_dict(fn):
    """As JAX (and astjax's grad) pass a dict argument: rebuilt from its leaves with the keys sorted."""
    return lambda params: fn({k: params[k] for k in sorted(params)})


# ------------------------------------------------------------------------------------------------ dicts
def items_loop_rebinds_dict(params):
    s = 0.0
    for k, v in params.items():
        s = s * 0.5 + jnp.sum(v * v)
        params = {"a": params["a"] * 2.0, "b": params["b"]}     # Python iterates the dict it was given
    return s + jnp.sum(params["a"])


case(items_loop_rebinds_dict, lambda r: ({"a": vec(r, 2), "b": vec(r, 3)},), "works")


def values_loop_order_matters(params):
    s = 1.0
    for v in params.values():
        s = s * 0.3 + jnp.sum(jnp.sin(v))
    return s


# A dict argument is a pytree: grad sees it with its keys sorted, as JAX does, so an order-dependent loop
# over it computes JAX's number (the oracle is the function on the sorted dict).
case(values_loop_order_matters, lambda r: ({"z": vec(r, 2), "a": vec(r, 3), "m": vec(r, 1)},), "works",
     reference=_sorted_dict(values_loop_order_matters))


def dict_comprehension_over_items(params, x):
    scaled = {k: v * x[0] for k, v in params.items() if k != "skip"}
    return sum(jnp.sum(scaled[k] ** 2) for k in sorted(scaled))


case(dict_comprehension_over_items, lambda r: ({"w": vec(r, 3), "skip": vec(r, 2), "b": vec(r, 1)}, vec(r, 2)),
     "works", argnums=(0, 1))


def get_missing_key_default_is_traced(params, x):
    w = params.get("w")
    b = params.get("bias", x[1] * 3.0)       # missing: the default carries the derivative
    return jnp.sum(w * x[0]) + b * jnp.sum(w)


case(get_missing_key_default_is_traced, lambda r: ({"w": vec(r, 3)}, vec(r, 2)), "works", argnums=(0, 1))


def get_nested_in_expression(params):
    return jnp.sum(jnp.tanh(params.get("w", 0.0) * 2.0)) * params.get("s", 1.5)


case(get_nested_in_expression, lambda r: ({"w": vec(r, 3), "s": vec(r, 1)[0] * np.ones(())},), "works")


def dict_built_in_loop_then_updated(x):
    d = {}
    for i in range(3):
        d[i] = x[i] * x[i]
    for i in range(3):
        d[i] = d[i] * x[(i + 1) % 3]
    d["total"] = d[0] + d[1] + d[2]
    return d["total"] * d[2]


case(dict_built_in_loop_then_updated, lambda r: (vec(r, 3),), "works")


def dict_copy_keeps_original(params):
    p = dict(params)
    p["w"] = jnp.sin(p["w"])
    p["new"] = params["w"] * 3.0
    return jnp.sum(p["w"] * params["w"]) + jnp.sum(p["new"])


case(dict_copy_keeps_original, lambda r: ({"w": vec(r, 3)},), "works")


def dict_alias_then_item_written(x):
    d = {"w": x * 2.0}
    e = d
    e["w"] = e["w"] * x                      # changes d too (same dict)
    return jnp.sum(d["w"])


case(dict_alias_then_item_written, lambda r: (vec(r, 3),), "refuse")      # the aliasing pass names `d`


def keys_list_and_len(params):
    names = list(params.keys())
    s = 0.0
    for i in range(len(names)):
        s = s + jnp.sum(params[names[i]]) * (i + 1)
    return s


case(keys_list_and_len, lambda r: ({"b": vec(r, 2), "a": vec(r, 3)},), "works",
     reference=_sorted_dict(keys_list_and_len))


def for_over_dict_itself(x):
    d = {0: x[1], 1: x[0]}
    s = 0.0
    for k in d:                              # the keys (read d[k]): was refused, now iterates dict_keys(d)
        s = s + d[k] * x[0]
    return s


case(for_over_dict_itself, lambda r: (vec(r, 2),), "works")


def sorted_of_values(x):
    ys = sorted([x[0], x[1], x[2]])
    return ys[0] * ys[2]


# sorting values works since normalize/keyed_ordering.py (a gather by Python's order): checked, no longer refused
case(sorted_of_values, lambda r: (vec(r, 3),), "works")


def list_of_dict(params):
    keys = list(params)
    return jnp.sum(params[keys[0]])


case(list_of_dict, lambda r: ({"a": vec(r, 2)},), "refuse")


def dict_key_from_data(x):
    d = {}
    d[float(x[0])] = x[1]                     # a key computed from traced data
    return sum(d[k] for k in d.keys())


case(dict_key_from_data, lambda r: (vec(r, 2),), "refuse")


# ------------------------------------------------------------------------------------------------ lists
def list_copy_then_appended(x):
    xs = [x[0], x[1] * 2.0]
    ys = list(xs)
    ys.append(x[2])
    ys[0] = ys[0] * ys[1]
    return xs[0] * 10.0 + ys[0] + ys[2] * xs[1]


case(list_copy_then_appended, lambda r: (vec(r, 3),), "works")


def list_from_generator(x):
    ys = list(jnp.sin(x[i]) * x[0] for i in range(3))
    return ys[0] + ys[1] * ys[2]


case(list_from_generator, lambda r: (vec(r, 3),), "works")


def same_array_appended_twice(x):
    a = x * 2.0
    xs = []
    xs.append(a)
    xs.append(a)
    xs[0] = xs[0] * x                         # replaces item 0; item 1 is still the array a
    return jnp.sum(xs[0] + xs[1] * x)


case(same_array_appended_twice, lambda r: (vec(r, 3),), "works")


def popped_value_used_after_more_mutation(x):
    xs = [x[0], x[1] * 2.0]
    v = xs.pop()
    xs.append(v * 3.0)
    w = xs.pop()
    xs.insert(0, w * v)
    xs.extend([v, w])
    return v * w + xs[0] * xs[1] + xs[2] * xs[3]


case(popped_value_used_after_more_mutation, lambda r: (vec(r, 2),), "works")


def pops_with_data_dependent_trip_count(x):
    stack = []
    for i in range(4):
        stack.append(x[i] * (i + 1.0))
    total = 0.0
    while stack and total < 2.0:              # how many pops depends on the data
        total = total + stack.pop() ** 2
    rest = 0.0
    while len(stack) > 0:
        rest = rest * 0.5 + stack.pop(0)
    return total + rest


case(pops_with_data_dependent_trip_count, lambda r: (vec(r, 4, 0.2, 1.2),), "works")


def append_pop_nested_loops(x):
    acc = [x[0]]
    for i in range(3):
        for j in range(i + 1):
            acc.append(acc[-1] * x[j] + 0.1)
        for j in range(i):
            v = acc.pop()
            acc[0] = acc[0] + v * 0.5
    return sum(v * v for v in acc)


case(append_pop_nested_loops, lambda r: (vec(r, 3),), "works")


def pop_and_read_in_one_statement(x):
    acc = [x[0], x[1]]
    acc[0] = acc[0] + acc.pop() * 0.5           # the pop cannot move before the read of acc[0]: refused
    return acc[0]


case(pop_and_read_in_one_statement, lambda r: (vec(r, 2),), "refuse")


def pop_middle_and_insert_negative(x):
    xs = [x[0], x[1], x[2], x[0] * x[1]]
    m = xs.pop(1)
    xs.insert(-1, m * 4.0)
    xs.insert(10, x[2])                      # past the end: appended
    return xs[0] + 2.0 * xs[1] + 3.0 * xs[2] + 4.0 * xs[3] + 5.0 * xs[4]


case(pop_middle_and_insert_negative, lambda r: (vec(r, 3),), "works")


def pop_inside_loop_over_same_list(x):
    xs = [x[0], x[1], x[2]]
    s = 0.0
    for v in xs:                              # Python sees the pops while iterating: refused
        s = s + v * xs.pop()
    return s


case(pop_inside_loop_over_same_list, lambda r: (vec(r, 3),), "refuse")


def star_unpack_middle(x):
    first, *middle, last = [x[0], x[1] * 2.0, x[2] ** 2, x[0] * x[2]]
    middle.append(first)
    return last * middle[0] + middle[1] * middle[2]


case(star_unpack_middle, lambda r: (vec(r, 3),), "works")


def star_unpack_too_short(x):
    first, *rest, last = [x[0]]               # Python: ValueError
    return first * last


case(star_unpack_too_short, lambda r: (vec(r, 2),), "refuse", errors=(ValueError,),
     error_match="not enough values to unpack")


def swap_items_of_list_of_arrays(x):
    rows = [x * 1.0, x * 2.0, x ** 2]
    rows[0], rows[2] = rows[2], rows[0]
    rows[1][0], rows[1][1] = rows[1][1], rows[1][0]     # items of a NumPy row: copies, not views
    return jnp.sum(rows[0] * rows[1]) + jnp.sum(rows[2])


case(swap_items_of_list_of_arrays, lambda r: (vec(r, 3),), "works")


def swap_rows_of_array_views(x):
    A = np.stack([x, 2.0 * x])
    A[0], A[1] = A[1], A[0]                   # NumPy: both rows become 2x (views): refused
    return jnp.sum(A[0] * x) + 3.0 * jnp.sum(A[1])


case(swap_rows_of_array_views, lambda r: (vec(r, 3),), "refuse")


def nested_update_of_shared_rows(x):
    row = [x[0], x[1]]
    grid = [row, row]                         # the same list twice: Python changes both
    grid[0][0] = x[2] * 5.0
    return grid[1][0]


case(nested_update_of_shared_rows, lambda r: (vec(r, 3),), "refuse")


def grid_dynamic_programming(x):
    n = 3
    R = [[0.0] * (n + 1) for _ in range(n + 1)]
    for i in range(1, n + 1):
        R[i][0] = 10.0
        R[0][i] = 10.0
    for i in range(1, n + 1):
        for j in range(1, n + 1):
            R[i][j] = (x[i - 1] - x[j - 1] * 0.5) ** 2 + 0.5 * jnp.minimum(R[i - 1][j], jnp.minimum(R[i][j - 1], R[i - 1][j - 1]))
    return R[n][n]


case(grid_dynamic_programming, lambda r: (vec(r, 3),), "works")


def dict_of_lists_nested_update(x):
    d = {"a": [x[0], x[1]], "b": [x[2]]}
    d["a"][1] = d["b"][0] * 3.0
    d["b"][0] += d["a"][0]
    return d["a"][0] * d["a"][1] + d["b"][0] ** 2


case(dict_of_lists_nested_update, lambda r: (vec(r, 3),), "works")


# ------------------------------------------------------------------- reversed(...) and enumerate(xs, start)
def loop_over_reversed_list(x):
    coeffs = [1.0, -2.0, 0.5, 3.0]
    y = jnp.zeros_like(x)
    for c in reversed(coeffs):          # Horner's rule from the constant term up
        y = y * x + c
    return jnp.sum(y)


case(loop_over_reversed_list, lambda r: (vec(r, 3),), "works")


def loop_over_reversed_array_zipped(x):
    s = 0.0
    for a, b in zip(x, reversed(x)):
        s = s + a * b * b
    return s


case(loop_over_reversed_array_zipped, lambda r: (vec(r, 4),), "works")


def loop_over_reversed_list_rebound(x):
    xs = [x[0], x[1], x[2]]
    s = 0.0
    for v in reversed(xs):              # Python iterates the list it was given
        xs = [v, v]
        s = s * 2.0 + v * v
    return s + len(xs)


case(loop_over_reversed_list_rebound, lambda r: (vec(r, 3),), "works")


def enumerate_from_one(x):
    s = 0.0
    for i, v in enumerate(x, 1):
        s = s + i * jnp.sin(v)
    return s


case(enumerate_from_one, lambda r: (vec(r, 4),), "works")


def enumerate_start_read_once(x):
    k = 2
    s = 0.0
    for i, v in enumerate(reversed(x), start=k):
        k = k + 10                      # the count started from the old k
        s = s + i * v * v
    return s + k


case(enumerate_start_read_once, lambda r: (vec(r, 3),), "works")


# ------------------------------------------------------------------------------------ .copy() of each kind
def copy_of_list_parameter(xs):
    ys = xs.copy()                      # a list's copy: was jnp.copy's adjoint `bxs += bys`, a silent zero
    return jnp.sum(ys[0] * xs[0]) + jnp.sum(ys[1])


case(copy_of_list_parameter, lambda r: ([vec(r, 2), vec(r, 2)],), "works")


def copy_of_list_parameter_item_rebound(xs):
    ys = xs.copy()
    ys[0] = ys[0] + 1.0
    return jnp.sum(ys[0] * xs[0]) + jnp.sum(ys[1] ** 2)


case(copy_of_list_parameter_item_rebound, lambda r: ([vec(r, 2), vec(r, 2)],), "works")


def copy_of_list_parameter_item_added_in_place(xs):
    ys = xs.copy()
    ys[0] += 1.0                        # NumPy adds into xs[0] too: refused when the copy is made
    return jnp.sum(ys[0] * xs[0])


case(copy_of_list_parameter_item_added_in_place, lambda r: ([vec(r, 2), vec(r, 2)],), "refuse")


def copy_of_array_then_item_added(x):
    total = 0.0
    for i in range(len(x)):
        xp = x.copy()                   # finite-difference style perturbation of one coordinate
        xp[i] += 0.1
        xp[0] *= 2.0
        total = total + np.sum(np.sin(xp)) * x[i]
    return total


case(copy_of_array_then_item_added, lambda r: (vec(r, 3),), "works")


def copy_of_local_list(x):
    xs = [x[0], x[1] * 2.0]
    ys = xs.copy()
    ys.append(x[2])
    return ys[0] * ys[1] * ys[2] + xs[1] + len(xs)


case(copy_of_local_list, lambda r: (vec(r, 3),), "works")


def copy_of_dict_parameter(params, x):
    new = params.copy()
    new["w"] = new["w"] - 0.1 * x
    return jnp.sum(new["w"] ** 2) + jnp.sum(new["b"] * params["w"])


case(copy_of_dict_parameter, lambda r: ({"w": vec(r, 2), "b": vec(r, 2)}, vec(r, 2)), "works", argnums=(0, 1),
     reference=lambda params, x: copy_of_dict_parameter({k: params[k] for k in sorted(params)}, x))


def copy_of_dict_parameter_updated_in_its_items_loop(params, g):
    new = params.copy()                 # a dict (it is iterated with .items()): its copy is a new dict
    for k, v in new.items():
        new[k] = v - 0.1 * g[k] * v
    total = 0.0
    for k in sorted(new):
        total = total + jnp.sum(new[k] ** 2)
    return total


case(copy_of_dict_parameter_updated_in_its_items_loop,
     lambda r: ({"w": vec(r, 2), "b": vec(r, 1)}, {"w": vec(r, 2), "b": vec(r, 1)}), "works", argnums=(0, 1),
     reference=lambda params, g: copy_of_dict_parameter_updated_in_its_items_loop(
         {k: params[k] for k in sorted(params)}, {k: g[k] for k in sorted(g)}))


def loop_over_a_dict_by_its_keys(params):
    reg = 0.0
    for name in params:                 # Python iterates a dict's keys
        reg = reg + jnp.sum(params[name] ** 2)
    return reg


case(loop_over_a_dict_by_its_keys, lambda r: ({"w": vec(r, 2), "b": vec(r, 1)},), "works",
     reference=lambda params: loop_over_a_dict_by_its_keys({k: params[k] for k in sorted(params)}))


def loop_over_a_dict_with_integer_keys(x):
    d = {2: x[0], 0: x[1], 1: x[2]}
    s = 0.0
    for k in d:                         # the keys 2, 0, 1 (never d[0], d[1], d[2] by position)
        s = s * 0.5 + k * d[k]
    return s


case(loop_over_a_dict_with_integer_keys, lambda r: (vec(r, 3),), "works")


def loop_over_a_list_indexing_itself(x):
    perm = [2, 0, 1]
    s = 0.0
    for j in perm:                      # a list read at its own items: refused when the function runs
        s = s + x[perm[j]] * j
    return s


case(loop_over_a_list_indexing_itself, lambda r: (vec(r, 3),), "refuse")


# ------------------------------------------------------ max/min of a sequence, enumerate(zip(...))
def max_and_min_of_a_list(x):
    vals = [x[0] ** 2, x[1] * 3.0, jnp.sin(x[2])]
    return max(vals) + min(vals) * 2.0


case(max_and_min_of_a_list, lambda r: (vec(r, 3),), "works")


def max_of_an_array_and_a_generator(x):
    return max(x) - min(jnp.cos(v) * v for v in x)


case(max_of_an_array_and_a_generator, lambda r: (vec(r, 4),), "works")


def max_of_a_dict_is_refused(x):
    d = {0: x[0] * 5.0, 1: x[1]}
    return max(d) * x[0]                # Python compares the keys: refused, never max(d[0], d[1])


case(max_of_a_dict_is_refused, lambda r: (vec(r, 2),), "refuse")


def enumerate_of_zip(ws, xs):
    total = 0.0
    for i, (w, x) in enumerate(zip(ws, xs)):
        total = total + (i + 1) * w * jnp.sum(x ** 2)
    return total


case(enumerate_of_zip, lambda r: (vec(r, 3), vec(r, 4)), "works", argnums=(0, 1))


def enumerate_of_items(params):
    s = 0.0
    for position, (k, v) in enumerate(params.items()):     # was refused under grad, a crash under vmap and jit
        s = s + (position + 1) * jnp.sum(v ** 2)
    return s


case(enumerate_of_items, lambda r: ({"a": vec(r, 2), "b": vec(r, 3)},), "works")


def enumerate_of_values_rebinding_the_dict(params):
    s = 0.0
    for position, v in enumerate(params.values()):
        s = s + (position + 2) * jnp.sum(jnp.sin(v))
        params = {"a": params["a"] * 3.0}                  # Python iterates the dict it was given
    return s + jnp.sum(params["a"])


case(enumerate_of_values_rebinding_the_dict, lambda r: ({"a": vec(r, 2), "b": vec(r, 3)},), "works")


def test_enumerate_of_items_under_vmap_agrees_with_python():
    import astjax
    batch = {"a": np.array([[1.0, 2.0], [0.5, -1.0]]), "b": np.array([[3.0], [2.0]])}
    want = [enumerate_of_items({"a": batch["a"][i], "b": batch["b"][i]}) for i in range(2)]
    np.testing.assert_allclose(astjax.vmap(enumerate_of_items)(batch), want, rtol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_container_case(case):
    assert run_case(case, timeout=20) == ("checked" if case.outcome == "works" else "refused")


def _pops_and_dicts(x):
    d = {"a": x[0] * x[1], "b": jnp.sin(x[2])}
    p = dict(d)
    p["c"] = p.get("a") * p.get("z", x[0])
    s = 0.0
    for k, v in p.items():
        s = s + v * v
    return s


def test_second_derivative_through_dict_idioms():
    import astjax
    x = np.array([0.3, 0.5, 0.7])
    eps = 1e-5
    fd = np.stack([(astjax.grad(_pops_and_dicts)(x + eps * e) - astjax.grad(_pops_and_dicts)(x - eps * e)) / (2 * eps)
                   for e in np.eye(3)])
    np.testing.assert_allclose(astjax.hessian(_pops_and_dicts)(x), fd, atol=1e-6)
    np.testing.assert_allclose(astjax.jacrev(astjax.grad(_pops_and_dicts))(x), fd, atol=1e-6)


def _pop_then_insert(x):
    xs = [x[0], x[1] * x[2]]
    v = xs.pop()
    xs.insert(0, v * v)
    return xs[0] * xs[1]


def test_reverse_over_reverse_through_list_slices_is_refused():
    import astjax
    from astjax.errors import AstjaxError
    with pytest.raises(AstjaxError, match="slice of a Python list"):
        astjax.jacrev(astjax.grad(_pop_then_insert))(np.array([0.3, 0.5, 0.7]))


def _rows_loop(A):
    s = 0.0
    for row in A:
        s = s + jnp.sum(row * row)
    return s


def test_the_loop_check_has_a_jit_lowering():
    """Loops over a name get an `iterated(xs)` check (a dict is refused); jit lowers it to nothing."""
    import astjax
    A = np.arange(6.0).reshape(2, 3)
    np.testing.assert_allclose(astjax.jit(astjax.grad(_rows_loop))(A), 2 * A)
