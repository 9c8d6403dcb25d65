"""vmap's batching rules of the seventh batch (astjax/rules/batching_seventh.py): lstsq, multi_dot of four or five
arrays, einsum of three or more operands, and the non-differentiable primitives users vmap (bit operations,
casts, searchsorted, digitize, isin, argpartition, nanargmax, count_nonzero, one_hot, lexsort). One row per
primitive and argument combination (batched or not, batch axis not at 0, negative in_axes): the batched call
equals a Python loop over the batch calling the unbatched function, and the generated source has no loop over
the batch left; then dtypes, per-example gradients against a loop of grads, what is refused, and the count of
differentiable primitives that still loop. Reference backend only; small shapes."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.lax import internal as LI
from astjax.nn import one_hot
from astjax.rules.batching_seventh import CASTS, EDITS
from astjax.rules import helpers as H
from astjax.scipy.linalg import convolution_matrix, fiedler_companion, polar, qr, svd
from astjax.scipy.special import gammasgn
from astjax.scipy.stats import rankdata

from batch_loops import assert_rule_batches_without_a_loop, assert_vmap_matches_the_loop, loop_over_batch

RNG = np.random.default_rng(7)
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _i(*shape):
    return RNG.integers(-6, 7, size=shape)


def _lstsq_all(a, b):
    x, residuals, rank, s = jnp.linalg.lstsq(a, b)
    return jnp.concatenate([jnp.ravel(x), residuals, jnp.astype(rank, x.dtype)[None], s])


def _unravelled(i):
    rows, columns = jnp.unravel_index(i, (3, 4))
    return rows * 10 + columns


def _lexsort_pair(a, b):
    keys = (a, b)
    return LI.lexsort_order(keys, 0)


def _svd_parts(a):
    u, s, vh = svd(a, full_matrices=False)
    return jnp.sum(jnp.abs(u), axis=0) * s + jnp.abs(vh) @ s


_ONES = np.ones((2, 3))
_A = _x(5, 3)
_M = _x(3, 4)
_N = _x(4, 2)
_GLOBAL_VECTOR = _x(4)
_TALL = _x(B, 5, 3)
_WIDE = _x(3, 5, B)
_BINS = np.array([-1.0, 0.0, 0.5, 2.0])
_TABLE = np.array([-2, 0, 3, 5])

# (primitive, function, args, in_axes)
ROWS = [
    ("lstsq", _lstsq_all, [_TALL, _x(B, 5)], 0),
    ("lstsq", _lstsq_all, [_x(5, 3), _x(5, 2, B)], (None, -1)),
    ("lstsq", lambda a, b: jnp.linalg.lstsq(a, b)[0], [_WIDE, _x(3)], (2, None)),
    ("lstsq", _lstsq_all, [_WIDE, _x(3, B, 2)], (-1, 1)),
    ("multi_dot", lambda a, b, c, d: jnp.linalg.multi_dot([a, b, c, d]),
     [_x(B, 2, 3), _x(3, 6), _x(6, 2), _x(2, 5)], (0, None, None, None)),
    ("multi_dot", lambda a, b, c, d: jnp.linalg.multi_dot([a, b, c, d]),
     [_x(6), _x(6, 2), _x(2, B, 7), _x(7)], (None, None, 1, None)),
    ("multi_dot", lambda a, b, c, d, e: jnp.linalg.multi_dot([a, b, c, d, e]),
     [_x(B, 4, 1), _x(1, 5), _x(5, B, 2), _x(2, 6), _x(6, 3)], (0, None, 1, None, None)),
    ("multi_dot", lambda a, b, c, d, e: jnp.linalg.multi_dot([a, b, c, d, e]),
     [_x(2, 5), _x(5, 1), _x(1, 6), _x(6, 2), _x(2, B)], (None, None, None, None, -1)),
    ("multi_dot", lambda a, d: jnp.linalg.multi_dot([a, _M, _N, d]), [_x(B, 3), _x(2, B)], (0, 1)),
    ("einsum", lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c), [_x(B, 2, 3), _x(3, 4), _x(4, 2)], (0, None, None)),
    ("einsum", lambda a, b, c: jnp.einsum("ij,jk,k", a, b, c), [_x(2, 3), _x(3, B, 4), _x(4, B)], (None, 1, -1)),
    ("einsum", lambda a: jnp.einsum("i,ij,jk", a, _M, _N), [_x(B, 3)], 0),
    ("einsum", lambda a, b, c, d: jnp.einsum("i,ij,jk,k->", a, b, c, d), [_x(B, 3), _x(3, 5), _x(5, 2), _x(B, 2)],
     (0, None, None, 0)),
    ("einsum", lambda a, b, c: jnp.einsum("...i,ij,j...", a, b, c), [_x(B, 2, 3), _x(3, 3), _x(3, 2)], (0, None, None)),
    ("scipy_svd", _svd_parts, [_x(B, 4, 3)], 0),
    ("scipy_svd", lambda a: svd(a, compute_uv=False), [_x(3, 2, B)], -1),
    ("scipy_qr", lambda a: qr(a)[1], [_x(4, B, 3)], 1),
    ("scipy_qr", lambda a: qr(a, mode="economic")[0] @ qr(a, mode="r")[0][:3], [_x(B, 4, 3)], 0),
    ("polar", lambda a: polar(a)[0] + polar(a, side="left")[1][:, :3], [_x(B, 4, 3)], 0),
    ("polar", lambda a: polar(a)[1], [_x(3, 3, B)], 2),
    ("convolution_matrix", lambda a: convolution_matrix(a, 4), [_x(B, 3)], 0),
    ("convolution_matrix", lambda a: convolution_matrix(a, 5, "same"), [_x(3, B)], -1),
    ("convolution_matrix", lambda a: convolution_matrix(a, 2, mode="valid"), [_i(B, 4)], 0),
    ("fiedler_companion", lambda a: fiedler_companion(a), [_x(B, 4) + 2.0], 0),
    ("fiedler_companion", lambda a: fiedler_companion(a), [_x(3, 2, B) + 2.0], -1),
    ("spectral_direction", lambda x: H.spectral_direction(x), [_x(B, 3, 2)], 0),
    ("spectral_direction", lambda x: H.spectral_direction(x), [_x(2, B, 2)], 1),
    ("einsum_ellipsis_adjoint", lambda g, a, b: H.einsum_ellipsis_adjoint(g, 0, "...i,...i", a, b),
     [_x(B, 2), _x(B, 2, 3), _x(3)], (0, 0, None)),
    ("einsum_ellipsis_adjoint", lambda g, a, b: H.einsum_ellipsis_adjoint(g, 1, "...ij,j->...i", a, b),
     [_x(2, B, 3), _x(2, 3, 4), _x(4, B)], (1, None, 1)),
    ("bitwise_and", lambda a, b: jnp.bitwise_and(a, b), [_i(B, 3), _i(2, 3)], (0, None)),
    ("bitwise_or", lambda a, b: a | b, [_i(3, B), _i(B)], (-1, 0)),
    ("bitwise_xor", lambda a, b: jnp.bitwise_xor(a, b), [_i(B, 2, 3), _i(B, 3)], 0),
    ("left_shift", lambda a: jnp.left_shift(a, 2), [_i(B, 4)], 0),
    ("right_shift", lambda a, b: a >> b, [_i(4, B), np.abs(_i(4))], (1, None)),
    ("invert", lambda a: jnp.invert(a), [_i(B, 2)], 0),
    ("bitwise_count", lambda a: jnp.bitwise_count(a), [_i(2, B)], 1),
    ("gcd", lambda a, b: jnp.gcd(a, b), [_i(B, 3), _i(3)], (0, None)),
    ("lcm", lambda a, b: jnp.lcm(a, b), [_i(B, 3), _i(B)], 0),
    ("isclose", lambda a, b: jnp.isclose(a, b, atol=0.5), [_x(B, 3), _x(3)], (0, None)),
    ("signbit", lambda a: jnp.signbit(a), [np.array([[-0.0, 1.0], [0.0, -2.0], [np.nan, -np.inf]])], 0),
    ("isneginf", lambda a: jnp.isneginf(a), [np.array([[-np.inf, 1.0], [0.0, np.inf], [np.nan, -np.inf]])], 0),
    ("isposinf", lambda a: jnp.isposinf(a), [np.array([[-np.inf, 1.0], [0.0, np.inf], [np.nan, -np.inf]])], -2),
    ("isreal", lambda a: jnp.isreal(a), [_x(B, 2)], 0),
    ("iscomplex", lambda a: jnp.iscomplex(a), [_x(B, 2)], 0),
    ("rint", lambda a: jnp.rint(a), [_x(B, 3) * 3], 0),
    ("fix", lambda a: jnp.fix(a), [_x(3, B) * 3], 1),
    ("spacing", lambda a: jnp.spacing(a), [_x(B, 2)], 0),
    ("gammasgn", lambda a: gammasgn(a), [_x(B, 3) * 3], 0),
    ("lax_round", lambda a: lax.round(a, 1), [np.array([[0.5, 1.5], [2.5, -0.5], [-1.5, 3.2]])], 0),
    ("cast_bool", lambda a: np.bool_(a), [_i(B, 2)], 0),
    ("cast_int8", lambda a: jnp.int8(a), [_x(2, B) * 9], 1),
    ("cast_int16", lambda a: np.int16(a) + 1, [_x(B, 2) * 9], 0),
    ("searchsorted", lambda v: jnp.searchsorted(_BINS, v, side="right"), [_x(B, 3)], 0),
    ("searchsorted", lambda a, v: jnp.searchsorted(a, v), [_BINS, _x(2, B)], (None, 1)),
    ("digitize", lambda x: jnp.digitize(x, _BINS, right=True), [_x(3, B)], -1),
    ("isin", lambda e: jnp.isin(e, _TABLE), [_i(B, 4)], 0),
    ("isin", lambda e, t: jnp.isin(e, t, invert=True), [_i(2, B), _TABLE], (1, None)),
    ("isin", lambda e, t: jnp.isin(e, t), [_i(B, 2, 3), _i(B, 4)], 0),
    ("isin", lambda e, t: jnp.isin(e, t, invert=True), [np.array([1.0, np.nan, 2.0]), np.array([
        [1.0, np.nan], [np.nan, 3.0], [2.0, 2.0]])], (None, 0)),
    ("argpartition", lambda a: jnp.argpartition(a, 2), [_x(B, 2, 5)], 0),
    ("argpartition", lambda a: jnp.argpartition(a, 1, axis=0), [_x(4, B, 3)], 1),
    ("argpartition", lambda a: jnp.argpartition(a, 3, axis=None), [_x(B, 2, 3)], 0),
    ("nanargmax", lambda a: jnp.nanargmax(a), [np.where(_x(B, 2, 3) > 1, np.nan, _x(B, 2, 3))], 0),
    ("nanargmin", lambda a: jnp.nanargmin(a, axis=-1), [np.where(_x(3, B) > 1, np.nan, _x(3, B))], 1),
    ("count_nonzero", lambda a: jnp.count_nonzero(a), [_i(B, 2, 3) // 4], 0),
    ("count_nonzero", lambda a: jnp.count_nonzero(a, axis=0, keepdims=True), [_i(2, 3, B) // 4], -1),
    ("one_hot", lambda x: one_hot(x, 4), [np.abs(_i(B, 2)) % 4], 0),
    ("one_hot", lambda x: one_hot(x, 3, axis=0), [np.abs(_i(2, B)) % 4], 1),
    ("matrix_rank", lambda m: jnp.linalg.matrix_rank(m), [np.stack([_x(3, 3), np.ones((3, 3)), np.zeros((3, 3))])], 0),
    ("matrix_rank", lambda m: jnp.linalg.matrix_rank(m, tol=0.5), [_x(3, 2, B)], -1),
    ("allclose", lambda a, b: jnp.allclose(a, b, atol=0.3), [_x(B, 2, 3) * 0.1, _x(3) * 0.1], (0, None)),
    ("allclose", lambda a, b: jnp.allclose(a, b), [np.stack([_ONES, _ONES + 1e-9, _ONES + 1]), _ONES], (0, None)),
    ("unravel_index", _unravelled, [np.abs(_i(2, B)) % 12], 1),
    ("packbits", lambda a: jnp.packbits(a), [np.abs(_i(B, 2, 5)) % 2], 0),
    ("packbits", lambda a: jnp.packbits(a, axis=-1, bitorder="little"), [np.abs(_i(3, B, 9)) % 2], 1),
    ("unpackbits", lambda a: jnp.unpackbits(a, axis=0, count=5), [(np.abs(_i(2, B)) * 20).astype(np.uint8)], 1),
    ("unpackbits", lambda a: jnp.unpackbits(a), [(np.abs(_i(B, 2)) * 20).astype(np.uint8)], 0),
    ("rankdata", lambda a: rankdata(a), [_i(B, 2, 3) // 3], 0),
    ("rankdata", lambda a: rankdata(a, "min", axis=0), [_i(4, 2, B) // 3], -1),
    ("lax_lexsort_order", lambda a, b: LI.lexsort_order((a, b), -1), [_i(B, 5) // 3, _i(B, 5) // 3], 0),
    ("lax_lexsort_order", _lexsort_pair, [_i(2, 3, B) // 3, _i(B, 2, 3) // 3], (2, 0)),
    ("lexsort", lambda a, b: jnp.lexsort([a, b]), [_i(B, 5) // 3, _i(5) // 3], (0, None)),
    ("lexsort", lambda a, b: jnp.lexsort((a, b), axis=0), [_i(4, 2, B) // 3, _i(B, 4, 2) // 3], (2, 0)),
]


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_leaves_no_loop(row):
    assert_rule_batches_without_a_loop(*ROWS[row], rtol=1e-9)


def test_every_declared_primitive_has_a_row():
    assert set(EDITS) <= {r[0] for r in ROWS} | set(CASTS[3:]) | {"tree_item_adjoint"}     # its test below


def _tree_item(g, a):
    return H.item_adjoint(H.tree_item_adjoint(1, g), 1) + a


def test_tree_item_adjoint_builds_a_batched_tree():
    """tree_item_adjoint of a batched g is the same call (a tree maker: the function no longer loops whole);
    reading the tree back with item_adjoint is batched too since the eighth batch (batch_item_adjoint)."""
    args = [_x(B, 3), _x(3)]
    batched = astjax.vmap(_tree_item, in_axes=(0, None))
    np.testing.assert_allclose(batched(*args), loop_over_batch(_tree_item, args, (0, None)), rtol=1e-12)
    source = astjax.source(batched)
    assert "vmap runs" not in source and "H.tree_item_adjoint(1, g)" in source and "range(_B" not in source, source




def _fits(w, x):
    solution, residuals, rank, s = jnp.linalg.lstsq(_A + jnp.outer(x, w), x)
    return jnp.sum(solution ** 2) + jnp.sum(residuals) + jnp.sum(s)


def _chains(w, x):
    return (jnp.linalg.multi_dot([x[:3], _M, _N * w[0], jnp.tanh(_N.T)]) @ x[1:5]
            + jnp.sum(jnp.einsum("i,ij,jk,k->", x[:3], _M, _N, w[:2]) ** 2))


def _contractions(w, x):
    head = x[:3]
    return jnp.sum(jnp.einsum("i,ij,jk,k->", head, _M, _N, w[:2]) ** 2)


def _per_example_gradients(loss):
    w, xs = _x(3), _x(B, 5)
    g = astjax.grad(loss, argnums=(0, 1))
    v = astjax.vmap(g, in_axes=(None, 0))
    got = v(w, xs)
    for k in range(2):
        np.testing.assert_allclose(got[k], np.stack([g(w, x)[k] for x in xs]), rtol=1e-9, atol=1e-12)
    return astjax.source(v)


def _ellipsis(w, x):
    m = jnp.outer(x[:3], w)
    return jnp.sum(jnp.einsum("...i,i->...", m, w) ** 2)


def test_per_example_gradients_through_einsum_of_four_operands_run_batched():
    source = _per_example_gradients(_contractions)
    assert "_results" not in source and "range(_B" not in source, source


def test_per_example_gradients_through_einsum_with_an_ellipsis_match_a_loop_and_batch_its_adjoint():
    """einsum_ellipsis_adjoint gets a batch label of its own (the other loops left in the source are the
    unknown-rank branches of outer's adjoint, which do not run)."""
    source = _per_example_gradients(_ellipsis)
    assert source.count("einsum_ellipsis_adjoint(b_t2, ") == 2 and "'B...i,Bi->B...'" in source, source


@pytest.mark.parametrize("loss", [_fits, _chains])
def test_per_example_gradients_through_lstsq_and_multi_dot_match_a_loop(loss):
    """Their adjoints read lstsq's tuple result (lstsq_a_adjoint) or the list of operands (multi_dot_adjoint):
    batched without a loop since the eighth batch (tests/test_vmap_rules_batch8.py checks that none runs)."""
    _per_example_gradients(loss)


# the dtypes of each example's call: integers read as float32 by lstsq and multi_dot, float32 kept, int32 indices
DTYPES = [
    (lambda a, b: jnp.linalg.lstsq(a, b)[0], [RNG.integers(-3, 4, size=(B, 4, 2)), _x(B, 4).astype(np.float32)], 0),
    (lambda a, b: jnp.linalg.lstsq(a, b)[2], [_x(B, 4, 2), _x(4)], (0, None)),
    (lambda a, b, c, d: jnp.linalg.multi_dot([a, b, c, d]),
     [RNG.integers(0, 4, size=(B, 2, 2)), _x(2, 3).astype(np.float32), _i(3, 2), _i(2, 2)], (0, None, None, None)),
    (lambda a, b, c: jnp.einsum("ij,jk,kl", a, b, c), [_x(B, 2, 2).astype(np.float32), _i(2, 3), _i(3, 2)],
     (0, None, None)),
    (lambda v: jnp.searchsorted(_BINS, v), [_x(B, 2).astype(np.float32)], 0),
    (lambda a: jnp.count_nonzero(a, axis=1), [_i(B, 2, 3)], 0),
    (lambda x: one_hot(x, 3), [np.abs(_i(B, 2)) % 3], 0),
    (lambda a: convolution_matrix(a, 3), [_x(B, 2).astype(np.float32)], 0),
    (lambda a: polar(a)[1], [_i(B, 2, 2)], 0),
    (lambda a, b: jnp.allclose(a, b), [_x(B, 2), _x(2)], (0, None)),
    (lambda a: rankdata(a), [_i(B, 3)], 0),
    (lambda a: jnp.packbits(a, axis=0), [np.abs(_i(B, 9, 2)) % 2], 0),
    (lambda a: jnp.linalg.matrix_rank(a), [_x(B, 2, 2)], 0),
]


@pytest.mark.parametrize("case", range(len(DTYPES)))
def test_the_batched_dtype_is_each_examples(case):
    f, args, in_axes = DTYPES[case]
    got = astjax.vmap(f, in_axes=in_axes)(*args)
    want = loop_over_batch(f, args, in_axes)
    assert np.asarray(got).dtype == want.dtype, (np.asarray(got).dtype, want.dtype)
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_chain_order_is_numpys():
    """batch_chain_order picks the parenthesization NumPy's own multi_dot computes (its private chain-order
    search, where this NumPy has it), so each example's products are the same."""
    from astjax.rules.batching_seventh import _chain_trees, batch_chain_order
    search = getattr(getattr(np.linalg, "_linalg", None), "_multi_dot_matrix_chain_order", None)
    if search is None:
        pytest.skip("this NumPy has no _multi_dot_matrix_chain_order")
    for n in (4, 5):
        for _ in range(20):
            dims = RNG.integers(1, 9, size=n + 1)
            shapes = [(int(dims[k]), int(dims[k + 1])) for k in range(n)]
            split = search([np.zeros(s) for s in shapes], return_costs=False)

            def tree(i, j):
                return i if i == j else (tree(i, int(split[i, j])), tree(int(split[i, j]) + 1, j))
            assert _chain_trees(n)[batch_chain_order(*shapes)] == tree(0, n - 1), shapes


def test_lstsq_residuals_of_examples_of_different_ranks_are_refused():
    """Full column rank in one example and not in another: residuals of length 1 and 0, which no batched array
    holds (the loop cannot stack them either); the refusal says what to do instead."""
    a = _x(B, 4, 2)
    a[1, :, 1] = a[1, :, 0]
    with pytest.raises(astjax.errors.RuntimeRefusal, match="residuals"):
        astjax.vmap(lambda a, b: jnp.linalg.lstsq(a, b)[1])(a, _x(B, 4))


def test_multi_dot_of_a_vector_inside_the_chain_raises_numpys_error():
    """An inner operand of unknown rank (a global) is checked when it runs: a vector there is NumPy's error."""
    with pytest.raises(ValueError, match="two-dimensional"):
        astjax.vmap(lambda a, d: jnp.linalg.multi_dot([a, _M, _GLOBAL_VECTOR, d]))(_x(B, 3), _x(B, 2))


# Combinations no rule covers: the loop over the batch, still equal to a Python loop.
LOOPED = [
    (lambda a, b, c, d, e, f: jnp.linalg.multi_dot([a, b, c, d, e, f]),
     [_x(B, 2, 3), _x(3, 2), _x(2, 2), _x(2, 3), _x(3, 1), _x(1, 2)], (0,) + (None,) * 5),
    (lambda a, v: jnp.searchsorted(a, v), [np.sort(_x(B, 4), axis=1), _x(B, 2)], 0),
    (lambda a, b: jnp.linalg.lstsq(a, b, rcond=1e-3)[0], [_TALL, _x(B, 5)], 0),
    (lambda a: jnp.nanargmax(a, axis=1, keepdims=True), [_x(B, 2, 3)], 0),
    (lambda x: jnp.unstack(x)[1], [_x(B, 2, 3)], 0),
]


@pytest.mark.parametrize("case", range(len(LOOPED)))
def test_uncovered_combinations_loop_and_match(case):
    assert_vmap_matches_the_loop(*LOOPED[case])



def _sorted_loss(w, x):
    m = jnp.reshape(x * w, (2, 2))
    return jnp.sum(lax.sort(x * w) * jnp.arange(4.0)) + jnp.sum(lax.sort(m, dimension=0) * _M[:2, :2])


def _sorted_pair_loss(w, x):
    a, b = lax.sort((x * w, jnp.sin(x)), num_keys=1)
    return jnp.sum(a * jnp.arange(4.0)) + jnp.sum(b ** 2)


def _sorted_squares(y):
    return lax.sort(y * y)


def _batched_lines(source, name):
    """The lines of the generated function `name` in vmap's source."""
    start = source.index(f"def {name}(")
    end = source.find("\n\n\ndef ", start)
    return source[start:end if end >= 0 else None]


def test_per_example_gradients_and_tangents_through_lax_sort_of_an_array_run_batched():
    """lax.sort's derivative (lax_sort_adjoint, lax_sort_tangent) of one array: the order by one argsort along
    the dimension shifted when it runs, one scatter (gather) back; the tuple branch, in functions of its own,
    does not run. A tuple of operands still matches a loop of grads."""
    w, xs = _x(4), _x(B, 4)
    for loss in (_sorted_loss, _sorted_pair_loss):
        g = astjax.grad(loss)
        v = astjax.vmap(g, in_axes=(None, 0))
        np.testing.assert_allclose(v(w, xs), np.stack([g(w, x) for x in xs]), rtol=1e-12, atol=1e-12)
    source = astjax.source(astjax.vmap(astjax.grad(_sorted_loss), in_axes=(None, 0)))
    assert "_results" not in _batched_lines(source, "vmap_grad__sorted_loss")
    adjoint = _batched_lines(source, "vmap_lax_sort_adjoint")
    assert "vmap runs" not in adjoint and "lax.internal.scatter_along(g, order, _axis" in adjoint, adjoint
    assert "jnp.argsort(operand, axis=batch_axis(dimension" in _batched_lines(source, "vmap__sort_order")
    jvp = lambda x, t: astjax.jvp(_sorted_squares, (x,), (t,))[1]   # noqa: E731
    ts = _x(B, 4)
    v = astjax.vmap(jvp)
    np.testing.assert_allclose(v(xs, ts), np.stack([jvp(x, t) for x, t in zip(xs, ts)]), rtol=1e-12)
    assert "vmap runs" not in _batched_lines(astjax.source(v), "vmap_lax_sort_tangent")
