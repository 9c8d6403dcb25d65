"""vmap's batching rules of the fifth batch (astjax/rules/batching_fifth.py): lax's convolutions (the batch
folded into N), reduce_window and the window patches, conv_general, polyint, polyfit, gradient, insert,
resize, linalg.cond, Python's max/min of two numbers. One row per primitive and argument combination
(batched or not, batch axis not at 0): the batched call equals a Python loop over the batch calling the
unbatched function, and the generated source has no loop over the batch left. Combinations a rule does not
cover (a batched kernel) still equal the loop. Reference backend only; small shapes."""
import numpy as np
import pytest

import astjax
import astjax.lax as lax
import astjax.numpy as jnp
from astjax.lax import internal as LI
from astjax.rules.batching_fifth import EDITS, FOLDED, SAME_CALL, WINDOWED
from astjax.rules import helpers as H
from astjax.rules import statistics as S
from astjax.rules.signal_helpers import conv_general

from batch_loops import assert_rule_batches_without_a_loop, loop_over_batch

RNG = np.random.default_rng(12)
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _max2(a, b):
    return max(a, b)


def _min2(a, b):
    return min(a, b)


def _max_sum(x, y):
    return max(jnp.sum(x), jnp.sum(y))


def _min_const(x):
    return min(jnp.sum(x), 0.5)


# (primitive, function, args, in_axes)
ROWS = [
    ("lax_conv", lambda x, w: lax.conv(x, w, (1, 1), "SAME"), [_x(B, 2, 1, 5, 4), _x(3, 1, 2, 2)], (0, None)),
    ("lax_conv", lambda x, w: lax.conv(x, w, (2, 1), "VALID"), [_x(2, 1, 5, B, 4), _x(3, 1, 2, 2)], (3, None)),
    ("lax_conv_general_dilated", lambda x, w: lax.conv_general_dilated(
        x, w, (1, 1), ((1, 0), (0, 1)), rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")),
     [_x(B, 2, 5, 4, 1), _x(2, 2, 1, 3)], (0, None)),
    ("lax_conv_general_dilated", lambda x, w: lax.conv_general_dilated(
        x, w, (1,), "VALID", dimension_numbers=("NCH", "OIH", "HCN")), [_x(2, 2, 6, B), _x(3, 2, 2)], (3, None)),
    ("lax_conv_general_dilated", lambda x, w: lax.conv_general_dilated(x, w, (1, 1), ((1, 0), (0, 1)), lhs_dilation=(2, 1)),
     [_x(B, 1, 2, 3, 3), _x(2, 2, 2, 2)], (0, None)),
    ("lax_reduce_window", lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), "SAME"), [_x(B, 4, 5)], 0),
    ("lax_reduce_window", lambda x: lax.reduce_window(x, -np.inf, lax.max, (1, 3), None, ((1, 1), (0, 2)),
                                                      window_dilation=(1, 2)), [_x(3, B, 6)], 1),
    ("lax_reduce_window", lambda x: lax.reduce_window(x, np.inf, lax.min, (2,), None, ((0, 1),), base_dilation=(2,)), [_x(B, 4)], 0),
    ("lax_window_hits", lambda x, y: LI.window_hits(x, y, -np.inf, lax.max, (1, 2), (1, 2), "SAME"),
     [np.round(_x(B, 2, 5)), None], 0),
    ("lax_window_hits", lambda x, y: LI.window_hits(x, y, 0.0, lax.add, (2,), None, ((1, 0),)), [_x(4, B), _x(4)],
     (1, None)),
    ("lax_window_ties", lambda x, y: LI.window_ties(x, y, np.inf, lax.min, (2, 2), (1, 1)),
     [np.round(_x(B, 3, 3)), None], 0),
    ("lax_window_patches", lambda x: LI.window_patches(x, (2, 2), (1, 1), "VALID"), [_x(B, 2, 3, 4)], 0),
    ("lax_window_patches", lambda x: LI.window_patches(x, (3,), (2,), "SAME", None, (2,), 1.5), [_x(5, B)], 1),
    ("lax_window_patches_adjoint", lambda g: LI.window_patches_adjoint(g, (2, 3, 4), (2, 2), (1, 1), "VALID"),
     [_x(B, 2, 6, 4)], 0),
    ("lax_window_patches_adjoint", lambda g: LI.window_patches_adjoint(g, (5,), (3,), (2,), "SAME", None, (2,)),
     [_x(3, 3, B)], 2),
    ("conv_general", lambda a, v: conv_general(a, v), [_x(B, 5), _x(3)], (0, None)),
    ("conv_general", lambda a, v: conv_general(a, v, "same", True), [_x(2), _x(5, B)], (None, 1)),
    ("conv_general", lambda a, v: conv_general(a, v, "valid", True), [_x(B, 6), _x(B, 3)], 0),
    ("conv_general", lambda a, v: conv_general(a, v, "same", False), [_x(B, 4), _x(B, 4)], 0),
    ("polyint", lambda p: jnp.polyint(p), [_x(B, 4)], 0),
    ("polyint", lambda p: jnp.polyint(p, 3), [RNG.integers(-3, 3, size=(3, B))], 1),
    ("polyint", lambda p: jnp.polyint(p, 0), [_x(B, 2)], 0),
    ("polyfit", lambda x, y: jnp.polyfit(x, y, 2), [np.linspace(0, 1, 6), _x(B, 6)], (None, 0)),
    ("polyfit", lambda y: jnp.polyfit(np.arange(5.0), y, 1), [_x(5, B)], 1),
    ("gradient", lambda f: jnp.gradient(f), [_x(B, 5)], 0),
    ("gradient", lambda f: jnp.gradient(f, 0.5, edge_order=2), [_x(5, B)], 1),
    ("gradient", lambda f, t: jnp.gradient(f, t), [_x(B, 4), np.array([0.0, 0.5, 1.5, 1.75])], (0, None)),
    ("gradient", lambda f: jnp.gradient(f, axis=-1), [_x(B, 2, 4)], 0),
    ("gradient", lambda f: jnp.gradient(f, 2.0, axis=0), [_x(3, B, 2)], 1),
    ("builtin_max", _max2, [_x(B), _x(B)], 0),
    ("builtin_max", _max_sum, [_x(B, 2), _x(2)], (0, None)),
    ("builtin_max", _max2, [np.array([1.0, np.nan, 2.0]), np.array([np.nan, 1.0, 2.0])], 0),
    ("builtin_min", _min2, [np.array([1.0, np.nan, -2.0]), np.array([np.nan, 1.0, 2.0])], 0),
    ("builtin_min", _min_const, [_x(2, B)], 1),
    ("insert", lambda a: jnp.insert(a, 1, 7.0, axis=1), [_x(B, 2, 3)], 0),
    ("insert", lambda a: jnp.insert(a, np.array([0, 2]), -1.0), [_x(2, B, 2)], 1),
    ("insert", lambda a: jnp.insert(a, slice(0, 2), 5, axis=-1), [RNG.integers(0, 5, size=(B, 3))], 0),
    ("resize", lambda a: jnp.resize(a, (3, 3)), [_x(B, 2, 2)], 0),
    ("resize", lambda a: jnp.resize(a, 2), [_x(3, B)], 1),
    ("fftfreq", lambda d: jnp.fft.fftfreq(5, d), [np.abs(_x(B)) + 0.1], 0),
    ("fftfreq", lambda d: jnp.fft.fftfreq(4, d=d, dtype=jnp.float64), [np.abs(_x(B)).astype(np.float32) + 0.1], 0),
    ("rfftfreq", lambda d: jnp.fft.rfftfreq(6, d), [np.abs(_x(B)) + 0.1], 0),
    ("adjugate", lambda a: H.adjugate(a), [_x(B, 3, 3)], 0),
    ("well_conditioned", lambda a: H.well_conditioned(a, "det"), [_x(3, 3, B)], 2),
    ("square_unless_reduced", lambda a: H.square_unless_reduced(a, True), [_x(B, 2, 2)], 0),
    ("lax_gather_along", lambda t, i: LI.gather_along(t, i, 1), [_x(B, 2, 4), RNG.integers(0, 4, size=(B, 2, 3))], 0),
    ("lax_gather_along", lambda t, i: LI.gather_along(t, i, -1), [_x(2, 4), RNG.integers(0, 4, size=(2, B, 2))],
     (None, 1)),
    ("lax_gather_along", lambda t, i: LI.gather_along(t, i, 0), [_x(4, B), RNG.integers(0, 4, size=(3,))], (1, None)),
    ("lax_scatter_along", lambda g, i: LI.scatter_along(g, i, -1, (2, 4)),
     [_x(B, 2, 3), RNG.integers(0, 4, size=(2, 3))], (0, None)),
    ("lax_scatter_along", lambda g, i: LI.scatter_along(g, i, 0, (5,)), [_x(3), RNG.integers(0, 5, size=(B, 3))],
     (None, 0)),
    ("lax_pad_operand_adjoint", lambda g: lax.internal.pad_operand_adjoint(g, (2, 3), ((1, 0, 1), (0, 2, 0))),
     [_x(B, 4, 5)], 0),
    ("lax_pad_operand_adjoint", lambda g: lax.internal.pad_operand_adjoint(g, (3,), ((-1, 1, 0),)), [_x(3, B)], 1),
    ("lax_top_k_indices", lambda x: LI.top_k_indices(x, 2), [np.round(_x(B, 2, 5))], 0),
    ("lax_cumulative_argext", lambda x: LI.cumulative_argext(x, 0, False, True), [_x(4, B)], 1),
    ("lax_cumulative_argext", lambda x: LI.cumulative_argext(x, -1, True, False), [_x(B, 2, 4)], 0),
    ("broadcast_like", lambda t, a, b: H.broadcast_like(t, a, b), [_x(B, 3), _x(2, 1), _x(B, 1, 3)], (0, None, 0)),
    ("broadcast_like", lambda t, a: H.broadcast_like(t, a), [_x(B), _x(2, 3)], (0, None)),
    ("broadcast_like", lambda t, a: H.broadcast_like(t, a), [_x(3), _x(2, B, 3)], (None, 1)),
    ("broadcast_like", lambda a: H.broadcast_like(1.5, a, a), [_x(B, 2).astype(np.float32)], 0),
    ("quantile_tangent", lambda t, a: S.quantile_tangent(t, a, 0.3, 1), [_x(B, 2, 5), _x(B, 2, 5)], 0),
    ("quantile_tangent", lambda t, a: S.quantile_tangent(t, a, 0.5, None, "linear", False, "nanquantile"),
     [_x(B, 2, 3), _x(2, 3)], (0, None)),
    ("quantile_tangent", lambda t, a: S.quantile_tangent(t, a, 40.0, -1, "nearest", True, "percentile"),
     [_x(2, 4), _x(2, B, 4)], (None, 1)),
    ("quantile_adjoint", lambda g, a: S.quantile_adjoint(g, a, 0.7, 0), [_x(B, 3), _x(B, 4, 3)], 0),
    ("quantile_adjoint", lambda g, a: S.quantile_adjoint(g, a, 0.25, None, "midpoint"), [_x(B), _x(B, 2, 3)], 0),
    ("quantile_adjoint", lambda g, a: S.quantile_adjoint(g, a, 0.5, 1, "linear", True), [_x(B, 2, 1), _x(2, 3)],
     (0, None)),
    ("cond", lambda a: jnp.linalg.cond(a), [_x(B, 3, 3)], 0),
    ("cond", lambda a: jnp.linalg.cond(a, "fro"), [_x(3, 3, B)], 2),
    ("cond", lambda a: jnp.linalg.cond(a, -np.inf), [_x(B, 2, 2)], 0),
]


def _window_results():
    """window_hits/ties rows read y = reduce_window(x): the windows' real maxima and minima (with ties)."""
    for row in ROWS:
        if len(row[2]) == 2 and row[2][1] is None:
            init, computation = (-np.inf, lax.max) if "hits" in row[0] else (np.inf, lax.min)
            window, strides, padding = ((1, 2), (1, 2), "SAME") if "hits" in row[0] else ((2, 2), (1, 1), "VALID")
            row[2][1] = np.stack([lax.reduce_window(x, init, computation, window, strides, padding)
                                  for x in row[2][0]])


_window_results()


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_leaves_no_loop(row):
    assert_rule_batches_without_a_loop(*ROWS[row], rtol=1e-9)


def test_every_declared_primitive_has_a_row():
    declared = set(FOLDED) | set(WINDOWED) | set(SAME_CALL) | set(EDITS)
    assert declared <= {r[0] for r in ROWS}


# Combinations no rule covers: the loop over the batch, still equal to a Python loop.
LOOPED = [
    (lambda x, w: lax.conv(x, w, (1, 1), "VALID"), [_x(2, 1, 4, 4), _x(B, 2, 1, 2, 2)], (None, 0)),
    (lambda x, w: lax.conv(x, w, (1, 1), "VALID"), [_x(B, 2, 1, 4, 4), _x(B, 2, 1, 2, 2)], 0),
    (lambda p: jnp.polyint(p, 1, 2.0), [_x(B, 3)], 0),
    (lambda a, v: jnp.insert(a, 1, v, axis=0), [_x(B, 2, 3), _x(B, 3)], 0),
    (lambda x, y: jnp.polyfit(x, y, 1), [_x(B, 4), _x(B, 4)], 0),
    (lambda f: jnp.gradient(f), [_x(B, 2, 3)], 0),
]


@pytest.mark.parametrize("case", range(len(LOOPED)))
def test_uncovered_combinations_loop_and_match(case):
    f, args, in_axes = LOOPED[case]
    got = astjax.vmap(f, in_axes=in_axes)(*args)
    want = loop_over_batch(f, args, in_axes)
    for a, w in zip(got if isinstance(got, list) else [got], list(np.moveaxis(want, 1, 0)) if isinstance(
            got, list) else [want]):
        np.testing.assert_allclose(a, w, rtol=1e-9, atol=1e-12)


def test_conv_of_a_batched_input_is_one_convolution():
    """vmap over images: one lax.conv call on the folded batch, not one per example."""
    f = lambda x, w: lax.conv(x, w, (1, 1), "SAME")   # noqa: E731
    source = astjax.source(astjax.vmap(f, in_axes=(0, None)))
    assert "_results" not in source and "lax.conv(x_folded" in source, source


def _sorted_losses(w, x):
    v, _ = lax.top_k(x * w, 2)
    p = lax.pad(jnp.sort(x * w), 0.0, ((1, 2, 1),))
    return jnp.sum(v ** 2) + jnp.sum(p * jnp.arange(p.shape[0])) + jnp.sum(lax.cummax(x * w))


def test_per_example_gradients_through_top_k_sort_pad_and_cummax_run_batched():
    """Their derivative helpers (top_k_indices, gather_along, scatter_along, pad_operand_adjoint,
    cumulative_argext) have rules: no statement loops over the examples."""
    w, xs = _x(4), _x(B, 4)
    g = astjax.grad(_sorted_losses)
    v = astjax.vmap(g, in_axes=(None, 0))
    np.testing.assert_allclose(v(w, xs), np.stack([g(w, x) for x in xs]), rtol=1e-12, atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


def _lax_sorted_loss(w, x):
    return jnp.sum(lax.sort(x * w) * jnp.arange(4.0))


def test_per_example_gradients_through_lax_sort_match_a_loop():
    """lax.sort's derivative helpers take one array or a tuple (lax_sort_adjoint, rules/lax_reduce_sort.py):
    their test of which one runs example by example under vmap (docs/vmap.md), with each example's answer."""
    w, xs = _x(4), _x(B, 4)
    g = astjax.grad(_lax_sorted_loss)
    np.testing.assert_allclose(astjax.vmap(g, in_axes=(None, 0))(w, xs), np.stack([g(w, x) for x in xs]),
                               rtol=1e-12, atol=1e-12)


def _robust_loss(w, x):
    return jnp.median(x * w) + jnp.sum(jnp.quantile(x * w, 0.3, axis=0)) + jnp.nanmax(x) * jnp.sum(w)


def test_per_example_gradients_through_median_and_quantile_run_batched():
    """quantile_tangent/adjoint have rules, and the analysis knows median's and nanmax's result is an array
    of the reduced rank (it did not: the `+` after them looped over the examples)."""
    w, xs = _x(2, 4), _x(B, 2, 4)
    g = astjax.grad(_robust_loss)
    v = astjax.vmap(g, in_axes=(None, 0))
    np.testing.assert_allclose(v(w, xs), np.stack([g(w, x) for x in xs]), rtol=1e-12, atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


def test_resize_of_a_batched_empty_array_is_refused_and_a_negative_size_raises():
    with pytest.raises(Exception, match="resize"):
        astjax.vmap(lambda a: jnp.resize(a, (2,)))(np.zeros((B, 0)))
    with pytest.raises(ValueError, match="non-negative"):
        astjax.vmap(lambda a: jnp.resize(a, -1))(np.zeros((B, 2)))


def _cnn_loss(w, x, y):
    h = lax.conv(x[None], w, (1, 1), "SAME")
    p = lax.reduce_window(jnp.tanh(h), -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
    return jnp.sum((jnp.mean(p, axis=(2, 3)) - y) ** 2)


def test_per_example_gradients_of_a_small_cnn_match_a_loop_without_a_batch_loop():
    """vmap(grad(loss), in_axes=(None, 0, 0)) of a conv + max-pool: the convolutions, window patches and
    the pool's hits and ties all batch, so no statement loops over the examples."""
    w, xs, ys = _x(2, 1, 3, 3), _x(B, 1, 4, 4), _x(B, 1, 2)
    g = astjax.grad(_cnn_loss)
    v = astjax.vmap(g, in_axes=(None, 0, 0))
    np.testing.assert_allclose(v(w, xs, ys), np.stack([g(w, xs[i], ys[i]) for i in range(B)]), rtol=1e-10,
                               atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


# ---------------------------------------------------------------- vmap of Jacobians
def _scalar(x):
    return jnp.sum(jnp.sin(x) * x ** 2) + jnp.sum(x * x) ** 2


def _vector(x):
    return jnp.sin(x) * jnp.sum(x ** 2)


def _gram(x):
    return jnp.tanh(x @ x.T)


JACOBIANS = [
    (astjax.hessian, _scalar, _x(B, 3)),
    (astjax.jacrev, _vector, _x(B, 3)),
    (astjax.jacfwd, _vector, _x(B, 3)),
    (astjax.jacfwd, _gram, _x(B, 2, 3)),
]


@pytest.mark.parametrize("case", range(len(JACOBIANS)),
                         ids=[f"{t.__name__}-{f.__name__}" for t, f, _ in JACOBIANS])
def test_vmap_of_a_jacobian_matches_a_loop_and_batches_its_columns(case):
    """vmap(hessian(f)), vmap(jacfwd(f)), vmap(jacrev(f)): the Jacobian's columns (rows) go into one array
    updated in a loop over the basis (jacobian_source.py), so vmap batches each jvp (pullback) rather than
    running the whole Jacobian once per example."""
    transform, f, xs = JACOBIANS[case]
    jac = transform(f)
    batched = astjax.vmap(jac)
    np.testing.assert_allclose(batched(xs), np.stack([jac(x) for x in xs]), rtol=1e-10, atol=1e-12)
    source = astjax.source(batched)
    top = source.split("\n\n\ndef ")[0]     # the Jacobian's own loop, before its callees
    assert "_example" not in top and "_results" not in top and "range(_B" not in top, top
    assert "append(broadcast_like(" not in source, source      # forward-over-reverse's tangent sums


def test_vmap_of_a_hessian_with_an_unbatched_argument():
    """hessian in the first argument, vmapped over the second only."""
    def f(w, x):
        return jnp.sum(jnp.tanh(w * x) ** 2)
    h = astjax.hessian(f)
    w, xs = _x(3), _x(B, 3)
    got = astjax.vmap(h, in_axes=(None, 0))(w, xs)
    np.testing.assert_allclose(got, np.stack([h(w, x) for x in xs]), rtol=1e-10, atol=1e-12)
