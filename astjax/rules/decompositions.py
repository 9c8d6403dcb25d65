"""Matrix decompositions and what is built on them: eigh, svd, qr, cholesky, slogdet, pinv, ...

Tuple-valued primitives (eigh, svd, qr, slogdet) get their adjoint `by` as a
TreeAdjoint: `item_adjoint(by, k)` is the adjoint of item k, the bare 0.0
when nothing read it (then its terms are left out, so a loss of eigenvalues
alone never meets 1 / (w_j - w_i)). Their tangents are built with
`with_fields(y, [...])`, a tuple of the result's own namedtuple type.

The formulas are JAX's (jax/_src/lax/linalg.py), transposed by hand for the
reverse mode; matrices are the last two axes, so batches (..., m, n) work.
Degenerate spectra follow JAX's convention: the eigenvector (singular vector)
terms divide by w_j - w_i (s_j^2 - s_i^2), giving inf/nan for equal values,
while eigenvalue (singular value) gradients stay finite. See docs/linalg_fft.md.
"""
import gast
import numpy as np

from .. import numpy as jnp
from ..array import wrap
from ..errors import RuntimeRefusal
from ..numpy import linalg as jnp_linalg
from .helpers import item_adjoint, square_unless_reduced
from .linalg import COMPOSITES
from .registry import defjvp, deflowering, defvjp, primitive


# ------------------------------------------------------------- small helpers (primitives)
class TangentTuple(tuple):
    """The tangent of a plain tuple result (lstsq's): tangent terms of two operands add item by item."""

    def __add__(self, other):
        if isinstance(other, tuple):
            return TangentTuple(a + b for a, b in zip(self, other))
        if np.ndim(other) == 0 and not np.any(other):
            return self
        return NotImplemented

    __radd__ = __add__


def with_fields(like, items):
    """`items` as a tuple of like's type (a namedtuple such as EighResult), else a TangentTuple."""
    kind = type(like)
    return kind(*items) if hasattr(kind, "_fields") else TangentTuple(items)


def triangle_mask(x, k=0, lower=True):
    """1.0 on and below (lower) or above the k-th diagonal of x's last two axes, else 0.0: `x * mask` is tril."""
    n, m = np.shape(x)[-2:]
    ones = np.ones((n, m), dtype=np.result_type(x, np.float32))
    return wrap(np.tril(ones, k) if lower else np.triu(ones, k))


def refuse_derivative(t, message):
    """Stands where a derivative is not defined (a case JAX refuses too): an error when reached."""
    raise RuntimeRefusal(f"astjax: {message}")


with_fields_prim = primitive("with_fields", with_fields, operands=("items",), sequence_operand="items",
                             shape_params=("like",))
_ITEM = gast.parse("item_adjoint(by, k)").body[0].value
with_fields_prim.sequence_vjp = _ITEM
with_fields_prim.vjp["items"] = gast.parse("by").body[0].value     # a list variable: its adjoint is by
defjvp(with_fields_prim, "dy = with_fields(like, ditems)")

_mask = primitive("triangle_mask", triangle_mask, operands=(), differentiable=False,
                  reason="its result depends only on shapes and dtypes, not on values")
_refuse = primitive("refuse_derivative", refuse_derivative, operands=("t",))
defvjp(_refuse, "bt += refuse_derivative(by, message)")
defjvp(_refuse, "dy = refuse_derivative(dt, message)")


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


# ---------------------------------------------------------------------- eigh
def eigh_adjoint(g, a, y, symmetrize_input):
    """a's adjoint from (w, v) = eigh(a): V (diag(gw) + F * (V^T gv)) V^T, F[i, j] = 1 / (w_j - w_i)."""
    w = y[0]
    v = y[1]
    gw = item_adjoint(g, 0)
    gv = item_adjoint(g, 1)
    vt = jnp.swapaxes(v, -1, -2)
    eye = jnp.eye(jnp.shape(w)[-1])
    middle = jnp.expand_dims(gw, -1) * eye
    if jnp.ndim(gv) != 0:
        gaps = 1.0 / (jnp.expand_dims(w, -2) - jnp.expand_dims(w, -1) + eye) - eye
        middle = middle + gaps * jnp.matmul(vt, gv)
    out = jnp.matmul(jnp.matmul(v, middle), vt)
    if symmetrize_input:
        return 0.5 * (out + jnp.swapaxes(out, -1, -2))
    return refuse_derivative(out, "eigh with symmetrize_input=False has no derivative rule")


def eigh_tangent(t, a, y, symmetrize_input):
    """The tangent (dw, dv) of (w, v) = eigh(a): dw = diag(V^T t V), dv = V (F * V^T t V)."""
    if not symmetrize_input:
        t = refuse_derivative(t, "eigh with symmetrize_input=False has no derivative rule")
    w = y[0]
    v = y[1]
    eye = jnp.eye(jnp.shape(w)[-1])
    ts = 0.5 * (t + jnp.swapaxes(t, -1, -2))
    m = jnp.matmul(jnp.matmul(jnp.swapaxes(v, -1, -2), ts), v)
    gaps = 1.0 / (jnp.expand_dims(w, -2) - jnp.expand_dims(w, -1) + eye) - eye
    return with_fields(y, [jnp.diagonal(m, 0, -2, -1), jnp.matmul(v, gaps * m)])


def eigvalsh_adjoint(g, a):
    """a's adjoint from w = eigvalsh(a): V diag(g) V^T."""
    v = jnp_linalg.eigh(a)[1]
    return jnp.matmul(v * jnp.expand_dims(g, -2), jnp.swapaxes(v, -1, -2))


def eigvalsh_tangent(t, a):
    v = jnp_linalg.eigh(a)[1]
    ts = 0.5 * (t + jnp.swapaxes(t, -1, -2))
    return jnp.diagonal(jnp.matmul(jnp.matmul(jnp.swapaxes(v, -1, -2), ts), v), 0, -2, -1)


# ----------------------------------------------------------------------- svd
def svd_adjoint(g, a, y, full_matrices, compute_uv):
    """a's adjoint from the reduced SVD (u, s, vt) = svd(a): the transpose of JAX's svd_jvp_rule."""
    if not compute_uv:
        return svdvals_adjoint(g, a)
    u = y[0]
    s = y[1]
    vt = y[2]
    gu = item_adjoint(g, 0)
    gs = item_adjoint(g, 1)
    gvt = item_adjoint(g, 2)
    m = jnp.shape(u)[-2]
    n = jnp.shape(vt)[-1]
    k = jnp.shape(s)[-1]
    if full_matrices:        # the reduced factors; full ones have a derivative for a square matrix only
        u = u[..., :k]
        vt = vt[..., :k, :]
        if jnp.ndim(gu) != 0 or jnp.ndim(gvt) != 0:
            a = square_unless_reduced(a, full_matrices)
    eye = jnp.eye(k)
    row = jnp.expand_dims(s, -2)
    col = jnp.expand_dims(s, -1)
    gaps = 1.0 / (row * row - col * col + eye) - eye
    middle = jnp.expand_dims(gs, -1) * eye
    extra = 0.0
    if jnp.ndim(gu) != 0:
        ju = jnp.matmul(jnp.swapaxes(u, -1, -2), gu)
        ku = gaps * ju
        middle = middle + (ku + jnp.swapaxes(ku, -1, -2)) * row
        if m > k:
            extra = extra + jnp.matmul((gu - jnp.matmul(u, ju)) / row, vt)
    if jnp.ndim(gvt) != 0:
        v = jnp.swapaxes(vt, -1, -2)
        jv = jnp.matmul(vt, jnp.swapaxes(gvt, -1, -2))
        kv = gaps * jv
        middle = middle + col * (kv + jnp.swapaxes(kv, -1, -2))
        if n > k:
            extra = extra + jnp.matmul(u / row, gvt - jnp.matmul(jnp.swapaxes(jv, -1, -2), vt))
    return jnp.matmul(jnp.matmul(u, middle), vt) + extra


def svd_tangent(t, a, y, full_matrices, compute_uv):
    """The tangent of svd(a): JAX's svd_jvp_rule for real matrices."""
    if not compute_uv:
        return svdvals_tangent(t, a)
    a = square_unless_reduced(a, full_matrices)
    u = y[0]
    s = y[1]
    vt = y[2]
    v = jnp.swapaxes(vt, -1, -2)
    ut = jnp.swapaxes(u, -1, -2)
    m = jnp.shape(u)[-2]
    n = jnp.shape(vt)[-1]
    k = jnp.shape(s)[-1]
    eye = jnp.eye(k)
    row = jnp.expand_dims(s, -2)
    col = jnp.expand_dims(s, -1)
    gaps = 1.0 / (row * row - col * col + eye) - eye
    ds_matrix = jnp.matmul(jnp.matmul(ut, t), v)
    dss = ds_matrix * row
    sds = col * ds_matrix
    du = jnp.matmul(u, gaps * (dss + jnp.swapaxes(dss, -1, -2)))
    dv = jnp.matmul(v, gaps * (sds + jnp.swapaxes(sds, -1, -2)))
    if m > k:
        tv = jnp.matmul(t, v)
        du = du + (tv - jnp.matmul(u, jnp.matmul(ut, tv))) / row
    if n > k:
        tu = jnp.matmul(jnp.swapaxes(t, -1, -2), u)
        dv = dv + (tu - jnp.matmul(v, jnp.matmul(vt, tu))) / row
    return with_fields(y, [du, jnp.diagonal(ds_matrix, 0, -2, -1), jnp.swapaxes(dv, -1, -2)])


def svdvals_adjoint(g, a):
    """a's adjoint from s = svdvals(a): U diag(g) V^T (reduced SVD)."""
    parts = jnp_linalg.svd(a, full_matrices=False)
    return jnp.matmul(parts[0] * jnp.expand_dims(g, -2), parts[2])


def svdvals_tangent(t, a):
    parts = jnp_linalg.svd(a, full_matrices=False)
    return jnp.diagonal(jnp.matmul(jnp.matmul(jnp.swapaxes(parts[0], -1, -2), t),
                                   jnp.swapaxes(parts[2], -1, -2)), 0, -2, -1)


# ------------------------------------------------------------------------ qr
def qr_adjoint(g, a, y, mode):
    """a's adjoint from (q, r) = qr(a), m >= n: (gq + q C) R^-T with C = tril(M - M^T, -1) - M,
    M = q^T gq - gr r^T (the transpose of JAX's qr_jvp_rule)."""
    m = jnp.shape(a)[-2]
    n = jnp.shape(a)[-1]
    if m < n or (mode == "complete" and m != n):
        return refuse_derivative(g, f"qr's derivative needs rows >= columns (and mode='reduced' unless square); "
                                    f"got a {m}x{n} matrix with mode={mode!r}, as JAX refuses too")
    if mode == "r":
        parts = jnp_linalg.qr(a)
        q = parts[0]
        r = parts[1]
        gq = 0.0
        gr = g
    else:
        q = y[0]
        r = y[1]
        gq = item_adjoint(g, 0)
        gr = item_adjoint(g, 1)
    inner = 0.0
    if jnp.ndim(gq) != 0:
        inner = inner + jnp.matmul(jnp.swapaxes(q, -1, -2), gq)
    if jnp.ndim(gr) != 0:
        inner = inner - jnp.matmul(gr, jnp.swapaxes(r, -1, -2))
    if jnp.ndim(inner) == 0:
        return 0.0 * a
    c = (inner - jnp.swapaxes(inner, -1, -2)) * triangle_mask(inner, -1) - inner
    b = jnp.matmul(q, c)
    if jnp.ndim(gq) != 0:
        b = b + gq
    return jnp.swapaxes(jnp_linalg.solve(r, jnp.swapaxes(b, -1, -2)), -1, -2)


def qr_tangent(t, a, y, mode):
    """The tangent of qr(a): JAX's qr_jvp_rule for real matrices, m >= n."""
    m = jnp.shape(a)[-2]
    n = jnp.shape(a)[-1]
    if m < n or (mode == "complete" and m != n):
        t = refuse_derivative(t, f"qr's derivative needs rows >= columns (and mode='reduced' unless square); "
                                 f"got a {m}x{n} matrix with mode={mode!r}, as JAX refuses too")
    if mode == "r":
        parts = jnp_linalg.qr(a)
        q = parts[0]
        r = parts[1]
    else:
        q = y[0]
        r = y[1]
    t_rinv = jnp.swapaxes(jnp_linalg.solve(jnp.swapaxes(r, -1, -2), jnp.swapaxes(t, -1, -2)), -1, -2)
    c = jnp.matmul(jnp.swapaxes(q, -1, -2), t_rinv)
    lower = c * triangle_mask(c, -1)
    omega = lower - jnp.swapaxes(lower, -1, -2)
    dr = jnp.matmul(c - omega, r)
    if mode == "r":
        return dr
    return with_fields(y, [jnp.matmul(q, omega - c) + t_rinv, dr])


# ------------------------------------------------------------------ cholesky
def cholesky_adjoint(g, a, y, upper, symmetrize_input):
    """a's adjoint from l = cholesky(a): L^-T Phi(L^T gl) L^-1 symmetrized, Phi = tril with half diagonal
    (the transpose of JAX's cholesky_jvp_rule); without symmetrizing, folded onto the triangle read."""
    if upper:
        l = jnp.swapaxes(y, -1, -2)
        gl = jnp.swapaxes(g, -1, -2)
    else:
        l = y
        gl = g
    lt = jnp.swapaxes(l, -1, -2)
    p = jnp.matmul(lt, gl)
    half = triangle_mask(p, 0) - 0.5 * jnp.eye(jnp.shape(p)[-1])
    x = jnp_linalg.solve(lt, p * half)
    s = jnp.swapaxes(jnp_linalg.solve(lt, jnp.swapaxes(x, -1, -2)), -1, -2)
    sym = 0.5 * (s + jnp.swapaxes(s, -1, -2))
    if symmetrize_input:
        return sym
    # NumPy reads one triangle (the lower, or the upper for upper=True): its entries count twice off the diagonal.
    return 2.0 * sym * triangle_mask(sym, 0, not upper) - sym * jnp.eye(jnp.shape(sym)[-1])


def cholesky_tangent(t, a, y, upper, symmetrize_input):
    """The tangent of cholesky(a): L Phi(L^-1 dS L^-T), dS = t symmetrized (or rebuilt from the triangle read)."""
    if symmetrize_input:
        ts = 0.5 * (t + jnp.swapaxes(t, -1, -2))
    else:
        part = t * triangle_mask(t, 0, not upper)
        ts = part + jnp.swapaxes(part, -1, -2) - t * jnp.eye(jnp.shape(t)[-1])
    l = jnp.swapaxes(y, -1, -2) if upper else y
    x = jnp_linalg.solve(l, ts)
    z = jnp.swapaxes(jnp_linalg.solve(l, jnp.swapaxes(x, -1, -2)), -1, -2)
    half = triangle_mask(z, 0) - 0.5 * jnp.eye(jnp.shape(z)[-1])
    dl = jnp.matmul(l, z * half)
    if upper:
        return jnp.swapaxes(dl, -1, -2)
    return dl


# ------------------------------------------------------------------- slogdet
def slogdet_adjoint(g, a, y):
    """a's adjoint from (sign, logabsdet) = slogdet(a): g_logabsdet inv(a)^T; sign is locally constant."""
    gl = item_adjoint(g, 1)
    return jnp.expand_dims(jnp.expand_dims(gl, -1), -1) * jnp.swapaxes(jnp_linalg.inv(a), -1, -2)


def slogdet_tangent(t, a, y):
    dl = jnp.sum(jnp.swapaxes(jnp_linalg.inv(a), -1, -2) * t, axis=(-2, -1))
    return with_fields(y, [jnp.zeros_like(y[0]), dl])


# ---------------------------------------------------------------------- pinv
def pinv_adjoint(g, a, y):
    """a's adjoint from p = pinv(a) (rank locally constant): the transpose of JAX's pinv JVP,
    -p^T g p^T + p^T p g^T (I - p a) + (I - a p) g^T p p^T."""
    pt = jnp.swapaxes(y, -1, -2)
    gt = jnp.swapaxes(g, -1, -2)
    first = -jnp.matmul(jnp.matmul(pt, g), pt)
    left = jnp.matmul(jnp.matmul(pt, y), gt)
    second = left - jnp.matmul(jnp.matmul(left, y), a)
    right = jnp.matmul(gt, jnp.matmul(y, pt))
    third = right - jnp.matmul(a, jnp.matmul(y, right))
    return first + second + third


def pinv_tangent(t, a, y):
    """JAX's pinv JVP: -p t p + (I - p a) t^T p^T p + p p^T t^T (I - a p)."""
    pt = jnp.swapaxes(y, -1, -2)
    tt = jnp.swapaxes(t, -1, -2)
    first = -jnp.matmul(jnp.matmul(y, t), y)
    middle = jnp.matmul(tt, jnp.matmul(pt, y))
    second = middle - jnp.matmul(y, jnp.matmul(a, middle))
    edge = jnp.matmul(jnp.matmul(y, pt), tt)
    third = edge - jnp.matmul(jnp.matmul(edge, a), y)
    return first + second + third


# -------------------------------------------------------------- matrix_power
def matrix_power_adjoint(g, a, n):
    """a's adjoint from a^n: sum_i (b^T)^i g (b^T)^(n-1-i), b = a (or inv(a) for n < 0, then its adjoint)."""
    if n >= 0:
        b = a
        k = n
    else:
        b = jnp_linalg.inv(a)
        k = -n
    bt = jnp.swapaxes(b, -1, -2)
    out = 0.0 * b
    for i in range(k):
        out = out + jnp.matmul(jnp.matmul(jnp_linalg.matrix_power(bt, i), g), jnp_linalg.matrix_power(bt, k - 1 - i))
    if n < 0:
        return -jnp.matmul(jnp.matmul(bt, out), bt)
    return out


def matrix_power_tangent(t, a, n):
    if n >= 0:
        b = a
        k = n
        db = t
    else:
        b = jnp_linalg.inv(a)
        k = -n
        db = -jnp.matmul(jnp.matmul(b, t), b)
    out = 0.0 * b
    for i in range(k):
        out = out + jnp.matmul(jnp.matmul(jnp_linalg.matrix_power(b, i), db), jnp_linalg.matrix_power(b, k - 1 - i))
    return out


# ---------------------------------------------------------------------- cond
def cond_adjoint(g, x, p):
    """x's adjoint from cond(x, p): through the extreme singular values for p in (None, 2, -2),
    else through norm(x, p) * norm(inv(x), p)."""
    if p is None or p == 2 or p == -2:
        s = jnp_linalg.svdvals(x)
        k = jnp.shape(s)[-1]
        eye = jnp.eye(k)
        big = s[..., 0]
        small = s[..., k - 1]
        if p == -2:
            weights = eye[k - 1] / jnp.expand_dims(big, -1) - jnp.expand_dims(small / (big * big), -1) * eye[0]
        else:
            weights = eye[0] / jnp.expand_dims(small, -1) - jnp.expand_dims(big / (small * small), -1) * eye[k - 1]
        return svdvals_adjoint(jnp.expand_dims(g, -1) * weights, x)
    z = jnp_linalg.inv(x)
    nx = jnp_linalg.norm(x, p, (-2, -1))
    nz = jnp_linalg.norm(z, p, (-2, -1))
    gz = norm_adjoint(g * nx, z, nz, p, (-2, -1), False)
    zt = jnp.swapaxes(z, -1, -2)
    return norm_adjoint(g * nz, x, nx, p, (-2, -1), False) - jnp.matmul(jnp.matmul(zt, gz), zt)


def cond_tangent(t, x, p):
    return jnp.sum(t * cond_adjoint(1.0 + 0.0 * jnp_linalg.cond(x, p), x, p), axis=(-2, -1))


# ---------------------------------------------------------------------- norm
def norm_adjoint(g, x, y, ord, axis, keepdims):
    """x's adjoint from y = norm(x, ord, axis, keepdims), for every ord NumPy has (vector and matrix norms)."""
    nd = jnp.ndim(x)
    if axis is None and (ord is None or nd == 1):
        axes = tuple(range(nd))
        matrix = False
    elif axis is None:
        axes = (0, 1)
        matrix = True
    elif isinstance(axis, tuple) and len(axis) == 2:
        axes = (axis[0] % nd, axis[1] % nd)
        matrix = True
    else:
        axes = ((axis[0] if isinstance(axis, tuple) else axis) % nd,)
        matrix = False
    if keepdims:
        g = jnp.squeeze(g, axes)
        y = jnp.squeeze(y, axes)
    if not matrix or ord is None or ord == "fro":
        if ord is None or ord == 2 or ord == "fro":
            return jnp.expand_dims(g / y, axes) * x
        if ord == 0:
            return 0.0 * x
        ax = jnp.abs(x)
        if ord == np.inf or ord == -np.inf:
            return jnp.expand_dims(g, axes) * extremum_mask(ax, y, axes[0]) * jnp.sign(x)
        if ord == 1:
            return jnp.expand_dims(g, axes) * jnp.sign(x)
        scale = jnp.expand_dims(g / y ** (ord - 1), axes)
        return scale * jnp.sign(x) * ax ** (ord - 1)
    xm = jnp.moveaxis(x, axes, (-2, -1))
    if ord == "nuc" or ord == 2 or ord == -2:
        s = jnp_linalg.svdvals(xm)
        if ord == "nuc":
            weights = 1.0 + 0.0 * s
        else:
            weights = extremum_mask(s, jnp.expand_dims(y, -1), -1, True)
        gm = svdvals_adjoint(jnp.expand_dims(g, -1) * weights, xm)
    elif ord == 1 or ord == -1:
        sums = jnp.sum(jnp.abs(xm), axis=-2)
        gm = jnp.expand_dims(jnp.expand_dims(g, -1) * extremum_mask(sums, y, -1), -2) * jnp.sign(xm)
    else:
        sums = jnp.sum(jnp.abs(xm), axis=-1)
        gm = jnp.expand_dims(jnp.expand_dims(g, -1) * extremum_mask(sums, y, -1), -1) * jnp.sign(xm)
    return jnp.moveaxis(gm, (-2, -1), axes)


def norm_tangent(t, x, y, ord, axis, keepdims):
    """The tangent of norm(x, ...): <its gradient, t> over the reduced axes."""
    nd = jnp.ndim(x)
    if axis is None and (ord is None or nd == 1):
        axes = tuple(range(nd))
    elif axis is None:
        axes = (0, 1)
    elif isinstance(axis, tuple):
        axes = tuple(a % nd for a in axis)
    else:
        axes = (axis % nd,)
    return jnp.sum(t * norm_adjoint(1.0 + 0.0 * y, x, y, ord, axis, keepdims), axis=axes, keepdims=keepdims)


# --------------------------------------------------------------------- lstsq
def lstsq_a_adjoint(g, a, b, y):
    """a's adjoint from (x, residuals, rank, s) = lstsq(a, b): x = pinv(a) b (rank locally constant),
    residuals |a x - b|^2 (x stationary there), s the singular values."""
    x = y[0]
    gx = item_adjoint(g, 0)
    gr = item_adjoint(g, 1)
    gs = item_adjoint(g, 3)
    out = 0.0 * a
    if jnp.ndim(gx) != 0:
        if jnp.ndim(b) == 1:
            gp = jnp.outer(gx, b)
        else:
            gp = jnp.matmul(gx, jnp.swapaxes(b, -1, -2))
        out = out + pinv_adjoint(gp, a, jnp_linalg.pinv(a))
    if jnp.ndim(gr) != 0 and jnp.shape(y[1])[0] != 0:
        e = jnp.matmul(a, x) - b
        if jnp.ndim(b) == 1:
            out = out + 2.0 * jnp.sum(gr) * jnp.outer(e, x)
        else:
            out = out + 2.0 * jnp.matmul(e * gr, jnp.swapaxes(x, -1, -2))
    if jnp.ndim(gs) != 0:
        out = out + svdvals_adjoint(gs, a)
    return out


def lstsq_b_adjoint(g, a, b, y):
    """b's adjoint from lstsq(a, b): pinv(a)^T gx - 2 (a x - b) g_residuals."""
    gx = item_adjoint(g, 0)
    gr = item_adjoint(g, 1)
    out = 0.0 * b
    if jnp.ndim(gx) != 0:
        out = out + jnp.matmul(jnp.swapaxes(jnp_linalg.pinv(a), -1, -2), gx)
    if jnp.ndim(gr) != 0 and jnp.shape(y[1])[0] != 0:
        e = jnp.matmul(a, y[0]) - b
        if jnp.ndim(b) == 1:
            out = out - 2.0 * jnp.sum(gr) * e
        else:
            out = out - 2.0 * e * gr
    return out


def lstsq_a_tangent(t, a, b, y):
    x = y[0]
    p = jnp_linalg.pinv(a)
    dx = jnp.matmul(pinv_tangent(t, a, p), b)
    if jnp.shape(y[1])[0] == 0:
        dr = 0.0 * y[1]
    elif jnp.ndim(b) == 1:
        dr = 2.0 * jnp.sum((jnp.matmul(a, x) - b) * jnp.matmul(t, x), axis=0, keepdims=True)
    else:
        dr = 2.0 * jnp.sum((jnp.matmul(a, x) - b) * jnp.matmul(t, x), axis=0)
    return with_fields(y, [dx, dr, jnp.zeros_like(y[2]), svdvals_tangent(t, a)])


def lstsq_b_tangent(t, a, b, y):
    dx = jnp.matmul(jnp_linalg.pinv(a), t)
    if jnp.shape(y[1])[0] == 0:
        dr = 0.0 * y[1]
    elif jnp.ndim(b) == 1:
        dr = -2.0 * jnp.sum((jnp.matmul(a, y[0]) - b) * t, axis=0, keepdims=True)
    else:
        dr = -2.0 * jnp.sum((jnp.matmul(a, y[0]) - b) * t, axis=0)
    return with_fields(y, [dx, dr, jnp.zeros_like(y[2]), 0.0 * y[3]])


# ----------------------------------------------------------------- multi_dot
def multi_dot_adjoint(g, arrays, k):
    """Item k's adjoint from y = multi_dot(arrays): (product before k)^T g (product after k)^T.

    The partial products are matmul loops (a 1-D first/last item acts as a row/column vector)."""
    count = len(arrays)
    first_vector = jnp.ndim(arrays[0]) == 1
    last_vector = jnp.ndim(arrays[count - 1]) == 1
    if first_vector:
        g = jnp.expand_dims(g, 0)
    if last_vector:
        g = jnp.expand_dims(g, -1)
    if k > 0:
        left = arrays[0]
        for i in range(1, k):
            left = jnp.matmul(left, arrays[i])
        if first_vector:
            left = jnp.expand_dims(left, 0)
        g = jnp.matmul(jnp.swapaxes(left, -1, -2), g)
    if k < count - 1:
        right = arrays[count - 1]
        for i in range(count - 2, k, -1):
            right = jnp.matmul(arrays[i], right)
        if last_vector:
            right = jnp.expand_dims(right, -1)
        g = jnp.matmul(g, jnp.swapaxes(right, -1, -2))
    return jnp.reshape(g, jnp.shape(arrays[k]))


def multi_dot_tangent(tangents, arrays):
    """The sum over k of the product with item k replaced by its tangent (items without one skipped)."""
    total = 0.0
    for k in range(len(arrays)):
        if jnp.ndim(tangents[k]) == jnp.ndim(arrays[k]):
            product = tangents[k] if k == 0 else arrays[0]
            for i in range(1, len(arrays)):
                product = jnp.matmul(product, tangents[i] if i == k else arrays[i])
            total = total + product
    return total


def multi_dot_items_adjoint(g, arrays):
    """The adjoint of a list held in a variable from y = multi_dot(arrays): each item's, as a TreeAdjoint.
    (Its own derivative is refused: a second derivative needs the list written out in the call.)"""
    from .helpers import TreeAdjoint
    return TreeAdjoint({k: multi_dot_adjoint(g, arrays, k) for k in range(len(arrays))})


# ------------------------------------------------------- tensorinv, tensorsolve
def tensorinv_adjoint(g, a, y, ind):
    """a's adjoint from y = tensorinv(a, ind): inv's adjoint -Y^T g Y^T on the matrix views."""
    shape = jnp.shape(a)
    rows = 1
    for d in shape[:ind]:
        rows = rows * d
    y2t = jnp.swapaxes(jnp.reshape(y, (-1, rows)), -1, -2)
    g2 = jnp.reshape(g, (-1, rows))
    return jnp.reshape(-jnp.matmul(jnp.matmul(y2t, g2), y2t), shape)


def tensorinv_tangent(t, a, y, ind):
    shape = jnp.shape(a)
    rows = 1
    for d in shape[:ind]:
        rows = rows * d
    y2 = jnp.reshape(y, (-1, rows))
    t2 = jnp.reshape(t, (rows, -1))
    return jnp.reshape(-jnp.matmul(jnp.matmul(y2, t2), y2), jnp.shape(y))


def tensorsolve_a_adjoint(g, a, b, y):
    """a's adjoint from x = tensorsolve(a, b): solve's adjoint on the matrix view of a (columns, not 1-D)."""
    if jnp.ndim(g) == 0 and jnp.ndim(y) != 0:
        return 0.0 * a + g         # nothing reached x yet (a bare 0.0 adjoint)
    a2 = jnp.reshape(a, (jnp.size(b), jnp.size(y)))
    gb = jnp_linalg.solve(jnp.swapaxes(a2, -1, -2), jnp.reshape(g, (-1, 1)))
    return jnp.reshape(-jnp.matmul(gb, jnp.reshape(y, (1, -1))), jnp.shape(a))


def tensorsolve_b_adjoint(g, a, b, y):
    if jnp.ndim(g) == 0 and jnp.ndim(y) != 0:
        return 0.0 * b + g
    a2 = jnp.reshape(a, (jnp.size(b), jnp.size(y)))
    return jnp.reshape(jnp_linalg.solve(jnp.swapaxes(a2, -1, -2), jnp.reshape(g, (-1, 1))), jnp.shape(b))


def tensorsolve_a_tangent(t, a, b, y):
    a2 = jnp.reshape(a, (jnp.size(b), jnp.size(y)))
    t2 = jnp.reshape(t, (jnp.size(b), jnp.size(y)))
    return jnp.reshape(-jnp_linalg.solve(a2, jnp.matmul(t2, jnp.reshape(y, (-1, 1)))), jnp.shape(y))


def tensorsolve_b_tangent(t, a, b, y):
    a2 = jnp.reshape(a, (jnp.size(b), jnp.size(y)))
    return jnp.reshape(jnp_linalg.solve(a2, jnp.reshape(t, (-1, 1))), jnp.shape(y))


from .helpers import extremum_mask  # noqa: E402  (a primitive; composites call it by name)

COMPOSITES.update({f.__name__: f for f in (
    eigh_adjoint, eigh_tangent, eigvalsh_adjoint, eigvalsh_tangent, svd_adjoint, svd_tangent, svdvals_adjoint,
    svdvals_tangent, qr_adjoint, qr_tangent, cholesky_adjoint, cholesky_tangent, slogdet_adjoint, slogdet_tangent,
    pinv_adjoint, pinv_tangent, matrix_power_adjoint, matrix_power_tangent, cond_adjoint, cond_tangent,
    norm_adjoint, norm_tangent, lstsq_a_adjoint, lstsq_b_adjoint, lstsq_a_tangent, lstsq_b_tangent,
    multi_dot_adjoint, multi_dot_tangent, tensorinv_adjoint, tensorinv_tangent, tensorsolve_a_adjoint,
    tensorsolve_b_adjoint, tensorsolve_a_tangent, tensorsolve_b_tangent)})
COMPOSITES.update(multi_dot_items_adjoint=multi_dot_items_adjoint, with_fields=with_fields, triangle_mask=triangle_mask, refuse_derivative=refuse_derivative)


# ---------------------------------------------------------------- the primitives
def _static_literal(bound, name, allowed, what, hint):
    """(message, hint) unless the argument `name` is a literal among `allowed` (or left at its default)."""
    node = bound.get(name)
    if node is None:
        return None
    if not isinstance(node, gast.Constant):
        return (f"astjax must know {what}'s `{name}` when it transforms the function, but here it is computed "
                f"at run time", f"write {name} as a literal.")
    if node.value not in allowed:
        return (f"astjax has no derivative for {what} with {name}={node.value!r} (JAX has none either)", hint)
    return None


def _rules(name, impl, vjp, jvp, aliases=(), operands=("a",), check=None):
    prim = primitive(name, impl, operands=operands, aliases=aliases)
    defvjp(prim, vjp)
    defjvp(prim, jvp)
    prim.static_check = check
    return prim


_rules("eigh", jnp_linalg.eigh, "ba += eigh_adjoint(by, a, y, symmetrize_input)",
       "dy = eigh_tangent(da, a, y, symmetrize_input)",
       check=lambda b: _static_literal(b, "symmetrize_input", (True,), "jnp.linalg.eigh",
                                       "leave symmetrize_input=True (the derivative is that of (a + a.T) / 2)."))
_rules("eigvalsh", jnp_linalg.eigvalsh, "ba += eigvalsh_adjoint(by, a)", "dy = eigvalsh_tangent(da, a)",
       check=lambda b: _static_literal(b, "symmetrize_input", (True,), "jnp.linalg.eigvalsh",
                                       "leave symmetrize_input=True."))


def _svd_check(bound):
    found = _static_literal(bound, "hermitian", (False,), "jnp.linalg.svd", "leave hermitian=False.")
    if found:
        return found
    compute_uv = bound.get("compute_uv")
    if isinstance(compute_uv, gast.Constant) and compute_uv.value is False:
        return None
    return None      # full_matrices=True: a square matrix only (checked when the rule runs: square_unless_reduced)


_rules("svd", jnp_linalg.svd, "ba += svd_adjoint(by, a, y, full_matrices, compute_uv)",
       "dy = svd_tangent(da, a, y, full_matrices, compute_uv)", aliases=(np.linalg.svd,), check=_svd_check)
_rules("svdvals", jnp_linalg.svdvals, "bx += svdvals_adjoint(by, x)", "dy = svdvals_tangent(dx, x)",
       operands=("x",), aliases=(getattr(np.linalg, "svdvals", None),))
_rules("qr", jnp_linalg.qr, "ba += qr_adjoint(by, a, y, mode)", "dy = qr_tangent(da, a, y, mode)",
       aliases=(np.linalg.qr,),
       check=lambda b: _static_literal(b, "mode", ("reduced", "complete", "r"), "jnp.linalg.qr",
                                       "use mode='reduced' (the default)."))
_cholesky = _rules("cholesky", jnp_linalg.cholesky, "ba += cholesky_adjoint(by, a, y, upper, symmetrize_input)",
                   "dy = cholesky_tangent(da, a, y, upper, symmetrize_input)")
deflowering(_cholesky, numba="astjax.runtime.numba_cpu:cholesky")        # runtime/numba_cholesky.py
_rules("slogdet", jnp_linalg.slogdet, "ba += slogdet_adjoint(by, a, y)", "dy = slogdet_tangent(da, a, y)",
       aliases=(np.linalg.slogdet,))
_rules("pinv", jnp_linalg.pinv, "ba += pinv_adjoint(by, a, y)", "dy = pinv_tangent(da, a, y)",
       aliases=(np.linalg.pinv,),
       check=lambda b: _static_literal(b, "hermitian", (False,), "jnp.linalg.pinv", "leave hermitian=False."))
_rules("matrix_power", jnp_linalg.matrix_power, "ba += matrix_power_adjoint(by, a, n)",
       "dy = matrix_power_tangent(da, a, n)", aliases=(np.linalg.matrix_power,))
_rules("cond", jnp_linalg.cond, "bx += cond_adjoint(by, x, p)", "dy = cond_tangent(dx, x, p)",
       operands=("x",), aliases=(np.linalg.cond,))

_lstsq = primitive("lstsq", jnp_linalg.lstsq, operands=("a", "b"), aliases=(np.linalg.lstsq,))
defvjp(_lstsq, "ba += lstsq_a_adjoint(by, a, b, y)", "bb += lstsq_b_adjoint(by, a, b, y)")
defjvp(_lstsq, "da -> lstsq_a_tangent(da, a, b, y)", "db -> lstsq_b_tangent(db, a, b, y)")

_multi_dot = primitive("multi_dot", jnp_linalg.multi_dot, operands=("arrays",), sequence_operand="arrays",
                       aliases=(np.linalg.multi_dot,))
_MULTI_DOT_VJP = gast.parse("multi_dot_adjoint(by, arrays, k)").body[0].value
_multi_dot.sequence_vjp = _MULTI_DOT_VJP          # a literal list: item k's adjoint
_multi_dot.vjp["arrays"] = gast.parse("multi_dot_items_adjoint(by, arrays)").body[0].value    # a list variable
_items = primitive("multi_dot_items_adjoint", multi_dot_items_adjoint, operands=("g", "arrays"))
_NO_SECOND = ("'the second derivative of multi_dot of a list held in a variable is not supported: write the list "
              "in the call, multi_dot([a, b, c])'")
defvjp(_items, f"bg += refuse_derivative(by, {_NO_SECOND})", f"barrays += refuse_derivative(by, {_NO_SECOND})")
defjvp(_items, f"dg -> refuse_derivative(dg, {_NO_SECOND})", f"darrays -> refuse_derivative(darrays, {_NO_SECOND})")
defjvp(_multi_dot, "dy = multi_dot_tangent(darrays, arrays)")

_rules("tensorinv", jnp_linalg.tensorinv, "ba += tensorinv_adjoint(by, a, y, ind)",
       "dy = tensorinv_tangent(da, a, y, ind)", aliases=(np.linalg.tensorinv,))
_tensorsolve = primitive("tensorsolve", jnp_linalg.tensorsolve, operands=("a", "b"), aliases=(np.linalg.tensorsolve,))
defvjp(_tensorsolve, "ba += tensorsolve_a_adjoint(by, a, b, y)", "bb += tensorsolve_b_adjoint(by, a, b, y)")
defjvp(_tensorsolve, "da -> tensorsolve_a_tangent(da, a, b, y)", "db -> tensorsolve_b_tangent(db, a, b, y)")


def _tensorsolve_check(bound):
    axes = bound.get("axes")
    if axes is None or (isinstance(axes, gast.Constant) and axes.value is None):
        return None
    return ("astjax differentiates jnp.linalg.tensorsolve without `axes` only",
            "move those axes of `a` last with jnp.moveaxis first and leave axes=None.")


_tensorsolve.static_check = _tensorsolve_check

primitive("matrix_rank", jnp_linalg.matrix_rank, operands=(), differentiable=False, aliases=(np.linalg.matrix_rank,),
          reason="its result is an integer (an index, a count or a size)")


# ------------------------------------------------ NumPy's one-triangle cholesky, eigh, eigvalsh
def _triangle_as_symmetric(a, lower):
    """The symmetric matrix LAPACK sees when it reads the lower (upper) triangle of a."""
    part = a * triangle_mask(a, -1 if lower else 1, lower)
    return part + jnp.swapaxes(part, -1, -2) + a * jnp.eye(jnp.shape(a)[-1])


def _fold_onto_triangle(sym, lower):
    """The adjoint of a from the symmetric adjoint `sym` of the matrix its triangle stands for."""
    return 2.0 * sym * triangle_mask(sym, 0, lower) - sym * jnp.eye(jnp.shape(sym)[-1])


def numpy_eigh_adjoint(g, a, y, UPLO):
    return _fold_onto_triangle(eigh_adjoint(g, a, y, True), UPLO == "L")


def numpy_eigh_tangent(t, a, y, UPLO):
    return eigh_tangent(_triangle_as_symmetric(t, UPLO == "L"), a, y, True)


def numpy_eigvalsh_adjoint(g, a, UPLO):
    full = _triangle_as_symmetric(a, UPLO == "L")
    return _fold_onto_triangle(eigvalsh_adjoint(g, full), UPLO == "L")


def numpy_eigvalsh_tangent(t, a, UPLO):
    lower = UPLO == "L"
    return eigvalsh_tangent(_triangle_as_symmetric(t, lower), _triangle_as_symmetric(a, lower))


COMPOSITES.update({f.__name__: f for f in (_triangle_as_symmetric, _fold_onto_triangle, numpy_eigh_adjoint,
                                           numpy_eigh_tangent, numpy_eigvalsh_adjoint, numpy_eigvalsh_tangent)})
_rules("numpy_cholesky", jnp_linalg._numpy_cholesky, "ba += cholesky_adjoint(by, a, y, upper, False)",
       "dy = cholesky_tangent(da, a, y, upper, False)", aliases=(np.linalg.cholesky,))
_rules("numpy_eigh", jnp_linalg._numpy_eigh, "ba += numpy_eigh_adjoint(by, a, y, UPLO)",
       "dy = numpy_eigh_tangent(da, a, y, UPLO)", aliases=(np.linalg.eigh,))
_rules("numpy_eigvalsh", jnp_linalg._numpy_eigvalsh, "ba += numpy_eigvalsh_adjoint(by, a, UPLO)",
       "dy = numpy_eigvalsh_tangent(da, a, UPLO)", aliases=(np.linalg.eigvalsh,))
