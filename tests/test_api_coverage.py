"""API coverage additions: values against NumPy (and JAX where installed), derivatives against central
differences, vmap against a loop, and the clear refusals of what has no derivative.

The rules of the new primitives are also checked case by case in tests/test_rules.py
(tests/rule_cases_api.py); this file checks the user-facing functions end to end.
"""
import numpy as np
import pytest

import astjax
import astjax.nn as nn
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.rules import classification

RNG = np.random.default_rng(11)
M3 = RNG.standard_normal((2, 3, 4))
SQ = RNG.standard_normal((2, 3, 3))


def _fd(f, x, eps=1e-6):
    x = np.asarray(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        g[i] = (float(f(x + e)) - float(f(x - e))) / (2 * eps)
    return g


def _check_grad(f, x, atol=1e-6):
    np.testing.assert_allclose(np.asarray(astjax.grad(f)(x)), _fd(f, x), rtol=1e-5, atol=atol)
    t = RNG.standard_normal(np.shape(x))
    _, tangent = astjax.jvp(f, (x,), (t,))
    np.testing.assert_allclose(float(tangent), float(np.sum(_fd(f, x) * t)), rtol=1e-5, atol=atol)


# ------------------------------------------------------------------ values against NumPy
VALUES = [
    ("linalg.diagonal", lambda m: m.linalg.diagonal(M3, offset=1), lambda: np.linalg.diagonal(M3, offset=1)),
    ("linalg.trace", lambda m: m.linalg.trace(SQ, offset=-1), lambda: np.linalg.trace(SQ, offset=-1)),
    ("linalg.matrix_norm", lambda m: m.linalg.matrix_norm(M3, ord=2), lambda: np.linalg.matrix_norm(M3, ord=2)),
    ("linalg.matrix_norm_keep", lambda m: m.linalg.matrix_norm(M3, keepdims=True),
     lambda: np.linalg.matrix_norm(M3, keepdims=True)),
    ("linalg.vector_norm", lambda m: m.linalg.vector_norm(M3), lambda: np.linalg.vector_norm(M3)),
    ("linalg.vector_norm_axes", lambda m: m.linalg.vector_norm(M3, axis=(0, 2), ord=1, keepdims=True),
     lambda: np.linalg.vector_norm(M3, axis=(0, 2), ord=1, keepdims=True)),
    ("linalg.vector_norm_inf", lambda m: m.linalg.vector_norm(M3, axis=-1, ord=np.inf),
     lambda: np.linalg.vector_norm(M3, axis=-1, ord=np.inf)),
    ("linalg.cross", lambda m: m.linalg.cross(M3[..., :3], M3[..., 1:]), lambda: np.linalg.cross(M3[..., :3], M3[..., 1:])),
    ("linalg.outer", lambda m: m.linalg.outer(M3[0, 0], M3[1, 1]), lambda: np.linalg.outer(M3[0, 0], M3[1, 1])),
    ("linalg.matmul", lambda m: m.linalg.matmul(M3, M3[0].T), lambda: np.linalg.matmul(M3, M3[0].T)),
    ("linalg.tensordot", lambda m: m.linalg.tensordot(M3, M3.transpose(1, 2, 0), axes=2),
     lambda: np.linalg.tensordot(M3, M3.transpose(1, 2, 0), axes=2)),
    ("linalg.vecdot", lambda m: m.linalg.vecdot(M3, M3), lambda: np.linalg.vecdot(M3, M3)),
    ("linalg.matrix_transpose", lambda m: m.linalg.matrix_transpose(M3), lambda: np.linalg.matrix_transpose(M3)),
    ("vdot", lambda m: m.vdot(M3[0], M3[1].T.copy()), lambda: np.vdot(M3[0], M3[1].T.copy())),
    ("nextafter", lambda m: m.nextafter(M3, 0.0), lambda: np.nextafter(M3, 0.0)),
    ("insert", lambda m: m.insert(SQ[0], [0, 2], 7.5, axis=1), lambda: np.insert(SQ[0], [0, 2], 7.5, axis=1)),
    ("choose", lambda m: m.choose(np.array([2, 0, 1]), SQ[0], mode="clip"),
     lambda: np.choose(np.array([2, 0, 1]), SQ[0], mode="clip")),
    ("trim_zeros", lambda m: m.trim_zeros(np.array([0.0, 0.0, 1.0, 0.0, 2.0, 0.0]), "b"),
     lambda: np.trim_zeros(np.array([0.0, 0.0, 1.0, 0.0, 2.0, 0.0]), "b")),
    ("block", lambda m: m.block([[SQ[0], SQ[1]], [SQ[1], SQ[0]]]), lambda: np.block([[SQ[0], SQ[1]], [SQ[1], SQ[0]]])),
    ("broadcast_arrays", lambda m: m.broadcast_arrays(SQ[0, :, :1], SQ[1, 0]),
     lambda: np.broadcast_arrays(SQ[0, :, :1], SQ[1, 0])),
    ("ascontiguousarray", lambda m: m.ascontiguousarray(M3.T), lambda: np.ascontiguousarray(M3.T)),
    ("asanyarray", lambda m: m.asanyarray(M3), lambda: np.asanyarray(M3)),
    ("asarray_chkfinite", lambda m: m.asarray_chkfinite(M3), lambda: np.asarray_chkfinite(M3)),
    ("require", lambda m: m.require(M3, np.float32, "C"), lambda: np.require(M3, np.float32, "C")),
]


@pytest.mark.parametrize("name,ours,theirs", VALUES, ids=[v[0] for v in VALUES])
def test_values_match_numpy(name, ours, theirs):
    got, want = ours(jnp), theirs()
    for g, w in zip(got if isinstance(got, (list, tuple)) else [got], want if isinstance(want, (list, tuple)) else [want]):
        assert np.shape(g) == np.shape(w)
        assert np.asarray(g).dtype == np.asarray(w).dtype, name
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)


def test_dtype_queries_follow_jax():
    assert jnp.result_type(np.int32, np.float32) == np.float32
    assert jnp.promote_types(jnp.int32, jnp.float32) == np.float32
    assert jnp.issubdtype(jnp.float32, jnp.floating) and jnp.can_cast(np.int8, np.int32)
    assert jnp.common_type(np.arange(3)) is np.float32                 # JAX's default float, not NumPy's float64
    assert jnp.common_type(np.ones(2), np.ones(2, np.complex64)) is np.complex128
    assert jnp.common_type(np.ones(2, np.float32)) is np.float32
    for name in ("result_type", "promote_types", "issubdtype", "can_cast", "common_type"):
        assert classification(getattr(jnp, name)).kind == "nondifferentiable"


def test_checks_that_numpy_makes():
    with pytest.raises(ValueError, match="infs or NaNs"):
        jnp.asarray_chkfinite(np.array([1.0, np.inf]))
    with pytest.raises(ValueError, match="immutable"):
        jnp.require(M3, requirements="W")
    with pytest.raises(ValueError, match="size 3"):
        jnp.linalg.cross(M3, M3)
    with pytest.raises(ValueError, match="one-dimensional"):
        jnp.linalg.outer(M3, M3)
    with pytest.raises(TypeError, match="immutable"):
        jnp.copyto(jnp.zeros(3), jnp.ones(3))


# ------------------------------------------------------------------ derivatives end to end
def linalg_names(x):
    return (jnp.sum(jnp.linalg.diagonal(x, offset=1) ** 2) + jnp.sum(jnp.linalg.trace(x) * jnp.linalg.matrix_norm(x))
            + jnp.sum(jnp.linalg.vector_norm(x, axis=(0, 2), keepdims=True) ** 3) + jnp.linalg.vector_norm(x, ord=1)
            + jnp.sum(np.linalg.matrix_norm(x, ord="nuc")) + jnp.sum(jnp.linalg.vecdot(x, x * x))
            + jnp.sum(jnp.linalg.matmul(x, jnp.linalg.matrix_transpose(x)))
            + jnp.sum(np.linalg.cross(x, x * x)))


def assembled(x):
    m = jnp.block([[x, 2.0 * x], [jnp.ones((3, 3)), x * x]])
    a, b = jnp.broadcast_arrays(x[:, :1], x[0])
    c = jnp.choose(np.array([[0, 1, 0], [1, 1, 0], [0, 0, 1]]), [x, x * x])
    d = jnp.insert(x, 1, x[0] * 3.0, axis=0)
    return (jnp.sum(m * m * jnp.arange(36.0).reshape(6, 6)) + jnp.sum(a * b) + jnp.sum(c ** 3) + jnp.sum(d ** 2 * 0.5)
            + jnp.vdot(x, x[::-1]) + jnp.sum(jnp.nextafter(x, 0.0) ** 2)
            + jnp.sum(jnp.ascontiguousarray(x) * np.asarray_chkfinite(x)))


def from_grids(s):
    return jnp.sum(jnp.fromfunction(lambda i, j: jnp.sin(i * s) + j * s * s, (3, 4), dtype=jnp.float64) ** 2)


def trimmed(x):
    padded = jnp.concatenate([jnp.zeros(2), x, jnp.zeros(3)])
    return jnp.sum(jnp.trim_zeros(padded) ** 2 * jnp.arange(1.0, 5.0))


@pytest.mark.parametrize("f,x", [(linalg_names, SQ), (assembled, SQ[0]), (from_grids, np.float64(0.7)),
                                 (trimmed, np.array([1.5, -0.5, 2.0, 0.25]))],
                         ids=["linalg", "assembled", "fromfunction", "trim_zeros"])
def test_derivatives_match_central_differences(f, x):
    _check_grad(f, x)


def stacked_names(x):
    return jnp.linalg.trace(x) + jnp.linalg.matrix_norm(x) + jnp.sum(jnp.linalg.diagonal(x)) + jnp.vdot(x, x) \
        + jnp.sum(jnp.block([[x, x]]))


def more_names(x):
    a, b = jnp.broadcast_arrays(x[:, :1], x[0])
    return (jnp.sum(a * b) + jnp.sum(jnp.insert(x, 1, x[0], axis=0) ** 2) + jnp.sum(jnp.choose(np.eye(3, dtype=int), [x, x * x]))
            + jnp.sum(jnp.nextafter(x, 0.0)) + jnp.linalg.vector_norm(x, ord=3) + jnp.sum(jnp.linalg.vector_norm(x, axis=0))
            + jnp.sum(jnp.fromfunction(lambda i, j: i * x[0, 0] + j, (2, 2))))


@pytest.mark.parametrize("f", [stacked_names, more_names])
def test_vmap_matches_a_loop(f):
    batch = RNG.standard_normal((4, 3, 3))
    np.testing.assert_allclose(np.asarray(astjax.vmap(f)(batch)), [float(f(b)) for b in batch], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(astjax.vmap(astjax.grad(f))(batch)),
                               [np.asarray(astjax.grad(f)(b)) for b in batch], rtol=1e-10)


def test_generated_source_reads_block_as_one_primitive():
    text = astjax.source(astjax.grad(assembled))
    assert "block_flat" in text and "block_positions" in text


# ------------------------------------------------------------------ jax.nn
def attention_loss(q, k, v, bias, mask):
    return jnp.sum(nn.dot_product_attention(q, k, v, bias, mask, is_causal=True) ** 2)


def test_dot_product_attention_derivatives():
    q, k, v = RNG.standard_normal((2, 3, 4, 5)), RNG.standard_normal((2, 6, 2, 5)), RNG.standard_normal((2, 6, 2, 5))
    bias, mask = RNG.standard_normal((1, 4, 3, 6)), RNG.random((2, 1, 3, 6)) > 0.3
    for i, x in enumerate((q, k, v, bias)):
        def f(x, i=i):
            args = [q, k, v, bias]
            args[i] = x
            return attention_loss(args[0], args[1], args[2], args[3], mask)
        g = astjax.grad(attention_loss, argnums=i)(q, k, v, bias, mask)
        np.testing.assert_allclose(np.asarray(g), _fd(f, x), rtol=1e-5, atol=1e-6)
    single = nn.dot_product_attention(q[0], k[0], v[0])
    np.testing.assert_allclose(np.asarray(single), np.asarray(nn.dot_product_attention(q[:1], k[:1], v[:1])[0]))
    with pytest.raises(NotImplementedError):
        nn.dot_product_attention(q, k, v, key_value_seq_lengths=np.array([3, 4]))


def sigmoid_sum(x):
    return jnp.sum(nn.sparse_sigmoid(x) * 3.0 + nn.tanh(x))


def test_nn_against_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    q, k, v = RNG.standard_normal((2, 3, 4, 5)), RNG.standard_normal((2, 6, 2, 5)), RNG.standard_normal((2, 6, 2, 5))
    bias, mask = RNG.standard_normal((1, 4, 3, 6)), RNG.random((2, 1, 3, 6)) > 0.3
    for kw in ({}, {"is_causal": True}, {"scale": 0.3}):
        np.testing.assert_allclose(np.asarray(nn.dot_product_attention(q, k, v, bias, mask, **kw)),
                                   np.asarray(jax.nn.dot_product_attention(q, k, v, bias, mask, **kw)), atol=1e-6)
    x = np.array([-2.0, -1.0, -0.3, 0.5, 1.0, 3.0])                    # the kinks at +-1 included
    want = jax.grad(lambda x: jax.numpy.sum(jax.nn.sparse_sigmoid(x) * 3.0 + jax.nn.tanh(x)))(x)
    np.testing.assert_allclose(np.asarray(astjax.grad(sigmoid_sum)(x)), np.asarray(want), rtol=1e-12)


# ------------------------------------------------------------------ refusals under a derivative
def through_eig(x):
    w, _ = jnp.linalg.eig(x)
    return jnp.sum(jnp.real(w))


def through_unique(x):
    return jnp.sum(jnp.unique(x) ** 2)


def through_histogram(x):
    counts, edges = jnp.histogram(x, bins=3)
    return jnp.sum(edges)


def through_roots(x):
    return jnp.sum(jnp.real(jnp.roots(x)))


def through_union(x):
    return jnp.sum(jnp.union1d(x, np.array([5.0])))


def piece(t):
    return t * t


def through_piecewise(x):
    # a condition list held in a variable: not rewritten (tests/test_api6_per_slice.py has the rewritten ones)
    conditions = [x < 0]
    return jnp.sum(jnp.piecewise(x, conditions, [piece]))


def through_local_function(x):
    def grid_value(i, j):
        return i * x + j
    return jnp.sum(jnp.fromfunction(grid_value, (2, 3)))


def nested_block_variable(x):
    rows = [[x, x]]
    return jnp.sum(jnp.block(rows))


def copied(x):
    y = np.zeros(3)
    np.copyto(y, x)
    return jnp.sum(y)


@pytest.mark.parametrize("f,x,words", [
    (through_eig, SQ[0], "complex"), (through_unique, np.array([1.0, 2.0, 1.0]), "entries tie"),
    (through_histogram, np.array([1.0, 2.0, 4.0]), "bin edges move"), (through_roots, np.array([1.0, -3.0, 2.0]), "complex"),
    (through_union, np.array([1.0, 2.0]), "entries tie"), (through_piecewise, np.array([-1.0, 2.0]), "piecewise"),
    (nested_block_variable, SQ[0], "block"), (copied, np.ones(3), "in place"),
], ids=["eig", "unique", "histogram", "roots", "union1d", "piecewise", "block_variable", "copyto"])
def test_refused_at_the_users_line(f, x, words):
    assert f(x) is not None                                     # the value runs
    with pytest.raises(AstjaxError) as info:
        astjax.grad(f)(x)
    text = str(info.value)
    assert "test_api_coverage.py" in text and words in text


def test_a_local_function_passed_to_numpy_is_refused():
    """Its calls are inlined, so no function object would be left to pass (was a NameError)."""
    with pytest.raises(AstjaxError, match="local function `grid_value` is passed to `fromfunction`"):
        astjax.grad(through_local_function)(2.0)


# ------------------------------------------------------------------ an integer result dtype has no derivative
def int_sum_times_x(x):
    return jnp.sum(jnp.sum(x, dtype=jnp.int32) * x)


def int_trace_times_x(x):
    return jnp.sum(jnp.trace(x, dtype=jnp.int32) * x)


def int_dot_times_x(x):
    return jnp.sum(jnp.dot(x, x, preferred_element_type=jnp.int32) * x)


@pytest.mark.parametrize("f", [int_sum_times_x, int_trace_times_x, int_dot_times_x])
def test_integer_result_dtype_has_zero_derivative(f):
    """These were silent wrong numbers: sum's, trace's and dot's rules ignored an integer dtype (for
    int_sum_times_x at this x: 7.2 on every entry where the slope is 3)."""
    x = np.array([[1.3, 0.2], [0.1, 2.6]])
    _check_grad(f, x)
    if f is int_sum_times_x:
        np.testing.assert_allclose(np.asarray(astjax.grad(f)(x)), np.full((2, 2), 3.0))
