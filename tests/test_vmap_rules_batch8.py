"""vmap's batching rules of the eighth batch (astjax/rules/batching_eighth.py): multi_dot of six or more arrays,
unstack unpacked into names, flatnonzero/nonzero/argwhere with a literal size, array_equal, ravel_multi_index,
and per-example gradients through lstsq and multi_dot. One row per primitive and
argument combination (batched or not, batch axis not at 0, negative in_axes): the batched call equals a Python
loop over the batch calling the unbatched function, and the generated source has no loop over the batch left;
then dtypes, gradients through the new rules against a loop of grads, NumPy's chain order, and the count of
differentiable primitives that still loop. Reference backend only; small shapes."""
import os

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.rules.batching_eighth import EDITS

from batch_loops import assert_rule_batches_without_a_loop, assert_vmap_matches_the_loop, batch_loops_run, loop_over_batch

RNG = np.random.default_rng(8)
LONG = bool(os.environ.get("ASTJAX_LONG_PROPERTIES"))
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _i(*shape):
    return RNG.integers(-1, 2, size=shape)


def _six(a, b, c, d, e, f):
    return jnp.linalg.multi_dot([a, b, c, d, e, f])


def _seven(a, b, c, d, e, f, g):
    return jnp.linalg.multi_dot([a, b, c, d, e, f, g])


def _pair_product(x):
    a, b = jnp.unstack(x, axis=1)
    return a * b + jnp.sum(b)


def _rows(x):
    first, second, third = jnp.unstack(x)
    return first - 2 * second + third


def _last_axis(x):
    u, v = jnp.unstack(x, axis=-1)
    return u @ v


def _coordinates(a):
    rows, columns = jnp.nonzero(a, size=4, fill_value=(-1, 9))
    return rows * 10 + columns


def _reassigned(x):
    t = jnp.unstack(x)
    u = t[2]
    t = (x[0], x[1])
    a, b = t
    return a + b + u


def _raveled(r, c):
    return jnp.ravel_multi_index((r, c), (3, 4))


def _round_trip(i):
    coordinates = jnp.unravel_index(i, (3, 4))
    return jnp.ravel_multi_index(coordinates, (3, 4), order="F")


_ZEROS_IN_ONE = _i(B, 2, 3)
_ZEROS_IN_ONE[1] = 0
_M = _x(3, 2)
_BITS = np.abs(_i(B, 2, 3)).astype(float)
_OTHER_BITS = _BITS.copy()
_OTHER_BITS[1, 0, 0] += 1
_NANS = _BITS.copy()
_NANS[0, 1, 1] = np.nan

ROWS = [
    ("multi_dot", _six, [_x(B, 2, 3), _x(3, 2), _x(2, 2), _x(2, 3), _x(3, 1), _x(1, 2)], (0,) + (None,) * 5),
    ("multi_dot", _six, [_x(4), _x(4, 2), _x(2, B, 5), _x(5, 1), _x(1, 3), _x(3)], (None, None, 1, None, None, None)),
    ("multi_dot", _seven, [_x(B, 3), _x(3, 6), _x(6, 1), _x(1, 4), _x(4, 4), _x(4, 2), _x(2, B)], (0,) + (None,) * 5 + (-1,)),
    ("multi_dot", lambda a, g: jnp.linalg.multi_dot([a, _M, _M.T, _M, _M.T, _M, g]), [_x(B, 2, 3), _x(2, 4, B)],
     (0, -1)),
    ("unstack", _pair_product, [_x(B, 4, 2)], 0),
    ("unstack", _rows, [_x(3, 2, B)], -1),
    ("unstack", _last_axis, [_x(3, B, 2)], 1),
    ("flatnonzero", lambda a: jnp.flatnonzero(a, size=4, fill_value=-1), [_ZEROS_IN_ONE], 0),
    ("flatnonzero", lambda a: jnp.flatnonzero(a, size=9), [_i(5, B).astype(np.float32)], 1),
    ("nonzero", _coordinates, [_ZEROS_IN_ONE], 0),
    ("nonzero", lambda a: jnp.nonzero(a, size=2)[0], [_i(4, B) > 0], -1),
    ("argwhere", lambda a: jnp.argwhere(a, size=8), [_ZEROS_IN_ONE], 0),
    ("argwhere", lambda a: jnp.argwhere(a, size=2, fill_value=5), [np.moveaxis(_ZEROS_IN_ONE, 0, 2)], 2),
    ("array_equal", lambda a, b: jnp.array_equal(a, b), [_BITS, _OTHER_BITS], 0),
    ("array_equal", lambda a, b: jnp.array_equal(a, b), [np.moveaxis(_BITS, 0, -1), _BITS[0].T], (-1, None)),
    ("array_equal", lambda a, b: jnp.array_equal(a, b, equal_nan=True), [_NANS, _NANS.copy()], 0),
    ("array_equal", lambda a, b: jnp.array_equal(a, b), [_NANS, _NANS.copy()], 0),
    ("array_equal", lambda a, b: jnp.array_equal(a, b), [_BITS, _BITS[:, :, :2]], 0),
    ("array_equal", lambda a, b: jnp.array_equal(a, b), [_BITS, _BITS[:, 0]], 0),
    ("ravel_multi_index", _raveled, [RNG.integers(0, 3, size=(B, 4)), RNG.integers(0, 4, size=4)], (0, None)),
    ("ravel_multi_index", _round_trip, [RNG.integers(0, 12, size=(2, B))], 1),
]


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_leaves_no_loop(row):
    assert_rule_batches_without_a_loop(*ROWS[row], rtol=1e-9)


def test_every_declared_primitive_has_a_row():
    assert set(EDITS) | {"multi_dot"} <= {r[0] for r in ROWS} | {"batch_item_adjoint"}   # its tests below


# the dtypes of each example's call: integers read as the float multi_dot gives, float32 kept, int32 indices
DTYPES = [
    (_six, [RNG.integers(0, 3, size=(B, 2, 2)), _x(2, 3).astype(np.float32), _i(3, 2), _i(2, 2), _i(2, 2), _i(2, 1)],
     (0,) + (None,) * 5),
    (_six, [_x(B, 2, 2).astype(np.float32)] + [_x(2, 2).astype(np.float32)] * 5, (0,) + (None,) * 5),
    (_pair_product, [RNG.integers(0, 5, size=(B, 3, 2)).astype(np.int32)], 0),
    (lambda a: jnp.nonzero(a, size=3)[1], [_i(B, 2, 2)], 0),
    (lambda a, b: jnp.array_equal(a, b), [_BITS, _BITS[0]], (0, None)),
    (_raveled, [RNG.integers(0, 3, size=(B, 2)).astype(np.int8), RNG.integers(0, 4, size=2)], (0, None)),
]


@pytest.mark.parametrize("case", range(len(DTYPES)))
def test_the_batched_dtype_is_each_examples(case):
    f, args, in_axes = DTYPES[case]
    got = astjax.vmap(f, in_axes=in_axes)(*args)
    want = loop_over_batch(f, args, in_axes)
    assert np.asarray(got).dtype == want.dtype, (np.asarray(got).dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def _chain_loss(w, x):
    return jnp.sum(jnp.linalg.multi_dot([x[:2], _M.T, jnp.tanh(_M * w[0]), _M.T, _M, _M.T * w[1], x[2:]]) ** 2)


def _unstack_loss(w, x):
    a, b = jnp.unstack(jnp.reshape(x * w[0], (2, 3)))
    return jnp.sum(jnp.sin(a) * b) + w[1] * jnp.sum(a)


@pytest.mark.parametrize("loss", [pytest.param(_chain_loss, marks=pytest.mark.skipif(
    not LONG, reason="about 2 CPU-s (grad of the chain's branches): runs with ASTJAX_LONG_PROPERTIES=1")), _unstack_loss])
def test_gradients_through_the_rules_match_a_loop_of_grads(loss):
    """grad of the batched function (its source, with the chain's branches, differentiated) and per-example
    gradients (vmap of grad) against a loop of grads. (Per-example gradients through chains of seven arrays
    run by default below.)"""
    w, xs = _x(2), _x(B, 6 if loss is _unstack_loss else 5)
    g = astjax.grad(loss, argnums=1)
    np.testing.assert_allclose(astjax.vmap(g, in_axes=(None, 0))(w, xs), np.stack([g(w, x) for x in xs]),
                               rtol=1e-9, atol=1e-12)
    total = astjax.grad(lambda w, xs: jnp.sum(astjax.vmap(loss, in_axes=(None, 0))(w, xs)))
    want = sum(astjax.grad(loss)(w, x) for x in xs)
    np.testing.assert_allclose(total(w, xs), want, rtol=1e-9, atol=1e-12)


_A = _x(5, 3)
_N = _x(4, 2)


def _fits(w, x):
    solution, residuals, rank, s = jnp.linalg.lstsq(_A + jnp.outer(x, w), x)
    return jnp.sum(solution ** 2) + jnp.sum(residuals) + jnp.sum(s)


def _chains(w, x):
    return (jnp.linalg.multi_dot([x[:3], _M @ _N.T, _N * w[0], jnp.tanh(_N.T)]) @ x[1:5]
            + jnp.sum(jnp.linalg.multi_dot([x[:2], _M.T, _M, _M.T, _M, _M.T * w[1], x[2:5]])))


@pytest.mark.parametrize("loss", [_fits, _chains])
def test_per_example_gradients_through_lstsq_and_multi_dot_run_without_a_loop(loss):
    """lstsq's result tuple passed to its adjoints (callees built for the tuple's kind) and their item_adjoint of
    the adjoint tree (batch_item_adjoint), lstsq and multi_dot of operands of unknown rank (globals: one branch
    per rank when it runs): vmap of grad matches a loop of grads and runs no loop over the batch."""
    w, xs = _x(3), _x(B, 5)
    g = astjax.grad(loss, argnums=(0, 1))
    v = astjax.vmap(g, in_axes=(None, 0))
    v(w, xs)
    with batch_loops_run(B) as looped:
        got = v(w, xs)
    assert looped == [], looped
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([g(w, x)[k] for x in xs]), rtol=1e-9, atol=1e-12)


@pytest.mark.skipif(not LONG, reason="about 10 CPU-s: runs with ASTJAX_LONG_PROPERTIES=1")
def test_derivatives_and_vmap_of_per_example_gradients_through_lstsq():
    """batch_item_adjoint's own rules: grad and jvp of vmap(grad) (its adjoint a tree holding the cotangent, its
    tangent the tangent tree's item shaped like the primal's) and vmap of vmap(grad) (the batch sizes in
    front), against loops."""
    w, xs, t = _x(3), _x(B, 5), _x(3)
    g = astjax.grad(_fits, argnums=1)
    per_example = astjax.vmap(g, in_axes=(None, 0))
    second = astjax.grad(lambda w, xs: jnp.sum(per_example(w, xs)))
    want = sum(astjax.grad(lambda w, x: jnp.sum(g(w, x)))(w, x) for x in xs)
    np.testing.assert_allclose(second(w, xs), want, rtol=1e-9, atol=1e-12)
    tangent = astjax.jvp(lambda w: per_example(w, xs), (w,), (t,))[1]
    want = np.stack([astjax.jvp(lambda w: g(w, x), (w,), (t,))[1] for x in xs])
    np.testing.assert_allclose(tangent, want, rtol=1e-9, atol=1e-12)
    xss = _x(2, B, 5)
    twice = astjax.vmap(per_example, in_axes=(None, 0))(w, xss)
    np.testing.assert_allclose(twice, np.stack([[g(w, x) for x in row] for row in xss]), rtol=1e-9, atol=1e-12)


def test_chain_merges_make_numpys_tree():
    """batch_chain_merges lists the adjacent products that compute the parenthesization NumPy's own multi_dot
    computes (its private chain-order search, where this NumPy has it)."""
    from astjax.rules.batching_eighth import batch_chain_merges
    search = getattr(getattr(np.linalg, "_linalg", None), "_multi_dot_matrix_chain_order", None)
    if search is None:
        pytest.skip("this NumPy has no _multi_dot_matrix_chain_order")
    for n in (6, 7, 9):
        for _ in range(10):
            dims = RNG.integers(1, 9, size=n + 1)
            shapes = [(int(dims[k]), int(dims[k + 1])) for k in range(n)]
            split = search([np.zeros(s) for s in shapes], return_costs=False)

            def tree(i, j):
                return i if i == j else (tree(i, int(split[i, j])), tree(int(split[i, j]) + 1, j))
            current = list(range(n))
            for i in batch_chain_merges(*shapes):
                current[i:i + 2] = [(current[i], current[i + 1])]
            assert current == [tree(0, n - 1)], shapes


# Combinations no rule covers: the loop over the batch, still equal to a Python loop.
LOOPED = [
    (lambda x: jnp.unstack(x)[1], [_x(B, 2, 3)], 0),          # not unpacked: an item count the analysis cannot know
    (lambda a: jnp.flatnonzero(a), [np.array([[1, 0, 2], [0, 3, 4]])], 0),    # no size: a length per example
    (_reassigned, [_x(B, 3, 2)], 0),        # the name unpacked holds another tuple too: not read as unstack's length
]


@pytest.mark.parametrize("case", range(len(LOOPED)))
def test_uncovered_combinations_loop_and_match(case):
    assert_vmap_matches_the_loop(*LOOPED[case])

