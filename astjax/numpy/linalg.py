"""astjax.numpy.linalg: NumPy's linalg with JAX's dtypes and JAX's conventions.

Integer and bool inputs are computed in float32 (NumPy would use float64);
float32 stays float32 and float64 stays float64. Tuple results (eigh, svd,
qr, slogdet, lstsq) keep NumPy's named tuples, with Array fields. Every
function here is a primitive (astjax/rules/linalg.py, rules/decompositions.py),
declared non-differentiable (matrix_rank), or refused under a derivative
(eig, eigvals: complex results, as JAX refuses them too).

The array API's names (`matmul`, `tensordot`, `vecdot`, `matrix_transpose`
are astjax.numpy's own functions; `cross`, `outer`, `diagonal`, `trace`,
`matrix_norm`, `vector_norm` are written here) work on the last axes:
`linalg.diagonal(x)` and `linalg.trace(x)` read axes (-2, -1), where
`jnp.diagonal` and `jnp.trace` read (0, 1).

As in JAX, `cholesky`, `eigh` and `eigvalsh` symmetrize their input first
((a + a^T) / 2), so their derivatives are those of the symmetrized matrix.
NumPy's own np.linalg.cholesky/eigh read one triangle only: they are other
functions and are not aliases of these.
"""
import numpy as np

from ._linalg import matmul, tensordot
from ._linalg import outer as _outer
from ._more import vecdot
from ._promote import F32, nd as _nd, out as _out, promote as _promote
from ._shape import matrix_transpose
from ._signal import cross as _cross

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq",
           "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer",
           "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace",
           "vecdot", "vector_norm"]


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
    if mode == "raw":       # (h, tau) in LAPACK's layout, as JAX's (NumPy gives a plain tuple)
        return type(np.linalg.qr(np.eye(1)))(*(_out(r) for r in result))
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


# ------------------------------------------------------------------ the array API's names (NumPy 2, JAX)
def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors along `axis` (both operands need length 3 there)."""
    for x in (x1, x2):
        if np.shape(_nd(x))[axis] != 3:
            raise ValueError(f"linalg.cross: both operands need size 3 along axis {axis}, got shape "
                             f"{np.shape(_nd(x))}")
    return _cross(x1, x2, axis=axis)


def outer(x1, x2, /):
    """The outer product of two vectors (1-d only, unlike jnp.outer, which flattens)."""
    if np.ndim(_nd(x1)) != 1 or np.ndim(_nd(x2)) != 1:
        raise ValueError(f"linalg.outer: input arrays must be one-dimensional, got shapes {np.shape(_nd(x1))} "
                         f"and {np.shape(_nd(x2))}")
    return _outer(x1, x2)


def diagonal(x, /, *, offset=0):
    """The offset-th diagonal of each matrix in x, over its last two axes."""
    return _out(np.diagonal(_nd(x), offset, -2, -1).copy())


def trace(x, /, *, offset=0, dtype=None):
    """The sum of the offset-th diagonal of each matrix in x, over its last two axes."""
    x = _nd(x)
    return _out(np.asarray(np.trace(x, offset, -2, -1, dtype=dtype)))


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The norm of each matrix in x over its last two axes (ord "fro", "nuc", 1, -1, 2, -2, inf, -inf)."""
    return _out(np.asarray(np.linalg.norm(_float(x), ord=ord, axis=(-2, -1), keepdims=keepdims)))


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The vector norm of x over `axis` (None: every axis; a tuple: those axes, taken as one vector)."""
    x = _float(x)
    flat, kept = vector_norm_layout(np.shape(x), axis)
    vectors = np.reshape(np.moveaxis(x, flat, range(x.ndim - len(flat), x.ndim)), kept + (-1,))
    result = np.linalg.norm(vectors, ord=ord, axis=-1)
    if keepdims:
        result = np.reshape(result, vector_norm_kept_shape(np.shape(x), axis))
    return _out(np.asarray(result, dtype=x.dtype))


def vector_norm_layout(shape, axis):
    """(the reduced axes, non-negative and sorted; the shape of the axes that are kept)."""
    ndim = len(shape)
    if axis is None:
        reduced = tuple(range(ndim))
    else:
        reduced = tuple(sorted(a % ndim for a in (axis if isinstance(axis, (tuple, list)) else (axis,))))
    return reduced, tuple(n for i, n in enumerate(shape) if i not in reduced)


def vector_norm_kept_shape(shape, axis):
    """vector_norm's result shape with keepdims=True: the reduced axes as 1."""
    reduced, _ = vector_norm_layout(shape, axis)
    return tuple(1 if i in reduced else n for i, n in enumerate(shape))


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
