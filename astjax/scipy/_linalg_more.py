"""More of jax.scipy.linalg: decompositions (cholesky, qr, svd, polar, schur, hessenberg, eigh_tridiagonal),
functions of a matrix (sqrtm, expm_frechet), structured matrices (toeplitz, hankel, circulant) and the
constant matrices of a size (hilbert, pascal, helmert, hadamard, dft, ...).

Values come from NumPy/SciPy with JAX's dtypes and JAX's conventions; where plain SciPy's values differ
(`sqrtm`'s dtype, `pascal`'s integers) SciPy's own function is a separate primitive keeping SciPy's values
(astjax/rules/scipy_linalg_more.py says which). Matrices are the last two axes.
"""
import numpy as np

from .._lazy import lazy_module
from ..numpy import linalg as _jnp_linalg
from ..numpy._promote import C64, F32, nd as _nd, out as _out

_sl = lazy_module("scipy.linalg")

__all__ = ["cholesky", "qr", "svd", "expm_frechet", "toeplitz", "hankel", "circulant", "sqrtm", "scipy_sqrtm",
           "polar", "schur", "hessenberg", "eigh_tridiagonal", "hilbert", "invhilbert", "pascal", "invpascal",
           "helmert", "hadamard", "dft", "structured_index", "gather_index", "leslie", "convolution_matrix",
           "companion", "fiedler", "solve_sylvester", "funm", "rsf2csf", "qr_multiply"]


def _float(a):
    a = _nd(a)
    return a.astype(F32) if a.dtype.kind in "biu" else a


# ------------------------------------------------------------------ decompositions
def cholesky(a, lower=False, overwrite_a=False, check_finite=True):
    """The Cholesky factor of the `lower` (or, by default, upper) triangle of a; zeros in the other triangle.
    Only that triangle of a is read (SciPy's and JAX's convention: no symmetrizing)."""
    a = _float(a)
    return _out(np.linalg.cholesky(a, upper=not lower))


_QR_MODES = {"full": "complete", "economic": "reduced"}


def qr(a, overwrite_a=False, lwork=None, mode="full", pivoting=False, check_finite=True):
    """SciPy's qr: (q, r) for mode='full' (q is m x m) or 'economic' (q is m x k), (r,) for mode='r'
    (r of the full decomposition); with pivoting=True the column permutation p (int32) comes last."""
    a = _float(a)
    if mode not in ("full", "economic", "r"):
        raise NotImplementedError(f"astjax.scipy.linalg.qr: mode={mode!r} is not supported (JAX has 'full', "
                                  "'economic' and 'r')")
    if pivoting:
        if a.ndim != 2:
            raise NotImplementedError("astjax.scipy.linalg.qr(pivoting=True) takes one matrix")
        parts = _sl.qr(a, mode="full" if mode == "r" else mode, pivoting=True)
        q, r, p = (np.asarray(x) for x in parts) if mode != "r" else (None, *parts)
        p = _out(np.asarray(p, dtype=np.int32))
        r = _out(r.astype(a.dtype, copy=False))
        return (r, p) if mode == "r" else (_out(q.astype(a.dtype, copy=False)), r, p)
    q, r = _jnp_linalg.qr(a, "complete" if mode == "r" else _QR_MODES[mode])
    return (r,) if mode == "r" else (q, r)


def svd(a, full_matrices=True, compute_uv=True, overwrite_a=False, check_finite=True, lapack_driver="gesdd"):
    """SciPy's svd: (u, s, vh), or s alone for compute_uv=False (jnp.linalg.svd's values)."""
    result = _jnp_linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(result) if compute_uv else result


def polar(a, side="right", *, method="qdwh", eps=None, max_iterations=None):
    """(u, p) with a = u p (side='right', p of size n x n) or a = p u (side='left', p of size m x m);
    computed from the reduced SVD for every `method` (the same factors up to rounding)."""
    if side not in ("right", "left"):
        raise ValueError(f"polar: side must be 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"polar: unknown method {method!r}")
    a = _float(a)
    u, s, vt = np.linalg.svd(a, full_matrices=False)
    unitary = u @ vt
    if side == "right":
        posdef = (np.swapaxes(vt, -1, -2) * s[..., None, :]) @ vt
    else:
        posdef = (u * s[..., None, :]) @ np.swapaxes(u, -1, -2)
    return _out(unitary.astype(a.dtype, copy=False)), _out(posdef.astype(a.dtype, copy=False))


def schur(a, output="real"):
    """(t, z) with a = z t z^T, t quasi upper triangular (output='real') or triangular ('complex')."""
    a = _float(a)
    if output not in ("real", "complex"):
        raise ValueError(f"schur: output must be 'real' or 'complex', got {output!r}")
    t, z = _sl.schur(a, output=output)
    kind = a.dtype if output == "real" else np.result_type(a.dtype, C64)
    return _out(np.asarray(t).astype(kind, copy=False)), _out(np.asarray(z).astype(kind, copy=False))


def hessenberg(a, calc_q=False, overwrite_a=False, check_finite=True):
    """The upper Hessenberg form h of a (and q with a = q h q^T when calc_q=True)."""
    a = _float(a)
    result = _sl.hessenberg(a, calc_q=calc_q)
    if calc_q:
        return tuple(_out(np.asarray(x).astype(a.dtype, copy=False)) for x in result)
    return _out(np.asarray(result).astype(a.dtype, copy=False))


def eigh_tridiagonal(d, e, eigvals_only=False, select="a", select_range=None, check_finite=True, tol=None,
                     lapack_driver="auto"):
    """Eigenvalues (ascending), and eigenvectors unless eigvals_only, of the symmetric tridiagonal matrix with
    diagonal d and off-diagonal e. Only select='a' (all of them)."""
    if select != "a" or select_range is not None:
        raise NotImplementedError("astjax.scipy.linalg.eigh_tridiagonal: only select='a' (all eigenvalues)")
    d = _float(d)
    e = _float(e)
    dtype = np.result_type(d, e)
    if eigvals_only:
        return _out(np.asarray(_sl.eigh_tridiagonal(d, e, eigvals_only=True)).astype(dtype, copy=False))
    w, v = _sl.eigh_tridiagonal(d, e)
    return _out(np.asarray(w).astype(dtype, copy=False)), _out(np.asarray(v).astype(dtype, copy=False))


# ------------------------------------------------------------------ functions of a matrix
def sqrtm(A, blocksize=1):
    """The principal square root of A as JAX gives it: always complex (complex64 for float32 input)."""
    A = _float(A)
    if blocksize != 1:
        raise NotImplementedError("sqrtm: blocksize must be 1 (as in JAX)")
    kind = np.result_type(A.dtype, C64)
    return _out(np.asarray(_sl.sqrtm(A)).astype(kind, copy=False))


def scipy_sqrtm(A, disp=True, blocksize=64):
    """Plain scipy.linalg.sqrtm: SciPy's values, real when A has a real principal square root."""
    A = _float(A)
    result = _sl.sqrtm(A, disp=disp, blocksize=blocksize) if disp is not True else _sl.sqrtm(A)
    if isinstance(result, tuple):
        return _out(np.asarray(result[0])), result[1]
    result = np.asarray(result)
    return _out(result.astype(A.dtype, copy=False) if result.dtype.kind == "f" else result)


def expm_frechet(A, E, method=None, compute_expm=True, check_finite=True):
    """(expm(A), the Frechet derivative of expm at A along E), or that derivative alone for compute_expm=False:
    the blocks of expm([[A, E], [0, A]])."""
    A = _float(A)
    E = _float(E)
    dtype = np.result_type(A, E)
    n = A.shape[-1]
    zeros = np.zeros_like(A, dtype=dtype)
    big = np.concatenate([np.concatenate([A, E], -1), np.concatenate([zeros, A], -1)], -2).astype(dtype)
    block = np.asarray(_sl.expm(big)).astype(dtype, copy=False)
    frechet = _out(np.ascontiguousarray(block[..., :n, n:]))
    if not compute_expm:
        return frechet
    return _out(np.ascontiguousarray(block[..., :n, :n])), frechet


# ------------------------------------------------------------------ structured matrices
def structured_index(kind, m, n):
    """The (m, n) indices into the vector v each structured matrix gathers from:
    toeplitz: v = [r[n-1], ..., r[1], c] at n-1+i-j; hankel: v = [c, r[1:]] at i+j; circulant: v = c at (i-j) % m."""
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    if kind == "toeplitz":
        return _out((n - 1 + i - j).astype(np.int32))
    if kind == "hankel":
        return _out((i + j).astype(np.int32))
    return _out(((i - j) % m).astype(np.int32))


def _vector(x, what):
    x = _nd(x)
    if x.ndim != 1:
        raise NotImplementedError(f"astjax.scipy.linalg.{what} takes 1-D arrays (got {x.ndim}-D); build one matrix "
                                  "per vector (SciPy's handling of N-D input is changing)")
    return x


def toeplitz(c, r=None):
    """The Toeplitz matrix with first column c and first row r (r[0] is ignored); r=None means r = c."""
    c = _vector(c, "toeplitz")
    r = c if r is None else _vector(r, "toeplitz")
    dtype = np.result_type(c, r)
    v = np.concatenate([r[:0:-1], c]).astype(dtype)
    return _out(v[_nd(structured_index("toeplitz", len(c), len(r)))])


def hankel(c, r=None):
    """The Hankel matrix with first column c and last row r (r[0] is ignored); r=None means zeros."""
    c = _vector(c, "hankel")
    r = np.zeros_like(c) if r is None else _vector(r, "hankel")
    dtype = np.result_type(c, r)
    v = np.concatenate([c, r[1:]]).astype(dtype)
    return _out(v[_nd(structured_index("hankel", len(c), len(r)))])


def circulant(c):
    """The circulant matrix with first column c."""
    c = _vector(c, "circulant")
    return _out(c[_nd(structured_index("circulant", len(c), len(c)))])


# ------------------------------------------------------------------ constant matrices of a size (JAX's dtypes)
def hilbert(n):
    """The n x n Hilbert matrix 1 / (i + j + 1), float32."""
    return _out(np.asarray(_sl.hilbert(int(n)), dtype=F32))


def invhilbert(n):
    """The inverse of the n x n Hilbert matrix, float32 (JAX's; SciPy's own has exact=)."""
    return _out(np.asarray(_sl.invhilbert(int(n)), dtype=F32))


def pascal(n, kind=None):
    """The n x n Pascal matrix (kind 'symmetric', 'lower' or 'upper'), float32 as JAX gives it."""
    return _out(np.asarray(_sl.pascal(int(n), kind or "symmetric", exact=False), dtype=F32))


def invpascal(n, kind=None):
    """The inverse of the n x n Pascal matrix, float32 as JAX gives it."""
    return _out(np.asarray(_sl.invpascal(int(n), kind or "symmetric", exact=False), dtype=F32))


def helmert(n, full=False):
    """The Helmert matrix of order n ((n-1) x n, or n x n with full=True), float32."""
    return _out(np.asarray(_sl.helmert(int(n), full=full), dtype=F32))


def hadamard(n, dtype=None):
    """The n x n Hadamard matrix (n a power of two), int32 unless `dtype` is given."""
    return _out(np.asarray(_sl.hadamard(int(n)), dtype=np.int32 if dtype is None else dtype))


def dft(n, scale=None):
    """The n x n discrete Fourier transform matrix, complex64."""
    return _out(np.asarray(_sl.dft(int(n), scale=scale), dtype=C64))


# ------------------------------------------------------------------ more structured matrices, and solves
def _probe(kind, *sizes):
    """SciPy's matrix of the given kind built from the entries 1, 2, ..., so each entry names the position it
    comes from (0: a structural zero, or a structural one for companion)."""
    if kind == "leslie":
        n = sizes[0]
        return np.asarray(_sl.leslie(np.arange(1.0, n + 1), np.arange(n + 1.0, 2 * n)))
    m, n, mode = sizes
    return np.asarray(_sl.convolution_matrix(np.arange(1.0, m + 1), n, mode))


def gather_index(kind, *sizes):
    """Indices into the vector v = [operands..., 0] each entry of the matrix takes (the last slot is the zero)."""
    probe = _probe(kind, *sizes)
    slots = int(sizes[0]) * (2 if kind == "leslie" else 1) - (1 if kind == "leslie" else 0)
    return _out(np.where(probe == 0, slots, probe - 1).astype(np.int32))


def leslie(f, s):
    """The Leslie matrix: fecundities f (length n) in the first row, survival s (length n-1) below the diagonal."""
    f = _vector(f, "leslie")
    s = _vector(s, "leslie")
    if len(s) != len(f) - 1:
        raise ValueError("leslie: s must have one entry fewer than f")
    dtype = np.result_type(_float(f), _float(s))
    v = np.concatenate([f, s, np.zeros(1)]).astype(dtype)
    return _out(v[_nd(gather_index("leslie", len(f)))])


def convolution_matrix(a, n, mode="full"):
    """The matrix A with A @ v = np.convolve(a, v, mode) for v of length n."""
    a = _vector(a, "convolution_matrix")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"convolution_matrix: mode must be 'full', 'same' or 'valid', got {mode!r}")
    v = np.concatenate([a, np.zeros(1, dtype=a.dtype)])
    return _out(v[_nd(gather_index("convolution", len(a), int(n), mode))])


def companion(a):
    """The companion matrix of the polynomial with coefficients a (highest first): first row -a[1:] / a[0],
    ones below the diagonal."""
    a = _float(_vector(a, "companion"))
    if len(a) < 2:
        raise ValueError("companion: a needs at least two coefficients")
    return _out(np.asarray(_sl.companion(a)).astype(a.dtype, copy=False))


def fiedler(a):
    """The Fiedler matrix |a_i - a_j|."""
    a = _vector(a, "fiedler")
    return _out(np.abs(a[:, None] - a[None, :]))


def solve_sylvester(A, B, C, method="schur", tol=1e-8):
    """X with A X + X B = C (Bartels-Stewart, SciPy's)."""
    A = _float(A)
    B = _float(B)
    C = _float(C)
    dtype = np.result_type(A, B, C)
    return _out(np.asarray(_sl.solve_sylvester(A, B, C)).astype(dtype, copy=False))


def funm(A, func, disp=True):
    """f(A) for a scalar function f, through the Schur form (SciPy's funm; complex, as JAX gives it)."""
    A = _float(A)
    kind = np.result_type(A.dtype, C64)
    if disp:
        return _out(np.asarray(_sl.funm(A, func, disp=True)).astype(kind, copy=False))
    value, err = _sl.funm(A, func, disp=False)
    return _out(np.asarray(value).astype(kind, copy=False)), err


def rsf2csf(T, Z, check_finite=True):
    """The complex Schur form (T, Z) from the real one."""
    T = _float(T)
    Z = _float(Z)
    kind = np.result_type(T.dtype, Z.dtype, C64)
    t, z = _sl.rsf2csf(T, Z)
    return _out(np.asarray(t).astype(kind, copy=False)), _out(np.asarray(z).astype(kind, copy=False))


def qr_multiply(a, c, mode="right", pivoting=False, conjugate=False, overwrite_a=False, overwrite_c=False):
    """SciPy's qr_multiply: (q @ c or c @ q, r) from the economic QR of a."""
    a = _float(a)
    c = _float(c)
    dtype = np.result_type(a, c)
    parts = _sl.qr_multiply(a, c, mode=mode, pivoting=pivoting, conjugate=conjugate)
    return tuple(_out(np.asarray(p).astype(dtype, copy=False)) if np.asarray(p).dtype.kind == "f"
                 else _out(np.asarray(p, dtype=np.int32)) for p in parts)
