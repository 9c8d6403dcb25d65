"""astjax.numpy.fft: values and dtypes against NumPy, and what a derivative may reach.

The transforms are linear and have derivative rules in JAX's complex convention
(astjax/rules/fft.py): each is checked against central differences of a real
loss, forward against reverse mode, vmap against a loop, and JAX's grad where
JAX is installed. A derivative that would carry a complex value where no rule
is right for it is refused at the user's line (analyses/complex_flow.py). The
shifts and frequency grids have rules too (their finite-difference cases are in
tests/rule_cases_linalg.py; the transforms' in tests/rule_cases_fft.py).
"""
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

_rng = np.random.default_rng(3)
X = _rng.standard_normal((4, 6))
C = X + 1j * _rng.standard_normal((4, 6))

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn"]
_TAKES_COMPLEX = {"ifft", "irfft", "hfft", "ifft2", "irfft2", "ifftn", "irfftn", "fft", "fft2", "fftn"}


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("n, axis, norm", [(None, -1, None), (5, 0, "ortho"), (8, 1, "forward"), (None, 0, "backward")])
def test_one_dimensional_transforms_match_numpy(name, n, axis, norm):
    x = C if name in _TAKES_COMPLEX else X
    got = getattr(jnp.fft, name)(x, n=n, axis=axis, norm=norm)
    assert isinstance(got, astjax.Array)
    np.testing.assert_allclose(np.asarray(got), getattr(np.fft, name)(x, n=n, axis=axis, norm=norm), atol=1e-12)


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("s, axes, norm", [(None, None, None), ((3, 4), (0, 1), "ortho"), (None, (1, 0), "forward")])
def test_multi_dimensional_transforms_match_numpy(name, s, axes, norm):
    x = C if name in _TAKES_COMPLEX else X
    kwargs = {"s": s, "norm": norm}
    if axes is not None or name.endswith("n"):
        kwargs["axes"] = axes
    got = getattr(jnp.fft, name)(x, **kwargs)
    np.testing.assert_allclose(np.asarray(got), getattr(np.fft, name)(x, **kwargs), atol=1e-12)


def test_dtypes_follow_jax():
    x32 = X.astype(np.float32)
    assert jnp.fft.fft(x32).dtype == np.complex64
    assert jnp.fft.rfft(x32).dtype == np.complex64
    assert jnp.fft.irfft(jnp.fft.rfft(x32)).dtype == np.float32
    assert jnp.fft.fft(X).dtype == np.complex128
    assert jnp.fft.irfft(jnp.fft.rfft(X)).dtype == np.float64
    assert jnp.fft.fft(np.arange(4)).dtype == np.complex64
    assert jnp.fft.hfft(C.astype(np.complex64)).dtype == np.float32
    assert jnp.fft.fftfreq(5).dtype == np.float32
    assert jnp.fft.rfftfreq(5, np.float64(0.1)).dtype == np.float64


def test_complex_values_round_trip_through_arrays():
    spectrum = jnp.fft.fft(X)
    assert isinstance(spectrum, astjax.Array) and np.iscomplexobj(spectrum)
    np.testing.assert_allclose(np.asarray(jnp.fft.ifft(spectrum)).real, X, atol=1e-12)
    np.testing.assert_allclose(np.asarray(jnp.fft.irfft(jnp.fft.rfft(X), n=6)), X, atol=1e-12)
    np.testing.assert_allclose(np.asarray(jnp.abs(spectrum)), np.abs(np.fft.fft(X)), atol=1e-12)


@pytest.mark.parametrize("n, d", [(5, 1.0), (8, 0.25)])
def test_frequencies_and_shifts_match_numpy(n, d):
    np.testing.assert_allclose(np.asarray(jnp.fft.fftfreq(n, d)), np.fft.fftfreq(n, d), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(jnp.fft.rfftfreq(n, d)), np.fft.rfftfreq(n, d), rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(jnp.fft.fftshift(X, axes=1)), np.fft.fftshift(X, axes=1))
    np.testing.assert_array_equal(np.asarray(jnp.fft.ifftshift(jnp.fft.fftshift(X))), X)


def power_spectrum(x):
    return jnp.sum(jnp.abs(jnp.fft.fft(x)) ** 2)


def plain_numpy_power(x):
    return jnp.sum(jnp.abs(np.fft.rfft(x)) ** 2)


def spectrum_of_a_constant(x):
    window = jnp.abs(jnp.fft.fft(jnp.ones(4, dtype=np.float64)))
    return jnp.sum(window * x ** 2)


def shifted(x):
    return jnp.sum(jnp.fft.fftshift(x) * jnp.arange(5.0) * x)


def _central_differences(fn, args, argnum, eps=1e-6):
    x = np.array(args[argnum], dtype=np.float64)
    grad = np.zeros_like(x)
    for j in range(x.size):
        values = []
        for step in (eps, -eps):
            moved = x.copy()
            moved.flat[j] += step
            values.append(float(fn(*args[:argnum], moved, *args[argnum + 1:])))
        grad.flat[j] = (values[0] - values[1]) / (2 * eps)
    return grad


@pytest.mark.parametrize("fn", [power_spectrum, plain_numpy_power])
def test_a_derivative_through_a_transform_matches_central_differences(fn):
    x = X[0]
    expected = _central_differences(fn, (x,), 0)
    for transform in (astjax.grad, astjax.jacfwd):
        np.testing.assert_allclose(np.asarray(transform(fn)(x)), expected, rtol=1e-6, atol=1e-8)


# Each transform under a real loss: the real and imaginary parts of its result weighted apart
# (so the whole complex cotangent counts), its input a generic complex value where it takes one
# (rfft(a) + fftshift(rfft(b)) has no Hermitian symmetry), under every norm, with n / s and axes.
def _generic_complex(a, b, two_d):
    if two_d:
        return jnp.fft.fft2(a) + jnp.fft.fftshift(jnp.fft.fft2(b))
    return jnp.fft.rfft(a) + jnp.fft.fftshift(jnp.fft.rfft(b))


def _loss_of(name, kwargs, two_d):
    transform = getattr(jnp.fft, name)
    size = kwargs.get("n", kwargs.get("s"))
    axes = kwargs.get("axis", kwargs.get("axes", -1 if name in ONE_D else (-2, -1)))
    norm = kwargs.get("norm")

    def of_real(a, b, wr, wi):
        y = transform(a + b, size, axes, norm)
        return jnp.sum(jnp.real(y) * wr) + jnp.sum(jnp.imag(y) * wi)

    def of_complex_1d(a, b, wr, wi):
        z = jnp.fft.rfft(a) + jnp.fft.fftshift(jnp.fft.rfft(b))
        y = transform(z, size, axes, norm)
        return jnp.sum(jnp.real(y) * wr) + jnp.sum(jnp.imag(y) * wi)

    def of_complex_2d(a, b, wr, wi):
        z = jnp.fft.fft2(a) + jnp.fft.fftshift(jnp.fft.fft2(b))
        y = transform(z, size, axes, norm)
        return jnp.sum(jnp.real(y) * wr) + jnp.sum(jnp.imag(y) * wi)
    if name not in _TAKES_COMPLEX:
        return of_real
    return of_complex_2d if two_d else of_complex_1d


_ONE_D_DERIVATIVE_CASES = [({}, (7,)), ({"n": 6, "norm": "ortho"}, (7,)), ({"n": 11, "norm": "forward"}, (7,)),
                           ({"n": 4, "axis": 0, "norm": "backward"}, (5, 3)), ({"axis": 0}, (6, 2))]
_N_D_DERIVATIVE_CASES = [({}, (4, 5)), ({"s": (3, 6), "norm": "ortho"}, (4, 5)),
                         ({"s": (5, 4), "axes": (1, 0), "norm": "forward"}, (4, 5))]


def _derivative_params():
    for name in ONE_D:
        for kwargs, shape in _ONE_D_DERIVATIVE_CASES:
            yield pytest.param(name, kwargs, shape, False, id=f"{name}-{kwargs}")
    for name in N_D:
        for kwargs, shape in _N_D_DERIVATIVE_CASES:
            yield pytest.param(name, kwargs, shape, True, id=f"{name}-{kwargs}")


def _loss_args(name, kwargs, shape, two_d, seed):
    rng = np.random.default_rng(seed)
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    z = np.asarray(_generic_complex(a, b, two_d)) if name in _TAKES_COMPLEX else a + b
    y = getattr(np.fft, name)(z, **kwargs)
    return a, b, rng.standard_normal(y.shape), rng.standard_normal(y.shape)


@pytest.mark.parametrize("name, kwargs, shape, two_d", list(_derivative_params()))
def test_every_transform_differentiates_like_central_differences(name, kwargs, shape, two_d):
    loss = _loss_of(name, kwargs, two_d)
    args = _loss_args(name, kwargs, shape, two_d, 5)
    grads = astjax.grad(loss, argnums=(0, 1))(*args)
    for i, got in enumerate(grads):
        assert np.asarray(got).dtype == np.float64
        np.testing.assert_allclose(np.asarray(got), _central_differences(loss, args, i), rtol=1e-6, atol=1e-8)
    # forward mode agrees with reverse mode along a random direction
    rng = np.random.default_rng(6)
    ta, tb = rng.standard_normal(shape), rng.standard_normal(shape)
    _, tangent = astjax.jvp(loss, args, (ta, tb, np.zeros_like(args[2]), np.zeros_like(args[3])))
    expected = float(np.sum(np.asarray(grads[0]) * ta) + np.sum(np.asarray(grads[1]) * tb))
    np.testing.assert_allclose(float(tangent), expected, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("name, kwargs, shape, two_d", [p for p in _derivative_params() if "{}" in p.id])
def test_vmap_of_the_gradient_is_the_loop_over_examples(name, kwargs, shape, two_d):
    loss = _loss_of(name, kwargs, two_d)
    examples = [_loss_args(name, kwargs, shape, two_d, seed) for seed in range(3)]
    stacked = [np.stack(parts) for parts in zip(*examples)]
    batched = astjax.vmap(astjax.grad(loss, argnums=(0, 1)))(*stacked)
    for i in range(2):
        looped = np.stack([np.asarray(astjax.grad(loss, argnums=(0, 1))(*ex)[i]) for ex in examples])
        np.testing.assert_allclose(np.asarray(batched[i]), looped, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ONE_D + N_D)
def test_vmap_of_a_transform_is_the_loop_over_examples(name):
    x = C if name in _TAKES_COMPLEX else X
    batch = np.stack([x, 2 * x, x[::-1]])
    fn = getattr(jnp.fft, name)
    got = astjax.vmap(lambda v: fn(v, norm="ortho"))(batch)
    np.testing.assert_allclose(np.asarray(got), np.stack([getattr(np.fft, name)(v, norm="ortho") for v in batch]),
                               atol=1e-12)


def filtered(x, w):
    spectrum = jnp.fft.rfft(x) * w
    return jnp.sum(jnp.fft.irfft(spectrum, n=x.shape[0]) ** 2)


def spectral_features(x):
    z = jnp.fft.fft(x, norm="ortho")
    return jnp.sum(jnp.abs(z) ** 3) + jnp.sum(z.real * jnp.arange(6.0)) - jnp.sum(jnp.imag(jnp.conj(z) * z / 2.0))


def test_a_learnable_filter_gets_a_real_gradient():
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal(6), rng.standard_normal(4)
    gx, gw = astjax.grad(filtered, argnums=(0, 1))(x, w)
    assert np.asarray(gw).dtype == np.float64
    np.testing.assert_allclose(np.asarray(gx), _central_differences(filtered, (x, w), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(np.asarray(gw), _central_differences(filtered, (x, w), 1), rtol=1e-6, atol=1e-8)


def test_second_derivatives_through_the_transforms():
    x = np.random.default_rng(9).standard_normal(6)
    first = astjax.grad(spectral_features)
    expected = np.stack([_central_differences(lambda v: first(v)[i], (x,), 0) for i in range(6)])
    np.testing.assert_allclose(np.asarray(astjax.hessian(spectral_features)(x)), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(astjax.jacfwd(first)(x)), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(astjax.jacrev(astjax.jacfwd(spectral_features))(x)), expected,
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, kwargs, shape, two_d", [p for p in _derivative_params() if "norm" in p.id or "{}" in p.id])
def test_gradients_match_jax(name, kwargs, shape, two_d):
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jjnp
    loss = _loss_of(name, kwargs, two_d)
    args = _loss_args(name, kwargs, shape, two_d, 12)
    transform = getattr(jjnp.fft, name)

    def jax_loss(a, b, wr, wi):
        if name in _TAKES_COMPLEX:
            z = (jjnp.fft.fft2(a) + jjnp.fft.fftshift(jjnp.fft.fft2(b)) if two_d
                 else jjnp.fft.rfft(a) + jjnp.fft.fftshift(jjnp.fft.rfft(b)))
        else:
            z = a + b
        y = transform(z, **kwargs)
        return jjnp.sum(jjnp.real(y) * wr) + jjnp.sum(jjnp.imag(y) * wi)
    got = astjax.grad(loss, argnums=(0, 1))(*args)
    want = jax.grad(jax_loss, argnums=(0, 1))(*args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-9, atol=1e-9)


def test_jax_grad_of_a_complex_intermediate_agrees():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jjnp
    x = np.random.default_rng(13).standard_normal(6)

    def jax_features(x):
        z = jjnp.fft.fft(x, norm="ortho")
        return jjnp.sum(jjnp.abs(z) ** 3) + jjnp.sum(z.real * jjnp.arange(6.0)) - jjnp.sum(jjnp.imag(jjnp.conj(z) * z / 2.0))
    np.testing.assert_allclose(np.asarray(astjax.grad(spectral_features)(x)), np.asarray(jax.grad(jax_features)(x)),
                               rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(np.asarray(astjax.hessian(spectral_features)(x)),
                               np.asarray(jax.hessian(jax_features)(x)), rtol=1e-9, atol=1e-9)


# What the complex-flow analysis refuses: a derivative carrying an FFT's complex result anywhere
# its rules are not right for complex numbers, at the user's line.
def through_exp(x):
    return jnp.sum(jnp.abs(jnp.exp(jnp.fft.fft(x))))


def through_power(x):
    return jnp.sum(jnp.abs(jnp.fft.fft(x) ** 2))


def through_cumsum(x):
    z = jnp.fft.fft(x)
    return jnp.abs(jnp.cumsum(z)[1])


def indexed_bins(x):
    z = jnp.fft.fft(x)
    return jnp.real(z[1]) * jnp.imag(z[2]) + jnp.sum(jnp.abs(jnp.reshape(z[1:], (1, -1)).T))


def test_indexing_and_reshaping_a_spectrum():
    x = X[0]
    np.testing.assert_allclose(np.asarray(astjax.grad(indexed_bins)(x)), _central_differences(indexed_bins, (x,), 0),
                               rtol=1e-6, atol=1e-8)


def _helper(x, spectrum):
    return jnp.sum(jnp.abs(x * spectrum))


def through_a_user_function(x):
    spectrum = jnp.fft.fft(jnp.ones(4))
    return _helper(x, spectrum)


def through_a_reused_name(x):
    x = jnp.fft.fft(x)
    return jnp.sum(jnp.abs(x))


def rfft_of_complex(x):
    return jnp.sum(jnp.abs(jnp.fft.rfft(jnp.fft.fft(x))))


def returns_complex(x):
    return jnp.fft.fft(x)


@pytest.mark.parametrize("fn, line, words", [
    (through_exp, "jnp.exp(jnp.fft.fft(x))", "`exp`"),
    (through_power, "jnp.fft.fft(x) ** 2", "`power`"),
    (through_cumsum, "jnp.abs(jnp.cumsum(z)[1])", "`cumsum`"),
    (through_a_user_function, "_helper(x, spectrum)", "`_helper`"),
    (through_a_reused_name, "x = jnp.fft.fft(x)", "parameter `x`"),
    (rfft_of_complex, "jnp.fft.rfft(jnp.fft.fft(x))", "real part"),
])
def test_a_complex_value_where_no_rule_is_right_is_refused_at_its_line(fn, line, words):
    for transform in (astjax.grad, astjax.jacfwd):
        with pytest.raises(AstjaxError) as error:
            transform(fn)(X[0, :4])
        message = str(error.value)
        assert "test_fft.py" in message and line in message and words in message, message


def returns_complex_to_its_caller(x):
    z = returns_complex(x)
    return jnp.sum(jnp.abs(z))


def test_a_complex_result_is_refused_at_the_return():
    """The caller could not know `z` is complex (its abs would take the real rule): refused in the callee."""
    for fn in (returns_complex, returns_complex_to_its_caller):
        for transform in (astjax.grad, astjax.jacfwd):
            with pytest.raises(AstjaxError, match="returns a complex value") as error:
                transform(fn)(X[0])
            assert "return jnp.fft.fft(x)" in str(error.value)


def roots_product(x):
    r = jnp.roots(jnp.array([1.0, 0.0, 1.0]))
    return jnp.sum(jnp.abs(x[:2] * r))


def test_complex_roots_are_differentiated_as_complex_values():
    # |x_k * (+-1j)| = |x_k|: before, the real rule of abs read the complex product and gave 0
    x = np.array([1.5, -2.0, 0.3])
    for transform in (astjax.grad, astjax.jacfwd):
        np.testing.assert_allclose(np.asarray(transform(roots_product)(x)), [1.0, -1.0, 0.0], atol=1e-12)


def test_jit_refuses_a_transform_it_cannot_lower():
    with pytest.raises(AstjaxError, match="Numba lowering"):
        astjax.jit(astjax.grad(power_spectrum))(X[0])


def test_a_transform_of_a_constant_runs_under_grad():
    x = np.array([0.5, -1.0, 2.0, 0.25])
    window = np.abs(np.fft.fft(np.ones(4)))
    np.testing.assert_allclose(np.asarray(astjax.grad(spectrum_of_a_constant)(x)), 2 * window * x)


def test_gradient_through_a_shift_matches_finite_differences():
    x = _rng.standard_normal(5)
    got = np.asarray(astjax.grad(shifted)(x))
    eps = 1e-6
    expected = [(float(shifted(x + eps * e)) - float(shifted(x - eps * e))) / (2 * eps) for e in np.eye(5)]
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-9)


def _fixed_spectrum():
    return jnp.fft.fft(jnp.array([1.0, 2.0, 0.5, -1.0]))


def plus_a_spectrum_from_a_function(x):
    c = _fixed_spectrum()
    return jnp.sum(jnp.abs(x + c))


def times_a_spectrum_from_a_function(x):
    c = _fixed_spectrum()
    return jnp.sum(jnp.abs(x * c))


def spectrum_kept_in_a_list(x):
    kept = []
    kept.append(_fixed_spectrum())
    return jnp.sum(jnp.abs(x + kept[0]))


@pytest.mark.parametrize("fn", [plus_a_spectrum_from_a_function, times_a_spectrum_from_a_function,
                                spectrum_kept_in_a_list])
def test_a_complex_value_returned_by_a_helper_is_known_complex(fn):
    """Before, `abs(x + c)` took the real rule of abs on a complex value: grad gave [1, 1, 1, 1] (for a list's
    item too)."""
    x = np.array([1.0, 2.0, -0.5, 0.3])
    expected = _central_differences(fn, (x,), 0)
    for transform in (astjax.grad, astjax.jacfwd):
        np.testing.assert_allclose(np.asarray(transform(fn)(x)), expected, rtol=1e-6, atol=1e-8)
