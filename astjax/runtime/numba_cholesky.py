"""Numba lowerings of jnp.linalg.cholesky and of its adjoint (rules/decompositions.py's cholesky_adjoint).

One float matrix (a stack is declined: jit refuses it at the user's line). The factor is LAPACK's, through
Numba's np.linalg.cholesky, of the matrix the reference factors: `(a + a.T) / 2` as JAX symmetrizes
(`symmetrize_input=True`), else the symmetric matrix of the triangle NumPy reads. A matrix that is not
positive definite raises NumPy's LinAlgError, as the reference does. The adjoint is the reference's
formula, L^-T Phi(L^T gl) L^-1 symmetrized (Phi: the lower triangle with half its diagonal), written with
Numba's solve and matmul.
"""
from ..rules import decompositions as rules_decompositions
from .. import numpy as jnp
from .numba_build import L, lowers
from .numba_build import implementation as _impl
from .numba_linalg import COMPOSITES
from .numba_typing import dtype_of, is_array, literal_value


def _float_matrix(t):
    return is_array(t) and t.ndim == 2 and dtype_of(t) is not None and dtype_of(t).kind == "f"


def _flags(upper, symmetrize_input):
    """The two literal bools, or None where either is known at run time only."""
    flags = literal_value(upper), literal_value(symmetrize_input)
    return flags if all(isinstance(f, bool) for f in flags) else None


def _read_matrix(upper, symmetrize_input):
    """Lines making `s`, the symmetric matrix the reference factors, from `a`."""
    if symmetrize_input:
        return ["s = (a + a.T) * 0.5"]
    if upper:                                       # NumPy's upper=True reads the upper triangle
        return ["t = np.triu(a)", "s = t + np.triu(a, 1).T"]
    return ["t = np.tril(a)", "s = t + np.tril(a, -1).T"]


def _cholesky_reference(a, upper, symmetrize_input):
    return jnp.linalg.cholesky(a, upper=upper, symmetrize_input=symmetrize_input)


@lowers("cholesky", ("a", "upper", "symmetrize_input"), reference=_cholesky_reference, prefer_literal=True)
def _cholesky(a, upper, symmetrize_input):
    """linalg.cholesky of one float matrix with literal `upper` and `symmetrize_input`."""
    flags = _flags(upper, symmetrize_input)
    if not _float_matrix(a) or flags is None:
        return None
    up, symmetrize = flags
    lines = ["if a.shape[0] != a.shape[1]:",
             "    raise np.linalg.LinAlgError('Last 2 dimensions of the array must be square')"]
    lines += _read_matrix(up, symmetrize)
    lines.append("l = np.linalg.cholesky(np.ascontiguousarray(s))")
    lines.append("return np.ascontiguousarray(l.T)" if up else "return l")
    return _impl(("a", "upper", "symmetrize_input"), lines)


@lowers("cholesky_adjoint", ("g", "a", "y", "upper", "symmetrize_input"),
        reference=rules_decompositions.cholesky_adjoint, prefer_literal=True)
def _cholesky_adjoint(g, a, y, upper, symmetrize_input):
    """Numba twin of rules.decompositions.cholesky_adjoint for one float matrix (g a matrix of y's dtype, or
    the zero adjoint standing for one, of shape (1, 1))."""
    flags = _flags(upper, symmetrize_input)
    if not (_float_matrix(y) and _float_matrix(g) and dtype_of(g) == dtype_of(y)) or flags is None:
        return None
    up, symmetrize = flags
    lines = ["gg = np.zeros_like(y) + g",
             "l = np.ascontiguousarray(y.T)" if up else "l = y",
             "gl = np.ascontiguousarray(gg.T)" if up else "gl = gg",
             "lt = np.ascontiguousarray(l.T)",
             "n = l.shape[0]",
             "half = np.tril(np.ones((n, n), l.dtype)) - 0.5 * np.eye(n, dtype=l.dtype)",
             "x = np.linalg.solve(lt, np.ascontiguousarray(np.dot(lt, gl) * half))",
             "s = np.linalg.solve(lt, np.ascontiguousarray(x.T)).T",
             "sym = (s + s.T) * 0.5"]
    if symmetrize:
        lines.append("return np.ascontiguousarray(sym)")
    else:
        mask = "np.triu(np.ones((n, n), l.dtype))" if up else "np.tril(np.ones((n, n), l.dtype))"
        lines.append(f"return 2.0 * sym * {mask} - sym * np.eye(n, dtype=l.dtype)")
    return _impl(("g", "a", "y", "upper", "symmetrize_input"), lines)


COMPOSITES["cholesky_adjoint"] = L.cholesky_adjoint
