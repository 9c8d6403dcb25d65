"""jax.scipy.linalg.fiedler_companion: Fiedler's pentadiagonal companion matrix (rules in
astjax/rules/fiedler_companion.py).

With b = a / a[0] (coefficients highest first, last axis), each entry of the (n, n) result (n = N - 1) is
0, 1 or -b[k] for one k >= 1: `fiedler_companion_selection(n)` is the constant (N, n, n) array of 0/1 that
says which b[k] each entry reads, and `fiedler_companion_ones(n)` the entries that are 1, so the result is
`ones - einsum("kij,...k->...ij", selection, b)`, linear in b.
"""
import numpy as np

from ..numpy._promote import nd as _nd, out as _out

__all__ = ["fiedler_companion", "fiedler_companion_selection", "fiedler_companion_ones"]


def _positions(n):
    """[(row, column, k)] of the entries -b[k], and [(row, column)] of the ones (JAX's and SciPy's layout)."""
    if n == 0:
        return [], []
    reads, ones = [(0, 0, 1)], [(1, 0)] if n > 1 else []
    for i in range(0, n, 2):
        if i + 1 < n:
            reads.append((i, i + 1, i + 2))
        if i + 2 < n:
            ones.append((i, i + 2))
        if i >= 2:
            reads.append((i, i - 1, i + 1))
    for i in range(3, n, 2):
        ones.append((i, i - 2))
    return reads, ones


def fiedler_companion_selection(n):
    """The (n + 1, n, n) array S with S[k, i, j] = 1 where entry (i, j) is -a[k] / a[0]."""
    selection = np.zeros((n + 1, n, n), dtype=np.float32)
    for i, j, k in _positions(n)[0]:
        selection[k, i, j] = 1.0
    return selection


def fiedler_companion_ones(n):
    """The (n, n) array with 1 at the entries that are 1."""
    ones = np.zeros((n, n), dtype=np.float32)
    for i, j in _positions(n)[1]:
        ones[i, j] = 1.0
    return ones


def fiedler_companion(a):
    """The Fiedler companion matrix of the polynomial with coefficients `a` (..., N), highest first: shape
    (..., N - 1, N - 1); its eigenvalues are the polynomial's roots. As JAX, a zero a[0] gives inf/nan."""
    a = _nd(a)
    a = np.atleast_1d(a.astype(np.float32) if a.dtype.kind in "biu" else a)
    if a.shape[-1] == 0:
        raise ValueError("fiedler_companion requires the last axis of 'a' to have nonzero length, but got an "
                         f"array of shape {a.shape}.")
    n = a.shape[-1] - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        b = a / a[..., :1]
    result = fiedler_companion_ones(n).astype(a.dtype) - np.einsum(
        "kij,...k->...ij", fiedler_companion_selection(n).astype(a.dtype), b)
    return _out(result.astype(a.dtype, copy=False))
