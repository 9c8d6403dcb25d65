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


def case(fn, make_args, outcome, argnums=0, reference=None):
    CASES.append(Case(name=f"containers_more.{fn.__name__}", fn=fn, make_args=make_args, outcome=outcome,
                      category="containers_more", argnums=argnums, file=__file__, reference=reference))
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
    for k in d:                              # refused: astjax would read values at positions
        s = s + d[k] * x[0]
    return s


case(for_over_dict_itself, lambda r: (vec(r, 2),), "refuse")


def sorted_of_values(x):
    ys = sorted([x[0], x[1], x[2]])
    return ys[0] * ys[2]


case(sorted_of_values, lambda r: (vec(r, 3),), "refuse")


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


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_container_case(case):
    assert run_case(case, timeout=20) == ("checked" if case.outcome == "works" else "refused")
