"""astjax.numpy.linalg: NumPy's linalg with JAX's dtypes.

Integer and bool inputs are computed in float32 (NumPy would use float64);
float32 stays float32 and float64 stays float64. Tuple results (eigh, svd,
qr, slogdet) keep NumPy's named tuples, with Array fields.
"""
import numpy as np

from ._promote import F32, nd as _nd, out as _out, promote as _promote

__all__ = ["cholesky", "det", "eigh", "inv", "norm", "pinv", "qr", "slogdet", "solve", "svd"]


def _float(a):
    a = _nd(a)
    return a.astype(F32) if a.dtype.kind in "biu" else a


def _outs(result):
    return type(result)(*(_out(r) for r in result))


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's linalg.norm; float32 for ints."""
    return _out(np.linalg.norm(_float(x), ord=ord, axis=axis, keepdims=keepdims))


def inv(a):
    """NumPy's linalg.inv; float32 for ints."""
    return _out(np.linalg.inv(_float(a)))


def solve(a, b):
    """NumPy's linalg.solve, with JAX's promotion of `a` and `b`."""
    a, b = _promote(_float(a), _float(b))
    return _out(np.linalg.solve(a, b))


def det(a):
    """NumPy's linalg.det; float32 for ints."""
    return _out(np.linalg.det(_float(a)))


def slogdet(a):
    """NumPy's linalg.slogdet, as a (sign, logabsdet) named tuple of Arrays."""
    return _outs(np.linalg.slogdet(_float(a)))


def cholesky(a, *, upper=False):
    """NumPy's linalg.cholesky (lower factor unless upper=True)."""
    return _out(np.linalg.cholesky(_float(a), upper=upper))


def eigh(a, UPLO="L", symmetrize_input=True):
    """NumPy's linalg.eigh, symmetrizing the input first as JAX does."""
    a = _float(a)
    if symmetrize_input:
        a = (a + np.conj(np.swapaxes(a, -1, -2))) / a.dtype.type(2)
    return _outs(np.linalg.eigh(a, UPLO=UPLO))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """NumPy's linalg.svd (a named tuple of Arrays, or the singular values)."""
    result = np.linalg.svd(_float(a), full_matrices=full_matrices, compute_uv=compute_uv,
                           hermitian=hermitian)
    return _outs(result) if compute_uv else _out(result)


def qr(a, mode="reduced"):
    """NumPy's linalg.qr (a named tuple of Arrays, or R for mode="r")."""
    result = np.linalg.qr(_float(a), mode=mode)
    return _out(result) if mode == "r" else _outs(result)


def pinv(a, rtol=None, hermitian=False):
    """NumPy's linalg.pinv; float32 for ints."""
    return _out(np.linalg.pinv(_float(a), rtol=rtol, hermitian=hermitian))
