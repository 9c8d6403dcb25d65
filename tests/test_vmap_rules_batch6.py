"""vmap's batching rules of the sixth batch (astjax/rules/batching_sixth.py): multi_dot, block_diag, kaiser, put,
broadcast_arrays, Python's builtin sum of a list, meshgrid_list, pad_constant_tangent/adjoint. One row per
primitive and argument combination (batched or not, batch axis not at 0): the batched call equals a Python loop
over the batch calling the unbatched function, and the generated source has no loop over the batch left; then
dtypes, per-example gradients against a loop of grads, and the combinations that still loop. Reference backend
only; small shapes."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.rules import helpers as H
from astjax.rules import signal_helpers as SH
from astjax.rules import statistics as S
from astjax.rules.batching_sixth import EDITS
from astjax.lax import internal as LI
from astjax.scipy.linalg import block_diag, circulant, companion, fiedler, hankel, leslie, toeplitz

from batch_loops import assert_rule_batches_without_a_loop, assert_vmap_matches_the_loop, loop_over_batch

RNG = np.random.default_rng(6)
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _sum3(a, b):
    return sum([a, b, a])


def _sum_start(a, b):
    return sum((a, b), 1.5)


def _sum_tuple(a, b):
    t = (a, b * 2.0, a)
    return sum(t, -1)


def _sum_one(a):
    return sum([a])


def _broadcast_both(a, b):
    p = jnp.broadcast_arrays(a, b)
    return p[0] - 2 * p[1]


_MASK = np.array([[True, False, True], [False, True, True]])
_Q = np.array([[0.2, 0.5, 0.9], [0.0, 1.0, 0.35]])

_PADDED = _x(2, 3)
_WIDTH = ((1, 0), (0, 2))

# (primitive, function, args, in_axes)
ROWS = [
    ("multi_dot", lambda a, b, c: jnp.linalg.multi_dot([a, b, c]), [_x(B, 2, 5), _x(5, 3), _x(B, 3, 4)], (0, None, 0)),
    ("multi_dot", lambda a, b, c: jnp.linalg.multi_dot([a, b, c]), [_x(B, 6, 5), _x(5, 4), _x(4, 1)], (0, None, None)),
    ("multi_dot", lambda a, b, c: jnp.linalg.multi_dot([a, b, c]), [_x(B, 5), _x(5, 3), _x(3, B)], (0, None, 1)),
    ("multi_dot", lambda a, b: jnp.linalg.multi_dot([a, b]), [_x(B, 5), _x(5, 3)], (0, None)),
    ("multi_dot", lambda a, b: jnp.linalg.multi_dot([a, b]), [_x(4, 3), _x(3, B)], (None, 1)),
    ("block_diag", lambda a, b: block_diag(a, b), [_x(B, 2, 3), _x(2)], (0, None)),
    ("block_diag", lambda a, b, c: block_diag(a, b, c), [_x(3), _x(2, B, 2), _x(B)], (None, 1, 0)),
    ("kaiser", lambda b: jnp.kaiser(5, b), [np.abs(_x(B)) * 3], 0),
    ("kaiser", lambda b: jnp.kaiser(1, b), [np.array([2.0, np.inf, np.nan])], 0),
    ("put", lambda a, v: jnp.put(a, np.array([0, 3, 0]), v, inplace=False), [_x(B, 2, 3), _x(B, 2)], 0),
    ("put", lambda a: jnp.put(a, [1, -1, 9], 5.0, mode="wrap", inplace=False), [_x(4, B)], 1),
    ("put", lambda a, v: jnp.put(a, np.array([-1, 2, 7]), v, inplace=False), [_x(2, 3), _x(3, B)], (None, 1)),
    ("broadcast_arrays", _broadcast_both, [_x(B, 3), _x(2, 1)], (0, None)),
    ("broadcast_arrays", lambda a, b: jnp.broadcast_arrays(a, b)[0], [_x(B), _x(2, B, 3)], (0, 1)),
    ("builtin_sum", _sum3, [_x(B), _x(2, 3)], (0, None)),
    ("builtin_sum", _sum_start, [_x(B, 2), _x(2, B)], (0, 1)),
    ("meshgrid_list", lambda x, y: H.meshgrid_list([x, y])[0], [_x(B, 2), _x(3)], (0, None)),
    ("meshgrid_list", lambda x, y: H.meshgrid_list((x, y), True, "ij")[1], [_x(B, 2), _x(B, 3)], 0),
    ("pad_constant_tangent", lambda t: H.pad_constant_tangent(t, _PADDED, _WIDTH), [_x(B)], 0),
    ("pad_constant_tangent", lambda t: H.pad_constant_tangent(t, _PADDED, _WIDTH), [_x(2, B)], 1),
    ("pad_constant_tangent", lambda t, a: H.pad_constant_tangent(t, a, 1), [_x(B, 2, 2), _x(B, 2, 3)], 0),
    ("pad_constant_adjoint", lambda g: H.pad_constant_adjoint(g, _PADDED, _WIDTH, 0.0), [_x(B, 3, 5)], 0),
    ("pad_constant_adjoint", lambda g, c: H.pad_constant_adjoint(g, _PADDED, _WIDTH, c), [_x(3, 5, B), _x(2)],
     (2, None)),
    ("pad_constant_adjoint", lambda g, c: H.pad_constant_adjoint(g, _PADDED, _WIDTH, c), [_x(B, 3, 5), _x(B, 2, 1)],
     0),
    ("builtin_sum", _sum_tuple, [_x(B), _x(2, 3)], (0, None)),
    ("item_adjoint", lambda g, a, b: H.item_adjoint(H.sum_adjoint(g, [a, b]), 0), [_x(B, 2, 3), _x(B, 1, 3), _x(2, 3)],
     (0, 0, None)),
    ("sum_adjoint", lambda g, a: H.item_adjoint(H.sum_adjoint(g, (a, a)), 1), [_x(2, B, 3), _x(2, 1)], (1, None)),
    ("einsum", lambda a, b: jnp.einsum("ij,jk->ik", a, b), [_x(B, 2, 3), _x(3, 4)], (0, None)),
    ("einsum", lambda a, b: jnp.einsum("Bj,jA", a, b), [_x(2, 3), _x(3, B, 4)], (None, 1)),
    ("einsum", lambda a: jnp.einsum("i...j", a), [_x(B, 2, 3, 4)], 0),
    ("einsum", lambda a, b: jnp.einsum("...i,...i->...", a, b), [_x(B, 2, 3), _x(B, 3)], 0),
    ("hstack", lambda a, b: jnp.hstack([a, b]), [_x(B, 2), _x(3)], (0, None)),
    ("hstack", lambda a, b: jnp.hstack((a, b)), [_x(B, 2, 2), _x(2, B, 3)], (0, 1)),
    ("vstack", lambda a, b: jnp.vstack([a, b]), [_x(B), _x(B, 2, 1)], 0),
    ("dstack", lambda a, b: jnp.dstack([a, b]), [_x(B, 3), _x(1, 3, 2)], (0, None)),
    ("column_stack", lambda a, b: jnp.column_stack([a, b]), [_x(B), _x(1, B)], (0, 1)),
    ("toeplitz", lambda c, r: toeplitz(c, r), [_x(B, 3), _x(4)], (0, None)),
    ("toeplitz", lambda c: toeplitz(c), [_x(3, B)], 1),
    ("hankel", lambda c, r: hankel(c, r), [_x(3), _x(4, B)], (None, 1)),
    ("hankel", lambda c: hankel(c), [_x(B, 3)], 0),
    ("circulant", lambda c: circulant(c), [_x(B, 4)], 0),
    ("gradient_adjoint", lambda g, f: SH.gradient_adjoint(g, f), [_x(B, 5), _x(5)], (0, None)),
    ("gradient_adjoint", lambda g, f: SH.gradient_adjoint(g, f, (0.5,), -1, 2), [_x(2, 5, B), _x(B, 2, 5)], (2, 0)),
    ("gradient_items", lambda t: SH.gradient_items(t, (np.array([0.0, 0.5, 1.5, 1.75]),), 0), [_x(4, B, 2)], 1),
    ("gradient_items", lambda t: SH.gradient_items(t), [_x(B, 4)], 0),
    ("leslie", lambda f, s: leslie(f, s), [_x(B, 3), _x(2)], (0, None)),
    ("companion", lambda a: companion(a), [_x(B, 4)], 0),
    ("fiedler", lambda a: fiedler(a), [_x(4, B)], 1),
    ("place", lambda a, v: jnp.place(a, _MASK, v, inplace=False), [_x(B, 2, 3), _x(B, 3)], 0),
    ("place", lambda a: jnp.place(a, _MASK, np.array([1.5, 2.5]), inplace=False), [_x(2, 3, B)], 2),
    ("require", lambda a: jnp.require(a, np.float64), [_x(B, 3)], 0),
    ("lax_leading_axis_array", lambda x: LI.leading_axis_array(x), [_x(B, 4)], 0),
    ("lax_scan_step_output", lambda x: LI.scan_step_output(x), [_x(2, B)], 1),
    # quantile's derivatives of an array q (batching_fifth.py's rule: the batch axis moved past q's axes)
    ("quantile_tangent", lambda t, a: S.quantile_tangent(t, a, _Q, 1), [_x(B, 2, 5), _x(B, 2, 5)], 0),
    ("quantile_tangent", lambda t, a: S.quantile_tangent(t, a, _Q[0], None, "nearest", True), [_x(2, 3), _x(2, B, 3)],
     (None, 1)),
    ("quantile_adjoint", lambda g, a: S.quantile_adjoint(g, a, _Q, 0), [_x(B, 2, 3, 3), _x(B, 4, 3)], 0),
    ("quantile_adjoint", lambda g, a: S.quantile_adjoint(g, a, _Q[1], None, "midpoint", True),
     [_x(3, 1, 1, B), _x(2, 3)], (3, None)),
]


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_leaves_no_loop(row):
    assert_rule_batches_without_a_loop(*ROWS[row], rtol=1e-9)


def _quantiles_loss(w, x):
    return jnp.sum(jnp.quantile(x * w, _Q[0], axis=1) ** 2) + jnp.sum(jnp.percentile(x * w, 100 * _Q))


def test_per_example_gradients_of_quantiles_at_an_array_q_run_batched():
    w, xs = _x(2, 4), _x(B, 2, 4)
    g = astjax.grad(_quantiles_loss)
    v = astjax.vmap(g, in_axes=(None, 0))
    np.testing.assert_allclose(v(w, xs), np.stack([g(w, x) for x in xs]), rtol=1e-12, atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


def test_every_declared_primitive_has_a_row():
    assert set(EDITS) <= {r[0] for r in ROWS}


# the dtypes of each example's call: integers read as float32, float32 kept, put casting into a's dtype
DTYPES = [
    (lambda a, b: jnp.linalg.multi_dot([a, b]), [RNG.integers(0, 4, size=(B, 2, 2)), _x(2, 2).astype(np.float32)],
     (0, None)),
    (lambda a, b: block_diag(a, b), [RNG.integers(0, 4, size=(B, 2)), RNG.integers(0, 4, size=(2, 2))], (0, None)),
    (lambda b: jnp.kaiser(3, b), [RNG.integers(1, 4, size=B)], 0),
    (lambda a, v: jnp.put(a, [0], v, inplace=False), [RNG.integers(0, 4, size=(B, 3)), _x(B) * 10], 0),
    (lambda t: H.pad_constant_tangent(t, _PADDED, _WIDTH), [_x(B).astype(np.float32)], 0),
    (lambda c, r: toeplitz(c, r), [_x(B, 3).astype(np.float32), RNG.integers(0, 3, size=(B, 2))], 0),
    (lambda f, s: leslie(f, s), [RNG.integers(0, 3, size=(3,)), _x(B, 2).astype(np.float32)], (None, 0)),
    (lambda a: companion(a), [RNG.integers(1, 3, size=(B, 3))], 0),
    (lambda a: jnp.place(a, _MASK[0], np.array([1.5, 2.5, 3.5]), inplace=False), [RNG.integers(0, 4, size=(B, 3))], 0),
]


@pytest.mark.parametrize("case", range(len(DTYPES)))
def test_the_batched_dtype_is_each_examples(case):
    f, args, in_axes = DTYPES[case]
    got = astjax.vmap(f, in_axes=in_axes)(*args)
    want = loop_over_batch(f, args, in_axes)
    assert np.asarray(got).dtype == want.dtype, (np.asarray(got).dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_sum_of_a_list_adds_in_python_order():
    """sum([x]) is 0 + x: a -0.0 becomes 0.0 in each example's sum and in the batched one."""
    xs = np.array([-0.0, 1.0, -0.0])
    got = np.asarray(astjax.vmap(_sum_one)(xs))
    assert not np.signbit(got).any() and np.array_equal(got, loop_over_batch(_sum_one, [xs], 0))


def test_pad_adjoint_of_an_inf_inside_the_array_stays_finite():
    """The per-side sums read only the padding cells: an inf inside the array does not reach them."""
    g = _x(B, 3, 5)
    g[:, 1, 1] = np.inf
    f = lambda g: H.pad_constant_adjoint(g, _PADDED, _WIDTH, np.zeros((2, 2)))   # noqa: E731
    got = astjax.vmap(f)(g)
    assert np.isfinite(got).all()
    np.testing.assert_allclose(got, loop_over_batch(f, [g], 0), rtol=1e-12)


def _loss(w, x):
    k = jnp.kaiser(4, jnp.sum(x) ** 2)
    p = jnp.put(x * w[0], np.array([0, 2, 0]), jnp.sin(x[:2]), inplace=False)
    q = jnp.pad(x, (1, 2), constant_values=jnp.sum(w[1]))
    return jnp.sum(k) + jnp.sum(p ** 2) + jnp.sum(q * jnp.cos(q))


def test_per_example_gradients_through_kaiser_put_and_pad_run_batched():
    """vmap(grad): kaiser in beta, put in a and v, pad in constant_values (pad_constant_adjoint): no loop."""
    w, xs = _x(3, 3), _x(B, 3)
    g = astjax.grad(_loss, argnums=(0, 1))
    v = astjax.vmap(g, in_axes=(None, 0))
    got = v(w, xs)
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([g(w, x)[k] for x in xs]), rtol=1e-10, atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


def _contractions(w, x):
    return jnp.sum(jnp.tanh(jnp.einsum("ij,j->i", w, x)) ** 2) + jnp.sum(jnp.einsum("ij,kj", w, jnp.outer(x, x)) ** 2)


def test_per_example_gradients_through_einsum_run_batched():
    w, xs = _x(3, 3), _x(B, 3)
    g = astjax.grad(_contractions)
    v = astjax.vmap(g, in_axes=(None, 0))
    np.testing.assert_allclose(v(w, xs), np.stack([g(w, x) for x in xs]), rtol=1e-12, atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


def _slopes(w, x):
    return jnp.sum(jnp.gradient(x * w) ** 2) + jnp.sum(jnp.gradient(jnp.stack([x, w * x]), 0.5, axis=-1) ** 3)


def test_per_example_gradients_through_jnp_gradient_along_one_axis_run_batched():
    w, xs = _x(4), _x(B, 4)
    g = astjax.grad(_slopes)
    v = astjax.vmap(g, in_axes=(None, 0))
    np.testing.assert_allclose(v(w, xs), np.stack([g(w, x) for x in xs]), rtol=1e-12, atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


def _joined(w, x):
    return (jnp.sum(jnp.hstack([x, w]) ** 2) + jnp.sum(jnp.vstack((w, x * w)) ** 3)
            + jnp.sum(jnp.column_stack([x, w]) ** 3) + jnp.sum(leslie(x, w[:2]) ** 2) + jnp.sum(fiedler(x * w) ** 3))


def test_per_example_gradients_through_stacks_and_structured_matrices_run_batched():
    """hstack's adjoint reads its axis when it runs (joined_axis): concatenate_part writes it from the end."""
    w, xs = _x(3), _x(B, 3)
    g = astjax.grad(_joined)
    v = astjax.vmap(g, in_axes=(None, 0))
    np.testing.assert_allclose(v(w, xs), np.stack([g(w, x) for x in xs]), rtol=1e-12, atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


def _sums(w, x):
    return jnp.sum(sum([w * x, jnp.sin(x), w]) ** 2) + jnp.sum(jnp.cos(sum((w * x, x * x), jnp.sum(w))))


def test_per_example_gradients_through_python_sums_run_batched():
    """sum_adjoint of a list of items of one rank is a tree of batched items, item_adjoint reads them: no loop."""
    w, xs = _x(3), _x(B, 3)
    g = astjax.grad(_sums, argnums=(0, 1))
    v = astjax.vmap(g, in_axes=(None, 0))
    got = v(w, xs)
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([g(w, x)[k] for x in xs]), rtol=1e-12, atol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


def _products(w, x):
    return jnp.linalg.multi_dot([x, w, x]) + jnp.sum(block_diag(w, x) ** 3) + jnp.sum(sum([x, w[0], x * x]) ** 2)


def test_per_example_gradients_through_multi_dot_block_diag_and_mixed_sums_match_a_loop():
    """Their adjoints read a list of the operands (multi_dot_adjoint, block_diag_adjoint; sum_adjoint of items
    of several ranks): the gradient still loops there (docs/vmap.md), with each example's answer."""
    w, xs = _x(3, 3), _x(B, 3)
    g = astjax.grad(_products)
    np.testing.assert_allclose(astjax.vmap(g, in_axes=(None, 0))(w, xs), np.stack([g(w, x) for x in xs]),
                               rtol=1e-10, atol=1e-12)


def _grids(x, y):
    a, b = jnp.meshgrid(x, y, indexing="ij")
    return jnp.sin(a) * b


def test_vmap_of_the_jvp_of_meshgrid_batches_meshgrid_list():
    """meshgrid's tangent is meshgrid_list of the tangents' tuple: batched, no loop."""
    xs, ys, dxs, dys = _x(B, 2), _x(B, 3), _x(B, 2), _x(B, 3)
    jvp = lambda x, y, dx, dy: astjax.jvp(_grids, (x, y), (dx, dy))[1]   # noqa: E731
    v = astjax.vmap(jvp)
    np.testing.assert_allclose(v(xs, ys, dxs, dys), np.stack([jvp(*a) for a in zip(xs, ys, dxs, dys)]),
                               rtol=1e-12)
    source = astjax.source(v)
    assert "_results" not in source and "range(_B" not in source, source


# Combinations no rule covers: the loop over the batch, still equal to a Python loop.
LOOPED = [
    (lambda a, b, c, d: jnp.linalg.multi_dot([a, b, c, d]), [_x(B, 2, 3), _x(3, 4), _x(4, 2), _x(2, 5)],
     (0, None, None, None)),
    (lambda a, i: jnp.put(a, i, 1.0, inplace=False), [_x(B, 4), RNG.integers(0, 4, size=(B, 2))], 0),
    (lambda x: sum(x), [_x(B, 3, 2)], 0),
    (lambda x: jnp.unstack(x)[1], [_x(B, 2, 3)], 0),
    (lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c), [_x(B, 2, 3), _x(3, 4), _x(4, 2)], (0, None, None)),
]


@pytest.mark.parametrize("case", range(len(LOOPED)))
def test_uncovered_combinations_loop_and_match(case):
    assert_vmap_matches_the_loop(*LOOPED[case])


def test_their_own_errors_are_raised_batched():
    """What each example's call refuses, the batched call refuses too (the helpers raise NumPy's errors)."""
    with pytest.raises(ValueError, match="two coefficients"):
        astjax.vmap(companion)(_x(B, 1))
    with pytest.raises(ValueError, match="one entry fewer"):
        astjax.vmap(leslie, in_axes=(0, None))(_x(B, 3), _x(3))
    with pytest.raises(ValueError, match="empty"):
        astjax.vmap(lambda a: jnp.place(a, _MASK[0], np.zeros(0), inplace=False))(_x(B, 3))


def test_put_in_place_is_refused_as_in_each_example():
    with pytest.raises(ValueError, match="inplace"):
        astjax.vmap(lambda a: jnp.put(a, [0], 1.0))(_x(B, 2))
