"""The last jax.numpy functions (astjax/numpy/_more.py): values against NumPy, JAX's dtypes, immutable updates,
NumPy's spellings resolving to the same primitives, and the refusals.

Their derivative rules are checked against finite differences (first and second
order, forward against reverse) by tests/test_rules.py with tests/rule_cases_more.py.
"""
import io

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError
from astjax.rules import classification, lookup_callable

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
X = np.array([2.3, -1.6, 0.45, -3.7, 0.0])

VALUES = [
    ("vecdot", lambda m: m.vecdot(A, V), lambda: np.sum(A * V, axis=-1)),
    ("vecdot_axis", lambda m: m.vecdot(A, A, axis=0), lambda: np.sum(A * A, axis=0)),
    ("matvec", lambda m: m.matvec(A, V), lambda: A @ V),
    ("vecmat", lambda m: m.vecmat(A[:, 0], A), lambda: A[:, 0] @ A),
    ("modf", lambda m: m.modf(X), lambda: np.modf(X)),
    ("frexp", lambda m: m.frexp(X), lambda: np.frexp(X)),
    ("divmod", lambda m: m.divmod(X, 1.5), lambda: np.divmod(X, 1.5)),
    ("unwrap", lambda m: m.unwrap(np.array([0.1, 3.9, 7.0, 0.4])), lambda: np.unwrap([0.1, 3.9, 7.0, 0.4])),
    ("angle", lambda m: m.angle(np.array([1.0, -2.0, 3 + 4j])), lambda: np.angle([1.0, -2.0, 3 + 4j])),
    ("angle_deg", lambda m: m.angle(X, deg=True), lambda: np.angle(X, deg=True)),
    ("kaiser", lambda m: m.kaiser(6, np.float64(3.5)), lambda: np.kaiser(6, 3.5)),
    ("fill_diagonal", lambda m: m.fill_diagonal(np.zeros((5, 3)), np.array([1.0, 2.0]), wrap=True, inplace=False),
     lambda: _filled(np.zeros((5, 3)), [1.0, 2.0], True)),
    ("place", lambda m: m.place(np.arange(6.0), np.arange(6) % 2 == 0, np.array([10.0, 20.0]), inplace=False),
     lambda: _placed(np.arange(6.0), np.arange(6) % 2 == 0, [10.0, 20.0])),
    ("put_repeated", lambda m: m.put(np.arange(5.0), np.array([1, 1, 3]), np.array([7.0, 8.0, 9.0]), inplace=False),
     lambda: np.array([0.0, 8.0, 2.0, 9.0, 4.0])),
    ("put_clip", lambda m: m.put(np.arange(5.0), np.array([-1, 9]), np.array([7.0, 8.0]), inplace=False),
     lambda: np.array([0.0, 1.0, 2.0, 3.0, 8.0])),
    ("put_wrap", lambda m: m.put(np.arange(5.0), np.array([6, -2]), 7.0, mode="wrap", inplace=False),
     lambda: np.array([0.0, 7.0, 2.0, 7.0, 4.0])),
    ("put_along_axis", lambda m: m.put_along_axis(A, np.array([[0], [3], [1]]), np.array([[9.0]]), 1, inplace=False),
     lambda: _put_along(A.copy(), np.array([[0], [3], [1]]), 9.0, 1)),
    ("put_along_axis_none", lambda m: m.put_along_axis(A, np.array([0, 5]), np.array([7.0, 8.0]), None, inplace=False),
     lambda: _put_along(A.copy(), np.array([0, 5]), np.array([7.0, 8.0]), None)),
    ("polyfit", lambda m: m.polyfit(np.linspace(0, 1, 6), X[:5].repeat(2)[:6], 2),
     lambda: np.polyfit(np.linspace(0, 1, 6), X[:5].repeat(2)[:6], 2)),
    ("histogram", lambda m: m.histogram(X, bins=3), lambda: np.histogram(X, bins=3)),
    ("histogram_weights", lambda m: m.histogram(X, bins=2, weights=X * X, density=True),
     lambda: np.histogram(X, bins=2, weights=X * X, density=True)),
    ("histogram_bin_edges", lambda m: m.histogram_bin_edges(X, bins=4), lambda: np.histogram_bin_edges(X, bins=4)),
    ("histogram2d", lambda m: m.histogram2d(X, X * 2, bins=2), lambda: np.histogram2d(X, X * 2, bins=2)),
    ("histogramdd", lambda m: m.histogramdd(A[:, :2], bins=2), lambda: np.histogramdd(A[:, :2], bins=2)),
    ("roots", lambda m: m.roots(np.array([1.0, -3.0, 2.0])), lambda: np.roots([1.0, -3.0, 2.0])),
    ("poly", lambda m: m.poly(np.array([1.0, 2.0, -0.5])), lambda: np.poly([1.0, 2.0, -0.5])),
    ("polydiv", lambda m: m.polydiv(np.array([1.0, -3.0, 2.0, 5.0]), np.array([2.0, -1.0]), trim_leading_zeros=True),
     lambda: np.polydiv([1.0, -3.0, 2.0, 5.0], [2.0, -1.0])),
    ("sort_complex", lambda m: m.sort_complex(np.array([3.0, 1.0, 2.0])), lambda: np.sort_complex([3.0, 1.0, 2.0])),
    ("mask_indices", lambda m: m.mask_indices(3, np.triu, 1), lambda: np.mask_indices(3, np.triu, 1)),
    ("apply_along_axis", lambda m: m.apply_along_axis(lambda v: v[::-1] * 2, 0, A),
     lambda: np.apply_along_axis(lambda v: v[::-1] * 2, 0, A)),
    ("apply_along_axis_scalar", lambda m: m.apply_along_axis(np.sum, 1, A), lambda: np.apply_along_axis(np.sum, 1, A)),
    ("apply_over_axes", lambda m: m.apply_over_axes(np.sum, A.reshape(3, 2, 2), [0, 2]),
     lambda: np.apply_over_axes(np.sum, A.reshape(3, 2, 2), [0, 2])),
    ("piecewise", lambda m: m.piecewise(X, [X < 0, X >= 0], [lambda v: -v, lambda v: v ** 2]),
     lambda: np.piecewise(X, [X < 0, X >= 0], [lambda v: -v, lambda v: v ** 2])),
    ("piecewise_default", lambda m: m.piecewise(X, [X < 0], [np.negative, 7.0]),
     lambda: np.piecewise(X, [X < 0], [np.negative, 7.0])),
    ("fromfunction", lambda m: m.fromfunction(lambda i, k: i + 2 * k, (2, 3)),
     lambda: np.fromfunction(lambda i, k: i + 2 * k, (2, 3))),
    ("fromiter", lambda m: m.fromiter(iter([1.0, 2.0]), dtype=float), lambda: np.array([1.0, 2.0])),
    ("frombuffer", lambda m: m.frombuffer(np.arange(3.0).tobytes()), lambda: np.arange(3.0)),
    ("fromstring", lambda m: m.fromstring("1 2 3", sep=" "), lambda: np.array([1.0, 2.0, 3.0])),
]


def _filled(a, val, wrap):
    np.fill_diagonal(a, val, wrap=wrap)
    return a


def _put_along(a, indices, values, axis):
    np.put_along_axis(a, indices, values, axis)
    return a


def _placed(a, mask, vals):
    np.place(a, mask, vals)
    return a


def _assert_same(got, expected):
    if isinstance(expected, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_same(g, e)
        return
    np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,ours,numpy", VALUES, ids=[v[0] for v in VALUES])
def test_value_matches_numpy(name, ours, numpy):
    _assert_same(ours(jnp), numpy())


DTYPES = [  # (call, expected dtypes): float32 stays float32, integers become float32, counts are int32
    (lambda: jnp.vecdot(A.astype(np.float32), V.astype(np.float32)), ["float32"]),
    (lambda: jnp.matvec(A.astype(np.float32), np.arange(4)), ["float32"]),
    (lambda: jnp.modf(np.array([3, -2])), ["float32", "float32"]),
    (lambda: jnp.frexp(X.astype(np.float32)), ["float32", "int32"]),
    (lambda: jnp.divmod(X.astype(np.float32), 2.0), ["float32", "float32"]),
    (lambda: jnp.unwrap(np.array([0, 5, 1])), ["float32"]),
    (lambda: jnp.angle(np.array([1, -2])), ["float32"]),
    (lambda: jnp.angle(np.array([1j], dtype=np.complex64)), ["float32"]),
    (lambda: jnp.kaiser(5, 2.0), ["float32"]),
    (lambda: jnp.fill_diagonal(np.zeros((2, 2), np.int32), 2, inplace=False), ["int32"]),
    (lambda: jnp.polyfit(np.linspace(0, 1, 4).astype(np.float32), np.ones(4, np.float32), 1), ["float32"]),
    (lambda: jnp.histogram(X.astype(np.float32)), ["float32", "float32"]),
    (lambda: jnp.histogram2d(X, X, bins=2)[0], ["int32"]),
    (lambda: jnp.roots(np.array([1, -3, 2])), ["complex64"]),
]


@pytest.mark.parametrize("call,dtypes", DTYPES)
def test_jax_dtypes(call, dtypes):
    result = call()
    results = result if isinstance(result, tuple) else (result,)
    assert [str(np.asarray(r).dtype) for r in results] == dtypes
    assert all(isinstance(r, astjax.Array) for r in results)


def test_partition_puts_the_kth_value_in_place():
    a = RNG.standard_normal((4, 7))
    got = np.asarray(jnp.partition(a, 3, axis=1))
    np.testing.assert_array_equal(got[:, 3], np.sort(a, axis=1)[:, 3])
    assert np.all(got[:, :3] <= got[:, 3:4]) and np.all(got[:, 4:] >= got[:, 3:4])
    np.testing.assert_array_equal(np.sort(got, axis=1), np.sort(a, axis=1))


@pytest.mark.parametrize("update", [
    lambda: jnp.put(np.zeros(3), 0, 1.0),
    lambda: jnp.place(np.zeros(3), np.ones(3, bool), 1.0),
    lambda: jnp.fill_diagonal(np.zeros((2, 2)), 1.0),
    lambda: jnp.put_along_axis(np.zeros((2, 2)), np.zeros((2, 1), int), 1.0, 1),
])
def test_updates_are_not_in_place(update):
    with pytest.raises(ValueError, match="inplace=False"):
        update()


def test_updates_leave_their_input_unchanged():
    a = np.arange(4.0)
    jnp.put(a, 1, 9.0, inplace=False)
    jnp.place(a, a > 1, 9.0, inplace=False)
    m = np.zeros((2, 2))
    jnp.fill_diagonal(m, 1.0, inplace=False)
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0] and not m.any()


def test_numpy_spellings_resolve_to_the_primitives():
    for name in ("vecdot", "matvec", "vecmat", "modf", "frexp", "divmod", "unwrap", "angle", "partition",
                 "kaiser", "polyfit", "einsum_path", "mask_indices"):
        assert lookup_callable(getattr(np, name)) is lookup_callable(getattr(jnp, name)) is not None, name
    for name in ("put", "place", "fill_diagonal", "put_along_axis"):        # NumPy's mutate their argument: not aliases
        assert lookup_callable(getattr(np, name)) is None, name
    assert classification(jnp.isdtype).kind == "nondifferentiable"
    assert classification(jnp.histogram).kind == "refused"


def test_vectorize_broadcasts_and_follows_the_signature():
    add = jnp.vectorize(lambda a, b: a * b + 1.0)
    np.testing.assert_allclose(np.asarray(add(np.arange(3.0), np.ones((2, 1)))), np.arange(3.0) * np.ones((2, 1)) + 1)
    norms = jnp.vectorize(lambda v: jnp.sqrt(jnp.sum(v * v)), signature="(n)->()")
    np.testing.assert_allclose(np.asarray(norms(A)), np.linalg.norm(A, axis=1))
    scaled = jnp.vectorize(lambda v, s: v * s, excluded={1})
    np.testing.assert_allclose(np.asarray(scaled(V, 2.0)), V * 2.0)


def test_utilities(tmp_path):
    path = tmp_path / "a.npy"
    jnp.save(path, jnp.asarray(A))
    np.testing.assert_array_equal(np.asarray(jnp.load(path)), A)
    buffer = io.BytesIO()
    jnp.savez(buffer, a=jnp.asarray(V))
    buffer.seek(0)
    np.testing.assert_array_equal(np.load(buffer)["a"], V)
    assert jnp.array_str(jnp.asarray(V)) == np.array_str(V)
    assert jnp.array_repr(jnp.asarray(V)) == np.array_repr(V)
    with jnp.printoptions(precision=2):
        assert jnp.get_printoptions()["precision"] == 2
    assert jnp.isdtype(np.float32, "real floating") and not jnp.isdtype(np.int32, "real floating")
    path_, _ = jnp.einsum_path("ij,jk->ik", A, A.T)
    assert path_[0] == "einsum_path"


# ------------------------------------------------------------------ refusals
def polyfit_in_x(x):
    return jnp.sum(jnp.polyfit(x, jnp.array([1.0, 2.0, 0.0, 3.0]), 1))


def polyfit_full(y):
    return jnp.sum(jnp.polyfit(jnp.linspace(0.0, 1.0, 4), y, 1, full=True)[0])


def angle_of_complex(x):
    return jnp.sum(jnp.angle(x * (1.0 + 2.0j)))


def histogram_of_input(x):
    counts, edges = jnp.histogram(x, bins=2)
    return jnp.sum(edges)


def vectorized(x):
    return jnp.sum(jnp.vectorize(jnp.sin)(x))


@pytest.mark.parametrize("fn,needle", [
    (polyfit_in_x, "with respect to y only"),
    (polyfit_full, "full"),
    (angle_of_complex, "complex"),
    (histogram_of_input, "no derivative rule"),
    (vectorized, "no derivative rule"),
])
def test_refused_under_a_derivative(fn, needle):
    with pytest.raises(AstjaxError, match=needle):
        astjax.grad(fn)(np.array([0.0, 1.0, 2.0, 3.5]))


def test_polyfit_derivative_in_y_is_the_least_squares_projection():
    x = np.linspace(-1.0, 2.0, 6)

    def fitted_slope(y):
        return jnp.polyfit(x, y, 1)[0]
    g = np.asarray(astjax.grad(fitted_slope)(np.ones(6)))
    np.testing.assert_allclose(g, np.linalg.pinv(np.vander(x, 2))[0], rtol=1e-10)


# NumPy functions whose own code writes into an array made like their argument (normalize/numpy_calls.py)
def _np_gradient_loss(x):
    return np.sum(np.gradient(x) * x) + np.sum(np.gradient(x, 0.5) ** 2)


def _np_roll_loss(x):
    return np.sum(np.roll(x, 2) * x ** 2)


def _np_i0_loss(x):
    return np.sum(np.i0(x) * x)


@pytest.mark.parametrize("fn", [_np_gradient_loss, _np_roll_loss, _np_i0_loss], ids=lambda f: f.__name__)
def test_numpy_functions_that_write_into_their_own_arrays_are_differentiated(fn):
    x = np.linspace(0.5, 1.1, 6) + 0.01 * np.arange(6) ** 2
    value, grad = astjax.value_and_grad(fn)(x)
    fd = np.array([(fn(x + 1e-6 * e) - fn(x - 1e-6 * e)) / 2e-6 for e in np.eye(6)])
    np.testing.assert_allclose(float(value), fn(x), rtol=1e-12)
    np.testing.assert_allclose(np.asarray(grad), fd, rtol=1e-6, atol=1e-8)


def test_a_python_float_beside_float64_data_keeps_its_value():
    """A Python number is weak: interp's query 0.3 is read in float64 with float64 data, not rounded to float32."""
    xp, fp = np.array([0.0, 0.5, 1.0]), np.array([0.2, -0.7, 1.3])
    assert float(jnp.interp(0.3, xp, fp)) == np.interp(0.3, xp, fp)
    assert float(jnp.polyval(fp, 0.7)) == np.polyval(fp, 0.7)
