"""astjax.numpy.fft: values and dtypes against NumPy, and what a derivative may reach.

The transforms compute complex values: their derivatives are refused with an
error naming the line (astjax's rules are real), never a wrong number. The
shifts and frequency grids are real and have rules (their finite-difference
cases are in tests/rule_cases_linalg.py).
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


@pytest.mark.parametrize("fn, line", [(power_spectrum, "jnp.fft.fft(x)"), (plain_numpy_power, "np.fft.rfft(x)")])
def test_a_derivative_through_a_complex_transform_is_refused_at_its_line(fn, line):
    for transform in (astjax.grad, astjax.jacfwd):
        with pytest.raises(AstjaxError) as error:
            transform(fn)(X[0])
        assert "test_fft.py" in str(error.value) and line in str(error.value), str(error.value)


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
