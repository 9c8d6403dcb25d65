"""astjax.scipy.linalg: jax.scipy.linalg's functions, computed by SciPy/NumPy with JAX's dtypes.

Every function is a primitive with VJP and JVP rules (astjax/rules/scipy_linalg.py).
Plain SciPy in user code resolves to the same primitives where SciPy computes
the same values (`scipy.linalg.cho_solve`, `solve_triangular`, `expm`,
`block_diag`, `lu`, `lu_factor`, `lu_solve`, `solve`, `eigh`; SciPy's own `inv` and
`det` are not aliased: use these, which are jnp.linalg's).
`cho_factor` follows JAX: the triangle it does not use holds zeros. SciPy's own
cho_factor is a separate primitive (`scipy_cho_factor`) with the installed SciPy's
values: SciPy up to 1.17 leaves a's entries in that triangle, SciPy 1.18 zeros
(`scipy_cho_factor_keeps_a`, asked of SciPy once).

The triangular functions read one triangle of `a` (the lower for lower=True),
as LAPACK does, and their derivatives are those of that triangle: the other
triangle gets a zero adjoint.
"""
import functools

import numpy as np

from .._lazy import lazy_module
from ..errors import AstjaxError
from ..numpy._promote import F32, nd as _nd, out as _out, promote as _promote
from ..numpy.linalg import det, inv

_sl = lazy_module("scipy.linalg")      # imported when a function first runs: `import astjax` stays fast

__all__ = ["block_diag", "cho_factor", "cho_solve", "det", "eigh", "expm", "inv", "lu", "lu_factor", "lu_solve",
           "solve", "solve_triangular",
           # astjax/scipy/_linalg_more.py (rules: astjax/rules/scipy_linalg_more.py)
           "cholesky", "qr", "svd", "expm_frechet", "toeplitz", "hankel", "circulant", "sqrtm", "polar", "schur",
           "hessenberg", "eigh_tridiagonal", "hilbert", "invhilbert", "pascal", "invpascal", "helmert", "hadamard",
           "dft", "leslie", "convolution_matrix", "companion", "fiedler", "fiedler_companion", "solve_sylvester", "funm", "rsf2csf",
           "qr_multiply"]


def _float(a):
    a = _nd(a)
    return a.astype(F32) if a.dtype.kind in "biu" else a


def _pair(a, b):
    return _promote(_float(a), _float(b))


def cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """(c, lower): the Cholesky factor of the `lower` (or upper) triangle of a, zeros in the other, as in JAX."""
    a = _float(a)
    c = np.linalg.cholesky(a, upper=not lower)
    return _out(c), lower


@functools.lru_cache(maxsize=None)
def scipy_cho_factor_keeps_a():
    """Whether the installed SciPy's cho_factor leaves a's entries in the triangle it does not use
    (SciPy up to 1.17) or zeros (SciPy 1.18). Anything else is refused: the value and the derivative
    of that triangle would be unknown."""
    c, _ = _sl.cho_factor(np.array([[4.0, 2.0], [2.0, 3.0]]))
    if c[1, 0] == 2.0:
        return True
    if c[1, 0] == 0.0:
        return False
    import scipy
    raise AstjaxError(f"scipy.linalg.cho_factor of SciPy {scipy.__version__} leaves {c[1, 0]!r} in the triangle it "
                      "does not use, neither a's entries nor zeros: astjax cannot give its value or derivative. "
                      "Use astjax.scipy.linalg.cho_factor (zeros there, as JAX).")


def scipy_cho_factor(a, lower=False, overwrite_a=False, check_finite=True):
    """The installed SciPy's cho_factor: the factor in one triangle, in the other a's entries or zeros
    (`scipy_cho_factor_keeps_a`)."""
    a = _float(a)
    c = np.linalg.cholesky(a, upper=not lower)
    if not scipy_cho_factor_keeps_a():
        return _out(c), lower
    keep = np.tril(np.ones(a.shape[-2:], dtype=bool), -1) if not lower else np.triu(np.ones(a.shape[-2:], dtype=bool), 1)
    return _out(np.where(keep, a, c)), lower


def cho_solve(c_and_lower, b, overwrite_b=False, check_finite=True):
    """x with a x = b, from cho_factor's (c, lower) (only c's factor triangle is read)."""
    c, lower = c_and_lower
    c, b = _pair(c, b)
    return _out(_sl.cho_solve((c, lower), b, check_finite=check_finite).astype(c.dtype, copy=False))


def solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, overwrite_b=False, check_finite=True):
    """x with op(T) x = b, T the lower (upper) triangle of a, op given by trans (0/'N', 1/'T', 2/'C')."""
    a, b = _pair(a, b)
    x = _sl.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal,
                             check_finite=check_finite)
    return _out(np.asarray(x).astype(a.dtype, copy=False))


def expm(A):
    """The matrix exponential of A (or of each matrix of a batch (..., n, n))."""
    A = _float(A)
    return _out(np.asarray(_sl.expm(A)).astype(A.dtype, copy=False))


def block_diag(*arrs):
    """The block-diagonal matrix of the arrays (scalars and vectors count as 1-row matrices)."""
    arrays = [_float(a) for a in arrs]
    dtype = np.result_type(*arrays) if arrays else F32
    return _out(_sl.block_diag(*[a.astype(dtype, copy=False) for a in arrays]).astype(dtype, copy=False))


def lu(a, permute_l=False, overwrite_a=False, check_finite=True, p_indices=False):
    """SciPy's lu: (p, l, u) with a = p l u, or (p l, u) for permute_l=True."""
    a = _float(a)
    result = _sl.lu(a, permute_l=permute_l, check_finite=check_finite, p_indices=p_indices)
    return tuple(_out(np.asarray(r).astype(a.dtype, copy=False)) if np.asarray(r).dtype.kind == "f"
                 else _out(np.asarray(r, dtype=np.int32)) for r in result)


def lu_factor(a, overwrite_a=False, check_finite=True):
    """SciPy's lu_factor: (lu, piv), l's strict lower triangle and u in one matrix, piv int32."""
    a = _float(a)
    lu_, piv = _sl.lu_factor(a, check_finite=check_finite)
    return _out(lu_.astype(a.dtype, copy=False)), _out(np.asarray(piv, dtype=np.int32))


def lu_solve(lu_and_piv, b, trans=0, overwrite_b=False, check_finite=True):
    """x with a x = b (trans=0) or a^T x = b (trans=1, 2) from lu_factor's (lu, piv)."""
    lu_, piv = lu_and_piv
    lu_, b = _pair(lu_, b)
    x = _sl.lu_solve((lu_, np.asarray(piv)), b, trans=trans, check_finite=check_finite)
    return _out(np.asarray(x).astype(lu_.dtype, copy=False))


def solve(a, b, lower=False, overwrite_a=False, overwrite_b=False, check_finite=True, assume_a="gen",
          transposed=False):
    """x with a x = b (SciPy's solve for a general matrix; b a vector when 1-D)."""
    a, b = _pair(a, b)
    x = _sl.solve(a, b, lower=lower, check_finite=check_finite, assume_a=assume_a, transposed=transposed)
    return _out(np.asarray(x).astype(a.dtype, copy=False))


def eigh(a, b=None, *, lower=True, eigvals_only=False, overwrite_a=False, overwrite_b=False, type=1,
         check_finite=True, subset_by_index=None, subset_by_value=None, driver=None):
    """SciPy's eigh of the `lower` (or upper) triangle of a: (w, v), or w for eigvals_only=True.
    The generalized problem (b) and subsets are not provided."""
    if b is not None or subset_by_index is not None or subset_by_value is not None:
        raise NotImplementedError("astjax.scipy.linalg.eigh: only the standard problem (b=None, no subset)")
    a = _float(a)
    w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
    return _out(w) if eigvals_only else (_out(w), _out(v))


from ._linalg_more import (  # noqa: E402 (after the helpers it imports)
    cholesky, circulant, dft, eigh_tridiagonal, expm_frechet, hadamard, hankel, helmert, hessenberg, hilbert,
    invhilbert, invpascal, pascal, polar, qr, schur, sqrtm, svd, toeplitz, leslie, convolution_matrix, companion,
    fiedler, solve_sylvester, funm, rsf2csf, qr_multiply,
)
for _fn in (cholesky, circulant, dft, eigh_tridiagonal, expm_frechet, hadamard, hankel, helmert, hessenberg, hilbert,
            invhilbert, invpascal, pascal, polar, qr, schur, sqrtm, svd, toeplitz, leslie, convolution_matrix,
            companion, fiedler, solve_sylvester, funm, rsf2csf, qr_multiply):
    _fn.__module__ = __name__       # public here (as JAX does): a library function, never inlined as user code
from ._linalg_companion import fiedler_companion  # noqa: E402
fiedler_companion.__module__ = __name__
