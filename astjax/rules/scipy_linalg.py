"""scipy.linalg's primitives: cho_factor/cho_solve, solve_triangular, expm, block_diag, lu family, solve, eigh.

Triangular functions read one triangle of their matrix, so their adjoints are
masked onto it (`triangle_mask`). A factorization passed as a tuple
(`cho_solve((c, lower), b)`) gets its adjoint as a TreeAdjoint holding the
factor's (`tree_item_adjoint(0, ...)`). The matrix exponential's derivative
is the Frechet derivative, the upper-right block of expm([[A, E], [0, A]]);
its adjoint is the same with A^T. Matrices are the last two axes.
"""
import gast
import numpy as np

from .. import numpy as jnp
from ..array import wrap
from ..numpy import linalg as jnp_linalg
from ..scipy import linalg as sla
from .decompositions import (_static_literal, cholesky_adjoint, cholesky_tangent, eigh_adjoint, eigh_tangent,
                             eigvalsh_adjoint, eigvalsh_tangent, refuse_derivative, triangle_mask, with_fields)
from .helpers import item_adjoint, tree_item_adjoint, unbroadcast
from .linalg import COMPOSITES
from .registry import defjvp, defvjp, primitive


def _is_transposed(trans):
    return trans in (1, 2, "T", "C")


# --------------------------------------------------------------- cho_factor
def cho_factor_adjoint(g, a, y, lower):
    """a's adjoint from (c, lower) = cho_factor(a, lower): cholesky's, on the triangle read."""
    gc = item_adjoint(g, 0)
    if jnp.ndim(gc) == 0:
        return 0.0 * a
    return cholesky_adjoint(gc, a, y[0], not lower, False)


def cho_factor_tangent(t, a, y, lower):
    return with_fields(y, [cholesky_tangent(t, a, y[0], not lower, False), 0.0])


def scipy_cho_factor_adjoint(g, a, y, lower):
    """Cholesky's adjoint on the factor's triangle; where SciPy's c holds a's entries in the other strict
    triangle (SciPy up to 1.17), they pass their adjoint through."""
    gc = item_adjoint(g, 0)
    if jnp.ndim(gc) == 0:
        return 0.0 * a
    factor = y[0] * triangle_mask(y[0], 0, lower)
    return cholesky_adjoint(gc, a, factor, not lower, False) + _other_triangle(gc, lower)


def scipy_cho_factor_tangent(t, a, y, lower):
    factor = y[0] * triangle_mask(y[0], 0, lower)
    dc = cholesky_tangent(t, a, factor, not lower, False) + _other_triangle(t, lower)
    return with_fields(y, [dc, 0.0])


def _other_triangle(t, lower):
    """t's entries in the strict triangle the factor leaves to a (zeros where SciPy writes zeros there)."""
    if not sla.scipy_cho_factor_keeps_a():
        return 0.0 * t
    return t * triangle_mask(t, 1 if lower else -1, not lower)


# ----------------------------------------------------------------- cho_solve
def cho_solve_factor_adjoint(g, c_and_lower, y):
    """The factor's adjoint from x = cho_solve((c, lower), b): with z = cho_solve(c, g) and
    S = -(z x^T + x z^T), tril(S L) (lower) or triu(U S) (upper), as a TreeAdjoint of the pair."""
    c = c_and_lower[0]
    lower = c_and_lower[1]
    factor = c * triangle_mask(c, 0, lower)
    z = sla.cho_solve(c_and_lower, g)
    if jnp.ndim(y) == jnp.ndim(c) - 1:
        z = jnp.expand_dims(z, -1)
        x = jnp.expand_dims(y, -1)
    else:
        x = y
    m = -jnp.matmul(z, jnp.swapaxes(x, -1, -2))
    s = m + jnp.swapaxes(m, -1, -2)
    if lower:
        gc = jnp.matmul(s, factor)
    else:
        gc = jnp.matmul(factor, s)
    return tree_item_adjoint(0, gc * triangle_mask(gc, 0, lower))


def cho_solve_factor_tangent(t, c_and_lower, y):
    c = c_and_lower[0]
    lower = c_and_lower[1]
    factor = c * triangle_mask(c, 0, lower)
    dc = t[0] * triangle_mask(c, 0, lower)
    if lower:
        da = jnp.matmul(dc, jnp.swapaxes(factor, -1, -2)) + jnp.matmul(factor, jnp.swapaxes(dc, -1, -2))
    else:
        da = jnp.matmul(jnp.swapaxes(dc, -1, -2), factor) + jnp.matmul(jnp.swapaxes(factor, -1, -2), dc)
    if jnp.ndim(y) == jnp.ndim(c) - 1:
        return -sla.cho_solve(c_and_lower, jnp.squeeze(jnp.matmul(da, jnp.expand_dims(y, -1)), -1))
    return -sla.cho_solve(c_and_lower, jnp.matmul(da, y))


def cho_solve_b_adjoint(g, c_and_lower, b):
    """b's adjoint (and tangent): cho_solve again, a = c c^T being symmetric."""
    return unbroadcast(sla.cho_solve(c_and_lower, g), b)


# ---------------------------------------------------------- solve_triangular
def solve_triangular_a_adjoint(g, a, y, trans, lower, unit_diagonal):
    """a's adjoint from x = solve_triangular(a, b): -(op(T)^-T g) x^T (transposed for trans), on the triangle."""
    gb = sla.solve_triangular(a, g, 0 if _is_transposed(trans) else 1, lower, unit_diagonal)
    if jnp.ndim(y) == jnp.ndim(a) - 1:
        gb = jnp.expand_dims(gb, -1)
        x = jnp.expand_dims(y, -1)
    else:
        x = y
    if _is_transposed(trans):
        out = -jnp.matmul(x, jnp.swapaxes(gb, -1, -2))
    else:
        out = -jnp.matmul(gb, jnp.swapaxes(x, -1, -2))
    if unit_diagonal:
        return out * triangle_mask(out, -1 if lower else 1, lower)
    return out * triangle_mask(out, 0, lower)


def solve_triangular_b_adjoint(g, a, b, trans, lower, unit_diagonal):
    return unbroadcast(sla.solve_triangular(a, g, 0 if _is_transposed(trans) else 1, lower, unit_diagonal), b)


def solve_triangular_a_tangent(t, a, y, trans, lower, unit_diagonal):
    if unit_diagonal:
        dt = t * triangle_mask(t, -1 if lower else 1, lower)
    else:
        dt = t * triangle_mask(t, 0, lower)
    if _is_transposed(trans):
        dt = jnp.swapaxes(dt, -1, -2)
    if jnp.ndim(y) == jnp.ndim(a) - 1:
        change = jnp.squeeze(jnp.matmul(dt, jnp.expand_dims(y, -1)), -1)
    else:
        change = jnp.matmul(dt, y)
    return -sla.solve_triangular(a, change, trans, lower, unit_diagonal)


def solve_triangular_b_tangent(t, a, trans, lower, unit_diagonal):
    return sla.solve_triangular(a, t, trans, lower, unit_diagonal)


# ---------------------------------------------------------------------- expm
def expm_frechet(a, e):
    """The Frechet derivative of expm at a along e: the upper-right block of expm([[a, e], [0, a]])."""
    n = jnp.shape(a)[-1]
    top = jnp.concatenate([a, e], axis=-1)
    bottom = jnp.concatenate([0.0 * a, a], axis=-1)
    big = sla.expm(jnp.concatenate([top, bottom], axis=-2))
    return big[..., :n, n:]


def expm_adjoint(g, A):
    return expm_frechet(jnp.swapaxes(A, -1, -2), g + 0.0 * A)


def expm_tangent(t, A):
    return expm_frechet(A, t + 0.0 * A)


# ---------------------------------------------------------------- block_diag
def block_diag_adjoint(g, arrs, k):
    """Item k's adjoint from y = block_diag(*arrs): its block of g (scalars and vectors are 1-row blocks)."""
    row = 0
    col = 0
    for i in range(k):
        shape = jnp.shape(arrs[i])
        row = row + (shape[0] if len(shape) == 2 else 1)
        col = col + (shape[-1] if len(shape) > 0 else 1)
    shape = jnp.shape(arrs[k])
    rows = shape[0] if len(shape) == 2 else 1
    cols = shape[-1] if len(shape) > 0 else 1
    return jnp.reshape(g[row:row + rows, col:col + cols], shape)


def block_diag_tangent(tangents, arrs):
    items = [t if jnp.ndim(t) == jnp.ndim(a) else 0.0 * a for t, a in zip(tangents, arrs)]
    return sla.block_diag(*items)


# -------------------------------------------------------------------- lu family
def pivots_to_permutation(piv, n):
    """The permutation matrix P with a = P L U from LAPACK's pivots (row i swapped with piv[i], in order);
    for a stack of pivot vectors (..., n), the stack of matrices (..., n, n) (vmap's batched lu_solve)."""
    piv = np.asarray(piv)
    if piv.ndim > 1:
        return wrap(np.stack([np.asarray(pivots_to_permutation(p, n)) for p in piv.reshape(-1, piv.shape[-1])])
                    .reshape(piv.shape[:-1] + (n, n)))
    order = np.arange(n)
    for i, p in enumerate(piv):
        order[i], order[p] = order[p], order[i]
    perm = np.zeros((n, n), dtype=np.float32)
    perm[order, np.arange(n)] = 1.0
    return wrap(perm)


def _square(a, what):
    m = jnp.shape(a)[-2]
    n = jnp.shape(a)[-1]
    return m == n


def lu_core_adjoint(gl, gu, p, l, u):
    """a's adjoint from a = p l u given the adjoints of l and u: p l^-T (tril(l^T gl, -1) + triu(gu u^T)) u^-T."""
    xbar = 0.0 * u
    if jnp.ndim(gl) != 0:
        inner = jnp.matmul(jnp.swapaxes(l, -1, -2), gl)
        xbar = xbar + inner * triangle_mask(inner, -1, True)
    if jnp.ndim(gu) != 0:
        inner = jnp.matmul(gu, jnp.swapaxes(u, -1, -2))
        xbar = xbar + inner * triangle_mask(inner, 0, False)
    left = jnp_linalg.solve(jnp.swapaxes(l, -1, -2), xbar)
    right = jnp.swapaxes(jnp_linalg.solve(u, jnp.swapaxes(left, -1, -2)), -1, -2)
    return jnp.matmul(p, right)


def lu_core_tangent(t, p, l, u):
    """(dl, du) from a = p l u along t: X = l^-1 p^T t u^-1, dl = l tril(X, -1), du = triu(X) u."""
    left = jnp_linalg.solve(l, jnp.matmul(jnp.swapaxes(p, -1, -2), t))
    x = jnp.swapaxes(jnp_linalg.solve(jnp.swapaxes(u, -1, -2), jnp.swapaxes(left, -1, -2)), -1, -2)
    return [jnp.matmul(l, x * triangle_mask(x, -1, True)), jnp.matmul(x * triangle_mask(x, 0, False), u)]


def lu_adjoint(g, a, y, permute_l):
    if not _square(a, "lu"):
        return refuse_derivative(g, "lu's derivative is defined for square matrices only (as in JAX)")
    if permute_l:
        parts = sla.lu(a)
        gpl = item_adjoint(g, 0)
        gl = 0.0
        if jnp.ndim(gpl) != 0:
            gl = jnp.matmul(jnp.swapaxes(parts[0], -1, -2), gpl)
        return lu_core_adjoint(gl, item_adjoint(g, 1), parts[0], parts[1], parts[2])
    return lu_core_adjoint(item_adjoint(g, 1), item_adjoint(g, 2), y[0], y[1], y[2])


def lu_tangent(t, a, y, permute_l):
    if not _square(a, "lu"):
        t = refuse_derivative(t, "lu's derivative is defined for square matrices only (as in JAX)")
    if permute_l:
        parts = sla.lu(a)
        changes = lu_core_tangent(t, parts[0], parts[1], parts[2])
        return with_fields(y, [jnp.matmul(parts[0], changes[0]), changes[1]])
    changes = lu_core_tangent(t, y[0], y[1], y[2])
    return with_fields(y, [0.0 * y[0], changes[0], changes[1]])


def lu_factor_adjoint(g, a, y):
    if not _square(a, "lu_factor"):
        return refuse_derivative(g, "lu_factor's derivative is defined for square matrices only (as in JAX)")
    glu = item_adjoint(g, 0)
    if jnp.ndim(glu) == 0:
        return 0.0 * a
    parts = sla.lu(a)
    return lu_core_adjoint(glu * triangle_mask(glu, -1, True), glu * triangle_mask(glu, 0, False),
                           parts[0], parts[1], parts[2])


def lu_factor_tangent(t, a, y):
    parts = sla.lu(a)
    changes = lu_core_tangent(t, parts[0], parts[1], parts[2])
    return with_fields(y, [changes[0] + changes[1], 0 * y[1]])


def lu_solve_factor_adjoint(g, lu_and_piv, y, trans):
    """The factor's adjoint from x = lu_solve((lu, piv), b): with a = P L U, a's adjoint -gb x^T
    (x gb^T for trans) mapped onto lu: tril(P^T A U^T, -1) + triu(L^T P^T A)."""
    lu_ = lu_and_piv[0]
    n = jnp.shape(lu_)[-1]
    p = pivots_to_permutation(lu_and_piv[1], n)
    l = lu_ * triangle_mask(lu_, -1, True) + jnp.eye(n)
    u = lu_ * triangle_mask(lu_, 0, False)
    gb = sla.lu_solve(lu_and_piv, g, 0 if _is_transposed(trans) else 1)
    if jnp.ndim(y) == 1:
        gb = jnp.expand_dims(gb, -1)
        x = jnp.expand_dims(y, -1)
    else:
        x = y
    if _is_transposed(trans):
        ga = -jnp.matmul(x, jnp.swapaxes(gb, -1, -2))
    else:
        ga = -jnp.matmul(gb, jnp.swapaxes(x, -1, -2))
    pga = jnp.matmul(jnp.swapaxes(p, -1, -2), ga)
    lower = jnp.matmul(pga, jnp.swapaxes(u, -1, -2))
    upper = jnp.matmul(jnp.swapaxes(l, -1, -2), pga)
    return tree_item_adjoint(0, lower * triangle_mask(lower, -1, True) + upper * triangle_mask(upper, 0, False))


def lu_solve_factor_tangent(t, lu_and_piv, y, trans):
    lu_ = lu_and_piv[0]
    n = jnp.shape(lu_)[-1]
    p = pivots_to_permutation(lu_and_piv[1], n)
    l = lu_ * triangle_mask(lu_, -1, True) + jnp.eye(n)
    u = lu_ * triangle_mask(lu_, 0, False)
    dlu = t[0]
    da = jnp.matmul(p, jnp.matmul(dlu * triangle_mask(lu_, -1, True), u) + jnp.matmul(l, dlu * triangle_mask(lu_, 0, False)))
    if _is_transposed(trans):
        da = jnp.swapaxes(da, -1, -2)
    return -sla.lu_solve(lu_and_piv, jnp.matmul(da, y), trans)


def lu_solve_b_adjoint(g, lu_and_piv, b, trans):
    return unbroadcast(sla.lu_solve(lu_and_piv, g, 0 if _is_transposed(trans) else 1), b)


def lu_solve_b_tangent(t, lu_and_piv, trans):
    return sla.lu_solve(lu_and_piv, t, trans)


# ------------------------------------------------------------- solve, eigh
def scipy_eigh_adjoint(g, a, y, lower, eigvals_only):
    """a's adjoint from SciPy's eigh of one triangle: the symmetric adjoint G folded onto that triangle."""
    if eigvals_only:
        sym = eigvalsh_adjoint(g, a * triangle_mask(a, 0, lower) + jnp.swapaxes(a * triangle_mask(a, -1 if lower else 1, lower), -1, -2))
    else:
        sym = eigh_adjoint(g, a, y, True)
    return 2.0 * sym * triangle_mask(sym, 0, lower) - sym * jnp.eye(jnp.shape(sym)[-1])


def scipy_eigh_tangent(t, a, y, lower, eigvals_only):
    part = t * triangle_mask(t, 0, lower)
    ts = part + jnp.swapaxes(part, -1, -2) - t * jnp.eye(jnp.shape(t)[-1])
    full = a * triangle_mask(a, 0, lower) + jnp.swapaxes(a * triangle_mask(a, -1 if lower else 1, lower), -1, -2)
    if eigvals_only:
        return eigvalsh_tangent(ts, full)
    return eigh_tangent(ts, full, y, True)


COMPOSITES.update({f.__name__: f for f in (
    cho_factor_adjoint, cho_factor_tangent, scipy_cho_factor_adjoint, scipy_cho_factor_tangent,
    cho_solve_factor_adjoint, cho_solve_factor_tangent, cho_solve_b_adjoint, solve_triangular_a_adjoint,
    solve_triangular_b_adjoint, solve_triangular_a_tangent, solve_triangular_b_tangent, expm_frechet, expm_adjoint,
    expm_tangent, block_diag_adjoint, block_diag_tangent, lu_core_adjoint, lu_core_tangent, lu_adjoint, lu_tangent,
    lu_factor_adjoint, lu_factor_tangent, lu_solve_factor_adjoint, lu_solve_factor_tangent, lu_solve_b_adjoint,
    lu_solve_b_tangent, scipy_eigh_adjoint, scipy_eigh_tangent)})
COMPOSITES["pivots_to_permutation"] = pivots_to_permutation
primitive("pivots_to_permutation", pivots_to_permutation, operands=(), differentiable=False,
          reason="its result depends only on shapes and dtypes, not on values")


# ---------------------------------------------------------------- the primitives
def _both(name, impl, vjp, jvp, operands, aliases=(), check=None):
    prim = primitive(name, impl, operands=operands, aliases=aliases)
    defvjp(prim, *vjp)
    defjvp(prim, *jvp)
    prim.static_check = check
    return prim


_both("cho_factor", sla.cho_factor, ["ba += cho_factor_adjoint(by, a, y, lower)"],
      ["dy = cho_factor_tangent(da, a, y, lower)"], ("a",))
_both("scipy_cho_factor", sla.scipy_cho_factor, ["ba += scipy_cho_factor_adjoint(by, a, y, lower)"],
      ["dy = scipy_cho_factor_tangent(da, a, y, lower)"], ("a",), aliases=("scipy.linalg.cho_factor",))
_both("cho_solve", sla.cho_solve,
      ["bc_and_lower += cho_solve_factor_adjoint(by, c_and_lower, y)", "bb += cho_solve_b_adjoint(by, c_and_lower, b)"],
      ["dc_and_lower -> cho_solve_factor_tangent(dc_and_lower, c_and_lower, y)",
       "db -> cho_solve_b_adjoint(db, c_and_lower, db)"], ("c_and_lower", "b"), aliases=("scipy.linalg.cho_solve",))
_both("solve_triangular", sla.solve_triangular,
      ["ba += solve_triangular_a_adjoint(by, a, y, trans, lower, unit_diagonal)",
       "bb += solve_triangular_b_adjoint(by, a, b, trans, lower, unit_diagonal)"],
      ["da -> solve_triangular_a_tangent(da, a, y, trans, lower, unit_diagonal)",
       "db -> solve_triangular_b_tangent(db, a, trans, lower, unit_diagonal)"], ("a", "b"),
      aliases=("scipy.linalg.solve_triangular",))
_both("expm", sla.expm, ["bA += expm_adjoint(by, A)"], ["dy = expm_tangent(dA, A)"], ("A",), aliases=("scipy.linalg.expm",))
_block = primitive("block_diag", sla.block_diag, operands=("arrs",), sequence_operand="arrs", aliases=("scipy.linalg.block_diag",))
_BLOCK_VJP = gast.parse("block_diag_adjoint(by, arrs, k)").body[0].value
_block.sequence_vjp = _BLOCK_VJP
_block.vjp["arrs"] = _BLOCK_VJP         # *arrs: the call always lists its items
defjvp(_block, "dy = block_diag_tangent(darrs, arrs)")
_both("lu", sla.lu, ["ba += lu_adjoint(by, a, y, permute_l)"], ["dy = lu_tangent(da, a, y, permute_l)"], ("a",),
      aliases=("scipy.linalg.lu",),
      check=lambda b: _static_literal(b, "p_indices", (False,), "lu", "leave p_indices=False."))
_both("lu_factor", sla.lu_factor, ["ba += lu_factor_adjoint(by, a, y)"], ["dy = lu_factor_tangent(da, a, y)"], ("a",),
      aliases=("scipy.linalg.lu_factor",))
_both("lu_solve", sla.lu_solve,
      ["blu_and_piv += lu_solve_factor_adjoint(by, lu_and_piv, y, trans)",
       "bb += lu_solve_b_adjoint(by, lu_and_piv, b, trans)"],
      ["dlu_and_piv -> lu_solve_factor_tangent(dlu_and_piv, lu_and_piv, y, trans)",
       "db -> lu_solve_b_tangent(db, lu_and_piv, trans)"], ("lu_and_piv", "b"), aliases=("scipy.linalg.lu_solve",))


def _scipy_solve_check(bound):
    found = _static_literal(bound, "assume_a", ("gen", "general", None), "scipy.linalg.solve",
                            "leave assume_a='gen' (the general solver), or use cho_solve for a positive definite a.")
    return found or _static_literal(bound, "transposed", (False,), "scipy.linalg.solve",
                                    "solve with a.T instead of transposed=True.")


_both("scipy_solve", sla.solve, ["ba += solve_lhs_adjoint(by, a, y)", "bb += solve_rhs_adjoint(by, a, b)"],
      ["da -> solve_lhs_tangent(da, a, y)", "db -> jnp.linalg.solve(a, db)"], ("a", "b"), aliases=("scipy.linalg.solve",),
      check=_scipy_solve_check)
_both("scipy_eigh", sla.eigh, ["ba += scipy_eigh_adjoint(by, a, y, lower, eigvals_only)"],
      ["dy = scipy_eigh_tangent(da, a, y, lower, eigvals_only)"], ("a",), aliases=("scipy.linalg.eigh",))
