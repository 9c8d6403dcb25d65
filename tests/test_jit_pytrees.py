"""jit at the pytree boundary: dicts, lists, tuples, NamedTuples and None in arguments and results.

Every program runs both ways, in float32 and float64: the jitted result must have the un-jitted call's
structure, dtypes and values. What jit cannot compile raises an AstjaxError at the user's line.
"""
import os
import warnings

import numpy as np
import pytest

import astjax
from astjax import tree_util
from astjax.errors import AstjaxError

from jit_cases import pytrees as T

pytest.importorskip("numba")

DTYPES = [np.float32, np.float64]
# The derivative tests compile several gradients per dtype (seconds each): float64 runs in the long profile
# (ASTJAX_LONG_PROPERTIES=1), float32 in the suite.
HEAVY_DTYPES = DTYPES if os.environ.get("ASTJAX_LONG_PROPERTIES") else [np.float32]


def data(dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = lambda *shape: rng.normal(size=shape).astype(dtype)      # noqa: E731
    return {
        "params": {"W": a(3, 4), "b": a(4)},
        "layers": [(a(3, 4), a(4)), (a(4, 2), a(2))],
        "x": a(5, 3),
        "nested": {"layers": [(a(3, 2),), {"b": a(2)}], "c": a()},
    }


def same(want, got):
    """`got` has `want`'s structure, each array leaf its dtype, and each value to rounding."""
    want_leaves, want_tree = tree_util.tree_flatten(want)
    got_leaves, got_tree = tree_util.tree_flatten(got)
    assert want_tree == got_tree, (want_tree, got_tree)
    assert type(want) is type(got) or isinstance(want, (float, int, np.ndarray)), (type(want), type(got))
    for w, g in zip(want_leaves, got_leaves):
        w_array, g_array = np.asarray(w), np.asarray(g)
        if isinstance(w, np.ndarray):
            assert g_array.dtype == w_array.dtype, (w_array.dtype, g_array.dtype)
            assert g_array.shape == w_array.shape
        rtol = 2e-5 if w_array.dtype == np.float32 else 1e-10
        np.testing.assert_allclose(g_array, w_array, rtol=rtol, atol=rtol)


def both_ways(fun, *args, **kwargs):
    want = fun(*args, **kwargs)
    jitted = astjax.jit(fun)
    same(want, jitted(*args, **kwargs))
    same(want, jitted(*args, **kwargs))          # the dispatch path
    return jitted


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_dict_list_namedtuple_and_nested_arguments(dtype):
    d = data(dtype)
    both_ways(T.dict_loss, d["params"], d["x"])
    both_ways(T.list_mlp, d["layers"], d["x"])
    both_ways(T.list_mlp, tuple(d["layers"]), d["x"])
    both_ways(T.namedtuple_affine, T.Layer(d["params"]["W"], d["params"]["b"]), d["x"])
    both_ways(T.nested, d["nested"], d["x"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_keyword_arguments_and_defaults(dtype):
    d = data(dtype)
    both_ways(T.nested, d["nested"], x=d["x"])
    both_ways(T.nested, p=d["nested"], x=d["x"], scale=dtype(3.0))


@pytest.mark.parametrize("dtype", DTYPES)
def test_results_that_are_dicts_tuples_and_namedtuples(dtype):
    d = data(dtype)
    both_ways(T.tree_out, d["params"], d["x"])
    layer = T.Layer(d["params"]["W"], d["params"]["b"])
    jitted = both_ways(T.keep_layer, layer, d["x"])
    assert type(jitted(layer, d["x"])[0]) is T.Layer


def test_building_a_namedtuple_inside_is_refused_at_the_users_line():
    d = data(np.float64)
    with pytest.raises(AstjaxError) as info:
        astjax.jit(T.namedtuple_out)(d["params"], d["x"])
    assert "pytrees.py" in str(info.value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_none_inside_a_container_is_structure(dtype):
    d = data(dtype)
    both_ways(T.with_none, (dtype(2.0), None), d["x"])


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_derivatives_with_respect_to_arrays_beside_a_dict(dtype):
    d = data(dtype)
    params, x = d["params"], d["x"]
    for transform in (astjax.grad, astjax.value_and_grad, astjax.jacrev):
        fun = transform(T.dict_loss, argnums=1)
        want = fun(params, x)
        jitted = astjax.jit(fun)
        same(want, jitted(params, x))
        same(want, jitted(params, x))
        other = data(dtype, seed=1)        # new values, same signature: the compiled code, not a stale answer
        same(fun(other["params"], other["x"]), jitted(other["params"], other["x"]))


def transformed_both_ways(fun, *args):
    want = fun(*args)
    jitted = astjax.jit(fun)
    same(want, jitted(*args))
    same(want, jitted(*args))
    return jitted


def fresh(tree, seed):
    """`tree` with new values of the same shapes and dtypes."""
    rng = np.random.default_rng(seed)
    return tree_util.tree_map(lambda v: rng.normal(size=np.shape(v)).astype(np.asarray(v).dtype), tree)


@pytest.mark.parametrize("dtype", HEAVY_DTYPES)
def test_derivatives_with_respect_to_dicts_lists_tuples_and_namedtuples(dtype):
    d = data(dtype)
    params, x, layers = d["params"], d["x"], d["layers"]
    for transform in (astjax.grad, astjax.value_and_grad, astjax.jacrev, astjax.jacfwd):
        jitted = transformed_both_ways(transform(T.dict_loss), params, x)
        other, other_x = fresh(params, 1), fresh(x, 2)          # the compiled code, not a stale answer
        same(transform(T.dict_loss)(other, other_x), jitted(other, other_x))
    transformed_both_ways(astjax.grad(T.dict_loss, argnums=(0, 1)), params, x)
    transformed_both_ways(astjax.jacrev(T.vector_out), params, x)
    transformed_both_ways(astjax.grad(T.two_layers), layers, x)
    transformed_both_ways(astjax.value_and_grad(T.two_layers), tuple(layers), x)
    transformed_both_ways(astjax.grad(T.namedtuple_affine, argnums=(0, 1)), T.Layer(*layers[0]), x)
    transformed_both_ways(astjax.grad(T.nested), d["nested"], x)
    transformed_both_ways(astjax.grad(T.tuple_pair), (x[0], {"a": x[1]}), x[2])
    transformed_both_ways(astjax.hessian(T.small_quadratic), {"u": x[0], "v": x[1]})


def test_a_derivative_with_respect_to_a_list_in_a_loop_compiles():
    """`for W, b in layers` over a list of layers of one type: the list's adjoint is one per layer
    (jit/dense_adjoints.py); jit refused it before issue 7."""
    d = data(np.float64)
    jitted = transformed_both_ways(astjax.grad(T.list_mlp), d["layers"], d["x"])
    other, other_x = fresh(d["layers"], 3), fresh(d["x"], 4)
    same(astjax.grad(T.list_mlp)(other, other_x), jitted(other, other_x))


def test_dict_key_order_and_structure_key_the_cache():
    """Two insertion orders, a new key, new shapes: each call gives the un-jitted answer."""
    a, b = np.arange(3.0), np.ones((2, 3))
    jitted = astjax.jit(T.difference)
    for p in ({"a": a, "b": b}, {"b": b, "a": a}, {"a": b, "b": a}, {"a": a, "b": b, "c": a},
              {"a": a.astype(np.float32), "b": b}, {"a": 1.5, "b": b}):
        same(T.difference(p), jitted(p))
    assert len(jitted.compiled().entries) == 6


def test_a_list_of_different_dtypes_is_its_own_signature():
    x = np.ones((5, 3))
    layers32 = [(np.ones((3, 4), np.float32), np.ones(4, np.float32))]
    layers64 = [(np.ones((3, 4)), np.ones(4))]
    jitted = astjax.jit(T.list_mlp)
    same(T.list_mlp(layers64, x), jitted(layers64, x))
    same(T.list_mlp(layers32, x.astype(np.float32)), jitted(layers32, x.astype(np.float32)))


def test_an_unhashable_static_argument_is_a_clear_error():
    jitted = astjax.jit(T.count_keys, static_argnums=1)
    same(T.count_keys(np.ones(3), ("a", "b")), jitted(np.ones(3), ("a", "b")))
    with pytest.raises(AstjaxError) as info:
        jitted(np.ones(3), ["a", "b"])
    assert isinstance(info.value, TypeError)
    assert "hashable" in str(info.value) and "pytrees.py" in str(info.value)
    by_name = astjax.jit(T.count_keys, static_argnames="names")
    with pytest.raises(TypeError, match="hashable"):
        by_name(np.ones(3), names=["a"])


def test_donated_arguments_are_accepted_with_a_warning():
    x = np.ones(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        jitted = astjax.jit(T.count_keys, static_argnums=1, donate_argnums=0)
        same(T.count_keys(x, ("a",)), jitted(x, ("a",)))
        jitted(x, ("a",))
    assert sum("donated" in str(w.message) for w in caught) == 1
    np.testing.assert_array_equal(x, np.ones(3))       # the CPU backend reuses no donated buffer


def test_containers_compiled_code_cannot_hold_are_refused():
    with pytest.raises(AstjaxError, match="string keys"):
        astjax.jit(T.int_keys)({0: np.ones(2), 1: np.ones(2)})


def test_dispatch_of_a_dict_argument_reuses_its_entry():
    d = data(np.float64)
    jitted = astjax.jit(T.dict_loss)
    jitted(d["params"], d["x"])
    compiled = jitted.compiled()
    entries = dict(compiled.by_quick_key)
    for _ in range(3):
        jitted(d["params"], d["x"])
    assert compiled.by_quick_key == entries and len(compiled.entries) == 1


def test_lowered_source_shows_the_entry_function():
    d = data(np.float64)
    text = astjax.jit(T.dict_loss).lower(d["params"], d["x"]).source
    assert "def astjax_entry_jit_dict_loss(leaf0, leaf1, leaf2):" in text
    assert "{'W': leaf0, 'b': leaf1}" in text
    text = astjax.jit(astjax.grad(T.dict_loss)).lower(d["params"], d["x"]).source
    assert "_dict_loss(params__leaf0, params__leaf1, x):" in text and "index_adjoint" not in text


def test_a_numpy_float64_scalar_result_keeps_its_dtype():
    """np.float64 subclasses Python's float: it must not be taken for a weak Python float (float32 out)."""
    a, b = np.array([0.1, 2.0]), np.array([0.2, 1.0])
    want, got = T.first_items(a, b), astjax.jit(T.first_items)(a, b)
    assert np.asarray(got).dtype == np.float64 and float(got) == float(want)
