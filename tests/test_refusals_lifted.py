"""Refusals lifted (issue 6): each construct's normalized source, and its value and gradient.

Each rewrite turns a construct astjax refused into code the later passes already
differentiate; the source after the pass is shown for one example of each, and
the whole transformation is checked against running the function and central
finite differences. tests/adversarial/lifted.py attacks each rewrite.
"""
import copy
import textwrap

import numpy as np
import pytest

import astjax
from astjax.codegen.unparse import unparse
from astjax.frontend.context import FunctionContext
from astjax.frontend.normalize import normalize
from astjax.frontend.normalize.chained_assignments import ChainedAssignments
from astjax.frontend.normalize.container_idioms import ContainerIdioms
from astjax.frontend.normalize.generator_consumers import GeneratorConsumers
from astjax.frontend.normalize.iteration_builtins import IterationBuiltins
from astjax.frontend.normalize.itertools_accumulate import ItertoolsAccumulate
from astjax.frontend.normalize.keyed_ordering import KeyedOrdering
from astjax.frontend.normalize.local_function_values import LocalFunctionValues
from astjax.frontend.normalize.static_star_arguments import StaticStarArguments
from astjax.frontend.normalize.try_finally import TryFinally
from astjax.frontend.parse import function_source

import refusals_lifted_cases as cases


def run(fn, *passes):
    source = function_source(fn)
    context = FunctionContext(source)
    node = copy.deepcopy(source.node)
    for pass_class in passes:
        node = pass_class(context).run(node)
    return unparse(node)


def expect(text):
    return textwrap.dedent(text).lstrip("\n")


def test_chained_normalized():
    assert run(cases.chained, ChainedAssignments) == expect("""
        def chained(x):
            M = np.zeros((2, 3))
            M[0] = x
            M[1] = x
            return np.sum(M * np.arange(6.0).reshape(2, 3))
    """)


def test_try_finally_normalized():
    assert run(cases.try_finally, TryFinally) == expect("""
        def try_finally(x):
            s = np.sum(x * x)
            _finally_result1 = s
            s = s * 3.0
            return _finally_result1
    """)


def test_star_slice_normalized():
    assert run(cases.star_slice, StaticStarArguments) == expect("""
        def star_slice(x):
            return _weighted(x[0], x[1], x[2])
    """)


def test_sorted_by_key_normalized():
    assert run(cases.sorted_by_key, KeyedOrdering) == expect("""
        def sorted_by_key(x):
            _order_source1 = x
            _order_key1 = lambda v: -v
            _order_keys1 = []
            for _order_item1 in _order_source1:
                _order_keys1.append(_order_key1(_order_item1))
            _order1 = key_order(_order_source1, _order_keys1, False)
            _ordered1 = []
            for _order_index1 in _order1:
                _ordered1.append(_order_source1[_order_index1])
            s = _ordered1
            return s[0] * 3.0 + s[1]
    """)


def test_min_by_key_normalized():
    assert run(cases.min_by_key, KeyedOrdering) == expect("""
        def min_by_key(x):
            _order_source1 = x
            _order_keys1 = []
            for _order_item1 in _order_source1:
                _order_keys1.append(abs(_order_item1))
            _order1 = key_extremum(_order_source1, _order_keys1, False)
            return _order_source1[_order1] * 2.0
    """)


def test_list_sort_by_key_normalized():
    assert run(cases.list_sort_by_key, KeyedOrdering) == expect("""
        def list_sort_by_key(x):
            items = [(x[0] * 2.0, 0), (x[1], 1), (x[2] - 1.0, 2)]
            _order_source1 = items
            _order_key1 = lambda t: t[0]
            _order_keys1 = []
            for _order_item1 in _order_source1:
                _order_keys1.append(_order_key1(_order_item1))
            _order1 = key_order(_order_source1, _order_keys1, False)
            _ordered1 = []
            for _order_index1 in _order1:
                _ordered1.append(_order_source1[_order_index1])
            items = _ordered1
            return items[0][0] * 3.0 + items[-1][0]
    """)


def test_reversed_enumerate_normalized():
    assert run(cases.reversed_enumerate, IterationBuiltins) == expect("""
        def reversed_enumerate(x):
            return sum((v * i for i, v in zip(range(1, 1 + len(x[::-1])), x[::-1])))
    """)


def test_pairwise_starmap_normalized():
    assert run(cases.pairwise_starmap, IterationBuiltins) == expect("""
        def pairwise_starmap(x):
            return sum((a * b for a, b in zip(x, x[1:]))) + sum((operator.mul(_starmap1, _starmap2) for _starmap1, _starmap2 in zip(x, x)))
    """)


def test_zip_star_normalized():
    assert run(cases.zip_star, IterationBuiltins) == expect("""
        def zip_star(x):
            M = x.reshape(2, 2)
            return sum((a * b for a, b in [tuple([_zip_row1[_zip_column1] for _zip_row1 in M]) for _zip_column1 in range(zip_star_length(M))]))
    """)


def test_accumulate_normalized():
    assert run(cases.accumulate, ItertoolsAccumulate) == expect("""
        def accumulate(x):
            _accumulate_source1 = x
            iterated(_accumulate_source1)
            _accumulated1 = []
            for _accumulate_index1 in range(len(_accumulate_source1)):
                _accumulate_item1 = _accumulate_source1[_accumulate_index1]
                if _accumulate_index1 == 0:
                    _accumulate_total1 = _accumulate_item1
                else:
                    _accumulate_total1 = operator.mul(_accumulate_total1, _accumulate_item1)
                _accumulated1.append(_accumulate_total1)
            return sum(_accumulated1)
    """)


def test_generator_normalized():
    assert run(cases.generator, GeneratorConsumers) == expect("""
        def generator(x):
            _yielded1 = []
            _running_v1 = x
            _running_total1 = 0.0
            for _running_e1 in _running_v1:
                _running_total1 = _running_total1 + _running_e1
                _yielded1.append(_running_total1)
            return sum((t * t for t in _yielded1))
    """)


def test_lambda_default_normalized():
    assert run(cases.lambda_default, LocalFunctionValues) == expect("""
        def lambda_default(x):

            def f2(v, k):
                return v * k
            k = 2.0
            _f2default1 = k
            k = 5.0
            return np.sum(f2(x, _f2default1)) + k * x[0]
    """)


def test_sorted_items_normalized():
    assert run(cases.sorted_items, ContainerIdioms) == expect("""
        def sorted_items(x):
            d = {'b': x[0], 'a': x[1] * 2.0}
            return sum((v * v for _, v in [(_k1, d[_k1]) for _k1 in sorted_keys(d)]))
    """)


def test_nonlocal_rebinding_is_the_enclosing_name_when_inlined():
    source = function_source(cases.nonlocal_total)
    text = unparse(normalize(source.node, FunctionContext(source)))
    assert "nonlocal total" not in text
    assert "total = total + add_v" in text        # not a renamed `add_total`: the enclosing variable


_ALL = ["chained", "try_finally", "star_slice", "sorted_by_key", "min_by_key", "list_sort_by_key",
        "reversed_enumerate", "pairwise_starmap", "zip_star", "accumulate", "generator", "nonlocal_total",
        "lambda_default", "sorted_items"]


@pytest.mark.parametrize("label", _ALL)
def test_value_and_gradient_match_python_and_finite_differences(label):
    fn = getattr(cases, label)
    x = np.array([0.3, -0.8, 1.1, 0.45])[:3 if label in ("chained", "try_finally", "lambda_default") else 4]
    if label == "zip_star":
        x = np.array([0.3, -0.8, 1.1, 0.45])
    value, grad = astjax.value_and_grad(fn)(x.copy())
    assert np.allclose(value, fn(x.copy()), rtol=1e-12, atol=1e-12)
    eps = 1e-6
    fd = np.array([(fn(x + eps * e) - fn(x - eps * e)) / (2 * eps) for e in np.eye(len(x))])
    assert np.allclose(grad, fd, rtol=1e-6, atol=1e-6)


def test_sort_key_on_the_traced_value_gives_the_gather_gradient():
    """The order depends on x, its derivative is zero almost everywhere: the gradient is the gather's."""
    x = np.array([0.3, -0.8, 1.1, 0.45])
    grad = astjax.grad(cases.sorted_by_key)(x)
    assert np.array_equal(grad, [0.0, 0.0, 3.0, 1.0])      # s[0] = x[2] (largest), s[1] = x[3]


def test_keyed_order_of_a_dict_is_refused_when_it_runs():
    from astjax.errors import AstjaxError
    from astjax.rules.helpers import key_extremum, key_order
    with pytest.raises(AstjaxError, match="dict"):
        key_order({"a": 1.0}, None, False)
    with pytest.raises(ValueError):
        key_extremum([], [], True)
    assert key_order([3.0, 1.0, 3.0, 2.0], None, True) == [0, 2, 3, 1]     # stable, as sorted(reverse=True)


def test_list_reverse_normalized():
    assert run(cases.list_reverse, KeyedOrdering) == expect("""
        def list_reverse(x):
            xs = [x[0], x[1] * 2.0, x[2]]
            xs = xs[::-1]
            return xs[0] * 3.0 + xs[2]
    """)


def test_factory_calls_normalized():
    from astjax.frontend.normalize.factory_call_results import FactoryCallResults
    assert run(cases.factory_calls, FactoryCallResults) == expect("""
        def factory_calls(x):
            sq = _power_of(2)
            cube = _power_of(3)
            _made1 = _power_of(1)
            return np.sum(sq(cube(x))) + np.sum(_made1(x))
    """)


def test_unpacked_items_get_the_runtime_row_guard():
    source = function_source(cases.unpacked_items)
    text = unparse(normalize(source.node, FunctionContext(source)))
    assert "not_a_row(a, x)\n    a = a + b" in text     # b is read after `a += b`: a must be a number


@pytest.mark.parametrize("label", ["list_reverse", "factory_calls", "unpacked_items"])
def test_more_values_and_gradients(label):
    test_value_and_gradient_match_python_and_finite_differences(label)


def test_vmap_of_a_keyed_sort_orders_each_example_by_its_own_keys():
    X = np.array([[0.3, -0.8, 1.1, 0.45], [0.9, 0.1, -0.2, 0.5]])
    got = astjax.vmap(astjax.grad(cases.sorted_by_key))(X)
    assert np.array_equal(got, [[0.0, 0.0, 3.0, 1.0], [3.0, 0.0, 0.0, 1.0]])


def test_comprehension_walrus_normalized():
    from astjax.frontend.normalize.comprehension_walrus import ComprehensionWalrus
    assert run(cases.comprehension_walrus, ComprehensionWalrus) == expect("""
        def comprehension_walrus(x):
            _comprehension1 = []
            for _v1 in x:
                if (y := (_v1 * 2.0)) > -0.5:
                    _comprehension1.append(y)
            return sum(_comprehension1)
    """)
    test_value_and_gradient_match_python_and_finite_differences("comprehension_walrus")


def test_closure_list_normalized():
    from astjax.frontend.normalize.function_lists import FunctionLists
    assert run(cases.closure_list, FunctionLists) == expect("""
        def closure_list(x):

            def _fs_function1(v, k):
                return v ** k
            fs = []
            for _k1 in range(1, 4):
                fs.append((_k1,))
            return sum((_fs_function1(x[0], f[0]) for f in fs))
    """)
    assert run(cases.closures_in_loop, FunctionLists) == expect("""
        def closures_in_loop(x):

            def _fs_function1(v):
                return v * i
            fs = []
            for i in range(3):
                _g_defaults1 = ()
                fs.append(_g_defaults1)
            return sum((_fs_function1(x[0]) for f in fs)) + x[1]
    """)


@pytest.mark.parametrize("label", ["closure_list", "closures_in_loop", "lambda_reads_loop_variable_rebound_later"])
def test_closures_values_and_gradients(label):
    test_value_and_gradient_match_python_and_finite_differences(label)


def test_loop_variable_read_by_a_lambda_after_the_loop_is_taped():
    """main gave [10, 0, 5] (the loop variable read as the 5.0 assigned later); truth [4, 0, 5]."""
    x = np.array([0.3, -0.8, 1.1])
    assert np.allclose(astjax.grad(cases.lambda_reads_loop_variable_rebound_later)(x), [4.0, 0.0, 5.0])


def test_local_factory_normalized():
    from astjax.frontend.normalize.local_factories import LocalFactories
    assert run(cases.local_factory, LocalFactories) == expect("""
        def local_factory(x):
            _make_scale1 = x[0]

            def h1(v):
                return v * _make_scale1
            return np.sum(h1(x))
    """)
    test_value_and_gradient_match_python_and_finite_differences("local_factory")
