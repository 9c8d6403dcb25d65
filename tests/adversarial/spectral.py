"""jnp.fft under derivatives: complex intermediates in JAX's convention, and the places a
complex value must be refused (the real-number rules would give a wrong number there).

A loss is real; its complex intermediates come from the transforms (or from a helper
that computes one, or from roots). Works: the transforms, + - * /, sum, the shifts,
abs / real / imag / conj. Refused: anything else a derivative would carry a complex value
through (exp, **, indexing, where, mean, norm, angle, tuples, a user function's
complex result or argument)."""
import numpy as np

import astjax.numpy as jnp

from .case import case, mat, vec


def power_spectrum(x):
    return jnp.sum(jnp.abs(jnp.fft.fft(x)) ** 2 * jnp.arange(x.shape[0]))


case(power_spectrum, lambda r: (vec(r, 6),), "works")


def parseval_ortho(x):
    z = jnp.fft.fft(x, norm="ortho")
    return jnp.sum(z.real ** 2 + z.imag ** 2) * jnp.sum(x ** 2)


case(parseval_ortho, lambda r: (vec(r, 5),), "works")


def learnable_filter(x, w):
    spectrum = jnp.fft.rfft(x) * w
    y = jnp.fft.irfft(spectrum, n=x.shape[0])
    return jnp.sum(jnp.tanh(y) * y)


case(learnable_filter, lambda r: (vec(r, 7), vec(r, 4)), "works", argnums=(0, 1))


def padded_and_truncated(x):
    long = jnp.fft.fft(x, n=9, norm="forward")
    short = jnp.fft.ifft(x, n=3)
    return jnp.sum(abs(long)) + jnp.sum(jnp.imag(short) * jnp.real(short))


case(padded_and_truncated, lambda r: (vec(r, 5),), "works")


def centred_weights(x):
    z = jnp.fft.fftshift(jnp.fft.fft(x))
    return jnp.sum(jnp.abs(z) * jnp.linspace(-1.0, 1.0, 6))


case(centred_weights, lambda r: (vec(r, 6),), "works")


def cross_correlation(x, y):
    corr = jnp.fft.ifft(jnp.fft.fft(x) * jnp.conj(jnp.fft.fft(y)))
    return jnp.sum(jnp.real(corr) * jnp.arange(6.0))


case(cross_correlation, lambda r: (vec(r, 6), vec(r, 6)), "works", argnums=(0, 1))


def spectrum_in_a_loop(x):
    z = jnp.fft.fft(x)
    acc = z
    for _ in range(3):
        acc = acc * z / 4.0 + z
    return jnp.sum(jnp.abs(acc))


case(spectrum_in_a_loop, lambda r: (vec(r, 4),), "works")


def _window_spectrum():
    return jnp.fft.fft(jnp.hanning(4))


def helper_spectrum_plus(x):
    c = _window_spectrum()
    return jnp.sum(jnp.abs(x + c))


case(helper_spectrum_plus, lambda r: (vec(r, 4),), "works")


def helper_spectrum_times(x):
    c = _window_spectrum()
    return jnp.sum(jnp.abs(x * c) + jnp.imag(c * x))


case(helper_spectrum_times, lambda r: (vec(r, 4),), "works")


def spectrum_kept_in_a_list(x):
    kept = []
    kept.append(_window_spectrum())
    kept.append(jnp.fft.fft(x))
    return jnp.sum(jnp.abs(x + kept[0])) + jnp.sum(jnp.real(kept[0] * x))


case(spectrum_kept_in_a_list, lambda r: (vec(r, 4),), "either")


def numpy_spelling(x):
    return np.sum(np.abs(np.fft.rfft(x, n=8)) ** 2)


case(numpy_spelling, lambda r: (vec(r, 6),), "works")


def roots_as_complex(x):
    r = jnp.roots(jnp.array([1.0, 0.0, 4.0]))
    return jnp.sum(jnp.abs(x[:2] - r))


case(roots_as_complex, lambda r: (vec(r, 3),), "works")


def hermitian_pair(x):
    return jnp.sum(jnp.fft.hfft(jnp.fft.ihfft(x), n=x.shape[0]) * x)


case(hermitian_pair, lambda r: (vec(r, 6),), "works")


def image_spectrum(a):
    z = jnp.fft.fft2(a, s=(4, 6), axes=(1, 0))
    return jnp.sum(jnp.abs(jnp.sum(z, axis=0)))


case(image_spectrum, lambda r: (mat(r, 3, 5),), "works")


def rfftn_irfftn_round_trip(a):
    z = jnp.fft.rfftn(a, s=(4, 4))
    return jnp.sum(jnp.fft.irfftn(z * z, s=(4, 4)) ** 2)


case(rfftn_irfftn_round_trip, lambda r: (mat(r, 4, 4),), "works")


# ------------------------------------------------------------- refused
def through_exp(x):
    return jnp.sum(jnp.real(jnp.exp(jnp.fft.fft(x))))


case(through_exp, lambda r: (vec(r, 4),), "refuse")


def through_power(x):
    return jnp.sum(jnp.real(jnp.fft.fft(x) ** 2))


case(through_power, lambda r: (vec(r, 4),), "refuse")


def through_slicing(x):       # indexing keeps complex values (its adjoint scatters the complex cotangent)
    z = jnp.fft.fft(x)
    return jnp.sum(jnp.abs(z[1:3]))


case(through_slicing, lambda r: (vec(r, 4),), "works")


def through_where(x):
    z = jnp.fft.fft(x)
    return jnp.sum(jnp.abs(jnp.where(x > 0.0, z, 0.0)))


case(through_where, lambda r: (vec(r, 4),), "refuse")


def through_mean(x):
    return jnp.abs(jnp.mean(jnp.fft.fft(x)))


case(through_mean, lambda r: (vec(r, 4),), "refuse")


def through_cumsum(x):
    return jnp.sum(jnp.abs(jnp.cumsum(jnp.fft.fft(x))))


case(through_cumsum, lambda r: (vec(r, 4),), "refuse")


def through_norm(x):
    return jnp.linalg.norm(jnp.fft.fft(x))


case(through_norm, lambda r: (vec(r, 4),), "either")


def through_angle(x):
    return jnp.sum(jnp.angle(jnp.fft.fft(x)))


case(through_angle, lambda r: (vec(r, 4),), "refuse")


def through_a_tuple(x):
    pair = (jnp.fft.fft(x), x)
    return jnp.sum(jnp.abs(pair[0]))


case(through_a_tuple, lambda r: (vec(r, 4),), "either")


def _spectrum_of(x):
    return jnp.fft.fft(x)


def helper_returns_a_varied_spectrum(x):
    z = _spectrum_of(x)
    return jnp.sum(jnp.abs(z))


case(helper_returns_a_varied_spectrum, lambda r: (vec(r, 4),), "refuse")


def _magnitude(z):
    return jnp.abs(z)


def helper_takes_a_spectrum(x):
    z = jnp.fft.fft(x)
    return jnp.sum(_magnitude(z))


case(helper_takes_a_spectrum, lambda r: (vec(r, 4),), "refuse")


def parameter_becomes_complex(x):
    x = jnp.fft.fft(x)
    return jnp.sum(jnp.abs(x))


case(parameter_becomes_complex, lambda r: (vec(r, 4),), "refuse")


def rfft_of_a_spectrum(x):
    return jnp.sum(jnp.abs(jnp.fft.rfft(jnp.fft.fft(x))))


case(rfft_of_a_spectrum, lambda r: (vec(r, 4),), "refuse")


def spectrum_as_output(x):
    return jnp.fft.fft(x)


case(spectrum_as_output, lambda r: (vec(r, 4),), "refuse", mode="jac")
