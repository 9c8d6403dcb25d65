"""vmap's batching rules of the third batch (astjax/rules/batching_solves.py and friends): SciPy's solves over a
stack, tensorinv, the split family, and regressions for three crashes (an index whose array parts are separated
by a slice, pareto.logpdf's reassigned scale, qr(mode='raw')). One row per primitive and argument combination
(batched or not, batch axis not at 0): the batched call equals a Python loop over the batch calling the unbatched
function, and the generated source has no loop over the batch left. A few gradients (vmap(grad)) against a loop
of grads. Reference backend only; small shapes."""
import os

import numpy as np
import pytest
import scipy.linalg

import astjax
import astjax.lax as lax
import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
import astjax.scipy.stats as jst
from astjax.errors import AstjaxError
from astjax.lax import _shape as LS
from astjax.rules import helpers as H
from astjax.rules import shape_helpers as SH
from astjax.rules.batching_adjoints import ADJOINT_SHIFTS, OTHERS
from astjax.rules.batching_choices import CHOICES
from astjax.rules.batching_grids import batch_meshgrid_shapes  # noqa: F401 (registration)
from astjax.rules.batching_signal import SIGNAL
from astjax.rules.batching_statistics import batch_cov_scale  # noqa: F401 (registration)
from astjax.rules.batching_solves import SOLVES, SPLITS

from batch_loops import assert_rule_batches_without_a_loop

RNG = np.random.default_rng(7)
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _spd(*lead, n=3):
    a = RNG.normal(size=lead + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _tri(*lead, n=3):
    return np.tril(RNG.normal(size=lead + (n, n))) + 3.0 * np.eye(n)


def _tensor(*lead):
    return _x(*lead, 2, 3, 6) + 3.0 * np.eye(6).reshape(2, 3, 6)


def _split_two(x):
    p = jnp.split(x, 2, axis=1)
    return jnp.sum(p[0], axis=0) * 2.0 + p[1][0] * p[1][1]


def _split_points(x):
    p = jnp.split(x, [1, 3])
    return jnp.concatenate([p[2], p[0] * 3.0, p[1]])


def _array_split_three(x):
    p = jnp.array_split(x, 3, axis=-1)
    return jnp.sum(p[0]) + 2.0 * jnp.sum(p[1] * p[1]) - jnp.sum(p[2] ** 3)


def _hsplit_matrix(x):
    p = jnp.hsplit(x, 2)
    return p[0] - 2.0 * p[1]


def _hsplit_vector(x):
    p = jnp.hsplit(x, [1])
    return jnp.sum(p[1]) * p[0]


def _vsplit(x):
    p = jnp.vsplit(x, 2)
    return p[0] @ p[1].T


def _dsplit(x):
    p = jnp.dsplit(x, [1])
    return jnp.sum(p[1], axis=-1) + p[0][..., 0]


def _choose_from_a_list_name(a, x):
    choices = [x, -x]
    return jnp.choose(a, choices)


W = _x(4)


def _grid_xy(x, y):
    X, Y = jnp.meshgrid(x, y)
    return X * Y + X


def _grid_ij_sparse(x, y):
    X, Y, Z = jnp.meshgrid(x, y, W[:3], indexing="ij", sparse=True)
    return X * Y + Z


def _cho_factor_then_solve(a, b):
    c = jsl.cho_factor(a)
    return jsl.cho_solve(c, b) + c[0][0]


def _scipy_cho_factor_then_solve(a, b):
    c = scipy.linalg.cho_factor(a, lower=True)
    return jsl.cho_solve(c, b)

# (primitive, function, args, in_axes)
ROWS = [
    ("solve_triangular", lambda a, b: jsl.solve_triangular(a, b, lower=True), [_tri(B), _x(B, 3)], 0),
    ("solve_triangular", lambda a, b: jsl.solve_triangular(a, b, trans=1, lower=True), [_tri(B), _x(3, 2)], (0, None)),
    ("solve_triangular", lambda a, b: jsl.solve_triangular(a, b), [_tri(1)[0].T, _x(3, B)], (None, 1)),
    ("solve_triangular", lambda a, b: jsl.solve_triangular(a, b, lower=True), [_tri(B), _x(3)], (0, None)),
    ("solve_triangular", lambda a, b: jsl.solve_triangular(a, b, lower=True), [_tri(B), _x(B, 3, 2)], 0),
    ("scipy_solve", lambda a, b: jsl.solve(a, b), [_spd(B), _x(B, 3)], 0),
    ("scipy_solve", lambda a, b: jsl.solve(a, b), [_spd(1)[0], _x(B, 3)], (None, 0)),
    ("scipy_solve", lambda a, b: jsl.solve(a, b), [np.moveaxis(_spd(B), 0, 2), _x(3, 2)], (2, None)),
    ("cho_solve", lambda c, b: jsl.cho_solve((c, True), b), [np.linalg.cholesky(_spd(B)), _x(B, 3)], 0),
    ("cho_solve", lambda c, b: jsl.cho_solve((c, False), b), [np.linalg.cholesky(_spd(B)).swapaxes(1, 2), _x(3)],
     (0, None)),
    ("cho_solve", lambda c, b: jsl.cho_solve((c, True), b), [np.linalg.cholesky(_spd(1)[0]), _x(B, 3)], (None, 0)),
    ("lu_solve", lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b), [_x(B, 3, 3) + 3 * np.eye(3), _x(B, 3)], 0),
    ("lu_solve", lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b, trans=1), [_x(B, 3, 3) + 3 * np.eye(3), _x(3, 2)],
     (0, None)),
    ("lu_solve", lambda a, b: jsl.lu_solve(jsl.lu_factor(a), b), [_x(3, 3) + 3 * np.eye(3), _x(B, 3)], (None, 0)),
    ("cho_factor", lambda a: jsl.cho_factor(a, lower=True)[0], [_spd(B)], 0),
    ("cho_factor", _cho_factor_then_solve, [_spd(B), _x(B, 3)], 0),
    ("scipy_cho_factor", _scipy_cho_factor_then_solve, [_spd(B), _x(3, 2)], (0, None)),
    ("tensorinv", lambda a: jnp.linalg.tensorinv(a, ind=1), [_x(B, 4, 2, 2) + 2 * np.eye(4).reshape(4, 2, 2)], 0),
    ("tensorinv", lambda a: jnp.linalg.tensorinv(a), [_x(B, 2, 3, 6) + 2 * np.eye(6).reshape(2, 3, 6)], 0),
    ("tensorsolve", lambda a, b: jnp.linalg.tensorsolve(a, b), [_tensor(B), _x(B, 2, 3)], 0),
    ("tensorsolve", lambda a, b: jnp.linalg.tensorsolve(a, b), [_tensor(B), _x(2, 3)], (0, None)),
    ("tensorsolve", lambda a, b: jnp.linalg.tensorsolve(a, b), [_tensor(), _x(2, 3, B)], (None, 2)),
    ("split", _split_two, [_x(B, 3, 4)], 0),
    ("split", _split_points, [_x(4, B, 2)], 1),
    ("array_split", _array_split_three, [_x(B, 2, 5)], 0),
    ("hsplit", _hsplit_matrix, [_x(B, 3, 4)], 0),
    ("hsplit", _hsplit_vector, [_x(B, 4)], 0),
    ("vsplit", _vsplit, [_x(B, 4, 3)], 0),
    ("dsplit", _dsplit, [_x(B, 2, 3, 4)], 0),
    ("convolve", lambda a, v: jnp.convolve(a, v), [_x(B, 5), _x(3)], (0, None)),
    ("convolve", lambda a, v: jnp.convolve(a, v, "same"), [_x(2), _x(4, B)], (None, 1)),
    ("convolve", lambda a, v: jnp.convolve(a, v, "valid"), [_x(B, 4), _x(B, 4)], 0),
    ("convolve", lambda a, v: jnp.convolve(a, v), [np.array([[1.0, np.inf, 2.0]] * B), _x(2)], (0, None)),
    ("correlate", lambda a, v: jnp.correlate(a, v), [_x(B, 5), _x(3) + 1j * _x(3)], (0, None)),
    ("correlate", lambda a, v: jnp.correlate(a, v, "same"), [_x(2), _x(B, 5)], (None, 0)),
    ("correlate", lambda a, v: jnp.correlate(a, v, "full"), [_x(B, 3), _x(B, 4)], 0),
    ("polymul", lambda a, b: jnp.polymul(a, b), [_x(B, 3), _x(2)], (0, None)),
    ("polyadd", lambda a, b: jnp.polyadd(a, b), [_x(B, 3), _x(5)], (0, None)),
    ("polysub", lambda a, b: jnp.polysub(a, b), [_x(B, 3), _x(B, 2)], 0),
    ("polysub", lambda a, b: jnp.polysub(a, b), [_x(2), _x(B, 4)], (None, 0)),
    ("select", lambda x: jnp.select([x > 0.5, x < -0.5], [x, -2.0 * x], 7.0), [_x(B, 4)], 0),
    ("select", lambda x, d: jnp.select([x > 0.5, W > 0], [x, W], d), [_x(4, B), 1.5], (1, None)),
    ("select", lambda s, x: jnp.select([s > 0], [x], 0.0), [_x(B), _x(B, 4)], 0),
    ("choose", lambda a, x: jnp.choose(a, [x, -x, W]), [RNG.integers(0, 3, size=(B, 4)), _x(B, 4)], 0),
    ("choose", lambda a, x: jnp.choose(a, [x, -x, W]), [RNG.integers(0, 3, size=(4,)), _x(B, 4)], (None, 0)),
    ("choose", _choose_from_a_list_name, [RNG.integers(0, 2, size=(B, 4)), _x(B, 4)], 0),
    ("compress", lambda x: jnp.compress(np.array([True, False, True]), x, axis=1), [_x(B, 2, 3)], 0),
    ("compress", lambda x: jnp.compress(np.array([1, 0, 1, 1, 0]), x), [_x(2, B, 3)], 1),
    ("extract", lambda x: jnp.extract(np.array([[1, 0], [2, 0]]), x), [_x(B, 2, 2)], 0),
    ("meshgrid", _grid_xy, [_x(B, 4), _x(B, 2)], 0),
    ("meshgrid", _grid_ij_sparse, [_x(B, 4), _x(2)], (0, None)),
    ("meshgrid", _grid_xy, [_x(4), _x(2, B)], (None, 1)),
    ("cov", lambda m: jnp.cov(m), [_x(B, 3, 5)], 0),
    ("cov", lambda m: jnp.cov(m, rowvar=False, bias=True), [_x(5, 2, B)], 2),
    ("cov", lambda m: jnp.cov(m, ddof=2), [_x(B, 6)], 0),
    ("cov", lambda m: jnp.cov(m), [RNG.integers(0, 5, size=(B, 1, 4))], 0),
    ("corrcoef", lambda m: jnp.corrcoef(m), [_x(B, 3, 5)], 0),
    ("corrcoef", lambda m: jnp.corrcoef(m, rowvar=False), [_x(5, 2, B)], 2),
    ("corrcoef", lambda m: jnp.corrcoef(m), [_x(B, 2, 4) + 1j * _x(B, 2, 4)], 0),
    ("corrcoef", lambda m: jnp.corrcoef(m), [np.array([[[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]]] * B)], 0),
    # the adjoint helpers per-example gradients reach (called directly: each argument batched or not)
    ("cumsum_adjoint", lambda g, a: H.cumsum_adjoint(g, a, 1), [_x(B, 2, 3), _x(2, 3)], (0, None)),
    ("cumsum_adjoint", lambda g, a: H.cumsum_adjoint(g, a), [_x(B, 6), _x(B, 2, 3)], 0),
    ("trace_adjoint", lambda g, a: H.trace_adjoint(g, a, 1, 0, 2), [_x(B, 3), _x(B, 4, 3, 4)], 0),
    ("repeat_adjoint", lambda g, a: H.repeat_adjoint(g, a, 2, 0), [_x(4, 3, B), _x(2, 3)], (2, None)),
    ("repeat_adjoint", lambda g, a: H.repeat_adjoint(g, a, np.array([1, 0, 2, 1])), [_x(B, 4), _x(B, 2, 2)], 0),
    ("take_adjoint", lambda g, a: H.take_adjoint(g, a, np.array([0, 2, 2]), 1), [_x(B, 2, 3), _x(2, 4)], (0, None)),
    ("take_adjoint", lambda g, a: H.take_adjoint(g, a, np.array([[5, 0], [7, 7]])), [_x(B, 2, 2), _x(B, 2, 4)], 0),
    ("take_along_axis_adjoint", lambda g, a, i: SH.take_along_axis_adjoint(g, a, i, 1),
     [_x(B, 2, 2), _x(B, 2, 3), RNG.integers(0, 3, size=(B, 2, 2))], 0),
    ("take_along_axis_adjoint", lambda g, a, i: SH.take_along_axis_adjoint(g, a, i, -1),
     [_x(B, 2, 2), _x(2, 3), RNG.integers(0, 3, size=(2, 2))], (0, None, None)),
    ("take_along_axis_adjoint", lambda g, a, i: SH.take_along_axis_adjoint(g, a, i, None),
     [_x(B, 4), _x(2, 3), RNG.integers(0, 6, size=(4,))], (0, None, None)),
    ("stack_part", lambda g: H.stack_part(g, 1, 1), [_x(B, 2, 3, 2)], 0),
    ("stack_part", lambda g: H.stack_part(g, 0, -1), [_x(2, 3, B)], 2),
    ("sort_order", lambda a: SH.sort_order(a, 0, True), [np.round(_x(B, 4, 2))], 0),
    ("extremum_mask", lambda a, y: H.extremum_mask(a, y, 1), [np.round(_x(B, 2, 4)), np.ones((B, 2))], 0),
    ("extremum_mask", lambda a: H.extremum_mask(a, jnp.max(a)), [np.round(_x(B, 2, 4))], 0),
    ("pad_adjoint", lambda g: H.pad_adjoint(g, ((1, 0), (0, 2))), [_x(B, 3, 4)], 0),
    ("pad_adjoint", lambda g: H.pad_adjoint(g, 1, "reflect"), [_x(B, 5, 4)], 0),
    ("concatenate_part", lambda g: H.concatenate_part(g, [np.ones((2, 2)), np.ones((2, 3))], 1, 1), [_x(B, 2, 5)], 0),
    ("dynamic_slice_adjoint", lambda g, a: H.dynamic_slice_adjoint(g, a, (1, 0)), [_x(B, 2, 2), _x(4, 3)], (0, None)),
    ("diagonal_adjoint", lambda g, a: H.diagonal_adjoint(g, a, 1, 0, 2), [_x(B, 3, 3), _x(B, 4, 3, 4)], 0),
    ("diagonal_adjoint", lambda g, a: H.diagonal_adjoint(g, a), [_x(B, 3), _x(3, 4)], (0, None)),
    ("stack_part_adjoint", lambda p, g: H.stack_part_adjoint(p, g, 1, 1), [_x(B, 2, 2), _x(2, 3, 2)], (0, None)),
    ("concatenate_part_adjoint", lambda p, g: H.concatenate_part_adjoint(p, g, [np.ones(2), np.ones(3)], 0, -1),
     [_x(B, 2), _x(B, 5)], 0),
    ("concatenate_part_adjoint",
     lambda p, g: H.concatenate_part_adjoint(p, g, [np.ones((2, 2)), np.ones((2, 3))], 1, 1),
     [_x(B, 2, 3), _x(B, 2, 5)], 0),
    ("index_adjoint_part", lambda g, x: H.index_adjoint_part(g, x, (0, slice(1, 3))), [_x(B, 3, 4), _x(B, 3, 4)], 0),
    ("index_adjoint_part", lambda g, x: H.index_adjoint_part(g, x, (0, slice(None), np.array([0, 1]))),
     [_x(B, 2, 3, 4), _x(2, 3, 4)], (0, None)),
    ("cleared_at", lambda g, x: H.cleared_at(g, x, (1, 2)), [_x(B, 3, 4), _x(3, 4)], (0, None)),
    ("cleared_at", lambda x: H.cleared_at(0.5, x, 1), [_x(B, 3, 4)], 0),
    ("cleared_at", lambda g, x: H.cleared_at(g, x, (0, slice(None), [1, 3])), [_x(B, 2, 3, 4), _x(B, 2, 3, 4)], 0),
    ("unbroadcast_to", lambda g: H.unbroadcast_to(g, (1, 3)), [_x(B, 4, 2, 3)], 0),
    ("unbroadcast_to", lambda g: H.unbroadcast_to(g, (3,)), [_x(4, 3, B)], 2),
    ("lax_reshape_adjoint", lambda g: LS.reshape_adjoint(g, (2, 3)), [_x(B, 6)], 0),
    ("lax_broadcast_in_dim_adjoint", lambda g: LS.broadcast_in_dim_adjoint(g, (3, 1), (1, 2)), [_x(B, 2, 3, 4)], 0),
]


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_leaves_no_loop(row):
    assert_rule_batches_without_a_loop(*ROWS[row], rtol=1e-9)


def test_every_declared_primitive_has_a_row():
    declared = (set(SOLVES) | set(SPLITS) | set(ADJOINT_SHIFTS) | set(OTHERS) | set(SIGNAL) | set(CHOICES)) - {
        "split_items", "split_parts"}
    assert declared <= {r[0] for r in ROWS}        # split_items, split_parts: by the gradients below


def _tri(x):
    a = jnp.tril(x) + 3.0 * jnp.eye(3)
    return jnp.sum(jsl.solve_triangular(a, x[0], lower=True) ** 2)


def _cho(x):
    c = jsl.cho_factor(x @ x.T + 3.0 * jnp.eye(3), lower=True)
    return jnp.sum(jsl.cho_solve(c, x[1]) ** 2)


def _lu(x):
    f = jsl.lu_factor(x + 3.0 * jnp.eye(3))
    return jnp.sum(jsl.lu_solve(f, x[2]) ** 2) + jnp.sum(jnp.linalg.tensorinv(x + 3.0 * jnp.eye(3), ind=1)) + jnp.sum(
        jnp.linalg.tensorsolve(x + 3.0 * jnp.eye(3), x[0]) ** 2)


def _split_and_gather(x):
    p = jnp.hsplit(x, [1])
    y = jnp.take(x, jnp.array([0, 2, 2]), axis=1) + jnp.cumsum(x, axis=0) + jnp.stack([x[0], x[2], x[1]], axis=1)
    return jnp.sum(p[0] * 2.0) + jnp.sum(p[1] ** 2) + jnp.sum(y ** 2) + jnp.trace(x) ** 2 + jnp.sum(
        jnp.repeat(x, 2, axis=0) ** 3) + jnp.sum(jnp.pad(x, 1) * jnp.sort(jnp.pad(x, 1), axis=1))


def _signal(x):
    k = jnp.array([0.5, -1.0])
    X, Y = jnp.meshgrid(x[0], k)
    return jnp.sum(X * Y ** 2) + jnp.sum(jnp.convolve(x[0], k, "same") ** 2) + jnp.sum(
        jnp.correlate(x[1], x[2], "full") ** 2) + jnp.sum(jnp.polyadd(x[0], k) * jnp.polymul(x[1], k)[:3])


def _chosen(x):
    kept = jnp.compress(np.array([True, False, True]), x, axis=1)
    return jnp.sum(jnp.cov(x) ** 2) + jnp.sum(jnp.corrcoef(x) ** 3) + jnp.sum(kept ** 2) + jnp.sum(jnp.extract(np.eye(3) > 0, x) ** 3) + jnp.sum(
        jnp.compress(np.array([0, 1, 1]), x) * 2.0)


def _extrema(x):
    return jnp.sum(x.at[0, 1].set(3.0) ** 2) + jnp.sum(lax.dynamic_slice(x, (1, 0), (2, 2)) ** 2) + jnp.sum(
        jnp.max(x, axis=0) ** 2) + jnp.sum(jnp.sort(x, axis=1)[:, 0] * jnp.concatenate([x[0], x[1]])[:3])


GRADIENTS = [_tri, _cho, _lu, _split_and_gather, _extrema, _signal, _chosen]


@pytest.mark.parametrize("f", GRADIENTS if os.environ.get("ASTJAX_LONG_PROPERTIES") else [
    _tri, _split_and_gather, _extrema, _signal, _chosen])
def test_per_example_gradients_match_a_loop_of_grads(f):
    """vmap(grad(f)) against a loop of grads (through the rules of the adjoint helpers; the solves' whole
    gradients with ASTJAX_LONG_PROPERTIES=1)."""
    g = astjax.grad(f)
    xs = _x(B, 3, 3)
    np.testing.assert_allclose(astjax.vmap(g)(xs), np.stack([g(x) for x in xs]), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("f", GRADIENTS if os.environ.get("ASTJAX_LONG_PROPERTIES") else [_lu, _signal])
def test_grad_of_vmap_matches_a_loop_of_grads(f):
    """grad of the vmapped function: the solves', splits' and signal rules' output transformed again (all of
    them with ASTJAX_LONG_PROPERTIES=1)."""
    g = astjax.grad(f)
    xs = _x(B, 3, 3)
    np.testing.assert_allclose(astjax.grad(lambda xs: jnp.sum(astjax.vmap(f)(xs)))(xs), np.stack([g(x) for x in xs]),
                               rtol=1e-9, atol=1e-12)


def test_the_adjoint_helpers_of_per_example_gradients_leave_no_loop():
    source = ""
    for f in (_split_and_gather, _extrema):
        g = astjax.vmap(astjax.grad(f))
        g(_x(B, 3, 3))
        source += astjax.source(g)
    for helper in ("take_adjoint", "cumsum_adjoint", "stack_part", "trace_adjoint", "repeat_adjoint", "pad_adjoint",
                   "sort_order", "take_along_axis_adjoint", "cleared_at", "dynamic_slice_adjoint"):
        assert f"append({helper}(" not in source, (helper, source)


# ---------------------------------------------------------------- the three crashes
def _advanced_read(x):
    return x[0, :, [0, 1]] + 2.0 * x[[1, 0], :, [[1], [2]]][0]


def _advanced_write(x, v):
    return x.at[0, :, [0, 1]].set(v) + x.at[[1, 0], :, [3, 3]].add(1.0)


def _advanced_named(x, i):
    return x[i, :, 2] + jnp.sum(x[1, :, jnp.array([0, 3])], axis=0)


def test_advanced_indices_separated_by_a_slice_batch_as_numpy_orders_them():
    """NumPy puts the axes of array parts separated by a slice first: the batch axis joins them as an
    advanced index, so reads and `.at[]` writes stay batch-first, against a loop."""
    xs, vs = _x(B, 2, 3, 4), _x(B, 2, 3)
    read = astjax.vmap(_advanced_read)
    np.testing.assert_allclose(read(xs), np.stack([_advanced_read(x) for x in xs]))
    np.testing.assert_allclose(astjax.vmap(_advanced_read, in_axes=2)(np.moveaxis(xs, 0, 2)), read(xs))
    write = astjax.vmap(_advanced_write)
    np.testing.assert_allclose(write(xs, vs), np.stack([_advanced_write(jnp.asarray(x), v) for x, v in zip(xs, vs)]))
    np.testing.assert_allclose(astjax.vmap(_advanced_write, in_axes=(0, None))(xs, vs[0]),
                               np.stack([_advanced_write(jnp.asarray(x), vs[0]) for x in xs]))
    ii = np.array([1, 0, 1])
    np.testing.assert_allclose(astjax.vmap(_advanced_named)(xs, ii),
                               np.stack([_advanced_named(x, i) for x, i in zip(xs, ii)]))
    g = astjax.grad(lambda x: jnp.sum(_advanced_read(x) ** 2))
    np.testing.assert_allclose(astjax.vmap(g)(xs), np.stack([g(x) for x in xs]))
    assert "_results" not in astjax.source(read)


def _heavy_tails(x):
    return jnp.sum(jst.pareto.logpdf(x + 3.0, 2.5, 0.0, 1.0) + jst.pareto.cdf(x + 3.0, 2.5))


def test_a_number_passed_to_a_callee_that_reassigns_it_batched():
    """pareto.logpdf(x, b, loc, scale=1.0) assigns `scale` a batched value: the callee repeats the number
    along the batch on entry (it crashed in inexact_zero)."""
    xs = _x(B, 4)
    np.testing.assert_allclose(astjax.vmap(_heavy_tails)(xs), np.stack([_heavy_tails(x) for x in xs]))
    g = astjax.grad(_heavy_tails)
    np.testing.assert_allclose(astjax.vmap(g)(xs), np.stack([g(x) for x in xs]))


def _qr_raw(a):
    h, tau = jnp.linalg.qr(a, mode="raw")
    return jnp.sum(h * 2.0) + jnp.sum(tau)


def test_qr_raw_returns_lapack_h_and_tau_as_jax_and_batches():
    a = _x(4, 3)
    h, tau = jnp.linalg.qr(a, mode="raw")
    nh, ntau = np.linalg.qr(a, mode="raw")       # JAX's raw mode gives NumPy's (h, tau): h is (n, m)
    np.testing.assert_allclose(h, nh)
    np.testing.assert_allclose(tau, ntau)
    xs = _x(B, 4, 3)
    np.testing.assert_allclose(astjax.vmap(_qr_raw)(xs), np.stack([_qr_raw(x) for x in xs]))
    with pytest.raises(AstjaxError, match="raw"):
        astjax.grad(_qr_raw)(a)


def summed_cov_of_a_pair(m, y):
    return jnp.sum(jnp.cov(m, y)) + jnp.sum(jnp.corrcoef(m, y))


def test_a_second_data_argument_is_not_dropped_by_the_stacked_covariance():
    """The rule table names cov's second data argument `y2`: the stacked rule once looked for `y`, took the
    pair for m alone and, summed, gave a silently wrong number. It loops over the batch for a pair."""
    rng = np.random.default_rng(7)
    m, y = rng.normal(size=(3, 2, 5)), rng.normal(size=(3, 2, 5))
    got = astjax.vmap(summed_cov_of_a_pair)(m, y)
    np.testing.assert_allclose(got, [summed_cov_of_a_pair(m[b], y[b]) for b in range(3)], rtol=1e-12)
