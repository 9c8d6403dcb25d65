"""vmap's batching rules declared by what a primitive does with axes (astjax/rules/batching_axes.py): tuple-valued
linalg over a stack, one array with an axis, and lax's and NumPy's structural primitives. One row per primitive
and argument combination (batched or not, batch axis not at 0): the batched call equals a Python loop over the
batch calling the unbatched function, and the generated source has no loop over the batch left. A few
gradients (vmap(grad)) against a loop of grads. Reference backend only; small shapes."""
import types

import numpy as np
import pytest
import scipy.linalg

import astjax
import astjax.lax as lax
import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
import astjax.scipy.special as jss
from astjax.rules.batching_axes import AXIS_SHIFTS, STACKED_TUPLES, STRUCTURAL
from astjax.rules.registry import PRIMITIVES

from batch_loops import assert_rule_batches_without_a_loop

RNG = np.random.default_rng(5)
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _spd(*lead, n=3):
    a = RNG.normal(size=lead + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


W = _x(4)          # an unbatched array read by some functions
M = _x(4, 5)
Q = np.array([10.0, 50.0, 90.0])

# (primitive, function, args, in_axes)
ROWS = [
    ("eigh", lambda a: jnp.linalg.eigh(a)[0] + jnp.sum(jnp.abs(jnp.linalg.eigh(a)[1]), axis=0), [_spd(B)], 0),
    ("numpy_eigh", lambda a: np.linalg.eigh(a)[0], [_spd(B)], 0),
    ("scipy_eigh", lambda a: jsl.eigh(a)[0], [_spd(B)], 0),
    ("svd", lambda a: jnp.linalg.svd(a)[1], [_x(B, 3, 4)], 0),
    ("svd", lambda a: jnp.linalg.svd(a, compute_uv=False), [_x(3, 4, B)], 2),
    ("qr", lambda a: jnp.abs(jnp.linalg.qr(a)[1]), [_x(B, 4, 3)], 0),
    ("slogdet", lambda a: jnp.linalg.slogdet(a)[1], [_spd(B)], 0),
    ("lu", lambda a: jsl.lu(a)[2], [_x(B, 3, 3)], 0),
    ("lu_factor", lambda a: jsl.lu_factor(a)[0], [_x(B, 3, 3)], 0),
    ("roll", lambda x: jnp.roll(x, 2, axis=1), [_x(B, 4, 5)], 0),
    ("roll", lambda x: jnp.roll(x, 3), [_x(4, B, 5)], 1),
    ("roll", lambda x: jnp.roll(x, (1, 2), axis=(0, -1)), [_x(B, 4, 5)], 0),
    ("rot90", lambda x: jnp.rot90(x), [_x(B, 4, 5)], 0),
    ("rot90", lambda x: jnp.rot90(x, 3, axes=(1, 2)), [_x(B, 2, 3, 4)], 0),
    ("fliplr", lambda x: jnp.fliplr(x), [_x(B, 4, 5)], 0),
    ("flipud", lambda x: jnp.flipud(x), [_x(4, 5, B)], -1),
    ("diff", lambda x: jnp.diff(x, 2), [_x(B, 4, 5)], 0),
    ("diff", lambda x: jnp.diff(x, axis=0, prepend=0.5), [_x(B, 4, 5)], 0),
    ("repeat", lambda x: jnp.repeat(x, 2, axis=0), [_x(B, 3, 2)], 0),
    ("repeat", lambda x: jnp.repeat(x, 2), [_x(B, 3, 2)], 0),
    ("cumulative_sum", lambda x: jnp.cumulative_sum(x, axis=1), [_x(B, 3, 4)], 0),
    ("cumulative_sum", lambda x: jnp.cumulative_sum(x, include_initial=True), [_x(B, 4)], 0),
    ("cumulative_prod", lambda x: jnp.cumulative_prod(x, axis=0), [_x(B, 3, 4)], 0),
    ("logsumexp", lambda x: jss.logsumexp(x), [_x(B, 3, 4)], 0),
    ("logsumexp", lambda x: jss.logsumexp(x, axis=-1, keepdims=True), [_x(3, B, 4)], 1),
    ("logsumexp", lambda x, b: jss.logsumexp(x, axis=0, b=b), [_x(B, 4, 2), np.abs(_x(B, 2))], 0),
    ("logsumexp", lambda x, b: jss.logsumexp(x, b=b), [_x(B, 4), W], (0, None)),
    ("log_softmax", lambda x: jss.log_softmax(x, axis=0), [_x(B, 3, 4)], 0),
    ("log_softmax", lambda x: jss.log_softmax(x), [_x(B, 3, 4)], 0),
    ("softmax", lambda x: jss.softmax(x), [_x(B, 3, 4)], 0),
    ("norm", lambda x: jnp.linalg.norm(x), [_x(B, 3, 4)], 0),
    ("norm", lambda x: jnp.linalg.norm(x, ord=1), [_x(B, 3, 4)], 0),
    ("norm", lambda x: jnp.linalg.norm(x, ord=3, axis=-1), [_x(B, 3, 4)], 0),
    ("norm", lambda x: jnp.linalg.norm(x, ord=np.inf), [_x(B, 4)], 0),
    ("percentile", lambda x: jnp.percentile(x, 30.0, axis=1), [_x(B, 3, 5)], 0),
    ("percentile", lambda x: jnp.percentile(x, Q), [_x(B, 3, 5)], 0),
    ("quantile", lambda x: jnp.quantile(x, Q / 100.0, axis=0, keepdims=True), [_x(3, 5, B)], 2),
    ("nanpercentile", lambda x: jnp.nanpercentile(x, 40.0), [_x(B, 6)], 0),
    ("nanquantile", lambda x: jnp.nanquantile(x, Q / 100.0, axis=-1), [_x(B, 2, 6)], 0),
    ("average", lambda x: jnp.average(x, axis=1), [_x(B, 4, 5)], 0),
    ("average", lambda x: jnp.average(x, weights=M), [_x(B, 4, 5)], 0),
    ("average", lambda x: jnp.average(x, axis=0, weights=W), [_x(B, 4, 5)], 0),
    ("average", lambda x, w: jnp.average(x, axis=1, weights=w), [_x(B, 4, 5), np.abs(_x(B, 4, 5))], 0),
    ("cross", lambda a, b: jnp.cross(a, b), [_x(B, 3), _x(B, 4, 3)], 0),
    ("cross", lambda a, b: jnp.cross(a, b, axisa=0, axisb=1), [_x(3, 2, B), _x(2, 3)], (2, None)),
    ("lax_sort", lambda x: lax.sort(x), [_x(B, 3, 4)], 0),
    ("lax_sort", lambda x: lax.sort(x, dimension=0), [_x(B, 3, 4)], 0),
    ("lax_cumsum", lambda x: lax.cumsum(x), [_x(B, 3, 4)], 0),
    ("lax_cumprod", lambda x: lax.cumprod(x, axis=1, reverse=True), [_x(B, 3, 4)], 0),
    ("lax_cummax", lambda x: lax.cummax(x, axis=-1), [_x(B, 3, 4)], 0),
    ("lax_cummin", lambda x: lax.cummin(x), [_x(3, B, 4)], 1),
    ("lax_rev", lambda x: lax.rev(x, (0, 1)), [_x(B, 3, 4)], 0),
    ("diagonal", lambda x: jnp.diagonal(x), [_x(B, 4, 5)], 0),
    ("diagonal", lambda x: jnp.diagonal(x, 1, axis1=2, axis2=0), [_x(B, 4, 5, 3)], 0),
    ("diag", lambda x: jnp.diag(x), [_x(B, 4, 5)], 0),
    ("diag", lambda x: jnp.diag(x), [_x(B, 4)], 0),
    ("diag", lambda x: jnp.diag(x, -2), [_x(4, B)], 1),
    ("diag", lambda x: jnp.diag(x, 1), [np.array([[1.0, np.inf], [np.nan, 2.0], [3.0, -np.inf]])], 0),
    ("diagflat", lambda x: jnp.diagflat(x, 1), [_x(B, 2, 2)], 0),
    ("atleast_1d", lambda x: jnp.atleast_1d(x) * 2.0, [_x(B)], 0),
    ("atleast_2d", lambda x: jnp.atleast_2d(x) + M[:1, :4], [_x(B, 4)], 0),
    ("atleast_3d", lambda x: jnp.atleast_3d(x), [_x(B, 4, 2)], 0),
    ("atleast_3d", lambda x: jnp.atleast_3d(x), [_x(B, 4)], 0),
    ("pad", lambda x: jnp.pad(x, 1), [_x(B, 2, 3)], 0),
    ("pad", lambda x: jnp.pad(x, ((1, 0), (0, 2)), constant_values=7.0), [_x(B, 2, 3)], 0),
    ("pad", lambda x: jnp.pad(x, (2, 1), mode="reflect"), [_x(2, 3, B)], 2),
    ("lax_pad", lambda x: lax.pad(x, 0.5, ((1, 0, 1), (0, 2, 0))), [_x(B, 2, 3)], 0),
    ("lax_slice", lambda x: lax.slice(x, (0, 1), (2, 3)), [_x(B, 3, 4)], 0),
    ("lax_slice", lambda x: lax.slice(x, (0, 1), (3, 4), (2, 2)), [_x(3, 4, B)], 2),
    ("lax_transpose", lambda x: lax.transpose(x, (2, 0, 1)), [_x(B, 2, 3, 4)], 0),
    ("lax_reshape", lambda x: lax.reshape(x, (4, 3)), [_x(B, 3, 4)], 0),
    ("lax_squeeze", lambda x: lax.squeeze(x, (1,)), [_x(B, 3, 1)], 0),
    ("lax_expand_dims", lambda x: lax.expand_dims(x, (0, 2)), [_x(B, 3, 4)], 0),
    ("lax_broadcast_in_dim", lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), [_x(B, 3, 4)], 0),
    ("lax_concatenate", lambda x: lax.concatenate([x, M[:3, :2]], 1), [_x(B, 3, 4)], 0),
    ("lax_select", lambda p, x: lax.select(p > 0, x, -x), [_x(B), _x(B, 3)], 0),
    ("lax_select", lambda x: lax.select(x > 0, x, M[0, :4]), [_x(B, 4)], 0),
    ("lax_clamp", lambda x: lax.clamp(-0.5, x, 0.5), [_x(B, 4)], 0),
    ("lax_clamp", lambda lo, x: lax.clamp(lo, x, 2.0), [_x(B), _x(4)], (0, None)),
    ("lax_div", lambda x, y: lax.div(x, y), [np.arange(-6, 6).reshape(B, 4), np.array([3, -2, 5, 4])], (0, None)),
    ("lax_rem", lambda x, y: lax.rem(x, y), [np.arange(-6, 6).reshape(B, 4), np.arange(1, 4)], 0),
    ("lax_dynamic_slice_in_dim", lambda x: lax.dynamic_slice_in_dim(x, 1, 2, axis=1), [_x(B, 3, 4)], 0),
    ("lax_dynamic_update_slice", lambda x, u: lax.dynamic_update_slice(x, u, (1, 0)), [_x(B, 3, 4), _x(B, 2, 4)], 0),
    ("lax_dynamic_update_slice", lambda u: lax.dynamic_update_slice(M, u, (1, 2)), [_x(B, 2, 2)], 0),
    ("lax_dynamic_update_slice", lambda x, u: lax.dynamic_update_slice(x, u, (1, 2)), [_x(3, 4), _x(B, 2, 2)],
     (None, 0)),
    ("lax_dot_general", lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))), [_x(B, 3, 4), _x(4, 2)],
     (0, None)),
    ("lax_dot_general", lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))), [_x(3, 4), _x(4, B, 2)],
     (None, 1)),
    ("lax_dot_general", lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
     [_x(B, 2, 3, 4), _x(B, 2, 4, 5)], 0),
    ("lax_dot_general", lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))),
     [_x(2, 3, 4), _x(B, 2, 4, 5)], (None, 0)),
    ("kron", lambda a, b: jnp.kron(a, b), [_x(B, 2, 3), _x(B, 3, 2)], 0),
    ("kron", lambda a, b: jnp.kron(a, b), [_x(B, 2), _x(2, 3)], (0, None)),
    ("kron", lambda a: jnp.kron(M[:2, :2], a), [_x(B, 3)], 0),
    ("lax_dot_general", lambda a: lax.dot_general(a, M, (((1,), (0,)), ((), ()))), [_x(B, 2, 4)], 0),
    ("kron", lambda a, b: jnp.kron(a, b), [_x(2, 3), _x(B, 4)], (None, 0)),
    ("full", lambda v: jnp.full((2, 3), v), [_x(B)], 0),
    ("full", lambda v: jnp.full((2, 3), v), [_x(B, 3)], 0),
    ("linspace", lambda a: jnp.linspace(a, 2.0, 5), [_x(B)], 0),
    ("linspace", lambda a, b: jnp.linspace(a, b, 4, axis=-1), [_x(B), _x(B, 2)], 0),
    ("linspace", lambda a: jnp.linspace(a, W[:2], 3, axis=1, endpoint=False), [_x(B, 2)], 0),
    ("geomspace", lambda a: jnp.geomspace(a, 5.0, 4), [np.abs(_x(B)) + 0.5], 0),
    ("logspace", lambda a, b: jnp.logspace(a, b, 3, base=2.0, axis=-1), [_x(B), _x(2)], (0, None)),
    ("lax_slice_in_dim", lambda x: lax.slice_in_dim(x, 1, 4, 2, axis=1), [_x(B, 3, 5)], 0),
    ("lax_index_in_dim", lambda x: lax.index_in_dim(x, 2, axis=-1, keepdims=False), [_x(B, 3, 5)], 0),
    ("lax_dynamic_index_in_dim", lambda x: lax.dynamic_index_in_dim(x, 1), [_x(3, B, 5)], 1),
    ("lax_dynamic_update_slice_in_dim", lambda x, u: lax.dynamic_update_slice_in_dim(x, u, 1, axis=1),
     [_x(B, 3, 5), _x(3, 2)], (0, None)),
    ("lax_stop_gradient", lambda x: lax.stop_gradient(x) * x, [_x(B, 3)], 0),
    ("sort", lambda x: jnp.sort(x, axis=0), [_x(B, 4, 3)], 0),
    ("sort", lambda x: jnp.sort(x, axis=None), [_x(B, 4, 3)], 0),
    ("argsort", lambda x: jnp.argsort(x, axis=None), [_x(B, 4, 3)], 0),
    ("partition", lambda x: jnp.partition(x, 2)[..., 2], [_x(B, 3, 5)], 0),
    ("trace", lambda x: jnp.trace(x, 1), [_x(B, 4, 4)], 0),
    ("trace", lambda x: jnp.trace(x, axis1=1, axis2=2), [_x(3, 4, 4, B)], 3),
    ("take", lambda x: jnp.take(x, np.array([[0, 2], [1, 1]]), axis=1), [_x(B, 3, 4)], 0),
    ("take", lambda x: jnp.take(x, np.array([5, 0, 7])), [_x(B, 3, 4)], 0),
    ("take_along_axis", lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=1), axis=1), [_x(B, 3, 4)], 0),
    ("take_along_axis", lambda i: jnp.take_along_axis(M, i, axis=0), [RNG.integers(0, 4, size=(B, 2, 5))], 0),
    ("rollaxis", lambda x: jnp.rollaxis(x, 2, 0), [_x(B, 2, 3, 4)], 0),
    ("rollaxis", lambda x: jnp.rollaxis(x, 0, -1), [_x(B, 2, 3, 4)], 0),
    ("permute_dims", lambda x: jnp.permute_dims(x, (1, 2, 0)), [_x(B, 2, 3, 4)], 0),
    ("permute_dims", lambda x: jnp.permute_dims(x), [_x(B, 2, 3, 4)], 0),
    ("tile", lambda x: jnp.tile(x, (2, 1, 2)), [_x(B, 3)], 0),
    ("tile", lambda x: jnp.tile(x, 2), [_x(B, 2, 3)], 0),
    ("tril", lambda x: jnp.tril(x, -1), [_x(B, 3, 4)], 0),
    ("triu", lambda x: jnp.triu(x), [_x(B, 2, 3, 3)], 0),
    ("matrix_transpose", lambda x: jnp.matrix_transpose(x), [_x(B, 2, 3, 4)], 0),
    ("svdvals", lambda x: jnp.linalg.svdvals(x), [_x(B, 3, 4)], 0),
    ("vector_norm", lambda x: jnp.linalg.vector_norm(x), [_x(B, 3, 4)], 0),
    ("vector_norm", lambda x: jnp.linalg.vector_norm(x, axis=0, ord=1), [_x(B, 3, 4)], 0),
    ("fftshift", lambda x: jnp.fft.fftshift(x), [_x(B, 3, 4)], 0),
    ("ifftshift", lambda x: jnp.fft.ifftshift(x, axes=1), [_x(B, 3, 5)], 0),
    ("unwrap", lambda x: jnp.unwrap(x * 4.0, axis=0), [_x(B, 5, 2)], 0),
    ("matvec", lambda a, v: jnp.matvec(a, v), [_x(B, 2, 3, 4), _x(B, 4)], 0),
    ("matvec", lambda a, v: jnp.matvec(a, v), [_x(3, 4), _x(B, 4)], (None, 0)),
    ("vecmat", lambda v, a: jnp.vecmat(v, a), [_x(B, 3), _x(B, 2, 3, 4)], 0),
    ("vecdot", lambda v, w: jnp.vecdot(v, w), [_x(B, 4), _x(B, 2, 4)], 0),
    ("vecdot", lambda v, w: jnp.vecdot(v, w, axis=-2), [_x(B, 4, 2), _x(4, 2)], (0, None)),
    ("solve", lambda a, b: jnp.linalg.solve(a, b), [_spd(B), _x(B, 3)], 0),
    ("solve", lambda a, b: jnp.linalg.solve(a, b), [_spd(1)[0], _x(B, 3)], (None, 0)),
    ("solve", lambda a, b: jnp.linalg.solve(a, b), [_spd(B), _x(3)], (0, None)),
    ("solve", lambda a, b: jnp.linalg.solve(a, b), [_spd(B, 2), _x(B, 3, 2)], 0),
    ("interp", lambda x: jnp.interp(x, np.array([-1.0, 0.0, 2.0]), np.array([0.0, 1.0, -1.0])), [_x(B, 4)], 0),
    ("polyval", lambda p, x: jnp.polyval(p, x), [W, _x(B, 3)], (None, 0)),
    ("modf", lambda x: jnp.modf(x * 3.0)[0] + jnp.modf(x * 3.0)[1], [_x(B, 3)], 0),
    ("frexp", lambda x: jnp.frexp(x)[0], [_x(B, 3)], 0),
    ("divmod", lambda x, y: jnp.divmod(x, y)[1], [_x(B, 3), np.abs(_x(3)) + 0.5], (0, None)),
    ("angle", lambda x: jnp.angle(x + 1j * x[::-1], deg=True), [_x(B, 3)], 0),
    ("cast_float32", lambda x: np.float32(x) * 2.0, [_x(B, 3)], 0),
    ("cast_float64", lambda x: np.float64(x) * 2.0, [_x(B, 3)], 0),
    ("asanyarray", lambda x: jnp.asanyarray(x), [_x(B, 3)], 0),
    ("ascontiguousarray", lambda x: jnp.ascontiguousarray(x.T), [_x(B, 3, 2)], 0),
    ("asarray_chkfinite", lambda x: jnp.asarray_chkfinite(x), [_x(B, 3)], 0),
    ("array", lambda x: jnp.array(x, dtype=np.float32), [_x(B, 3)], 0),
    ("trapezoid", lambda y: jnp.trapezoid(y, axis=0), [_x(B, 4, 3)], 0),
    ("trapezoid", lambda y, p: jnp.trapezoid(y, p), [_x(B, 4, 3), np.array([0.0, 0.5, 2.0])], (0, None)),
    ("tensordot", lambda a: jnp.tensordot(a, M, 1), [_x(B, 2, 4)], 0),
    ("tensordot", lambda b: jnp.tensordot(M, b, axes=([0], [1])), [_x(B, 2, 4)], 0),
    ("tensordot", lambda a, b: jnp.tensordot(a, b, axes=((0, 1), (1, 0))), [_x(3, 4, 2), _x(B, 4, 3, 5)],
     (None, 0)),
    ("vdot", lambda a, b: jnp.vdot(a, b), [_x(B, 2, 3), _x(B, 6)], 0),
    ("vdot", lambda a: jnp.vdot(a, M[:2]), [_x(B, 2, 5) + 1j * _x(B, 2, 5)], 0),
]


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_leaves_no_loop(row):
    assert_rule_batches_without_a_loop(*ROWS[row], rtol=1e-10)


def test_every_declared_primitive_has_a_row():
    declared = set(STACKED_TUPLES) | set(AXIS_SHIFTS) | set(STRUCTURAL) | {"norm", "cross"}
    assert declared <= {r[0] for r in ROWS}


def test_trapezoid_with_points_of_several_dimensions_or_unknown_rank_loops_and_stays_right():
    """n-D sample points are differenced along the axis of their own shape: the shifted axis would misread
    them (with points of shape (2, 2) the shapes even broadcast), so the batch loops."""
    ys = _x(B, 2, 2)
    for points in (np.array([[0.0, 1.0], [0.5, 3.0]]), np.array([[0.0, 1.0], [0.5, 3.0]]).T.copy()):
        def f(y, p):
            return jnp.trapezoid(y, p, axis=0)
        got = astjax.vmap(f, in_axes=(0, None))(ys, points)
        np.testing.assert_allclose(got, np.stack([np.trapezoid(y, points, axis=0) for y in ys]), rtol=1e-12)

    def g(y):
        return jnp.trapezoid(y, np.array([[0.0, 1.0], [0.5, 3.0]]), axis=0)
    np.testing.assert_allclose(astjax.vmap(g)(ys), np.stack([np.trapezoid(y, [[0.0, 1.0], [0.5, 3.0]], axis=0)
                                                             for y in ys]), rtol=1e-12)


def test_a_batched_axis_or_shape_loops_over_the_batch_and_stays_right():
    """Arguments no rule covers (a batched shift, a batched pad width) keep the loop, which is right."""
    def f(x, k):
        return jnp.roll(x, k, axis=0)
    xs, ks = _x(B, 5), np.array([0, 1, 3])
    np.testing.assert_allclose(astjax.vmap(f)(xs, ks), np.stack([np.roll(x, k, 0) for x, k in zip(xs, ks)]))


def _loss_of(fn):
    def loss(x):
        y = fn(x)
        return jnp.sum(y * y)
    return loss


GRADIENTS = [
    lambda x: jnp.roll(x, 1, axis=1) * x,
    lambda x: jss.logsumexp(x, axis=0) + jnp.linalg.norm(x),
    lambda x: lax.cumsum(jnp.pad(x, 1), axis=1),
    lambda x: jnp.diag(jnp.diagonal(x)) @ x,
    lambda x: jnp.linalg.eigh(x @ x.T + 3.0 * jnp.eye(3))[0],
]


@pytest.mark.parametrize("i", range(len(GRADIENTS)))
def test_per_example_gradients_through_the_rules_match_a_loop_of_grads(i):
    g = astjax.grad(_loss_of(GRADIENTS[i]))
    xs = _x(B, 3, 3)
    np.testing.assert_allclose(astjax.vmap(g)(xs), np.stack([g(x) for x in xs]), rtol=1e-9, atol=1e-12)


def _example_values(f, args, in_axes):
    import inspect
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    names = list(inspect.signature(f).parameters)
    return {n: (a if ax is None else np.take(a, 0, axis=ax)) for n, a, ax in zip(names, args, axes)}


def _evaluated(node, values):
    """A bound argument's value for example 0: a parameter, or a literal; else None."""
    import ast
    import gast
    if isinstance(node, gast.Name):
        return values.get(node.id, _UNKNOWN)
    try:
        return ast.literal_eval(ast.unparse(gast.gast_to_ast(node)))
    except (ValueError, SyntaxError, TypeError):
        return _UNKNOWN


_UNKNOWN = object()


def test_declared_result_ranks_are_the_per_example_results_ranks():
    """Each rule's declared (kind, rank) (read by the batching analysis) against the primitive's result for
    example 0, wherever its arguments are parameters or literals: a declared rank the result does not have
    would misalign the statements after it."""
    import inspect
    from astjax.analyses.batching import ARRAY
    compared = 0
    for name, f, args, in_axes in ROWS:
        prim = PRIMITIVES[name]
        original, records = prim.batch.result, []

        def spy(batching, bound, original=original):
            declared = original(batching, bound)
            records.append((bound, declared))
            return declared
        prim.batch.result = spy
        fresh = types.FunctionType(f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__)
        try:
            astjax.vmap(fresh, in_axes=in_axes)(*args)      # a fresh function: vmap's cache does not answer
        finally:
            prim.batch.result = original
        values = _example_values(f, args, in_axes)
        params = inspect.signature(prim.impl).parameters
        for bound, (kind, rank) in records[-1:]:
            evaluated = {k: _evaluated(n, values) for k, n in bound.items()}
            if any(v is _UNKNOWN for v in evaluated.values()) or not set(evaluated) <= set(params):
                continue
            if any(params[k].kind is params[k].VAR_POSITIONAL for k in evaluated):
                continue
            positional = [evaluated.pop(k) for k, p in params.items() if p.kind is p.POSITIONAL_ONLY and k in evaluated]
            result = prim.impl(*positional, **evaluated)
            if kind == ARRAY and rank is not None:
                assert np.ndim(result) == rank, (name, rank, np.shape(result))
                compared += 1
            elif isinstance(kind, tuple):
                leaves = [leaf for leaf in kind]
                assert len(leaves) == len(result), name
                for leaf, item in zip(leaves, result):
                    if isinstance(leaf, int):
                        assert np.ndim(item) == leaf, (name, leaf, np.shape(item))
                compared += 1
    assert compared >= 60, compared
