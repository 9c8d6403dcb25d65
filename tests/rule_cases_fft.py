"""Rule cases for jnp.fft's transforms and the complex forms of abs/real/imag/conj/+-*/ (see tests/rule_cases.py).

A transform's result is complex, so each case reads a real value of it (abs,
real or imag) before the weight; the inverse transforms read the complex
spectrum of an fft. The first case of each primitive is its representative
(differentiated twice by tests/test_rules.py).
"""
from collections import namedtuple

import numpy as np

import astjax.numpy as jnp
from astjax.rules.complex_parts import real_if_real, times_minus_i
from astjax.rules.fft import fft_adjoint, fft_apply

Case = namedtuple("Case", "primitive label fn args argnums")     # tests/rule_cases.py's format
_rng = np.random.default_rng(11)
CASES = []


def case(primitive, label, fn, *args, argnums=None):
    if argnums is None:
        argnums = tuple(range(len(args)))
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(argnums)))


def normal(*shape):
    return jnp.asarray(_rng.standard_normal(shape))


# ------------------------------------------------------------ 1-D transforms
def fft_abs(x, w):
    return jnp.sum(w * jnp.abs(jnp.fft.fft(x)))


def fft_padded_ortho(x, w):
    return jnp.sum(w * jnp.real(jnp.fft.fft(x, n=7, axis=0, norm="ortho")))


def ifft_imag(x, w):
    return jnp.sum(w * jnp.imag(jnp.fft.ifft(x, n=4)))


def rfft_abs(x, w):
    return jnp.sum(w * jnp.abs(np.fft.rfft(x, norm="forward")))


def rfft_truncated(x, w):
    return jnp.sum(w * jnp.imag(jnp.fft.rfft(x, n=4, axis=0)))


def irfft_of_spectrum(x, w):
    return jnp.sum(w * jnp.fft.irfft(jnp.fft.fft(x)))


def irfft_odd_n(x, w):
    return jnp.sum(w * jnp.fft.irfft(jnp.fft.fft(x), n=7, norm="ortho"))


def hfft_of_spectrum(x, w):
    return jnp.sum(w * jnp.fft.hfft(jnp.fft.fft(x), n=9))


def ihfft_abs(x, w):
    return jnp.sum(w * jnp.abs(jnp.fft.ihfft(x, norm="ortho")))


case("fft", "abs", fft_abs, normal(6))
case("fft", "padded_ortho", fft_padded_ortho, normal(5, 3))
case("ifft", "truncated_imag", ifft_imag, normal(3, 6))
case("rfft", "abs_forward", rfft_abs, normal(7))
case("rfft", "truncated_axis0", rfft_truncated, normal(6, 2))
case("irfft", "default_n", irfft_of_spectrum, normal(6))
case("irfft", "odd_n_ortho", irfft_odd_n, normal(5))
case("hfft", "n9", hfft_of_spectrum, normal(6))
case("ihfft", "abs_ortho", ihfft_abs, normal(7))


# ------------------------------------------------------------ n-D transforms
def fft2_abs(x, w):
    return jnp.sum(w * jnp.abs(jnp.fft.fft2(x)))


def ifft2_shape(x, w):
    return jnp.sum(w * jnp.real(jnp.fft.ifft2(x, s=(3, 5), norm="ortho")))


def fftn_axes(x, w):
    return jnp.sum(w * jnp.abs(jnp.fft.fftn(x, axes=(0, 2))))


def ifftn_all(x, w):
    return jnp.sum(w * jnp.imag(jnp.fft.ifftn(x)))


def rfft2_abs(x, w):
    return jnp.sum(w * jnp.abs(jnp.fft.rfft2(x)))


def rfftn_shape(x, w):
    return jnp.sum(w * jnp.real(jnp.fft.rfftn(x, s=(3, 6), axes=(1, 0), norm="forward")))


def irfft2_spectrum(x, w):
    return jnp.sum(w * jnp.fft.irfft2(jnp.fft.fft2(x)))


def irfftn_shape(x, w):
    return jnp.sum(w * jnp.fft.irfftn(jnp.fft.fftn(x), s=(5, 7), axes=(0, 1), norm="ortho"))


case("fft2", "abs", fft2_abs, normal(3, 4))
case("ifft2", "shape_ortho", ifft2_shape, normal(4, 4))
case("fftn", "axes_0_2", fftn_axes, normal(3, 2, 4))
case("ifftn", "all_axes", ifftn_all, normal(2, 3, 2))
case("rfft2", "abs", rfft2_abs, normal(3, 5))
case("rfftn", "shape_axes_forward", rfftn_shape, normal(4, 5))
case("irfft2", "default", irfft2_spectrum, normal(3, 4))
case("irfftn", "shape_ortho", irfftn_shape, normal(4, 5))


# --------------------------------------------------- the complex forms of abs / real / imag / conj, + - * /
def complex_abs_fn(x, w):
    return jnp.sum(w * abs(jnp.fft.fft(x)))


def complex_real_fn(x, w):
    return jnp.sum(w * jnp.fft.fft(x).real)


def complex_imag_fn(x, w):
    return jnp.sum(w * jnp.imag(jnp.fft.fft(x, norm="ortho")))


def complex_conjugate_fn(x, w):
    z = jnp.fft.fft(x)
    return jnp.sum(w * jnp.imag(jnp.conj(z) * jnp.fft.ifft(x)))


def complex_add_fn(x1, x2, w):
    return jnp.sum(w * jnp.abs(jnp.fft.fft(x1) + x2))


def complex_subtract_fn(x1, x2, w):
    return jnp.sum(w * jnp.abs(x2 - jnp.fft.fft(x1)))


def complex_multiply_fn(x1, x2, w):
    return jnp.sum(w * jnp.abs(jnp.fft.fft(x1) * x2))


def complex_divide_fn(x1, x2, w):
    z = jnp.fft.fft(x1)
    return jnp.sum(w * jnp.real(x2 / z) + jnp.imag(z / x2))


case("complex_abs", "builtin_abs", complex_abs_fn, normal(5))
case("complex_real", "attribute", complex_real_fn, normal(5))
case("complex_imag", "ortho", complex_imag_fn, normal(4))
case("complex_conjugate", "times_ifft", complex_conjugate_fn, normal(5))
case("complex_add", "real_broadcast", complex_add_fn, normal(2, 4), normal(4))
case("complex_subtract", "real_minus_complex", complex_subtract_fn, normal(4), normal(4))
case("complex_multiply", "real_weight", complex_multiply_fn, normal(3, 5), normal(5))
case("complex_divide", "both_ways", complex_divide_fn, normal(4), jnp.asarray(_rng.uniform(1.0, 2.0, 4)))


# --------------------------------------------------- the helpers derivative code calls
def fft_apply_fn(x, w):
    return jnp.sum(w * jnp.abs(fft_apply(x, "rfftn", (4, 3), (0, 1), "ortho")))


def fft_adjoint_fn(g, w):
    return jnp.sum(w * fft_adjoint(g, jnp.zeros((5, 3), dtype=jnp.float64), "irfft", 6, 0, None))


def real_if_real_fn(x, w):
    return jnp.sum(w * jnp.abs(real_if_real(jnp.fft.fft(x), x)))


def times_minus_i_fn(x1, x2, w):
    return jnp.sum(w * jnp.real(times_minus_i(jnp.fft.fft(x1)) * x2))


case("fft_apply", "rfftn", fft_apply_fn, normal(3, 4))
case("fft_adjoint", "irfft_axis0", fft_adjoint_fn, normal(6, 3))
case("real_if_real", "of_fft", real_if_real_fn, normal(5))
case("times_minus_i", "times_real", times_minus_i_fn, normal(4), normal(4))


# The complex + - * / under every broadcast shape (tests/rule_cases.py's BROADCAST_SHAPES): x1 times a
# complex constant meets the real x2.
def _complex_constant():
    return jnp.sum(jnp.fft.fft(jnp.array([1.0, 2.0, 0.5])) * jnp.array([0.3, 1.0, -0.7]))


def complex_add_op(x1, x2, w):
    c = _complex_constant()
    return jnp.sum(w * jnp.abs(x1 * c + x2))


def complex_subtract_op(x1, x2, w):
    c = _complex_constant()
    return jnp.sum(w * jnp.abs(x2 - x1 * c))


def complex_multiply_op(x1, x2, w):
    c = _complex_constant()
    return jnp.sum(w * jnp.imag((x1 * c) * x2))


def complex_divide_op(x1, x2, w):
    c = _complex_constant()
    return jnp.sum(w * jnp.real((x1 * c) / x2))


_BROADCAST_SHAPES = [("col_row", (3, 1), (1, 4)), ("same", (3, 4), (3, 4)), ("scalar_array", (), (3, 4)),
                     ("array_scalar", (3, 4), ()), ("vec_rank3", (4,), (2, 3, 4)), ("rank3_vec", (2, 3, 4), (4,))]
for _name, _fn in (("complex_add", complex_add_op), ("complex_subtract", complex_subtract_op),
                   ("complex_multiply", complex_multiply_op), ("complex_divide", complex_divide_op)):
    for _label, _shape1, _shape2 in _BROADCAST_SHAPES:
        _x2 = jnp.asarray(_rng.uniform(0.5, 2.0, _shape2) * np.where(_rng.random(_shape2) < 0.5, -1.0, 1.0))
        case(_name, _label, _fn, normal(*_shape1), _x2)
