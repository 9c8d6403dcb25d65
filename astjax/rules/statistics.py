"""Order statistics and moments: quantile, percentile, median (and nan*), average, cov, corrcoef, bincount.

A quantile is a weighted sum of one or two order statistics of each slice
(astjax/numpy/_statistics.py, `QuantilePlan`): its tangent gathers the
tangent's elements at those positions with those weights (`quantile_tangent`),
its adjoint scatters the adjoint back there (`quantile_adjoint`); the two are
each other's transposes, so grad of grad works. The positions depend on `a`
only through its order, which is piecewise constant: no derivative flows
through them. With method="linear" the result also moves with `q`, by (count - 1) (x[hi] - x[lo]) (the
other methods are piecewise constant in q: slope 0).

average, cov and corrcoef are differentiated by the small Python functions
below (rule helpers written from primitives, so a second derivative transforms
them like user code).
"""
import numpy as np

from .. import numpy as jnp
from ..array import wrap
from ..numpy._statistics import quantile_plan
from .helpers import unbroadcast, unreduce
from .linalg import COMPOSITES
from .registry import PRIMITIVES, deflowering, defjvp, defvjp, primitive


# ------------------------------------------------------------------ quantiles
def quantile_tangent(t, a, q, axis=None, method="linear", keepdims=False, kind="quantile", slope=False):
    """The tangent of a quantile-family result for a tangent `t` of `a` (the same order statistics, weighted).

    slope=True: instead (count - 1) (t[hi] - t[lo]), which for t = a is d result / d q."""
    plain = np.asarray(t)
    dtype = plain.dtype if plain.dtype.kind in "fc" else np.float32
    plan = quantile_plan(a, q, axis, method, keepdims, kind, slope)
    return wrap(np.asarray(plan.gather(plain.astype(dtype, copy=False))))


def quantile_adjoint(g, a, q, axis=None, method="linear", keepdims=False, kind="quantile", slope=False):
    """The adjoint of `a` from a quantile-family result's adjoint `g`: g spread onto the order statistics used."""
    scattered = quantile_plan(a, q, axis, method, keepdims, kind, slope).scatter(g)
    like = np.asarray(a).dtype
    return wrap(np.asarray(scattered, dtype=np.result_type(np.asarray(g).dtype, like if like.kind in "fc" else np.float32)))


# Both are linear in their first argument and move with q through the weights: d/dq is the same
# gather or scatter with the weights' slope (slope=True), whose own slope in q is 0.
def _expand(t, like):
    """`t` (shaped like q) with unit axes appended to broadcast against a result shaped like `like`."""
    return jnp.reshape(t, jnp.shape(t) + (1,) * (jnp.ndim(like) - jnp.ndim(t)))


def quantile_q_adjoint(g, t, a, q, axis, method, keepdims, kind, slope=False):
    """The adjoint of `q` from `y = quantile_tangent(t, a, q, ...)` (t = a: the quantile itself): g times
    d y / d q, summed to q's shape."""
    spread = g * quantile_tangent(t, a, q, axis, method, keepdims, kind, True)
    if slope:
        spread = spread * 0.0
    return jnp.sum(spread, tuple(range(jnp.ndim(q), jnp.ndim(spread))))


def quantile_q_tangent(dq, t, a, q, axis, method, keepdims, kind, slope=False):
    """The tangent of `y = quantile_tangent(t, a, q, ...)` for a tangent `dq` of q."""
    rate = quantile_tangent(t, a, q, axis, method, keepdims, kind, True)
    if slope:
        rate = rate * 0.0
    return _expand(dq, rate) * rate


def quantile_q_scatter(dq, g, a, q, axis, method, keepdims, kind, slope=False):
    """The tangent of `y = quantile_adjoint(g, a, q, ...)` for a tangent `dq` of q."""
    moved = quantile_adjoint(_expand(dq, g) * g, a, q, axis, method, keepdims, kind, True)
    if slope:
        moved = moved * 0.0
    return moved


COMPOSITES.update({f.__name__: f for f in (quantile_tangent, quantile_adjoint, _expand, quantile_q_adjoint,
                                           quantile_q_tangent, quantile_q_scatter)})
_tangent = primitive("quantile_tangent", quantile_tangent, operands=("t", "q"), shape_params=("a",))
defvjp(_tangent, "bt += quantile_adjoint(by, a, q, axis, method, keepdims, kind, slope)",
       "bq += quantile_q_adjoint(by, t, a, q, axis, method, keepdims, kind, slope)")
defjvp(_tangent, "dt -> quantile_tangent(dt, a, q, axis, method, keepdims, kind, slope)",
       "dq -> quantile_q_tangent(dq, t, a, q, axis, method, keepdims, kind, slope)")
_adjoint = primitive("quantile_adjoint", quantile_adjoint, operands=("g", "q"), shape_params=("a",))
defvjp(_adjoint, "bg += quantile_tangent(by, a, q, axis, method, keepdims, kind, slope)",
       "bq += quantile_q_adjoint(g, by, a, q, axis, method, keepdims, kind, slope)")
defjvp(_adjoint, "dg -> quantile_adjoint(dg, a, q, axis, method, keepdims, kind, slope)",
       "dq -> quantile_q_scatter(dq, g, a, q, axis, method, keepdims, kind, slope)")


def _quantile_check(bound):
    """`interpolation=` (NumPy's old name of `method`) is not read by the rules: refuse it under a derivative."""
    value = bound.get("interpolation")
    if value is not None and getattr(value, "value", None) is not None:
        return ("interpolation= under a derivative is not supported", "write method=... instead")
    return None


for _name in ("quantile", "nanquantile", "percentile", "nanpercentile"):
    _prim = primitive(_name, getattr(jnp, _name), operands=("a", "q"), aliases=(getattr(np, _name),))
    defvjp(_prim, f"ba += quantile_adjoint(by, a, q, axis, method, keepdims, {_name!r})",
           f"bq += quantile_q_adjoint(by, a, a, q, axis, method, keepdims, {_name!r})")
    defjvp(_prim, f"da -> quantile_tangent(da, a, q, axis, method, keepdims, {_name!r})",
           f"dq -> quantile_q_tangent(dq, a, a, q, axis, method, keepdims, {_name!r})")
    _prim.static_check = _quantile_check
for _name, _kind in (("median", "quantile"), ("nanmedian", "nanquantile")):
    _prim = primitive(_name, getattr(jnp, _name), operands=("a",), aliases=(getattr(np, _name),))
    defvjp(_prim, f"ba += quantile_adjoint(by, a, 0.5, axis, 'linear', keepdims, {_kind!r})")
    defjvp(_prim, f"dy = quantile_tangent(da, a, 0.5, axis, 'linear', keepdims, {_kind!r})")
for _name in ("quantile", "percentile", "median", "quantile_adjoint"):     # astjax/runtime/numba_quantiles.py
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")


# ------------------------------------------------------------------ average
def _full_weights(weights, a, axis):
    """`weights` laid out like `a`: as they are when shaped like it, else a 1-D vector along `axis`."""
    if jnp.ndim(weights) == jnp.ndim(a):
        return jnp.broadcast_to(weights, jnp.shape(a))
    moved = jnp.reshape(weights, (-1,) + (1,) * (jnp.ndim(a) - 1 - axis % jnp.ndim(a)))
    return jnp.broadcast_to(moved, jnp.shape(a))


def average_adjoint(g, a, axis, weights, keepdims):
    """The adjoint of `a` from `y = average(a, axis, weights)`: g * w / sum(w) on each element."""
    if weights is None:
        return jnp.broadcast_to(unreduce(g, a, axis, keepdims), jnp.shape(a)) / (jnp.size(a) / jnp.size(g))
    w = _full_weights(weights, a, axis)
    return unreduce(g / jnp.sum(w, axis, keepdims=keepdims), a, axis, keepdims) * w


def average_weights_adjoint(g, a, axis, weights, keepdims, y):
    """The adjoint of `weights` from `y = average(a, axis, weights)`: g * (a - y) / sum(w), summed to w's shape."""
    w = _full_weights(weights, a, axis)
    spread = unreduce(g / jnp.sum(w, axis, keepdims=keepdims), a, axis, keepdims) * (a - unreduce(y, a, axis, keepdims))
    if jnp.ndim(weights) == jnp.ndim(a):
        return unbroadcast(spread, weights)
    others = tuple(i for i in range(jnp.ndim(a)) if i != axis % jnp.ndim(a))
    return jnp.sum(spread, others)


def average_weights_tangent(t, a, axis, weights, keepdims, y):
    """The tangent of `y = average(a, axis, weights)` for a tangent `t` of the weights."""
    w = _full_weights(weights, a, axis)
    dw = _full_weights(t, a, axis)
    return jnp.sum(dw * (a - unreduce(y, a, axis, keepdims)), axis, keepdims=keepdims) / jnp.sum(
        w, axis, keepdims=keepdims)


COMPOSITES.update({f.__name__: f for f in (_full_weights, average_adjoint, average_weights_adjoint,
                                           average_weights_tangent)})
average = primitive("average", jnp.average, operands=("a", "weights"), aliases=(np.average,))
defvjp(average, "ba += average_adjoint(by, a, axis, weights, keepdims)",
       "bweights += average_weights_adjoint(by, a, axis, weights, keepdims, y)")
defjvp(average, "da -> jnp.average(da, axis, weights, keepdims=keepdims)",
       "dweights -> average_weights_tangent(dweights, a, axis, weights, keepdims, y)")
average.static_check = lambda bound: (
    None if getattr(bound.get("returned"), "value", False) is False else
    ("average(..., returned=True) under a derivative is not supported",
     "compute the sum of the weights yourself: jnp.sum(weights)"))


# ------------------------------------------------------------------ cov and corrcoef
def _observations(m, y, rowvar):
    """NumPy's cov layout: one variable per row (m's, then y's), observations along the columns."""
    rows = jnp.reshape(m, (1, -1)) if jnp.ndim(m) < 2 else m
    if not rowvar and jnp.shape(rows)[0] != 1:
        rows = jnp.transpose(rows)
    if y is None:
        return rows
    more = jnp.reshape(y, (1, -1)) if jnp.ndim(y) < 2 else y
    if not rowvar and jnp.shape(more)[0] != 1:
        more = jnp.transpose(more)
    return jnp.concatenate([rows, more], axis=0)


def _divisor(x, bias, ddof):
    if ddof is None:
        ddof = 0 if bias else 1
    return jnp.shape(x)[1] - ddof


def _centred(x):
    return x - jnp.mean(x, axis=1, keepdims=True)


def _rows_of(m, rowvar):
    """How many variables (rows of the cov layout) m holds."""
    if jnp.ndim(m) < 2:
        return 1
    if not rowvar and jnp.shape(m)[0] != 1:
        return jnp.shape(m)[1]
    return jnp.shape(m)[0]


def _part(rows, m, y, rowvar, which):
    """The rows of a (variables, observations) adjoint that belong to m (which=0) or y (which=1), shaped like it."""
    count = _rows_of(m, rowvar)
    like = m if which == 0 else y
    part = rows[:count] if which == 0 else rows[count:]
    if jnp.ndim(like) >= 2 and not rowvar and jnp.shape(like)[0] != 1:
        part = jnp.transpose(part)
    return jnp.reshape(part, jnp.shape(like))


def _cov_shape(x):
    """The shape of cov's result for the layout x: NumPy squeezes a 1 x 1 matrix to a scalar."""
    p = jnp.shape(x)[0]
    return () if p == 1 else (p, p)


def cov_tangent(t, m, y, rowvar, bias, ddof, which):
    """The tangent of `cov(m, y, ...)` for a tangent `t` of m (which=0) or of y (which=1)."""
    x = _centred(_observations(m, y, rowvar))
    if which == 0:
        dx = _observations(t, None if y is None else jnp.zeros_like(y), rowvar)
    else:
        dx = _observations(jnp.zeros_like(m), t, rowvar)
    product = jnp.matmul(_centred(dx), jnp.transpose(x))
    return jnp.reshape((product + jnp.transpose(product)) / _divisor(x, bias, ddof), _cov_shape(x))


def cov_adjoint(g, m, y, rowvar, bias, ddof, which):
    """The adjoint of m (which=0) or y (which=1) from `c = cov(m, y, ...)`: (G + G.T) X_centred / divisor."""
    x = _centred(_observations(m, y, rowvar))
    p = jnp.shape(x)[0]
    g2 = jnp.reshape(g, (p, p))
    rows = jnp.matmul(g2 + jnp.transpose(g2), x) / _divisor(x, bias, ddof)
    return _part(rows, m, y, rowvar, which)


def corrcoef_adjoint(g, x, y, rowvar, which):
    """The adjoint of x (which=0) or y (which=1) from `r = corrcoef(x, y, rowvar)`."""
    c = jnp.cov(x, y, rowvar)
    p = jnp.size(c) if jnp.ndim(c) == 0 else jnp.shape(c)[0]
    c2 = jnp.reshape(c, (p, p))
    g2 = jnp.reshape(g, (p, p))
    s = jnp.sqrt(jnp.diagonal(c2))
    scale = jnp.outer(s, s)
    r = c2 / scale
    back = g2 * r
    diag = -(jnp.sum(back, axis=1) + jnp.sum(back, axis=0)) / (2.0 * jnp.diagonal(c2))
    bc = g2 / scale + jnp.diag(diag)
    return cov_adjoint(jnp.reshape(bc, jnp.shape(c)), x, y, rowvar, False, None, which)


def corrcoef_tangent(t, x, y, rowvar, which):
    """The tangent of `corrcoef(x, y, rowvar)` for a tangent `t` of x (which=0) or y (which=1)."""
    c = jnp.cov(x, y, rowvar)
    p = jnp.size(c) if jnp.ndim(c) == 0 else jnp.shape(c)[0]
    c2 = jnp.reshape(c, (p, p))
    dc = jnp.reshape(cov_tangent(t, x, y, rowvar, False, None, which), (p, p))
    s = jnp.sqrt(jnp.diagonal(c2))
    r = c2 / jnp.outer(s, s)
    half = jnp.diagonal(dc) / (2.0 * jnp.diagonal(c2))
    dr = dc / jnp.outer(s, s) - r * (jnp.expand_dims(half, 1) + jnp.expand_dims(half, 0))
    return jnp.reshape(dr, jnp.shape(c))


COMPOSITES.update({f.__name__: f for f in (_observations, _divisor, _centred, _rows_of, _part, _cov_shape, cov_tangent,
                                           cov_adjoint, corrcoef_adjoint, corrcoef_tangent)})
# The second data argument is named y2 here: `y` and `by` stand for the result and its adjoint in rules.
# So cov(m, z) binds z as an operand, and cov(m, y=z) with a z that carries a derivative is refused.
cov = primitive("cov", jnp.cov, operands=("m", "y2"), aliases=(np.cov,),
                signature=lambda m, y2=None, rowvar=True, bias=False, ddof=None: None)
defvjp(cov, "bm += cov_adjoint(by, m, y2, rowvar, bias, ddof, 0)", "by2 += cov_adjoint(by, m, y2, rowvar, bias, ddof, 1)")
defjvp(cov, "dm -> cov_tangent(dm, m, y2, rowvar, bias, ddof, 0)", "dy2 -> cov_tangent(dy2, m, y2, rowvar, bias, ddof, 1)")
corrcoef = primitive("corrcoef", jnp.corrcoef, operands=("x", "y2"), aliases=(np.corrcoef,),
                     signature=lambda x, y2=None, rowvar=True: None)
defvjp(corrcoef, "bx += corrcoef_adjoint(by, x, y2, rowvar, 0)", "by2 += corrcoef_adjoint(by, x, y2, rowvar, 1)")
defjvp(corrcoef, "dx -> corrcoef_tangent(dx, x, y2, rowvar, 0)", "dy2 -> corrcoef_tangent(dy2, x, y2, rowvar, 1)")

# bincount(x, weights): the sum of the weights of each integer value of x, linear in the weights.
bincount = primitive("bincount", jnp.bincount, operands=("weights",), aliases=(np.bincount,))
defvjp(bincount, "bweights += jnp.reshape(jnp.take(by, jnp.ravel(x)), jnp.shape(weights))")
defjvp(bincount, "dy = jnp.bincount(x, dweights, minlength, length=length)")
