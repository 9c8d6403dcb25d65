"""astjax.numpy.fft: NumPy's FFTs with JAX's dtypes (float32 -> complex64, float64 -> complex128).

What is differentiable: `fftshift`, `ifftshift` (permutations of a real or
complex array; rules in astjax/rules/fft.py) and `fftfreq`/`rfftfreq` (in their
spacing `d`). The transforms themselves (fft, ifft, rfft, irfft, hfft, ihfft
and their 2-D and n-D forms) compute complex values, and astjax's derivative
rules are written for real numbers: a derivative that reaches one of them is
refused with an error naming the line (they are not primitives). They run
unchanged on values that do not depend on the differentiated input.
"""
import numpy as np

from ._promote import F32, nd as _nd, out as _out

__all__ = ["fft", "fft2", "fftfreq", "fftn", "fftshift", "hfft", "ifft", "ifft2", "ifftn", "ifftshift", "ihfft",
           "irfft", "irfft2", "irfftn", "rfft", "rfft2", "rfftfreq", "rfftn"]

_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64), np.dtype(np.float64): np.dtype(np.complex128),
               np.dtype(np.float16): np.dtype(np.complex64), np.dtype(np.complex64): np.dtype(np.complex64),
               np.dtype(np.complex128): np.dtype(np.complex128)}
_REAL_OF = {np.dtype(np.complex64): np.dtype(np.float32), np.dtype(np.complex128): np.dtype(np.float64)}


def _input(a):
    a = _nd(a)
    return a.astype(F32) if a.dtype.kind in "biu" else a


def _complex(result, a):
    return _out(np.asarray(result).astype(_COMPLEX_OF.get(a.dtype, np.dtype(np.complex64)), copy=False))


def _real(result, a):
    real = _REAL_OF.get(_COMPLEX_OF.get(a.dtype, np.dtype(np.complex64)))
    return _out(np.asarray(result).astype(real, copy=False))


def fft(a, n=None, axis=-1, norm=None):
    """The 1-D discrete Fourier transform along `axis` (complex result)."""
    a = _input(a)
    return _complex(np.fft.fft(a, n, axis, norm), a)


def ifft(a, n=None, axis=-1, norm=None):
    """The inverse of fft."""
    a = _input(a)
    return _complex(np.fft.ifft(a, n, axis, norm), a)


def rfft(a, n=None, axis=-1, norm=None):
    """The FFT of real input: the n // 2 + 1 non-negative frequencies."""
    a = _input(a)
    return _complex(np.fft.rfft(a, n, axis, norm), a)


def irfft(a, n=None, axis=-1, norm=None):
    """The inverse of rfft (real result, n = 2 (m - 1) points by default)."""
    a = _input(a)
    return _real(np.fft.irfft(a, n, axis, norm), a)


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a Hermitian-symmetric signal given by its first half (real result)."""
    a = _input(a)
    return _real(np.fft.hfft(a, n, axis, norm), a)


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of hfft (complex result)."""
    a = _input(a)
    return _complex(np.fft.ihfft(a, n, axis, norm), a)


def fft2(a, s=None, axes=(-2, -1), norm=None):
    a = _input(a)
    return _complex(np.fft.fft2(a, s, axes, norm), a)


def ifft2(a, s=None, axes=(-2, -1), norm=None):
    a = _input(a)
    return _complex(np.fft.ifft2(a, s, axes, norm), a)


def rfft2(a, s=None, axes=(-2, -1), norm=None):
    a = _input(a)
    return _complex(np.fft.rfft2(a, s, axes, norm), a)


def irfft2(a, s=None, axes=(-2, -1), norm=None):
    a = _input(a)
    return _real(np.fft.irfft2(a, s, axes, norm), a)


def fftn(a, s=None, axes=None, norm=None):
    a = _input(a)
    return _complex(np.fft.fftn(a, s, axes, norm), a)


def ifftn(a, s=None, axes=None, norm=None):
    a = _input(a)
    return _complex(np.fft.ifftn(a, s, axes, norm), a)


def rfftn(a, s=None, axes=None, norm=None):
    a = _input(a)
    return _complex(np.fft.rfftn(a, s, axes, norm), a)


def irfftn(a, s=None, axes=None, norm=None):
    a = _input(a)
    return _real(np.fft.irfftn(a, s, axes, norm), a)


def _frequency_dtype(d, dtype):
    if dtype is not None:
        return np.dtype(dtype)
    kind = getattr(d, "dtype", None)
    return kind if kind is not None and kind.kind == "f" else F32


def fftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of an n-point FFT with spacing d (float32 unless d or dtype says otherwise)."""
    return _out((np.fft.fftfreq(n, 1.0) / np.asarray(d)).astype(_frequency_dtype(d, dtype), copy=False))


def rfftfreq(n, d=1.0, *, dtype=None, device=None):
    """The sample frequencies of rfft."""
    return _out((np.fft.rfftfreq(n, 1.0) / np.asarray(d)).astype(_frequency_dtype(d, dtype), copy=False))


def fftshift(x, axes=None):
    """The zero frequency moved to the center (np.roll by half of each axis)."""
    return _out(np.fft.fftshift(_nd(x), axes))


def ifftshift(x, axes=None):
    """The inverse of fftshift."""
    return _out(np.fft.ifftshift(_nd(x), axes))
