"""Expected-source tests for the normalization passes: source in, source out."""
import copy
import textwrap

import pytest

import astjax

from astjax.codegen.unparse import unparse
from astjax.frontend.context import FunctionContext
from astjax.frontend.normalize import (AugmentedAssignment, ControlFlow, MethodCalls, OnePrimitivePerStatement,
                                       TupleAssignment, normalize)
from astjax.frontend.normalize.local_functions import LocalFunctions
from astjax.frontend.normalize.reserved_names import ReservedNames
from astjax.frontend.normalize.loop_else import LoopElse
from astjax.frontend.normalize.local_deletes import LocalDeletes
from astjax.frontend.normalize.walrus_assignments import WalrusAssignments
from astjax.frontend.parse import function_source

import normalize_cases as cases


def run(fn, *passes):
    source = function_source(fn)
    context = FunctionContext(source)
    node = copy.deepcopy(source.node)
    for pass_class in passes:
        node = pass_class(context).run(node)
    return unparse(node)


def expect(text):
    return textwrap.dedent(text).lstrip("\n")


def test_method_calls_become_function_calls():
    assert run(cases.methods, MethodCalls) == expect("""
        def methods(x):
            return jnp.sum(x, axis=0) + jnp.transpose(x) + jnp.reshape(x, (2, 3))
    """)


def test_augmented_and_item_assignments_become_functional_updates():
    assert run(cases.augmented, AugmentedAssignment) == expect("""
        def augmented(x, y):
            x = x + y
            y = at_add(y, 0, x)
            y = at_set(y, 1, x)
            return y
    """)


def test_tuple_assignment_splits_and_keeps_swaps_correct():
    assert run(cases.tuples, TupleAssignment) == expect("""
        def tuples(x):
            a = x
            b = 2.0
            _t1 = b
            _t2 = a
            a = _t1
            b = _t2
            _t3 = x.shape
            assert len(_t3) == 2, 'cannot unpack a value of another length into 2 names'
            h = _t3[0]
            w = _t3[1]
            return a * b + h
    """)


def test_unpacking_a_name_into_itself_reads_the_old_value_once():
    assert run(cases.unpack_into_itself, TupleAssignment) == expect("""
        def unpack_into_itself(x):
            _t1 = x
            assert len(_t1) == 2, 'cannot unpack a value of another length into 2 names'
            x = _t1[0]
            w = _t1[1]
            return x * w
    """)


def test_user_names_that_generated_code_uses_are_renamed():
    assert run(cases.clashing_names, ReservedNames) == expect("""
        def clashing_names(x, push_):
            pop_ = x * push_
            ys = [pop_ * i for i in range(len(x))]
            return jnp.sum(pop_) + ys[0]
    """)


def test_redefined_local_lambda_gets_a_name_per_definition():
    run_text = run(cases.redefined_local_lambda, LocalFunctions)
    assert run_text == expect("""
        def redefined_local_lambda(x):
            y = g(x)
            return y + g2(x)
    """)


def test_comprehension_variable_gets_its_own_name():
    assert run(cases.comprehension_variable, OnePrimitivePerStatement) == expect("""
        def comprehension_variable(x):
            i = 2.0
            _t1 = []
            for i2 in range(3):
                _t2 = x * i2
                _t1.append(_t2)
            ys = _t1
            _t3 = ys[0]
            out = _t3 * i
            return out
    """)


def test_early_return_moves_the_rest_into_else_and_returns_once():
    assert run(cases.early_return, ControlFlow) == expect("""
        def early_return(x, n):
            if n == 0:
                _ret = 1.0
            else:
                _ret = x * early_return(x, n - 1)
            return _ret
    """)


def test_break_moves_the_rest_of_the_iteration_into_else():
    assert run(cases.loop_break, ControlFlow) == expect("""
        def loop_break(x):
            for i in range(10):
                if x > 5.0:
                    break
                else:
                    x = x * 2.0
            return x
    """)


def test_loop_else_becomes_a_flag_set_before_the_loops_own_breaks():
    assert run(cases.search_with_else, LoopElse) == expect("""
        def search_with_else(x):
            acc = 0.0
            _no_break1 = True
            for v in x:
                for w in x:
                    if w > v:
                        break
                if v > 0.5:
                    acc = acc + v
                    _no_break1 = False
                    break
                acc = acc + v
            if _no_break1:
                acc = acc * 2.0
            return acc
    """)
    assert run(cases.while_without_break_else, LoopElse) == expect("""
        def while_without_break_else(x):
            while x < 10.0:
                x = x * 2.0
            x = x + 1.0
            return x
    """)


def test_walrus_becomes_an_assignment_before_its_statement_and_again_at_the_end_of_a_while_body():
    assert run(cases.walrus_in_while_test, WalrusAssignments) == expect("""
        def walrus_in_while_test(x):
            i = 0
            t = x[i] * x[i]
            while t < 10.0 and i < 2:
                i += 1
                t = x[i] * x[i]
            return t
    """)


def test_del_of_a_name_assigned_again_before_any_read_is_dropped_and_any_other_del_is_refused():
    assert run(cases.delete_then_rebind, LocalDeletes) == expect("""
        def delete_then_rebind(x):
            y = x * 2.0
            z = y + 1.0
            y = z * x
            return y
    """)
    with pytest.raises(astjax.errors.TransformError, match="del"):
        astjax.grad(cases.delete_then_read)(1.0)


def test_loops_over_values_become_range_loops():
    assert run(cases.loop_values, ControlFlow) == expect("""
        def loop_values(xs, ys):
            total = 0.0
            for _i1 in range(len(xs)):
                v = xs[_i1]
                total = total + v
            for i in range(len(xs)):
                v = xs[i]
                total = total + v * i
            for _i2 in range(min(len(xs), len(ys))):
                a = xs[_i2]
                b = ys[_i2]
                total = total + a * b
            return total
    """)


def test_one_primitive_per_statement_names_the_result_out():
    assert run(cases.nested, OnePrimitivePerStatement) == expect("""
        def nested(x):
            _t1 = jnp.sin(x)
            _t2 = _t1 * x
            out = _t2 + 1.0
            return out
    """)


def test_conditional_expression_becomes_a_branch():
    assert run(cases.conditional_expression, OnePrimitivePerStatement) == expect("""
        def conditional_expression(x):
            _t1 = x > 0
            if _t1:
                _t2 = x
            else:
                _t2 = -x
            return _t2
    """)


def test_and_short_circuits_through_a_branch():
    text = run(cases.short_circuit, ControlFlow, OnePrimitivePerStatement)
    assert text == expect("""
        def short_circuit(x, y):
            _t1 = x > 0
            if _t1:
                _t2 = y > 0
            else:
                _t2 = _t1
            if _t2:
                _ret = x
            else:
                _ret = y
            return _ret
    """)


def test_while_test_is_recomputed_at_the_end_of_the_body():
    assert run(cases.while_test, OnePrimitivePerStatement) == expect("""
        def while_test(x):
            _t1 = jnp.sum(x)
            _t2 = _t1 < 10.0
            while _t2:
                x = x * 2.0
                _t1 = jnp.sum(x)
                _t2 = _t1 < 10.0
            return x
    """)


@pytest.mark.parametrize("fn", [cases.methods, cases.augmented, cases.tuples, cases.early_return,
                                cases.loop_break, cases.loop_values, cases.plain_numpy])
def test_full_normalization_keeps_one_primitive_per_statement(fn):
    source = function_source(fn)
    node = normalize(source.node, FunctionContext(source))
    import gast
    for stmt in gast.walk(node):
        if isinstance(stmt, gast.Assign):
            nested_calls = [n for n in gast.walk(stmt.value) if isinstance(n, (gast.Call, gast.BinOp))]
            assert len(nested_calls) <= 1, unparse(stmt)


def _module_alias_twice(x):
    np_alias = _jnp
    if x[0] > 0:
        np_alias = _jnp
    return np_alias.sum(x)


import astjax.numpy as _jnp  # noqa: E402


def test_a_local_alias_of_a_module_assigned_twice_is_refused():
    import astjax
    import numpy as np
    with pytest.raises(astjax.errors.TransformError, match="local name for a module"):
        astjax.grad(_module_alias_twice)(np.ones(3))


def test_with_blocks_that_only_change_warnings_run_their_body():
    from astjax.frontend.normalize.warning_contexts import WarningContexts
    assert run(cases.errstate_block, WarningContexts) == expect("""
        def errstate_block(x):
            for i in range(2):
                x = np.log(x)
            return x
    """)


def test_functools_reduce_becomes_its_loop_and_operator_mul_the_operator():
    from astjax.frontend.normalize import ContainerIdioms, OperatorFunctions
    assert run(cases.reduce_product, ContainerIdioms, OperatorFunctions) == expect("""
        def reduce_product(x):
            _s1 = x
            iterated(_s1)
            _r1 = 2.0
            for _i1 in range(0, len(_s1)):
                _r1 = _r1 * _s1[_i1]
            return _r1
    """)
