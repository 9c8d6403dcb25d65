"""vmap of the ninth batch: jnp.piecewise with conditions computed from the batched argument (each example's own
masks; frontend/normalize/per_slice_calls.py writes each piece with jnp.where on x's shape), and the batching
rules of astjax/rules/batching_ninth.py (expm_frechet, solve_sylvester, eigh_tridiagonal's eigenvalues). Each row:
the batched call equals a Python loop over the batch (batch axis not first, negative in_axes), and no loop over
the batch runs; then dtypes, per-example gradients against a loop of grads, the cases that keep the loop, and
the count of differentiable primitives that still loop. Reference backend only; small shapes."""
import os

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
import astjax.scipy.linalg as sla
from astjax.errors import AstjaxError
from astjax.rules.batching_ninth import EDITS, SYLVESTER_SYSTEM_LIMIT

from batch_loops import batch_loops_run, loop_over_batch

RNG = np.random.default_rng(9)
LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _loop(f, args, in_axes):
    """loop_over_batch, a tuple result stacked item by item."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    outs = [f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes)]) for b in range(size)]
    if isinstance(outs[0], tuple):
        return tuple(np.stack([np.asarray(o[i]) for o in outs]) for i in range(len(outs[0])))
    return np.stack([np.asarray(o) for o in outs])


def _assert_batches_without_a_loop(f, args, in_axes, rtol=1e-10, out_axes=0):
    batched = astjax.vmap(f, in_axes=in_axes, out_axes=out_axes)
    size = next(np.shape(a)[ax] for a, ax in zip(args, in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(
        args)) if ax is not None)
    batched(*args)                  # transformed before range is counted
    with batch_loops_run(size) as seen:
        got = batched(*args)
    assert not seen, seen
    want = _loop(f, args, in_axes)
    for g, w in zip(got if isinstance(want, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert np.asarray(g).dtype == w.dtype, (np.asarray(g).dtype, w.dtype)
        np.testing.assert_allclose(np.moveaxis(np.asarray(g), out_axes, 0), w, rtol=rtol, atol=1e-12)


# ---------------------------------------------------------------- piecewise
def _doubled(v):
    return 2.0 * v


def _square(v):
    return v * v


def _scaled(v, s):
    return v * s


def _three_pieces(x):
    return jnp.piecewise(x, [x < -0.5, x > 0.5], [_doubled, jnp.sin, jnp.cos])


def _later_wins(x):
    return jnp.piecewise(x, [x < 0.5, x < 0.0], [_square, jnp.tanh])


def _log_where_positive(x):
    return jnp.piecewise(x, [x > 0], [jnp.log, 0.5])


def _shifted(v, s):
    return jnp.exp(v) - s


def _constants(n):
    return jnp.piecewise(n, [n < 0, n > 0], [0, 2.7, 7])


def _extra_argument(x, s):
    return jnp.piecewise(x, [x > 0], [_scaled, _shifted], s)


def _loss(w, x):
    wx = x * w
    return jnp.sum(jnp.piecewise(wx, [wx > 0], [jnp.log, _square]) ** 2) + jnp.sum(jnp.piecewise(
        x, [x > 0.1, x < -0.1], [jnp.sqrt, _square, 0.5]))


_ROWS_OF = np.array([[0.3, -1.0, 2.0, 0.0], [-0.2, -3.0, -1.0, -0.5], [1.5, 0.7, 0.0, 4.0]])  # row 1 owns no x > 0

PIECEWISE = [
    (_three_pieces, [_x(B, 5)], 0),
    (_three_pieces, [_x(2, 3, B)], -1),
    (_later_wins, [_x(4, B)], 1),
    (_log_where_positive, [_ROWS_OF], 0),
    (_constants, [RNG.integers(-2, 3, size=(B, 4)).astype(np.int32)], 0),
    (_extra_argument, [_x(B, 4), _x(B)], (0, 0)),
    (_extra_argument, [_x(4, B).astype(np.float32), np.float32(1.5)], (-1, None)),
]


@pytest.mark.parametrize("row", range(len(PIECEWISE)))
def test_piecewise_with_each_examples_masks_matches_a_loop(row):
    f, args, in_axes = PIECEWISE[row]
    _assert_batches_without_a_loop(f, args, in_axes)


def test_piecewise_out_axes():
    _assert_batches_without_a_loop(_three_pieces, [_x(B, 2, 2)], 0, out_axes=-1)


def test_piecewise_per_example_gradients_match_a_loop_of_grads():
    """vmap(grad) and grad(vmap) through the pieces: finite where a piece is log or sqrt (an example owning no
    element of one piece, zeros where the other owns), as each example's own gradient."""
    w = np.array([1.0, -1.0, 2.0, 0.5])
    xs = np.concatenate([_ROWS_OF, -np.abs(_ROWS_OF[:1])])
    g = astjax.grad(_loss, argnums=(0, 1))
    got_w, got_x = astjax.vmap(g, in_axes=(None, 0))(w, xs)
    want = [g(w, x) for x in xs]
    assert np.isfinite(got_w).all() and np.isfinite(got_x).all()
    np.testing.assert_allclose(got_w, np.stack([a for a, _ in want]), rtol=1e-12)
    np.testing.assert_allclose(got_x, np.stack([b for _, b in want]), rtol=1e-12)
    if not LONG:
        return              # grad of the batched function: about 1 CPU-s
    total = astjax.grad(lambda w, xs: jnp.sum(astjax.vmap(_loss, in_axes=(None, 0))(w, xs)))
    np.testing.assert_allclose(total(w, xs), sum(a for a, _ in want), rtol=1e-12)


@pytest.mark.skipif(not LONG, reason="a Numba compile (about 3 CPU-s): runs with ASTJAX_LONG_PROPERTIES=1")
def test_piecewise_under_jit_of_vmap():
    batched = astjax.vmap(astjax.grad(lambda x: jnp.sum(_log_where_positive(x) ** 2)))
    np.testing.assert_allclose(astjax.jit(batched)(_ROWS_OF), batched(_ROWS_OF), rtol=1e-12)
    x = _x(B, 5)
    np.testing.assert_allclose(astjax.jit(astjax.vmap(_three_pieces))(x), loop_over_batch(_three_pieces, [x], 0),
                               rtol=1e-12)


def _numpy_piecewise(x):
    return np.piecewise(x, [x > 0], [_square, 0.0])


def test_numpy_piecewise_of_batched_conditions_stays_refused():
    """np.piecewise calls a function on the 1-d array of the elements it owns (a different number in each
    example): refused at the user's line, never a wrong number."""
    with pytest.raises(AstjaxError, match="(?s)different number of elements.*test_vmap_rules_batch9.py"):
        astjax.vmap(_numpy_piecewise)(_ROWS_OF)


# ---------------------------------------------------------------- scipy.linalg rules
def _frechet(A, E):
    return sla.expm_frechet(A, E)


def _frechet_only(A, E):
    return sla.expm_frechet(A, E, compute_expm=False)


def _sylvester(A, B_, C):
    return sla.solve_sylvester(A, B_, C)


def _tridiagonal_values(d, e):
    return sla.eigh_tridiagonal(d, e, eigvals_only=True)


_SHIFT = 3 * np.eye(2)
ROWS = [
    ("expm_frechet_pair", _frechet, [0.5 * _x(B, 3, 3), _x(3, 3)], (0, None)),
    ("expm_frechet_pair", _frechet_only, [0.5 * _x(3, 3, B), _x(3, B, 3)], (-1, 1)),
    ("solve_sylvester", _sylvester, [_x(B, 3, 3), _x(2, 2) + _SHIFT, _x(3, 2, B)], (0, None, -1)),
    ("solve_sylvester", _sylvester, [_x(3, 3), _x(2, B, 2) + _SHIFT[:, None], _x(3, 2)], (None, 1, None)),
    ("eigh_tridiagonal", _tridiagonal_values, [_x(4, B), _x(3, B)], (1, -1)),
    ("eigh_tridiagonal", _tridiagonal_values, [_x(4), _x(B, 3)], (None, 0)),
]


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_runs_no_loop(row):
    from astjax.rules.batching import generic_rule
    from astjax.rules.registry import PRIMITIVES
    name, f, args, in_axes = ROWS[row]
    assert generic_rule(PRIMITIVES[name]) is not None, name
    _assert_batches_without_a_loop(f, args, in_axes, rtol=1e-9)


def test_every_declared_primitive_has_a_row():
    assert set(EDITS) <= {r[0] for r in ROWS} | {"custom_jvp_transpose"}     # its tests below


# the float dtype of each example's result: float32 kept, integers read as float32
DTYPES = [
    (_frechet_only, [0.5 * _x(B, 2, 2).astype(np.float32), _x(2, 2).astype(np.float32)], (0, None)),
    (_sylvester, [_x(B, 2, 2).astype(np.float32), (_x(2, 2) + _SHIFT).astype(np.float32),
                  _x(2, 2).astype(np.float32)], (0, None, None)),
    (_sylvester, [RNG.integers(1, 4, size=(B, 2, 2)) + 5 * np.eye(2, dtype=int), np.eye(2, dtype=int),
                  RNG.integers(-3, 3, size=(2, 2))], (0, None, None)),
    (_tridiagonal_values, [_x(B, 3).astype(np.float32), _x(B, 2).astype(np.float32)], 0),
]


@pytest.mark.parametrize("case", range(len(DTYPES)))
def test_the_batched_dtype_is_each_examples(case):
    f, args, in_axes = DTYPES[case]
    _assert_batches_without_a_loop(f, args, in_axes, rtol=1e-4)


def _scipy_loss(w, x):
    A = jnp.reshape(x[:4], (2, 2)) * w[0]
    E = jnp.reshape(x[4:], (2, 2))
    solved = sla.solve_sylvester(A + 4.0 * jnp.eye(2), jnp.eye(2) * w[1] + 2.0, E)
    values = sla.eigh_tridiagonal(x[:3], x[3:5] * w[1], eigvals_only=True)
    return jnp.sum(jnp.sin(solved)) + jnp.sum(values * x[5:])


def _frechet_loss(w, x):
    A = jnp.reshape(x[:4], (2, 2)) * w[0]
    left, right = sla.expm_frechet(0.3 * A, jnp.reshape(x[4:], (2, 2)) * w[1])
    return jnp.sum(left * right) + jnp.sum(sla.expm_frechet(A, 0.5 * A, compute_expm=False) ** 2)


@pytest.mark.parametrize("loss", [_scipy_loss, pytest.param(_frechet_loss, marks=pytest.mark.skipif(
    not LONG, reason="about 1.5 CPU-s: runs with ASTJAX_LONG_PROPERTIES=1"))])
def test_per_example_gradients_through_the_rules_match_a_loop_of_grads(loss):
    """vmap(grad) and grad(vmap) against loops of grads; through solve_sylvester and eigh_tridiagonal no loop
    over the batch runs (expm_frechet's adjoint still loops over it inside: its adjoint's values are of a kind
    the batching analysis does not know)."""
    w, xs = np.array([0.7, 1.3]), _x(B, 8)
    g = astjax.grad(loss, argnums=1)
    batched = astjax.vmap(g, in_axes=(None, 0))
    batched(w, xs)
    with batch_loops_run(B) as seen:
        got = batched(w, xs)
    np.testing.assert_allclose(got, np.stack([g(w, x) for x in xs]), rtol=1e-8, atol=1e-12)
    assert loss is _frechet_loss or not seen, seen
    if not LONG:
        return              # grad of the batched function: about 0.5 CPU-s
    total = astjax.grad(lambda w, xs: jnp.sum(astjax.vmap(loss, in_axes=(None, 0))(w, xs)))
    np.testing.assert_allclose(total(w, xs), sum(astjax.grad(loss)(w, x) for x in xs), rtol=1e-8)


def test_what_keeps_the_loop_still_matches_it():
    """A Sylvester system past SYLVESTER_SYSTEM_LIMIT (SciPy's Bartels-Stewart per example), eigh_tridiagonal's
    eigenvectors (their signs are LAPACK's tridiagonal solver's) and operands that are not matrices when it runs
    (SciPy's own error per example)."""
    m = int(np.sqrt(SYLVESTER_SYSTEM_LIMIT)) + 1
    args = [_x(2, m, m), _x(m, m) + 2 * m * np.eye(m), _x(m, m)]
    batched = astjax.vmap(_sylvester, in_axes=(0, None, None))
    batched(*args)
    with batch_loops_run(2) as seen:
        got = batched(*args)
    assert seen
    np.testing.assert_allclose(got, _loop(_sylvester, args, (0, None, None)), rtol=1e-12)
    d, e = _x(B, 4), _x(B, 3)
    w, v = astjax.vmap(lambda d, e: sla.eigh_tridiagonal(d, e))(d, e)
    want_w, want_v = _loop(lambda d, e: sla.eigh_tridiagonal(d, e), [d, e], 0)
    np.testing.assert_allclose(w, want_w, rtol=1e-12)
    np.testing.assert_allclose(v, want_v, rtol=1e-12)
    with pytest.raises(Exception, match="2-D|square|dimension"):
        astjax.vmap(_sylvester, in_axes=(0, None, None))(_x(B, 3), np.eye(2), _x(3, 2))


# ---------------------------------------------------------------- custom_jvp functions
@astjax.custom_jvp
def _softplus(x):
    return jnp.log1p(jnp.exp(x))


@_softplus.defjvp
def _softplus_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return _softplus(x), t / (1.0 + jnp.exp(-x))


@astjax.custom_jvp
def _clipped_square(x, w):
    return jnp.sum(x * w) ** 2


@_clipped_square.defjvp
def _clipped_square_jvp(primals, tangents):      # not the body's derivative: the rule, not the body, must be used
    x, w = primals
    dx, dw = tangents
    return _clipped_square(x, w), jnp.clip(2.0 * jnp.sum(x * w), -1.0, 1.0) * (jnp.sum(dx * w) + jnp.sum(x * dw))


def _custom_loss(w, x):
    return jnp.sum(_softplus(w * x) ** 2) + _clipped_square(x, w)


def test_custom_jvp_calls_batch_with_their_rules_and_run_no_loop():
    """vmap of a function calling custom_jvp functions (a batched and a shared argument), and per-example
    gradients (vmap of grad, whose reverse mode transposes the batched rule: custom_jvp_transpose's rule)
    against loops; the clipped rule differs from its body's derivative, so a gradient of the body would differ."""
    w, xs = np.array([0.5, -1.0, 2.0]), np.array([[1.0, 2.0, 3.0], [-2.0, 0.5, 1.0], [0.1, 0.2, -0.3]])
    _assert_batches_without_a_loop(_custom_loss, [w, xs], (None, 0))
    g = astjax.grad(_custom_loss, argnums=(0, 1))
    batched = astjax.vmap(g, in_axes=(None, 0))
    batched(w, xs)
    with batch_loops_run(B) as seen:
        got_w, got_x = batched(w, xs)
    assert not seen, seen
    want = [g(w, x) for x in xs]
    np.testing.assert_allclose(got_w, np.stack([a for a, _ in want]), rtol=1e-12)
    np.testing.assert_allclose(got_x, np.stack([b for _, b in want]), rtol=1e-12)
    assert not np.allclose(got_x, np.stack([astjax.grad(_clipped_loss_body, argnums=1)(w, x) for x in xs]))


def _clipped_loss_body(w, x):
    return jnp.sum(_softplus(w * x) ** 2) + jnp.sum(x * w) ** 2


@pytest.mark.skipif(not LONG, reason="about 1 CPU-s: runs with ASTJAX_LONG_PROPERTIES=1")
def test_derivatives_of_a_batched_custom_jvp_call_use_its_rule():
    """grad(vmap) (the rule transposed once per entry of one example, unbatched w's cotangent summed over the
    batch) and jvp(vmap) against loops."""
    w, xs = np.array([0.5, -1.0, 2.0]), _x(B, 3)
    batched = astjax.vmap(_custom_loss, in_axes=(None, 0))
    total_w, total_x = astjax.grad(lambda w, xs: jnp.sum(batched(w, xs)), argnums=(0, 1))(w, xs)
    np.testing.assert_allclose(total_w, sum(astjax.grad(_custom_loss)(w, x) for x in xs), rtol=1e-12)
    np.testing.assert_allclose(total_x, np.stack([astjax.grad(_custom_loss, argnums=1)(w, x) for x in xs]),
                               rtol=1e-12)
    tw, tx = _x(3), _x(B, 3)
    got = astjax.jvp(batched, (w, xs), (tw, tx))[1]
    np.testing.assert_allclose(got, np.stack([astjax.jvp(_custom_loss, (w, x), (tw, t))[1] for x, t in zip(xs, tx)]),
                               rtol=1e-12)


@astjax.custom_jvp
def _positive_sum(x):
    return jnp.sum(x[x > 0])


@_positive_sum.defjvp
def _positive_sum_jvp(primals, tangents):
    x, = primals
    t, = tangents
    return _positive_sum(x), jnp.sum(jnp.where(x > 0, t, 0.0))


def _ragged_inside(x):
    return 2.0 * _positive_sum(x)


def test_a_custom_jvp_function_vmap_refuses_runs_example_by_example():
    """`x[x > 0]` in the custom function's body selects a different number of elements in each example: vmap
    refuses its batched source when it runs, and the batched custom_jvp calls it example by example (as the
    loop did before the ninth batch); its rule batches."""
    xs = np.array([[1.0, -2.0, 3.0], [-1.0, -1.0, 0.5], [2.0, 2.0, 2.0]])
    np.testing.assert_allclose(astjax.vmap(_ragged_inside)(xs), loop_over_batch(_ragged_inside, [xs], 0))
    g = astjax.grad(_ragged_inside)
    np.testing.assert_allclose(astjax.vmap(g)(xs), loop_over_batch(g, [xs], 0))


@pytest.mark.skipif(not LONG, reason="about 2 CPU-s: runs with ASTJAX_LONG_PROPERTIES=1")
def test_second_derivatives_of_a_batched_custom_jvp_call():
    """hessian(vmap) differentiates the batched rule again (generated source over flat arguments)."""
    def h(x):
        return jnp.sum(_softplus(x) ** 2)
    ys = _x(B, 2)
    H = astjax.hessian(lambda ys: jnp.sum(astjax.vmap(h)(ys)))(ys)
    for b in range(B):
        np.testing.assert_allclose(H[b, :, b, :], astjax.hessian(h)(ys[b]), rtol=1e-10)


def test_the_differentiable_primitives_without_a_batching_rule():
    """After the ninth batch 42 differentiable primitives have no batching rule (docs/vmap.md lists why):
    most build or read vmap's own loop over the examples or grad's containers. The count only goes down."""
    from astjax.rules.batching import generic_rule
    from astjax.rules.registry import PRIMITIVES
    looping = sorted(n for n, p in PRIMITIVES.items() if generic_rule(p) is None and p.differentiable)
    assert len(looping) <= 42, looping
    assert not set(EDITS) & set(looping)
