"""Build time: the passes over generated source do linear work per function, not work per statement
times the function's length (docs/performance.md, "Build time").

The quadratic walks found by profiling a 10-step RK4 integrator's gradient (a walk of the whole
function for every (loop, variable) pair in loop_accumulators, for every variable in the tape plan)
are checked by counting, not timing: timings on a shared machine say nothing reliable.
"""
import gast
import numpy as np

import astjax
import astjax.numpy as jnp
from astjax.analyses.tape import TapePlan
from astjax.codegen.node_walk import breadth_first, loaded_names, name_ids, nodes, stored_names
from astjax.optimize import loop_accumulators


def unrolled_steps(p):
    y = jnp.array([0.5, 0.0])
    for _ in range(4):
        k1 = jnp.stack([y[1], -p[0] * jnp.sin(y[0]) - p[1] * y[1]])
        y2 = y + 0.05 * k1
        k2 = jnp.stack([y2[1], -p[0] * jnp.sin(y2[0]) - p[1] * y2[1]])
        y3 = y + 0.05 * k2
        k3 = jnp.stack([y3[1], -p[0] * jnp.sin(y3[0]) - p[1] * y3[1]])
        y = y + 0.1 / 3 * (k1 + k2 + k3)
    return y[0]


def _unrolled_steps_numpy(p):
    y = np.array([0.5, 0.0])
    for _ in range(4):
        k1 = np.stack([y[1], -p[0] * np.sin(y[0]) - p[1] * y[1]])
        y2 = y + 0.05 * k1
        k2 = np.stack([y2[1], -p[0] * np.sin(y2[0]) - p[1] * y2[1]])
        y3 = y + 0.05 * k2
        k3 = np.stack([y3[1], -p[0] * np.sin(y3[0]) - p[1] * y3[1]])
        y = y + 0.1 / 3 * (k1 + k2 + k3)
    return y[0]


def _generated_tree():
    return gast.parse(astjax.source(astjax.grad(unrolled_steps)))


def test_fast_walks_visit_what_gast_walk_visits():
    tree = _generated_tree()
    walked = list(gast.walk(tree))
    assert [id(n) for n in breadth_first(tree)] == [id(n) for n in walked]      # the same order
    assert {id(n) for n in nodes(tree)} == {id(n) for n in walked}
    assert name_ids(tree) == {n.id for n in walked if isinstance(n, gast.Name)}
    assert loaded_names(tree) == {n.id for n in walked if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    assert stored_names(tree) == {n.id for n in walked if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}


def test_loop_accumulators_index_the_function_once_per_call(monkeypatch):
    """Every adjoint reset at the end of the reverse loop is folded, with one index of the function per
    cleanup round (a walk of the whole function per variable made the gradient of a 10-step RK4 take
    seconds to generate)."""
    import astjax.optimize as optimize
    built, rounds = [], []
    original_index, original_fold = loop_accumulators._MentionIndex.__init__, optimize.fold_loop_accumulators

    def counting_index(self, function_node):
        built.append(function_node)
        original_index(self, function_node)

    def counting_fold(function_node):
        rounds.append(function_node)
        return original_fold(function_node)
    monkeypatch.setattr(loop_accumulators._MentionIndex, "__init__", counting_index)
    monkeypatch.setattr(optimize, "fold_loop_accumulators", counting_fold)
    p = np.array([1.3, 0.4])
    g = astjax.grad(unrolled_steps)(p)
    assert built, "the reverse loop has adjoints to fold"
    assert len(built) <= len(rounds)
    h = 1e-6
    fd = [(_unrolled_steps_numpy(p + h * e) - _unrolled_steps_numpy(p - h * e)) / (2 * h) for e in np.eye(2)]
    np.testing.assert_allclose(np.asarray(g), fd, rtol=1e-6)


def test_tape_plan_walks_the_function_once_for_all_variables(monkeypatch):
    function = gast.parse("def f(x):\n    a = x\n    for i in range(3):\n        a = a * x\n        b = a + 1\n"
                          "    return a\n").body[0]
    plan = TapePlan(function, function.body[:-1], ["x"])
    calls = []
    walk = gast.walk

    def counting(node):
        calls.append(node)
        return walk(node)
    monkeypatch.setattr(gast, "walk", counting)
    assert [s.lineno for s in plan.assignments("a")] == [2, 4]
    assert [s.lineno for s in plan.assignments("b")] == [5]
    assert plan.assignments("c") == []
    assert sum(1 for n in calls if n is function) == 1
