"""astjax.source(transformed, *example_args): the derivative printed for the signature a student used.

Each test shows the printed source; the specialization itself runs the printed code again on the same
arguments and falls back to the general form (with a note) when it does not reproduce the result.
"""
import gast
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.codegen.unparse import parse_printed, unparse
from astjax.optimize.loop_accumulators import fold_loop_accumulators
from astjax.teaching import folds


def f32(*shape, start=0.3):
    return (start + 0.1 * np.arange(int(np.prod(shape)))).reshape(shape).astype(np.float32)


def elementwise(a, b):
    t = jnp.sin(a) * b
    return jnp.sum(t * t + a)


def rnn(W, h, xs):
    for x in xs:
        h = jnp.tanh(W @ h + x)
    return jnp.sum(h)


def mlp(W1, b1, W2, x):
    h = jnp.tanh(x @ W1 + b1)
    return jnp.mean((h @ W2) ** 2)


def scalar(x, y):
    return x * y + jnp.exp(x)


def test_equal_shapes_fold_unbroadcast_and_unreduce_away():
    text = astjax.source(astjax.grad(elementwise), f32(3), f32(3))
    assert text.startswith("# grad_elementwise specialized to a: float32[3], b: float32[3]\n")
    assert "unbroadcast" not in text and "unreduce" not in text
    assert "jnp.full((3,), bout)" in text
    assert "(printed in its general form" not in text


def test_rnn_step_reads_like_the_blackboard():
    text = astjax.source(astjax.grad(rnn), f32(3, 3), f32(3), [f32(3), f32(3, start=1.0)])
    body = text.split("for _i1 in reversed(range(_t1)):")[1]
    assert "jnp.outer(b_t3, h)" in body and "W.T @ b_t3" in body
    # no zero initialisations or resets of the temporaries' adjoints, no saved shapes
    assert "b_t2" not in text and "= 0.0\n        " not in body
    assert "jnp.shape" not in text and "zeros_shaped" not in text


def test_mlp_products_print_as_transposed_matmuls():
    args = (f32(3, 4), f32(4), f32(4, 2), f32(5, 3))
    text = astjax.source(astjax.grad(mlp), *args)
    assert "@ W2.T" in text and "x.T @" in text
    assert "matmul_lhs_adjoint" not in text and "matmul_rhs_adjoint" not in text


def test_bias_broadcast_over_a_batch_is_a_sum_over_axis_0():
    text = astjax.source(astjax.grad(mlp, argnums=1), f32(3, 4), f32(4), f32(4, 2), f32(5, 3))
    assert "jnp.sum(" in text and "axis=0" in text and "unbroadcast" not in text


def test_the_general_form_is_printed_without_arguments():
    assert "matmul_lhs_adjoint" in astjax.source(astjax.grad(mlp))


def test_scalar_arguments_keep_the_weakly_typed_seed():
    text = astjax.source(astjax.grad(scalar), 1.5, 2.0)
    assert "specialized to x: float32[]" in text
    assert "(printed in its general form" not in text


def test_a_wrong_fold_is_caught_and_the_general_form_printed(monkeypatch):
    def wrong(nodes, seen):                           # pretends unbroadcast(g, x) is 2 * g
        return folds.template("2.0 * g", g=nodes["g"])
    monkeypatch.setitem(folds.FOLDS, astjax.rules.helpers.unbroadcast, wrong)
    text = astjax.source(astjax.grad(elementwise), f32(3), f32(3))
    assert "did not reproduce the general code's result" in text
    assert "unbroadcast(" in text                        # the general form


def test_specialized_source_of_vmap_and_jvp_runs():
    text = astjax.source(astjax.vmap(elementwise), f32(4, 3), f32(4, 3))
    assert "def vmap_elementwise" in text
    text = astjax.source(astjax.jacfwd(elementwise), f32(3), f32(3))
    assert "def " in text


@pytest.mark.parametrize("before, after", [
    # a temporary's adjoint reset at the end of each iteration is assigned at its start
    ("""
def f(bh, h, n):
    b_t3 = 0.0
    bW = 0.0
    for i in range(n):
        b_t3 += bh * h
        bW += b_t3 * h
        b_t3 = 0.0
    return bW
""", """
def f(bh, h, n):
    b_t3 = 0.0
    bW = 0.0
    for i in range(n):
        b_t3 = bh * h
        bW += b_t3 * h
    return bW
"""),
    # a `continue` could skip the reset: unchanged
    ("""
def f(bh, h, n):
    b_t3 = 0.0
    for i in range(n):
        b_t3 += bh * h
        if i > 2:
            continue
        b_t3 = 0.0
    return bh
""", None),
    # read after the loop: unchanged
    ("""
def f(bh, h, n):
    b_t3 = 0.0
    for i in range(n):
        b_t3 += bh * h
        b_t3 = 0.0
    return b_t3
""", None),
])
def test_loop_accumulators(before, after):
    node = gast.parse(before).body[0]
    fold_loop_accumulators(node)
    assert unparse(node).strip() == (after or before).strip()


def test_loop_accumulators_keep_gradients_right():
    def loop(x, n):
        s = 0.0
        for i in range(n):
            t = jnp.sin(x * i)
            s = s + t * t
        return s
    g = astjax.grad(loop)(1.3, 5)
    expected = sum(2 * np.sin(1.3 * i) * np.cos(1.3 * i) * i for i in range(5))
    assert np.isclose(float(g), expected, rtol=1e-5)


def test_parse_printed_inverts_unparse():
    text = "def f(x):\n    # from line 3: y = x\n    y = x\n    return y\n"
    assert unparse(parse_printed(text).body[0]) == text
