"""vmap's batching rules of the fourth batch (astjax/rules/batching_fourth.py): the cast, pad and fft helpers
that per-example gradients reach, delete/append/ediff1d, the running maxima, sici/fresnel/bessel_jn, polyder,
bincount with `length` (and trim_zeros refused). One row per primitive and argument combination (batched or
not, batch axis not at 0): the batched call equals a Python loop over the batch calling the unbatched function,
and the generated source has no loop over the batch left. Per-example gradients against a loop of grads.
Reference backend only; small shapes."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
import astjax.scipy.special as jss
from astjax.errors import AstjaxError
from astjax.rules import casts as C
from astjax.rules import fft as F
from astjax.rules import helpers as H
from astjax.rules.batching_fourth import AXIS_EDITS, EDITS, SAME_CALL

from batch_loops import assert_rule_batches_without_a_loop

RNG = np.random.default_rng(11)
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _ints(*shape, high=4):
    return RNG.integers(0, high, size=shape)


# (primitive, function, args, in_axes)
ROWS = [
    ("cast_adjoint", lambda g, like: H.cast_adjoint(g, like), [_x(B, 3), _x(3)], (0, None)),
    ("cast_adjoint", lambda g, like: H.cast_adjoint(g, like), [_x(3, B), _ints(3)], (1, None)),
    ("dtype_adjoint", lambda g: C.dtype_adjoint(g, jnp.float32), [_x(B, 2, 2)], 0),
    ("dtype_adjoint", lambda g: C.dtype_adjoint(g, jnp.int32), [_x(2, B)], 1),
    ("cotangent_like", lambda g, like: H.cotangent_like(g, like), [_x(B), _x(2, 3)], (0, None)),
    ("cotangent_like", lambda g, like: H.cotangent_like(g, like), [_x(3), _ints(B, 2, 3)], (None, 0)),
    ("cotangent_like", lambda g, like: H.cotangent_like(g, like), [_x(B, 1, 3), _x(B, 2, 3).astype(np.float32)], 0),
    ("cotangent_like", lambda like: H.cotangent_like(0.0, like), [_x(2, B)], 1),
    ("pad_tangent", lambda t: H.pad_tangent(t, ((1, 0), (2, 1))), [_x(B, 2, 3)], 0),
    ("pad_tangent", lambda t: H.pad_tangent(t, 1, "reflect"), [_x(4, B)], 1),
    ("lone_zero", lambda a: H.lone_zero(a, 1), [_ints(B, 3, 4, high=2).astype(float)], 0),
    ("lone_zero", lambda a: H.lone_zero(a), [_ints(B, 3, high=2).astype(float)], 0),
    ("lone_zero", lambda a: H.lone_zero(a, 0, True), [_ints(3, B, high=2).astype(float)], 1),
    ("maximum_accumulate", lambda a: np.maximum.accumulate(a, axis=1), [_x(B, 2, 4)], 0),
    ("maximum_accumulate", lambda a: np.maximum.accumulate(a), [_x(4, B)], 1),
    ("minimum_accumulate", lambda a: np.minimum.accumulate(a, axis=-1), [_x(B, 2, 4)], 0),
    ("delete", lambda a: jnp.delete(a, 1, axis=1), [_x(B, 2, 4)], 0),
    ("delete", lambda a: jnp.delete(a, np.array([0, 3])), [_x(2, B, 2)], 1),
    ("delete", lambda a: jnp.delete(a, slice(0, 2), axis=0), [_x(B, 3, 2)], 0),
    ("append", lambda a, v: jnp.append(a, v), [_x(B, 2, 2), _x(3)], (0, None)),
    ("append", lambda a, v: jnp.append(a, v, axis=0), [_x(2, 3), _x(B, 1, 3)], (None, 0)),
    ("append", lambda a, v: jnp.append(a, v, axis=-1), [_x(B, 2, 3), _x(2, 1, B)], (0, 2)),
    ("ediff1d", lambda a: jnp.ediff1d(a), [_x(B, 2, 3)], 0),
    ("ediff1d", lambda a: jnp.ediff1d(a, to_end=np.array([1.0, 2.0]), to_begin=-1), [_x(4, B)], 1),
    ("ediff1d", lambda a: jnp.ediff1d(a, to_begin=np.array([7.5])), [_ints(B, 4)], 0),
    ("polyder", lambda p: jnp.polyder(p), [_x(B, 4)], 0),
    ("polyder", lambda p: jnp.polyder(p, 2), [_ints(4, B)], 1),
    ("polyder", lambda p: jnp.polyder(p, 0), [_x(B, 3)], 0),
    ("polyder", lambda p: jnp.polyder(p, 3), [_x(B, 2)], 0),
    ("sici", lambda x: jss.sici(x)[0] + 2.0 * jss.sici(x)[1], [np.abs(_x(B, 3)) + 0.1], 0),
    ("fresnel", lambda x: jss.fresnel(x)[1] - jss.fresnel(x)[0], [_x(3, B)], 1),
    ("bessel_jn", lambda z: jss.bessel_jn(z, v=2), [_x(B, 3)], 0),
    ("bessel_jn", lambda z: jss.bessel_jn(z, v=1), [_x(B)], 0),
    ("bincount", lambda x: jnp.bincount(x, length=4), [_ints(B, 6, high=6)], 0),
    ("bincount", lambda x, w: jnp.bincount(x, w, length=3), [_ints(5, high=3), _x(B, 5)], (None, 0)),
    ("bincount", lambda x, w: jnp.bincount(x, weights=w, length=5), [_ints(2, 3, B, high=5), _x(2, 3)], (2, None)),
    ("vander", lambda x: jnp.vander(x), [_x(B, 3)], 0),
    ("vander", lambda x: jnp.vander(x, 4, increasing=True), [_ints(3, B)], 1),
    ("put_along_axis", lambda a, i, v: jnp.put_along_axis(a, i, v, 1, inplace=False),
     [_x(B, 2, 4), _ints(2, 2, high=4), _x(B, 2, 2)], (0, None, 0)),
    ("put_along_axis", lambda a, i, v: jnp.put_along_axis(a, i, v, -1, inplace=False),
     [_x(2, 4), _ints(B, 2, 1, high=4), _x(B)], (None, 0, 0)),
    ("put_along_axis", lambda a, i: jnp.put_along_axis(a, i, 9.0, 0, inplace=False),
     [_x(3, B, 2), np.array([[0, 2], [0, 0]])], (1, None)),
    ("fill_diagonal", lambda a: jnp.fill_diagonal(a, 2.5, inplace=False), [_x(B, 3, 3)], 0),
    ("fill_diagonal", lambda a, v: jnp.fill_diagonal(a, v, inplace=False), [_x(4, 2), _x(B)], (None, 0)),
    ("fill_diagonal", lambda a, v: jnp.fill_diagonal(a, v, inplace=False), [_ints(2, 3, B), _x(B)], (2, 0)),
    ("fft_apply", lambda x: F.fft_apply(x, "fft", None, -1), [_x(B, 4)], 0),
    ("fft_apply", lambda x: F.fft_apply(x, "rfft", 6, 0, "ortho"), [_x(4, B, 2)], 1),
    ("fft_apply", lambda x: F.fft_apply(x, "fftn", None, None), [_x(B, 2, 3)], 0),
    ("fft_apply", lambda x: F.fft_apply(x, "irfftn", (3, 4), (1, 2)), [_x(B, 2, 3, 3)], 0),
    ("fft_apply", lambda x: F.fft_apply(x, "fft2", None, (0, 1)), [_x(B, 3, 2, 2)], 0),
    ("fft_adjoint", lambda g, like: F.fft_adjoint(g, like, "fft", None, -1), [_x(B, 4) + 1j * _x(B, 4), _x(4)],
     (0, None)),
    ("fft_adjoint", lambda g, like: F.fft_adjoint(g, like, "rfft", None, 1), [_x(B, 2, 3) + 0j, _x(B, 2, 4)], 0),
    ("fft_adjoint", lambda g, like: F.fft_adjoint(g, like, "irfftn", None, None), [_x(B, 2, 4), _x(2, 3)],
     (0, None)),
    ("fft_adjoint", lambda g, like: F.fft_adjoint(g, like, "fftn", (2, 4), (0, 2), "forward"),
     [_x(B, 2, 2, 4) + 0j, _x(3, 2, 3)], (0, None)),
]


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_leaves_no_loop(row):
    assert_rule_batches_without_a_loop(*ROWS[row], rtol=1e-9)


def test_every_declared_primitive_has_a_row():
    declared = set(SAME_CALL) | set(AXIS_EDITS) | set(EDITS)
    assert declared - {"trim_zeros"} <= {r[0] for r in ROWS}


def test_trim_zeros_of_a_batched_array_is_refused_at_its_line():
    with pytest.raises(AstjaxError, match="trim_zeros"):
        astjax.vmap(lambda x: jnp.trim_zeros(x))(np.array([[0.0, 1.0, 0.0], [1.0, 2.0, 3.0]]))


# ---------------------------------------------------------------- per-example gradients
def _mlp(params, x, y):
    h = jnp.tanh(x @ params["w1"] + params["b1"])
    return jnp.sum((h @ params["w2"] + params["b2"] - y) ** 2)


def _layers(params, x, y):
    (w1, b1), (w2, b2) = params
    return jnp.sum((jnp.tanh(x @ w1 + b1) @ w2 + b2 - y) ** 2)


def _mixed(params, x, y):
    """One item's gradient does not depend on the example: it is repeated along the batch."""
    return jnp.sum(params["w"]) * 2.0 + jnp.sum(params["b"] * x) + jnp.sum(params["c"] * y)


def _split_joined(w1, w2, x, y):
    c = jnp.concatenate([w1, w2], axis=0)
    a, b = jnp.split(c, 2)
    return jnp.sum((jnp.stack([w1, w2]) @ x - y[0]) ** 2) + jnp.sum(a * b * x[0])


def _list_stacked(w1, w2, x, y):
    ws = [w1, w2 * 2.0]
    return jnp.sum((jnp.stack(ws) @ x - y[0]) ** 2) + jnp.sum(jnp.concatenate(ws, axis=1) * x[0])


def _tree_leaves_penalty(params, x, y):
    return jnp.sum((params["w"] @ x - y[0]) ** 2) + 0.01 * sum(
        jnp.sum(p ** 2) for p in astjax.tree_util.tree_leaves(params))


def _one_leaf_penalized(params, x, y):
    """Leaf `v` (first in key order) is penalized alone: `w`'s item of that adjoint tree is a bare zero."""
    return jnp.sum(params["w"] * x) + 0.1 * sum(jnp.sum(p ** 2) for p in astjax.tree_util.tree_leaves(params)[:1])


def _concatenated_then_split(w1, w2, x, y):
    c = jnp.concatenate([w1, w2], axis=-1)
    a, b, d = jnp.split(c, [1, 3], axis=1)
    return jnp.sum(a * x[0]) + jnp.sum(d * y[1, :2, None])


def _w(*shape):
    return np.random.default_rng(5).normal(size=shape)


PER_EXAMPLE = [
    (_mlp, ({"w1": _w(3, 4), "b1": _w(4), "w2": _w(4, 3), "b2": _w(3)},)),
    (_layers, ([(_w(3, 4), _w(4)), (_w(4, 3), _w(3))],)),
    (_mixed, ({"w": _w(2, 2), "b": _w(3), "c": _w(2, 3)},)),
    (_split_joined, (_w(3, 3), _w(3, 3))),
    (_list_stacked, (_w(3, 3), _w(3, 3))),
    (_tree_leaves_penalty, ({"w": _w(3, 3), "b": _w(3)},)),
    (_one_leaf_penalized, ({"w": _w(3), "v": _w(2, 2)},)),
    (_concatenated_then_split, (_w(2, 2), _w(2, 3))),
]


@pytest.mark.parametrize("case", range(len(PER_EXAMPLE)), ids=[c[0].__name__ for c in PER_EXAMPLE])
def test_per_example_gradients_of_container_params_match_a_loop_and_run_batched(case):
    """vmap(grad(loss), in_axes=(None, ..., 0, 0)) with dict, list and tuple parameters: the gradient (an
    adjoint tree whose items carry the batch) no longer runs the whole function once per example."""
    f, params = PER_EXAMPLE[case]
    n = len(params)
    g = astjax.grad(f, argnums=tuple(range(n))) if n > 1 else astjax.grad(f)
    xs, ys = _x(B, 3), _x(B, 2, 3)
    v = astjax.vmap(g, in_axes=(None,) * n + (0, 0))
    got = astjax.tree_util.tree_leaves(v(*params, xs, ys))
    each = [astjax.tree_util.tree_leaves(g(*params, xs[b], ys[b])) for b in range(B)]
    want = [np.stack(items) for items in zip(*each)]
    assert len(got) == len(want)
    for a, w in zip(got, want):
        np.testing.assert_allclose(a, w, rtol=1e-10, atol=1e-12)
    source = astjax.source(v)
    assert "_example1 = " not in source
    for helper in ("index_adjoint", "stack_adjoint", "concatenate_adjoint", "split_adjoint", "tree_leaves_adjoint",
                   "concatenate_part", "cast_adjoint"):
        assert f"append({helper}(" not in source, (helper, source)


def _tuple_joined(x, y):
    t = (x, y) + (x * 2.0,)
    return t[0] + t[2] * t[1]


def _list_joined_and_summed(x, y):
    c = [x] + [y, x]
    return jnp.sum(jnp.stack(c), axis=0) + sum(c)


@pytest.mark.parametrize("f", [_tuple_joined, _list_joined_and_summed])
def test_containers_joined_by_plus_in_user_code_batch_as_a_loop_does(f):
    """`+` of two tuples or lists is their concatenation, not an adjoint tree: `add`'s tree rule leaves it to
    the loop (or a plain tuple's item-by-item batching); against a loop."""
    xs, ys = _x(B, 3), _x(B, 3)
    for axes, a, b in (((0, 0), xs, ys), ((0, None), xs, ys[0]), ((None, 0), xs[0], ys)):
        got = astjax.vmap(f, in_axes=axes)(a, b)
        want = np.stack([f(a[i] if axes[0] == 0 else a, b[i] if axes[1] == 0 else b) for i in range(B)])
        np.testing.assert_allclose(got, want, rtol=1e-12)


def _list_read_as_an_array_too(params, x):
    return jnp.sum(params[0] * x) + jnp.sum(jnp.sum(params, axis=0) * x) + jnp.sum(params[1] * x ** 2)


def test_a_tree_plus_an_array_is_not_read_as_a_tree():
    """A list read both by index and as an array gets a tree plus an array as its adjoint, which is an array
    when it runs: `is_adjoint_tree` does not vouch for it, so no tree rule reads its rows as items (with two
    examples and two leaves, rows and items would even have the same shape; with three, it crashed)."""
    params, xs = [_x(3), _x(3)], _x(B, 3)
    g = astjax.grad(_list_read_as_an_array_too)
    got = astjax.vmap(g, in_axes=(None, 0))(params, xs)
    for i in range(2):
        np.testing.assert_allclose(got[i], np.stack([g(params, x)[i] for x in xs]), rtol=1e-12)
