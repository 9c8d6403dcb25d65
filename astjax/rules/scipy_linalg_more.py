"""Rules of the rest of jax.scipy.linalg (astjax/scipy/_linalg_more.py).

* cholesky, qr, svd: jnp.linalg's rules (decompositions.py). SciPy's cholesky reads one triangle (the upper by
  default), so its adjoint is folded onto that triangle; qr's 'full' and 'r' modes differentiate for a square
  matrix only, 'economic' for rows >= columns (JAX refuses the same).
* polar: through the reduced SVD, as JAX's method='svd' (equal singular values give inf/nan, as there).
* eigh_tridiagonal: eigh's rules on the dense tridiagonal matrix, read back on its diagonals.
* expm_frechet: both blocks of expm([[A, E], [0, A]]), so its rules are expm's on that block matrix.
* toeplitz, hankel, circulant: gathers from one vector (structured_index); the adjoint scatters back.
* scipy.linalg.sqrtm: X dX + dX X = dA solved as one (n^2 x n^2) linear system (2-D real results).
* schur, hessenberg, JAX's complex sqrtm: not primitives; refused where a derivative reaches them (JAX has
  no rule either), said at the user's line (no_derivative).
* hilbert, pascal, helmert, hadamard, dft, ...: their values depend only on the size: non-differentiable.
"""
import numpy as np

from .. import lax
from .. import numpy as jnp
from ..array import wrap
from ..numpy import linalg as jnp_linalg
from ..scipy import _linalg_more as more
from ..scipy import linalg as sla
from .batching import _stacked_matrices_rule
from .decompositions import (_static_literal, cholesky_adjoint, cholesky_tangent, eigh_adjoint, eigh_tangent,
                             eigvalsh_adjoint, eigvalsh_tangent, qr_adjoint, qr_tangent, refuse_derivative,
                             svd_adjoint, svd_tangent, with_fields)
from .helpers import item_adjoint
from .linalg import COMPOSITES
from .nondifferentiable import INTEGER, SHAPES, no_derivative, nondifferentiable
from .registry import defbatch, defjvp, defvjp, primitive
from .scipy_linalg import expm_adjoint, expm_frechet


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def present_items(g, like):
    """The items of a tuple result's adjoint, each one that arrived made an array of its item's shape: under
    forward over reverse (hessian) the tangent of a constant item is a bare zero, which the rules' matmuls and
    reshapes cannot take; an item that never arrived stays the bare 0.0 (the rules then leave its terms out)."""
    items = []
    for k in range(len(like)):
        gk = item_adjoint(g, k)
        if jnp.ndim(gk) != 0:
            gk = gk + 0.0 * like[k]
        items.append(gk)
    return tuple(items)


# ------------------------------------------------------------------ cholesky
def scipy_cholesky_adjoint(g, a, y, lower):
    """a's adjoint from SciPy's cholesky of the `lower` (upper) triangle: cholesky's, folded onto that triangle."""
    return cholesky_adjoint(g, a, y, not lower, False)


def scipy_cholesky_tangent(t, a, y, lower):
    return cholesky_tangent(t, a, y, not lower, False)


# ------------------------------------------------------------------------ qr
def _qr_needs(a, g, mode):
    m = jnp.shape(a)[-2]
    n = jnp.shape(a)[-1]
    if (mode != "economic" and m != n) or m < n:
        return refuse_derivative(g, f"scipy.linalg.qr's derivative needs a square matrix for mode={mode!r} (or "
                                    f"mode='economic' with rows >= columns); got a {m}x{n} matrix, as JAX refuses too")
    return g


def scipy_qr_adjoint(g, a, y, mode):
    g = _qr_needs(a, g, mode)
    if mode == "r":
        return qr_adjoint(present_items(g, y)[0], a, y, "r")
    return qr_adjoint(present_items(g, y), a, y, "reduced")


def scipy_qr_tangent(t, a, y, mode):
    t = _qr_needs(a, t, mode)
    if mode == "r":
        return with_fields(y, [qr_tangent(t, a, y, "r")])
    return qr_tangent(t, a, y, "reduced")


def scipy_svd_adjoint(g, a, y, full_matrices, compute_uv):
    if not compute_uv:
        return svd_adjoint(g, a, y, full_matrices, compute_uv)
    return svd_adjoint(present_items(g, y), a, y, full_matrices, compute_uv)


# --------------------------------------------------------------------- polar
def polar_adjoint(g, a, y, side):
    """a's adjoint from (u, p) = polar(a) through the reduced SVD a = w diag(s) vt: u = w vt, and
    p = vt^T diag(s) vt (right) or w diag(s) w^T (left)."""
    parts = jnp_linalg.svd(a, full_matrices=False)
    w = parts[0]
    s = parts[1]
    vt = parts[2]
    both_items = present_items(g, y)
    gu = both_items[0]
    gp = both_items[1]
    gw = 0.0 * w
    gvt = 0.0 * vt
    gs = 0.0 * s
    if jnp.ndim(gu) != 0:
        gw = gw + jnp.matmul(gu, _mT(vt))
        gvt = gvt + jnp.matmul(_mT(w), gu)
    if jnp.ndim(gp) != 0:
        both = gp + _mT(gp)
        if side == "right":
            gs = gs + jnp.diagonal(jnp.matmul(jnp.matmul(vt, gp), _mT(vt)), 0, -2, -1)
            gvt = gvt + jnp.expand_dims(s, -1) * jnp.matmul(vt, both)
        else:
            gs = gs + jnp.diagonal(jnp.matmul(jnp.matmul(_mT(w), gp), w), 0, -2, -1)
            gw = gw + jnp.matmul(both, w) * jnp.expand_dims(s, -2)
    return svd_adjoint((gw, gs, gvt), a, parts, False, True)


def polar_tangent(t, a, y, side):
    parts = jnp_linalg.svd(a, full_matrices=False)
    w = parts[0]
    s = parts[1]
    vt = parts[2]
    d = svd_tangent(t, a, parts, False, True)
    dw = d[0]
    ds = d[1]
    dvt = d[2]
    du = jnp.matmul(dw, vt) + jnp.matmul(w, dvt)
    if side == "right":
        middle = jnp.matmul(_mT(dvt), jnp.expand_dims(s, -1) * vt)
        dp = middle + _mT(middle) + jnp.matmul(_mT(vt), jnp.expand_dims(ds, -1) * vt)
    else:
        middle = jnp.matmul(dw * jnp.expand_dims(s, -2), _mT(w))
        dp = middle + _mT(middle) + jnp.matmul(w * jnp.expand_dims(ds, -2), _mT(w))
    return with_fields(y, [du, dp])


# ---------------------------------------------------------- eigh_tridiagonal
def tridiagonal(d, e):
    """The dense symmetric tridiagonal matrix with diagonal d and off-diagonal e."""
    return jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(e, -1)


def eigh_tridiagonal_adjoint(g, d, e, y, eigvals_only, diagonal):
    """d's (diagonal=True) or e's adjoint: eigh's symmetric adjoint of the dense matrix, read on that diagonal
    (an off-diagonal entry stands in two places)."""
    if eigvals_only and jnp.ndim(g) == 0:        # nothing read the eigenvalues (a bare zero adjoint)
        return 0.0 * (d if diagonal else e)
    full = tridiagonal(d, e)
    if eigvals_only:        # each branch reads its own adjoint (one name of two kinds makes vmap loop)
        return _on_the_diagonal(eigvalsh_adjoint(g, full), diagonal)
    return _on_the_diagonal(eigh_adjoint(present_items(g, y), full, y, True), diagonal)


def _on_the_diagonal(sym, diagonal):
    """The adjoint of the tridiagonal matrix's diagonal (diagonal=True) or off-diagonal, from the dense one's."""
    if diagonal:
        return jnp.diagonal(sym)
    return 2.0 * jnp.diagonal(sym, 1)


def eigh_tridiagonal_tangent(t, d, e, y, eigvals_only, diagonal):
    full = tridiagonal(d, e)
    if diagonal:
        change = jnp.diag(t)
    else:
        change = jnp.diag(t, 1) + jnp.diag(t, -1)
    if eigvals_only:
        return eigvalsh_tangent(change, full)
    return eigh_tangent(change, full, y, True)


# ------------------------------------------------------------- expm_frechet
def frechet_block(A, E):
    """[[A, E], [0, A]], whose exponential holds expm(A) and the Frechet derivative L(A, E) in its top blocks."""
    return jnp.concatenate([jnp.concatenate([A, E], axis=-1), jnp.concatenate([0.0 * A, A], axis=-1)], axis=-2)


def expm_frechet_adjoint(g, A, E, y, compute_expm, operand):
    """A's (operand 0) or E's (1) adjoint from expm_frechet: expm's adjoint of the block matrix, read on the
    blocks where A (twice) or E stands."""
    n = jnp.shape(A)[-1]
    if compute_expm:
        both_items = present_items(g, y)
        ge = both_items[0]
        gl = both_items[1]
    else:
        ge = 0.0
        gl = g
    zero = 0.0 * A
    top = jnp.concatenate([ge + zero, gl + zero], axis=-1)
    big = jnp.concatenate([top, jnp.concatenate([zero, zero], axis=-1)], axis=-2)
    back = expm_adjoint(big, frechet_block(A, E))
    if operand == 0:
        return back[..., :n, :n] + back[..., n:, n:]
    return back[..., :n, n:]


def expm_frechet_tangent(t, A, E, y, compute_expm, operand):
    n = jnp.shape(A)[-1]
    if operand == 0:
        change = frechet_block(t, 0.0 * t)
    else:
        zero = 0.0 * t
        change = jnp.concatenate([jnp.concatenate([zero, t], axis=-1), jnp.concatenate([zero, zero], axis=-1)],
                                 axis=-2)
    big = expm_frechet(frechet_block(A, E), change)
    if compute_expm:
        return with_fields(y, [big[..., :n, :n], big[..., :n, n:]])
    return big[..., :n, n:]


# ------------------------------------------------------- structured matrices
def structured_scatter(g, kind, m, n, length):
    """The adjoint of the vector a structured matrix gathers from: g's entries added at their indices."""
    index = jnp.ravel(more.structured_index(kind, m, n))
    return lax.internal.scatter_along(jnp.ravel(g), index, 0, (length,))


def _flip_tail(bv, n):
    """r's adjoint from the first n-1 entries of toeplitz's vector (r reversed, r[0] unused)."""
    return jnp.concatenate([0.0 * bv[:1], jnp.flip(bv[:n - 1])])


def toeplitz_c_adjoint(g, c, r):
    m = jnp.shape(c)[0]
    n = m if r is None else jnp.shape(r)[0]
    bv = structured_scatter(g, "toeplitz", m, n, n - 1 + m)
    if r is None:
        return bv[n - 1:] + _flip_tail(bv, n)
    return bv[n - 1:]


def toeplitz_r_adjoint(g, c, r):
    m = jnp.shape(c)[0]
    n = jnp.shape(r)[0]
    return _flip_tail(structured_scatter(g, "toeplitz", m, n, n - 1 + m), n)


def toeplitz_c_tangent(t, r):
    if r is None:
        return sla.toeplitz(t)
    return sla.toeplitz(t, 0.0 * r)


def hankel_c_adjoint(g, c, r):
    m = jnp.shape(c)[0]
    n = m if r is None else jnp.shape(r)[0]
    return structured_scatter(g, "hankel", m, n, m + n - 1)[:m]


def hankel_r_adjoint(g, c, r):
    m = jnp.shape(c)[0]
    n = jnp.shape(r)[0]
    bv = structured_scatter(g, "hankel", m, n, m + n - 1)
    return jnp.concatenate([0.0 * bv[:1], bv[m:]])


def hankel_c_tangent(t, r):
    if r is None:
        return sla.hankel(t)
    return sla.hankel(t, 0.0 * r)


def toeplitz_r_tangent(t, c):
    return sla.toeplitz(0.0 * c, t)


def hankel_r_tangent(t, c):
    return sla.hankel(0.0 * c, t)


def circulant_tangent(t):
    return sla.circulant(t)


def circulant_adjoint(g, c):
    n = jnp.shape(c)[0]
    return structured_scatter(g, "circulant", n, n, n)


# -------------------------------------------------------------- scipy sqrtm
def _sylvester_operator(x):
    """K with K vec(dX) = vec(x dX + dX x) for row-major vec: kron(x, I) + kron(I, x^T)."""
    n = jnp.shape(x)[-1]
    eye = jnp.eye(n)
    return jnp.kron(x, eye) + jnp.kron(eye, _mT(x))


def _real_root(x, t):
    if jnp.ndim(x) != 2 or jnp.iscomplexobj(x):
        return refuse_derivative(t, "the derivative of scipy.linalg.sqrtm is given for one real matrix with a real "
                                    "square root only (this one's is complex, or it is a stack); JAX has none")
    return t


def scipy_sqrtm_adjoint(g, A, y):
    """A's adjoint from X = sqrtm(A): solve X^T G + G X^T = g, the transpose of X dX + dX X = dA."""
    g = _real_root(y, g)
    n = jnp.shape(y)[-1]
    return jnp.reshape(jnp_linalg.solve(_mT(_sylvester_operator(y)), jnp.ravel(g)), (n, n))


def scipy_sqrtm_tangent(t, A, y):
    t = _real_root(y, t)
    n = jnp.shape(y)[-1]
    return jnp.reshape(jnp_linalg.solve(_sylvester_operator(y), jnp.ravel(t)), (n, n))


# ------------------------------------------- leslie, convolution_matrix, companion, fiedler
def gathered_adjoint(g, index, length):
    """The adjoint of the vector a gathered matrix reads (its entries at `index`; the zero slot dropped)."""
    return lax.internal.scatter_along(jnp.ravel(g), jnp.ravel(index), 0, (length + 1,))[:length]


def leslie_adjoint(g, f, s, operand):
    n = jnp.shape(f)[0]
    bv = gathered_adjoint(g, more.gather_index("leslie", n), 2 * n - 1)
    if operand == 0:
        return bv[:n]
    return bv[n:]


def leslie_tangent(t, f, s, operand):
    if operand == 0:
        return sla.leslie(t, 0.0 * s)
    return sla.leslie(0.0 * f, t)


def convolution_matrix_adjoint(g, a, n, mode):
    m = jnp.shape(a)[0]
    return gathered_adjoint(g, more.gather_index("convolution", m, n, mode), m)


def convolution_matrix_tangent(t, n, mode):
    return sla.convolution_matrix(t, n, mode)


def companion_adjoint(g, a):
    """a's adjoint from companion(a), whose first row is -a[1:] / a[0] (the ones below carry no derivative)."""
    row = g[0]
    lead = jnp.sum(row * a[1:]) / (a[0] * a[0])
    return jnp.concatenate([jnp.reshape(lead, (1,)), -row / a[0]])


def companion_tangent(t, a, y):
    row = -(t[1:] * a[0] - a[1:] * t[0]) / (a[0] * a[0])
    rest = 0.0 * y[1:]
    return jnp.concatenate([jnp.expand_dims(row, 0), rest], axis=0)


def fiedler_adjoint(g, a):
    """a's adjoint from |a_i - a_j|: sign(a_i - a_j) (zero at a tie, as jnp.abs and JAX) times g + g^T."""
    signs = jnp.sign(jnp.expand_dims(a, 1) - jnp.expand_dims(a, 0))
    return jnp.sum((g + _mT(g)) * signs, axis=1)


def fiedler_tangent(t, a):
    signs = jnp.sign(jnp.expand_dims(a, 1) - jnp.expand_dims(a, 0))
    return signs * (jnp.expand_dims(t, 1) - jnp.expand_dims(t, 0))


# ------------------------------------------------------------ solve_sylvester
def sylvester_adjoint_core(g, A, B):
    """Y with A^T Y + Y B^T = g: the adjoint of the right-hand side of A X + X B = C."""
    return sla.solve_sylvester(_mT(A), _mT(B), g)


def solve_sylvester_adjoint(g, A, B, y, operand):
    """Adjoints from X = solve_sylvester(A, B, C): with Y = the transposed solve of g, bC = Y, bA = -Y X^T,
    bB = -X^T Y."""
    core = sylvester_adjoint_core(g, A, B)
    if operand == 0:
        return -jnp.matmul(core, _mT(y))
    if operand == 1:
        return -jnp.matmul(_mT(y), core)
    return core


def solve_sylvester_tangent(t, A, B, y, operand):
    """dX solves A dX + dX B = dC - dA X - X dB."""
    if operand == 0:
        return sla.solve_sylvester(A, B, -jnp.matmul(t, y))
    if operand == 1:
        return sla.solve_sylvester(A, B, -jnp.matmul(y, t))
    return sla.solve_sylvester(A, B, t)


COMPOSITES.update({f.__name__: f for f in (
    present_items, scipy_svd_adjoint, scipy_cholesky_adjoint, scipy_cholesky_tangent, _qr_needs, scipy_qr_adjoint, scipy_qr_tangent, polar_adjoint,
    polar_tangent, tridiagonal, eigh_tridiagonal_adjoint, _on_the_diagonal, eigh_tridiagonal_tangent, frechet_block,
    expm_frechet_adjoint, expm_frechet_tangent, structured_scatter, _flip_tail, toeplitz_c_adjoint,
    toeplitz_r_adjoint, toeplitz_c_tangent, hankel_c_adjoint, hankel_r_adjoint, hankel_c_tangent, circulant_adjoint, toeplitz_r_tangent,
    hankel_r_tangent, circulant_tangent,
    _sylvester_operator, _real_root, scipy_sqrtm_adjoint, scipy_sqrtm_tangent, _mT, gathered_adjoint,
    leslie_adjoint, leslie_tangent, convolution_matrix_adjoint, convolution_matrix_tangent, companion_adjoint, companion_tangent,
    fiedler_adjoint, fiedler_tangent, sylvester_adjoint_core, solve_sylvester_adjoint, solve_sylvester_tangent)})


# ---------------------------------------------------------------- the primitives
def _both(name, impl, vjp, jvp, operands, aliases=(), check=None):
    prim = primitive(name, impl, operands=operands, aliases=aliases)
    defvjp(prim, *vjp)
    defjvp(prim, *jvp)
    prim.static_check = check
    return prim


_cholesky = _both("scipy_cholesky", more.cholesky, ["ba += scipy_cholesky_adjoint(by, a, y, lower)"],
                  ["dy = scipy_cholesky_tangent(da, a, y, lower)"], ("a",), aliases=("scipy.linalg.cholesky",))
defbatch(_cholesky, _stacked_matrices_rule)
_both("scipy_qr", more.qr, ["ba += scipy_qr_adjoint(by, a, y, mode)"], ["dy = scipy_qr_tangent(da, a, y, mode)"],
      ("a",), aliases=("scipy.linalg.qr",),
      check=lambda b: _static_literal(b, "pivoting", (False,), "scipy.linalg.qr",
                                      "leave pivoting=False (the permutation has no derivative; differentiate "
                                      "qr(a[:, p]) with p computed outside)")
      or _static_literal(b, "mode", ("full", "economic", "r"), "scipy.linalg.qr", "use mode='economic'."))
_both("scipy_svd", more.svd, ["ba += scipy_svd_adjoint(by, a, y, full_matrices, compute_uv)"],
      ["dy = svd_tangent(da, a, y, full_matrices, compute_uv)"], ("a",), aliases=("scipy.linalg.svd",))
_both("polar", more.polar, ["ba += polar_adjoint(by, a, y, side)"], ["dy = polar_tangent(da, a, y, side)"], ("a",),
      aliases=("scipy.linalg.polar",),
      check=lambda b: _static_literal(b, "side", ("right", "left"), "scipy.linalg.polar", "side='right' or 'left'."))
_both("eigh_tridiagonal", more.eigh_tridiagonal,
      ["bd += eigh_tridiagonal_adjoint(by, d, e, y, eigvals_only, True)",
       "be += eigh_tridiagonal_adjoint(by, d, e, y, eigvals_only, False)"],
      ["dd -> eigh_tridiagonal_tangent(dd, d, e, y, eigvals_only, True)",
       "de -> eigh_tridiagonal_tangent(de, d, e, y, eigvals_only, False)"], ("d", "e"),
      aliases=("scipy.linalg.eigh_tridiagonal",),
      check=lambda b: _static_literal(b, "eigvals_only", (True, False), "eigh_tridiagonal", "a literal True/False."))
_both("expm_frechet_pair", more.expm_frechet,
      ["bA += expm_frechet_adjoint(by, A, E, y, compute_expm, 0)", "bE += expm_frechet_adjoint(by, A, E, y, compute_expm, 1)"],
      ["dA -> expm_frechet_tangent(dA, A, E, y, compute_expm, 0)",
       "dE -> expm_frechet_tangent(dE, A, E, y, compute_expm, 1)"], ("A", "E"),
      aliases=("scipy.linalg.expm_frechet",),
      check=lambda b: _static_literal(b, "compute_expm", (True, False), "expm_frechet", "a literal True/False."))
_both("toeplitz", more.toeplitz, ["bc += toeplitz_c_adjoint(by, c, r)", "br += toeplitz_r_adjoint(by, c, r)"],
      ["dc -> toeplitz_c_tangent(dc, r)", "dr -> toeplitz_r_tangent(dr, c)"], ("c", "r"),
      aliases=("scipy.linalg.toeplitz",))
_both("hankel", more.hankel, ["bc += hankel_c_adjoint(by, c, r)", "br += hankel_r_adjoint(by, c, r)"],
      ["dc -> hankel_c_tangent(dc, r)", "dr -> hankel_r_tangent(dr, c)"], ("c", "r"), aliases=("scipy.linalg.hankel",))
_both("circulant", more.circulant, ["bc += circulant_adjoint(by, c)"], ["dy = circulant_tangent(dc)"], ("c",),
      aliases=("scipy.linalg.circulant",))
_both("scipy_sqrtm", more.scipy_sqrtm, ["bA += scipy_sqrtm_adjoint(by, A, y)"], ["dy = scipy_sqrtm_tangent(dA, A, y)"],
      ("A",), aliases=("scipy.linalg.sqrtm",),
      check=lambda b: _static_literal(b, "disp", (True,), "scipy.linalg.sqrtm", "leave disp=True."))
no_derivative("it is computed through a Schur decomposition, which has no derivative rule (JAX has none either)",
              "for a real matrix with a real square root, plain scipy.linalg.sqrtm differentiates; or compute it "
              "outside the differentiated function", more.sqrtm)
no_derivative("the Schur and Hessenberg forms have no derivative rule (JAX has none either)",
              "differentiate through eigh (symmetric matrices) or compute the form outside the differentiated "
              "function", more.schur, more.hessenberg)
nondifferentiable("scipy_linalg_structured_index", more.structured_index, INTEGER)
nondifferentiable("scipy_linalg_gather_index", more.gather_index, INTEGER)
_both("leslie", more.leslie, ["bf += leslie_adjoint(by, f, s, 0)", "bs += leslie_adjoint(by, f, s, 1)"],
      ["df -> leslie_tangent(df, f, s, 0)", "ds -> leslie_tangent(ds, f, s, 1)"], ("f", "s"),
      aliases=("scipy.linalg.leslie",))
_both("convolution_matrix", more.convolution_matrix, ["ba += convolution_matrix_adjoint(by, a, n, mode)"],
      ["dy = convolution_matrix_tangent(da, n, mode)"], ("a",), aliases=("scipy.linalg.convolution_matrix",))
_both("companion", more.companion, ["ba += companion_adjoint(by, a)"], ["dy = companion_tangent(da, a, y)"], ("a",),
      aliases=("scipy.linalg.companion",))
_both("fiedler", more.fiedler, ["ba += fiedler_adjoint(by, a)"], ["dy = fiedler_tangent(da, a)"], ("a",),
      aliases=("scipy.linalg.fiedler",))
_both("solve_sylvester", more.solve_sylvester,
      ["bA += solve_sylvester_adjoint(by, A, B, y, 0)", "bB += solve_sylvester_adjoint(by, A, B, y, 1)",
       "bC += solve_sylvester_adjoint(by, A, B, y, 2)"],
      ["dA -> solve_sylvester_tangent(dA, A, B, y, 0)", "dB -> solve_sylvester_tangent(dB, A, B, y, 1)",
       "dC -> solve_sylvester_tangent(dC, A, B, y, 2)"], ("A", "B", "C"), aliases=("scipy.linalg.solve_sylvester",))
no_derivative("its result is complex (through the Schur form) and astjax has no complex differentiation; JAX has no "
              "rule either", "compute it outside the differentiated function", more.funm, more.rsf2csf)
no_derivative("astjax has no rule for it yet (JAX builds it from qr)",
              "write `q, r = jsl.qr(a, mode='economic')` and multiply by q yourself: qr has rules", more.qr_multiply)
_SIZE = SHAPES
for _name in ("hilbert", "invhilbert", "pascal", "invpascal", "helmert", "hadamard", "dft"):
    nondifferentiable(_name, getattr(more, _name), _SIZE)


# Plain SciPy's constant matrices keep SciPy's values and dtypes (pascal's exact integers, float64 elsewhere).
def scipy_hilbert(n):
    return wrap(np.asarray(more._sl.hilbert(n)))


def scipy_invhilbert(n, exact=False):
    return wrap(np.asarray(more._sl.invhilbert(n, exact=exact)))


def scipy_pascal(n, kind="symmetric", exact=True):
    return wrap(np.asarray(more._sl.pascal(n, kind, exact=exact)))


def scipy_invpascal(n, kind="symmetric", exact=True):
    return wrap(np.asarray(more._sl.invpascal(n, kind, exact=exact)))


def scipy_helmert(n, full=False):
    return wrap(np.asarray(more._sl.helmert(n, full=full)))


def scipy_hadamard(n, dtype=int):
    return wrap(np.asarray(more._sl.hadamard(n, dtype=dtype)))


def scipy_dft(n, scale=None):
    return wrap(np.asarray(more._sl.dft(n, scale=scale)))


for _fn in (scipy_hilbert, scipy_invhilbert, scipy_pascal, scipy_invpascal, scipy_helmert, scipy_hadamard, scipy_dft):
    nondifferentiable(_fn.__name__, _fn, _SIZE, aliases=(f"scipy.linalg.{_fn.__name__[len('scipy_'):]}",))
