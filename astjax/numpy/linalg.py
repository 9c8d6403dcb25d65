"""astjax.numpy.linalg: NumPy's linalg with JAX's dtypes and JAX's conventions.

Integer and bool inputs are computed in float32 (NumPy would use float64);
float32 stays float32 and float64 stays float64. Tuple results (eigh, svd,
qr, slogdet, lstsq) keep NumPy's named tuples, with Array fields. Every
function here is a primitive (astjax/rules/linalg.py, rules/decompositions.py),
declared non-differentiable (matrix_rank), or refused under a derivative
(eig, eigvals: complex results, as JAX refuses them too).

As in JAX, `cholesky`, `eigh` and `eigvalsh` symmetrize their input first
((a + a^T) / 2), so their derivatives are those of the symmetrized matrix.
NumPy's own np.linalg.cholesky/eigh read one triangle only: they are other
functions and are not aliases of these.
"""
import numpy as np

from ._promote import F32, nd as _nd, out as _out, promote as _promote

__all__ = ["cholesky", "cond", "det", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matrix_power",
           "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensorinv",
           "tensorsolve"]


def _float(a):
    a = _nd(a)
    return a.astype(F32) if a.dtype.kind in "biu" else a


def _outs(result):
    return type(result)(*(_out(r) for r in result))


def _symmetrized(a):
    return (a + np.conj(np.swapaxes(a, -1, -2))) / a.dtype.type(2)


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's linalg.norm; float32 for ints."""
    return _out(np.linalg.norm(_float(x), ord=ord, axis=axis, keepdims=keepdims))


def inv(a):
    """NumPy's linalg.inv; float32 for ints."""
    return _out(np.linalg.inv(_float(a)))


def solve(a, b):
    """NumPy's linalg.solve, with JAX's promotion of `a` and `b` (b a vector only when 1-D)."""
    a, b = _promote(_float(a), _float(b))
    return _out(np.linalg.solve(a, b))


def det(a):
    """NumPy's linalg.det; float32 for ints."""
    return _out(np.linalg.det(_float(a)))


def slogdet(a):
    """NumPy's linalg.slogdet, as a (sign, logabsdet) named tuple of Arrays."""
    return _outs(np.linalg.slogdet(_float(a)))


def cholesky(a, *, upper=False, symmetrize_input=True):
    """The Cholesky factor (lower unless upper=True) of a symmetrized first, as in JAX."""
    a = _float(a)
    if symmetrize_input:
        a = _symmetrized(a)
    return _out(np.linalg.cholesky(a, upper=upper))


def eigh(a, UPLO="L", symmetrize_input=True):
    """NumPy's linalg.eigh, symmetrizing the input first as JAX does."""
    a = _float(a)
    if symmetrize_input:
        a = _symmetrized(a)
    return _outs(np.linalg.eigh(a, UPLO=UPLO))


def eigvalsh(a, UPLO="L", *, symmetrize_input=True):
    """The eigenvalues (ascending) of a symmetric matrix, symmetrized first as in JAX."""
    a = _float(a)
    if symmetrize_input:
        a = _symmetrized(a)
    return _out(np.linalg.eigvalsh(a, UPLO=UPLO))


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    """NumPy's linalg.svd (a named tuple U, S, Vh of Arrays, or the singular values)."""
    result = np.linalg.svd(_float(a), full_matrices=full_matrices, compute_uv=compute_uv,
                           hermitian=hermitian)
    return _outs(result) if compute_uv else _out(result)


def svdvals(x):
    """The singular values of x, descending."""
    return _out(np.linalg.svd(_float(x), compute_uv=False))


def qr(a, mode="reduced"):
    """NumPy's linalg.qr (a named tuple of Arrays, or R for mode="r")."""
    result = np.linalg.qr(_float(a), mode=mode)
    return _out(result) if mode == "r" else _outs(result)


def pinv(a, rtol=None, hermitian=False):
    """NumPy's linalg.pinv; float32 for ints."""
    return _out(np.linalg.pinv(_float(a), rtol=rtol, hermitian=hermitian))


def lstsq(a, b, rcond=None):
    """NumPy's linalg.lstsq (x, residuals, rank, singular values); rcond=None is NumPy's default."""
    a, b = _promote(_float(a), _float(b))
    x, residuals, rank, s = np.linalg.lstsq(a, b, rcond=rcond)
    return _out(x), _out(residuals.astype(a.dtype)), _out(np.int32(rank)), _out(s.astype(a.dtype))


def matrix_power(a, n):
    """NumPy's linalg.matrix_power (n an integer; negative n inverts)."""
    return _out(np.linalg.matrix_power(_float(a), n))


def matrix_rank(M, rtol=None, *, tol=None):
    """NumPy's linalg.matrix_rank, as int32."""
    return _out(np.asarray(np.linalg.matrix_rank(_float(M), rtol=rtol, tol=tol), dtype=np.int32))


def cond(x, p=None):
    """NumPy's linalg.cond: norm(x, p) * norm(inv(x), p), or the singular-value ratio for p in (None, 2, -2)."""
    return _out(np.asarray(np.linalg.cond(_float(x), p=p), dtype=_float(x).dtype))


def multi_dot(arrays, *, precision=None):
    """NumPy's linalg.multi_dot: the product of a list of matrices (first/last may be vectors)."""
    operands = [_float(a) for a in arrays]
    dtype = np.result_type(*operands)
    return _out(np.linalg.multi_dot([o.astype(dtype, copy=False) for o in operands]))


def tensorinv(a, ind=2):
    """NumPy's linalg.tensorinv."""
    return _out(np.linalg.tensorinv(_float(a), ind=ind))


def tensorsolve(a, b, axes=None):
    """NumPy's linalg.tensorsolve."""
    a, b = _promote(_float(a), _float(b))
    return _out(np.linalg.tensorsolve(a, b, axes=axes))


def eig(a):
    """NumPy's linalg.eig (complex in general). No derivative: refused under grad, as in JAX on the CPU
    for non-symmetric input."""
    return _outs(np.linalg.eig(_float(a)))


def eigvals(a):
    """NumPy's linalg.eigvals (complex in general). No derivative: refused under grad."""
    return _out(np.linalg.eigvals(_float(a)))


# NumPy's own cholesky/eigh/eigvalsh read one triangle (no symmetrizing): other functions than JAX's,
# reached only through np.linalg.* in user code (astjax/rules/decompositions.py aliases them).
def _numpy_cholesky(a, /, *, upper=False):
    """np.linalg.cholesky: the factor of the lower (upper=True: upper) triangle of a."""
    return cholesky(a, upper=upper, symmetrize_input=False)


def _numpy_eigh(a, UPLO="L"):
    """np.linalg.eigh of the UPLO triangle of a."""
    return eigh(a, UPLO=UPLO, symmetrize_input=False)


def _numpy_eigvalsh(a, UPLO="L"):
    """np.linalg.eigvalsh of the UPLO triangle of a."""
    return eigvalsh(a, UPLO=UPLO, symmetrize_input=False)
