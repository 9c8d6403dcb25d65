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
    assert "jnp.ones((3,))" in text               # the seed bout = 1.0 broadcast to a's shape
    assert "(printed in its general form" not in text


def test_rnn_step_reads_like_the_blackboard():
    text = astjax.source(astjax.grad(rnn), f32(3, 3), f32(3), [f32(3), f32(3, start=1.0)])
    body = text.split("for _i1 in reversed(range(len_xs)):")[1]
    assert "h = jnp.tanh(W @ h + x)" in text         # `W @ h` read once: written where it is read
    assert "bWh_plus_x" in body                      # temporaries named after what they hold
    assert "jnp.outer(bWh_plus_x, h)" in body and "W.T @ bWh_plus_x" in body
    # no zero initialisations or resets of the temporaries' adjoints, no saved shapes
    assert "bWh =" not in text and "= 0.0\n        " not in body
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
    # read in the loop's else block, which runs after the last iteration: unchanged
    ("""
def f(bh, h, n):
    b_t3 = 0.0
    for i in range(n):
        b_t3 += bh * h
        b_t3 = 0.0
    else:
        bh = b_t3
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


def test_temporaries_are_named_after_what_they_hold():
    from astjax.codegen.readable_names import name_temporaries
    node = parse_printed('''
def grad_f(x, y, _t9):
    _t4 = jnp.sin(x)
    _t6 = x * y
    _t7 = _t4 + _t6 * _t9
    _t8 = x < 2
    b_t7 = 1.0
    b_t4 = b_t7 * _t8
    d_t5 = b_t4
    return b_t4 + d_t5 + _t7
''').body[0]
    renames = name_temporaries(node, protected={"_t9"})
    assert unparse(node).strip() == """
def grad_f(x, y, _t9):
    sin_x = jnp.sin(x)
    xy = x * y
    _t1 = sin_x + xy * _t9
    x_lt_2 = x < 2
    b_t1 = 1.0
    bsin_x = b_t1 * x_lt_2
    d_t2 = bsin_x
    return bsin_x + d_t2 + _t1
""".strip()
    assert "_t9" not in renames                 # a name of the user's function is never touched


def test_a_taken_name_keeps_the_temporary_numbered():
    from astjax.codegen.readable_names import name_temporaries
    node = parse_printed("def f(x, sin_x):\n    _t3 = jnp.sin(x)\n    return _t3 + sin_x\n").body[0]
    name_temporaries(node)
    assert unparse(node) == "def f(x, sin_x):\n    _t1 = jnp.sin(x)\n    return _t1 + sin_x\n"


def test_printed_source_runs_with_the_generated_names_imported():
    W, h, xs = f32(3, 3), f32(3), [f32(3), f32(3, start=1.0)]
    for text in (astjax.source(astjax.grad(rnn)), astjax.source(astjax.grad(rnn), W, h, xs)):
        namespace = {}
        exec("from astjax.generated import *\n" + text, namespace)
        np.testing.assert_allclose(namespace["grad_rnn"](W, h, xs), astjax.grad(rnn)(W, h, xs), rtol=1e-6)


SCALE = 2.0


def sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def scaled_loss(w, x, bias=0.5):
    return jnp.sum(sigmoid(w * x * SCALE + bias))


@pytest.mark.parametrize("specialize", [False, True])
def test_standalone_source_runs_on_its_own(specialize):
    w, x = f32(3), f32(3, start=-0.2)
    grad_fn = astjax.grad(scaled_loss)
    example = (w, x) if specialize else ()
    text = astjax.source(grad_fn, *example, standalone=True)
    assert text.startswith("from astjax.generated import *")
    assert "not standalone" not in text
    namespace = {}
    exec(compile(text, "<standalone>", "exec"), namespace)
    np.testing.assert_allclose(namespace["grad_scaled_loss"](w, x), grad_fn(w, x), rtol=1e-6)


def test_standalone_names_what_it_cannot_write():
    big = np.ones((100, 100), np.float32)

    def uses_big(x):
        return jnp.sum(big @ x)
    text = astjax.source(astjax.grad(uses_big), standalone=True)
    assert text.startswith("# not standalone: define `big` (ndarray)")


def recursive_power(x, y, n):
    if n == 0:
        return x * y
    return x * recursive_power(x, y * 1.5, n - 1) + jnp.sin(y)


def _recursive_power_numeric_grad(x, y, n, eps=1e-6):
    def f(x, y, n):
        return x * y if n == 0 else x * f(x, y * 1.5, n - 1) + np.sin(y)
    return ((f(x + eps, y, n) - f(x - eps, y, n)) / (2 * eps), (f(x, y + eps, n) - f(x, y - eps, n)) / (2 * eps))


def test_a_recursive_function_is_differentiated_and_printed_once():
    grad_fn = astjax.grad(recursive_power, argnums=(0, 1))
    text = astjax.source(grad_fn)
    assert text.startswith("def grad_recursive_power(x, y, n):\n    return vjp_recursive_power(1.0, x, y, n)\n")
    assert text.count("def ") == 2
    expected = _recursive_power_numeric_grad(1.2, 0.3, 3)
    for got, want in zip(grad_fn(np.float64(1.2), np.float64(0.3), 3), expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    hess = astjax.grad(astjax.grad(recursive_power))(np.float64(1.2), np.float64(0.3), 3)
    eps = 1e-5
    numeric = (astjax.grad(recursive_power)(np.float64(1.2 + eps), np.float64(0.3), 3)
               - astjax.grad(recursive_power)(np.float64(1.2 - eps), np.float64(0.3), 3)) / (2 * eps)
    np.testing.assert_allclose(hess, numeric, rtol=1e-5)


def test_renaming_a_node_shared_by_two_places_renames_it_once():
    """Cleanup may put one Name node in two places; renaming it twice would chain b_t3 -> b_t2 -> b_t1."""
    from astjax.codegen.readable_names import name_temporaries
    node = parse_printed("def f(x):\n    _t2 = [x]\n    _t3 = [x, x]\n    _t4 = _t3\n    return _t2 + _t4\n").body[0]
    shared = node.body[2].value                      # the `_t3` read by `_t4 = _t3` ...
    node.body[-1].value.right = shared               # ... also read by the return
    name_temporaries(node)
    text = unparse(node)
    assert "_t2 = [x, x]" in text and "_t3 = _t2" in text and "return _t1 + _t2" in text, text
