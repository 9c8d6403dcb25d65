"""Textbook forms of the matrix, norm and softmax rules (teaching/folds_linalg.py) and the identities
reverse mode names above their adjoint lines (Primitive.identity).

Each specialized text is checked by `astjax.source` itself (it reruns the specialized code and prints the
general form with a note when the result differs): every test asserts that note is absent. The rules
whose text changed (det, inv, logsumexp) are checked against central differences in float64.
"""
import gast
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
import astjax.scipy.special as jsp
from astjax.codegen.unparse import parse_printed, unparse
from astjax.optimize.dead_code import drop_dangling_comments
from astjax.teaching import folds
from astjax.teaching.call_sites import Seen

NOTE = "(printed in its general form"
A = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, 0.2], [0.1, 0.4, 3.0]], np.float32)


def f32(*shape, start=0.3):
    return (start + 0.1 * np.arange(int(np.prod(shape)))).reshape(shape).astype(np.float32)


def specialized(f, *args, argnums=0):
    text = astjax.source(astjax.grad(f, argnums=argnums), *args)
    assert NOTE not in text, text
    return text


def det_of(A):
    return 2.0 * jnp.linalg.det(A)


def inv_sum(A):
    return jnp.sum(jnp.sin(jnp.linalg.inv(A)))


def solve_sum(A, b):
    return jnp.sum(jnp.sin(jnp.linalg.solve(A, b)))


def norm_of(W):
    return 3.0 * jnp.linalg.norm(W)


def fro_of(W):
    return jnp.linalg.norm(W, "fro")


def two_norm_of(v):
    return jnp.linalg.norm(v, 2)


def lse(x):
    return jsp.logsumexp(x)


def softmax_sin(x):
    return jnp.sum(jnp.sin(jsp.softmax(x)))


def outer_sin(a, b):
    return jnp.sum(jnp.sin(jnp.outer(a, b)))


def test_det_is_the_scaled_transposed_adjugate():
    text = specialized(det_of, A)
    assert "2.0 * adjugate(A).T" in text
    assert "expand_dims" not in text and "multiply" not in text and "swapaxes" not in text
    assert "# d det(A) = tr(adj(A) dA)" in text


def test_inv_is_minus_inverse_transposed_on_both_sides():
    text = specialized(inv_sum, A)
    line = next(l for l in text.splitlines() if l.strip().startswith("bA = "))
    assert line.strip().startswith("bA = -(") and line.count(".T @") == 1 and line.rstrip().endswith(".T)")
    assert "swapaxes" not in text and "# d inv(A) = -inv(A) dA inv(A)" in text


@pytest.mark.parametrize("b, lhs", [(f32(3), "-jnp.outer(jnp.linalg.solve(A.T, "),
                                    (f32(3, 2), "-jnp.linalg.solve(A.T, ")])
def test_solve_adjoints(b, lhs):
    text_a = specialized(solve_sum, A, b)
    assert lhs in text_a and "solve_lhs_adjoint" not in text_a
    if b.ndim == 2:
        assert ".T\n" in text_a.split("bA = ")[1]        # ... @ y.T
    text_b = specialized(solve_sum, A, b, argnums=1)
    assert "bb = jnp.linalg.solve(A.T, " in text_b and "solve_rhs_adjoint" not in text_b


def test_solve_tangent():
    b = f32(3)

    def solve_in_a(A):
        return jnp.linalg.solve(A, b)
    text = astjax.source(astjax.jacfwd(solve_in_a), A)
    assert NOTE not in text and "solve_lhs_tangent" not in text
    assert "-jnp.linalg.solve(A, dA @ " in text


@pytest.mark.parametrize("f, arg", [(norm_of, f32(3, 3)), (norm_of, f32(4)), (fro_of, f32(2, 3)),
                                    (two_norm_of, f32(5))])
def test_two_norm_adjoint_is_x_over_norm(f, arg):
    text = specialized(f, arg)
    assert "norm_adjoint(" not in text and "/ " in text
    assert "# d norm(x) = <x, dx> / norm(x)" in text


def test_norm_tangent_is_inner_product_over_norm():
    text = astjax.source(astjax.jacfwd(two_norm_of), f32(3))
    assert NOTE not in text and "norm_tangent" not in text and "jnp.sum(dv * v) / " in text


def test_other_norms_keep_the_general_helper():
    def one_norm(v):
        return jnp.linalg.norm(v, 1)
    assert "norm_adjoint(" in specialized(one_norm, f32(3))


def test_logsumexp_without_weights_drops_the_weight():
    text = specialized(lse, f32(4))
    assert "_weight_or_one" not in text and "multiply" not in text and "jnp.exp(x - " in text
    assert "# d logsumexp(a) =" in text


def test_softmax_reads_like_the_board():
    text = specialized(softmax_sin, f32(4))
    assert ", None, keepdims" not in text and "jnp.sum(" in text and "keepdims=True)" in text
    assert "# s = softmax(x): ds = s * (dx - sum(s * dx))" in text


def test_outer_adjoints_are_products():
    assert "@ b\n" in specialized(outer_sin, f32(3), f32(2))
    text = specialized(outer_sin, f32(3), f32(2), argnums=1)
    assert "bb = a @ jnp.cos(jnp.outer(a, b))" in text and "reshape" not in text and "ravel" not in text


def test_general_forms_name_the_identity_and_keep_the_batch():
    det_text = astjax.source(astjax.grad(det_of))
    assert "# d det(A) = tr(adj(A) dA)" in det_text and "jnp.swapaxes(adjugate(A), -1, -2)" in det_text
    inv_text = astjax.source(astjax.grad(inv_sum))
    assert "# d inv(A) = -inv(A) dA inv(A)" in inv_text and "jnp.swapaxes(" in inv_text


def test_batched_matrices_stay_general_and_right():
    batch = np.stack([A, A.T + 1.0]).astype(np.float64)
    text = astjax.source(astjax.grad(lambda A: jnp.sum(det_of(A))), batch)
    assert NOTE not in text and "adjugate(A).T" not in text          # a.T would reverse the batch axis too
    text = astjax.source(astjax.grad(solve_sum), batch, np.ones(3))
    assert NOTE not in text and "solve_lhs_adjoint(" in text


def _central_difference(f, x, eps=1e-6):
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (f(x + e) - f(x - e)) / (2 * eps)
    return out


@pytest.mark.parametrize("f", [det_of, inv_sum, lambda A: solve_sum(A, np.arange(3.0)), lse])
def test_rewritten_rules_match_central_differences(f):
    x = A.astype(np.float64) if f is not lse else np.array([0.3, -1.2, 2.0])
    grad = np.asarray(astjax.grad(f)(x))
    assert np.allclose(grad, _central_difference(lambda v: float(f(v)), x), rtol=1e-6, atol=1e-8)


def test_weighted_logsumexp_keeps_its_weights():
    def weighted(a, b):
        return jsp.logsumexp(a, b=b)
    a, b = np.array([0.3, -1.2, 2.0]), np.array([0.5, 2.0, 1.0])
    grad = np.asarray(astjax.grad(weighted)(a, b))
    assert np.allclose(grad, _central_difference(lambda v: float(weighted(v, b)), a), rtol=1e-6)
    assert "_weight_or_one(b)" in astjax.source(astjax.grad(weighted), a, b)


def test_second_derivative_of_det_rule():
    x = A.astype(np.float64)
    hess = np.asarray(astjax.hessian(det_of)(x)).reshape(9, 9)
    rows = [_central_difference(lambda v, i=i: float(np.asarray(astjax.grad(det_of)(v))[i]), x).ravel()
            for i in np.ndindex(3, 3)]
    assert np.allclose(hess, np.array(rows), rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------- folds on their own
def _array(*shape, dtype="float32"):
    return Seen("array", tuple(shape), dtype)


def _call(text):
    return gast.parse(text, mode="eval").body


def test_multiply_fold_needs_a_zero_dim_value_and_one_dtype():
    fold = folds.FOLDS[jnp.multiply]
    nodes = {"x1": _call("jnp.expand_dims(g, (-2, -1))"), "x2": _call("m")}
    assert unparse(fold(nodes, {"x1": _array(1, 1), "x2": _array(3, 3)})).strip() == "g * m"
    # g had one axis already (its result (4, 1, 1) is not all unit axes): `g * m` would broadcast differently
    assert "expand_dims" in unparse(fold(nodes, {"x1": _array(4, 1, 1), "x2": _array(4, 3, 3)}))
    assert fold(nodes, {"x1": _array(1, 1, dtype="float64"), "x2": _array(3, 3)}) is None


def test_solve_folds_refuse_batches_and_mixed_dtypes():
    nodes = {k: _call(k) for k in ("g", "a", "y")}
    fold = folds.FOLDS[astjax.rules.linalg.solve_lhs_adjoint]
    assert fold(nodes, {"g": _array(2, 3), "a": _array(2, 3, 3), "y": _array(2, 3)}) is None
    assert fold(nodes, {"g": _array(3), "a": _array(3, 3, dtype="float64"), "y": _array(3)}) is None


def test_a_comment_group_keeps_its_identity_and_drops_when_dead():
    text = ("def f(x):\n    # from line 1: a\n    # d inv(A) = ...\n    y = x\n"
            "    # from line 2: b\n    # d det(A) = ...\n    # from line 3: c\n    return y\n")
    node = parse_printed(text).body[0]
    node.body = drop_dangling_comments(node.body)
    assert unparse(node) == ("def f(x):\n    # from line 1: a\n    # d inv(A) = ...\n    y = x\n"
                             "    # from line 3: c\n    return y\n")
