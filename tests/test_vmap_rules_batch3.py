"""vmap's batching rules of the third batch (astjax/rules/batching_solves.py and friends): SciPy's solves over a
stack, tensorinv, the split family, and regressions for three crashes (an index whose array parts are separated
by a slice, pareto.logpdf's reassigned scale, qr(mode='raw')). One row per primitive and argument combination
(batched or not, batch axis not at 0): the batched call equals a Python loop over the batch calling the unbatched
function, and the generated source has no loop over the batch left. A few gradients (vmap(grad)) against a loop
of grads. Reference backend only; small shapes."""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
import astjax.scipy.linalg as jsl
import astjax.scipy.stats as jst
from astjax.rules.batching import generic_rule
from astjax.rules.batching_solves import SOLVES, SPLITS
from astjax.rules.registry import PRIMITIVES

RNG = np.random.default_rng(7)
B = 3


def _x(*shape):
    return RNG.normal(size=shape)


def _spd(*lead, n=3):
    a = RNG.normal(size=lead + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _tri(*lead, n=3):
    return np.tril(RNG.normal(size=lead + (n, n))) + 3.0 * np.eye(n)


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
    ("tensorinv", lambda a: jnp.linalg.tensorinv(a, ind=1), [_x(B, 4, 2, 2) + 2 * np.eye(4).reshape(4, 2, 2)], 0),
    ("tensorinv", lambda a: jnp.linalg.tensorinv(a), [_x(B, 2, 3, 6) + 2 * np.eye(6).reshape(2, 3, 6)], 0),
    ("split", _split_two, [_x(B, 3, 4)], 0),
    ("split", _split_points, [_x(4, B, 2)], 1),
    ("array_split", _array_split_three, [_x(B, 2, 5)], 0),
    ("hsplit", _hsplit_matrix, [_x(B, 3, 4)], 0),
    ("hsplit", _hsplit_vector, [_x(B, 4)], 0),
    ("vsplit", _vsplit, [_x(B, 4, 3)], 0),
    ("dsplit", _dsplit, [_x(B, 2, 3, 4)], 0),
]


def _loop(f, args, in_axes):
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    return np.stack([np.asarray(f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes)]))
                     for b in range(size)])


@pytest.mark.parametrize("row", range(len(ROWS)), ids=[f"{r[0]}-{i}" for i, r in enumerate(ROWS)])
def test_the_rule_matches_a_loop_and_leaves_no_loop(row):
    name, f, args, in_axes = ROWS[row]
    assert generic_rule(PRIMITIVES[name]) is not None, name
    batched = astjax.vmap(f, in_axes=in_axes)
    got = batched(*args)
    np.testing.assert_allclose(got, _loop(f, args, in_axes), rtol=1e-9, atol=1e-12, equal_nan=True)
    source = astjax.source(batched)
    assert "_results" not in source and "range(_B" not in source, source


def test_every_declared_primitive_has_a_row():
    declared = (set(SOLVES) | set(SPLITS)) - {"split_items", "split_parts"}       # adjoint helpers: by gradients
    assert declared <= {r[0] for r in ROWS}
