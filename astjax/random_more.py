"""The rest of jax.random: counts (poisson, binomial, multinomial, geometric), multivariate normals,
random orthogonal matrices, a few closed-form samplers (pareto, weibull_min, double_sided_maxwell,
wald, triangular), and the key helpers (key, key_data, wrap_key_data, key_impl, clone).

Each follows JAX's algorithm step by step (the same keys split in the same order, the same
rejection loops), so a key gives JAX's numbers up to float rounding: XLA's float32 log, lgamma and
linear algebra may differ from NumPy's in the last bit, which can move a sample that sits exactly
on an acceptance boundary (not seen in the tests).

astjax keys are plain uint32 arrays of shape (2,): `key(seed)` gives the same words as
`PRNGKey(seed)` (JAX's typed key holds those words), `key_data` and `wrap_key_data` are identities
that check the shape, and `key_impl` is always "threefry2x32".

None of these samplers has a derivative rule: a derivative that reaches their parameters is refused.
"""
import numpy as np

from .array import wrap
from .numpy._promote import nd

__all__ = ["poisson", "binomial", "multinomial", "geometric", "multivariate_normal", "orthogonal", "pareto",
           "weibull_min", "double_sided_maxwell", "wald", "triangular", "key", "key_data", "wrap_key_data",
           "key_impl", "key_dtype", "clone"]


def _random():
    from . import random
    return random


def _keys(key, num):
    return list(np.asarray(_random().split(key, num)))


def _uniform(key, shape, dt):
    return np.asarray(_random().uniform(key, shape, dt))


def _inexact(x):
    """x as an array with JAX's inexact promotion: integers and bools become float32."""
    a = nd(x)
    return a if a.dtype.kind in "fc" else a.astype(np.float32)


def _int_dtype(name, dtype):
    from . import dtypes
    dt = dtypes.canonicalize(int if dtype is None else dtype)
    if dt.kind not in "iu":
        raise ValueError(f"dtype argument to `{name}` must be an int dtype, got {dt}")
    return dt


def _lgamma(x):
    from scipy import special
    return special.gammaln(x).astype(x.dtype)


# ------------------------------------------------------------------------------ poisson
def _poisson_knuth(key, lam, shape):
    k = np.zeros(shape, np.int64)
    log_prod = np.zeros(shape, np.float32)
    with np.errstate(divide="ignore"):
        while (log_prod > -lam).any():
            key, subkey = _keys(key, 2)
            k = np.where(log_prod > -lam, k + 1, k)
            log_prod = (log_prod + np.log(_uniform(subkey, shape, np.float32))).astype(np.float32)
    return k - 1


def _poisson_rejection(key, lam, shape):
    dt = lam.dtype.type
    log_lam = np.log(lam)
    b = dt(0.931) + dt(2.53) * np.sqrt(lam)
    a = dt(-0.059) + dt(0.02483) * b
    inv_alpha = dt(1.1239) + dt(1.1328) / (b - dt(3.4))
    v_r = dt(0.9277) - dt(3.6224) / (b - dt(2))
    k_out = np.full(shape, -1, lam.dtype)
    accepted = np.zeros(shape, bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        while not accepted.all():
            key, sub0, sub1 = _keys(key, 3)
            u = _uniform(sub0, shape, lam.dtype) - dt(0.5)
            v = _uniform(sub1, shape, lam.dtype)
            us = dt(0.5) - np.abs(u)
            k = np.floor((dt(2) * a / us + b) * u + lam + dt(0.43))
            s = np.log(v * inv_alpha / (a / (us * us) + b))
            t = -lam + k * log_lam - _lgamma(k + dt(1))
            accept1 = (us >= dt(0.07)) & (v <= v_r)
            reject = (k < 0) | ((us < dt(0.013)) & (v > us))
            accept = accept1 | (~reject & (s <= t))
            k_out = np.where(accept, k, k_out)
            accepted |= accept
    return k_out


def poisson(key, lam, shape=None, dtype=None):
    """Poisson(lam) counts: Knuth's product of uniforms for lam < 10, Hormann's transformed rejection
    otherwise (JAX's choice, as TensorFlow and NumPy)."""
    random = _random()
    random._check_key("poisson", key)
    dt = _int_dtype("poisson", dtype)
    lam = nd(lam)
    shape = lam.shape if shape is None else random._check_shape("poisson", shape)
    lam = np.broadcast_to(lam, shape).astype(np.float32)
    use_knuth = np.isnan(lam) | (lam < 10)
    result = np.zeros(shape, np.int64)
    if use_knuth.any():
        result = np.where(use_knuth, _poisson_knuth(key, np.where(use_knuth, lam, np.float32(0)), shape), result)
    if not use_knuth.all():
        rejection = _poisson_rejection(key, np.where(use_knuth, np.float32(1e5), lam), shape)
        result = np.where(use_knuth, result, rejection.astype(np.int64))
    result = np.where(lam == 0, 0, result)
    return wrap(result.astype(dt))


# ----------------------------------------------------------------------------- binomial
_STIRLING_TAIL = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                  0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                  0.00925546218271273, 0.00833056343336287)


def _stirling_approx_tail(k):
    dt = k.dtype.type
    table = np.array(_STIRLING_TAIL, k.dtype)
    use_table = k <= 9
    k = np.clip(k, dt(0), dt(9))
    kp1sq = (k + 1) * (k + 1)
    approx = (dt(1.0 / 12) - (dt(1.0 / 360) - dt(1.0 / 1260) / kp1sq) / kp1sq) / (k + 1)
    return np.where(use_table, table[np.floor(k).astype(np.int32)], approx).astype(k.dtype)


def _binomial_inversion(key, count, prob, shape):
    dt = prob.dtype
    log1mp = np.log1p(-prob)
    num_geom = np.zeros(shape, dt)
    geom_sum = np.zeros(shape, dt)
    with np.errstate(divide="ignore", invalid="ignore"):
        while (geom_sum <= count).any():
            subkey, key = _keys(key, 2)
            num_geom = np.where(geom_sum <= count, num_geom + 1, num_geom)
            u = _uniform(subkey, shape, dt)
            geom_sum = geom_sum + np.ceil(np.log(u) / log1mp)
    return num_geom - 1


def _btrs(key, count, prob, shape):
    d = prob.dtype.type
    stddev = np.sqrt(count * prob * (d(1) - prob))
    b = d(1.15) + d(2.53) * stddev
    a = d(-0.0873) + d(0.0248) * b + d(0.01) * prob
    c = count * prob + d(0.5)
    v_r = d(0.92) - d(4.2) / b
    r = prob / (d(1) - prob)
    alpha = (d(2.83) + d(5.1) / b) * stddev
    m = np.floor((count + 1) * prob)
    k_out = np.full(shape, -1, prob.dtype)
    accepted = np.zeros(shape, bool)
    with np.errstate(divide="ignore", invalid="ignore"):
        while not accepted.all():
            key, sub0, sub1 = _keys(key, 3)
            u = _uniform(sub0, shape, prob.dtype)
            v = _uniform(sub1, shape, prob.dtype)
            u = u - d(0.5)
            us = d(0.5) - np.abs(u)
            accept1 = (us >= d(0.07)) & (v <= v_r)
            k = np.floor((d(2) * a / us + b) * u + c)
            reject = (k < 0) | (k > count)
            v = np.log(v * alpha / (a / (us * us) + b))
            ub = ((m + d(0.5)) * np.log((m + 1) / (r * (count - m + 1)))
                  + (count + 1) * np.log((count - m + 1) / (count - k + 1))
                  + (k + d(0.5)) * np.log(r * (count - k + 1) / (k + 1))
                  + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
                  - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
            accept = accept1 | (~reject & (v <= ub))
            k_out = np.where(accept, k, k_out)
            accepted |= accept
    return k_out


def binomial(key, n, p, shape=None, dtype=None):
    """Binomial(n, p) counts (as floats, like JAX): inversion by geometric waiting times where
    n * min(p, 1 - p) <= 10, the BTRS rejection sampler otherwise (Hormann 1993)."""
    random = _random()
    random._check_key("binomial", key)
    dt = random._float_dtype("binomial", dtype)
    count, prob = nd(n), _inexact(p)
    shape = np.broadcast_shapes(count.shape, prob.shape) if shape is None else random._check_shape("binomial", shape)
    pdt = prob.dtype.type
    count = np.broadcast_to(count.astype(prob.dtype), shape)
    prob = np.broadcast_to(prob, shape)
    p_lt_half = prob < 0.5
    q = np.where(p_lt_half, prob, pdt(1) - prob)
    count_nan_or_neg = np.isnan(count) | (count < 0)
    count_inf = np.isinf(count)
    q_is_nan = np.isnan(q)
    q_l_0 = q < 0
    q = np.where(q_is_nan | q_l_0, pdt(0.01), q)
    use_inversion = count_nan_or_neg | (count * q <= 10)
    count = np.floor(count)
    samples = np.zeros(shape, prob.dtype)
    if use_inversion.any():
        inv = _binomial_inversion(key, np.where(use_inversion, count, pdt(0)), q, shape)
        samples = np.where(use_inversion, inv, samples)
    if not use_inversion.all():
        btrs = _btrs(key, np.where(use_inversion, pdt(1e4), count), np.where(use_inversion, pdt(0.5), q), shape)
        samples = np.where(use_inversion, samples, btrs)
    samples = samples.astype(dt)
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = np.where(invalid, dt.type(np.nan), samples)
    samples = np.where(count_inf & ~invalid, dt.type(np.inf), samples)
    with np.errstate(invalid="ignore"):
        samples = np.where(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples, count.astype(dt) - samples)
    return wrap(samples.astype(dt))


def multinomial(key, n, p, *, shape=None, dtype=None, unroll=1):
    """Multinomial(n, p) counts over p's last axis: a binomial per category on what remains, as JAX."""
    random = _random()
    random._check_key("multinomial", key)
    n, p = _inexact(n), _inexact(p)
    common = np.result_type(n, p)
    n, p = n.astype(common), p.astype(common)
    shape = p.shape if shape is None else random._check_shape("multinomial", shape)
    remainder = np.broadcast_to(n, shape[:-1]).copy()
    p = np.moveaxis(np.broadcast_to(p, shape), -1, 0)
    remaining = np.flip(np.cumsum(np.flip(p, 0), axis=0), 0)
    ratios = p / np.where(remaining == 0, 1, remaining)
    counts = []
    for ratio, k in zip(ratios, _keys(key, ratios.shape[0])):
        count = np.asarray(binomial(k, remainder, np.clip(ratio, 0, 1), dtype=remainder.dtype))
        remainder = remainder - count
        counts.append(count)
    out = np.moveaxis(np.stack(counts), 0, -1)
    return wrap(out.astype(random._float_dtype("multinomial", dtype)))


def geometric(key, p, shape=None, dtype=None):
    """Geometric(p) counts (trials up to the first success, from 1): floor(log u / log1p(-p)) + 1."""
    random = _random()
    random._check_key("geometric", key)
    dt = _int_dtype("geometric", dtype)
    p = _inexact(p)
    shape = p.shape if shape is None else random._check_shape("geometric", shape)
    u = _uniform(key, shape, p.dtype)
    u = np.where(u == 0, p.dtype.type(1), u)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.floor(np.log(u) / np.broadcast_to(np.log1p(-p), shape)) + 1
        return wrap(g.astype(dt))


# -------------------------------------------------------------------- vectors, matrices
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method="cholesky"):
    """Samples mean + factor @ z with cov = factor factor^T (cholesky, or svd / eigh for a singular cov)."""
    random = _random()
    random._check_key("multivariate_normal", key)
    if method not in ("svd", "eigh", "cholesky"):
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    mean, cov = _inexact(mean), _inexact(cov)
    common = np.result_type(mean, cov)
    mean, cov = mean.astype(common), cov.astype(common)
    dt = mean.dtype if dtype is None else random._float_dtype("multivariate_normal", dtype)
    if mean.ndim < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}")
    if cov.ndim < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if cov.shape[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, "
                         f"but got cov.shape == {cov.shape}.")
    if shape is None:
        shape = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        shape = random._check_shape("multivariate_normal", shape)
    if method == "svd":
        u, s, _ = np.linalg.svd(cov)
        factor = u * np.sqrt(s[..., None, :])
    elif method == "eigh":
        w, v = np.linalg.eigh(cov)
        factor = v * np.sqrt(w[..., None, :])
    else:
        factor = np.linalg.cholesky(cov)
    z = np.asarray(random.normal(key, shape + (n,), dt))
    return wrap((mean + np.einsum("...ij,...j->...i", factor, z)).astype(dt))


def orthogonal(key, n, shape=(), dtype=None, m=None):
    """Haar-random matrices with orthonormal columns (or rows): QR of a normal matrix, signs fixed
    by R's diagonal, shape shape + (n, m) (m = n by default)."""
    random = _random()
    random._check_key("orthogonal", key)
    dt = random._float_dtype("orthogonal", dtype)
    shape = random._check_shape("orthogonal", shape)
    n = int(n)
    m = n if m is None else int(m)
    z = np.asarray(random.normal(key, (*shape, max(n, m), min(n, m)), dt))
    q, r = np.linalg.qr(z)
    d = np.diagonal(r, axis1=-2, axis2=-1)
    x = q * np.expand_dims(np.sign(d), -2)
    return wrap((np.swapaxes(x, -1, -2) if n < m else x).astype(dt))


# ----------------------------------------------------------------------- closed forms
def pareto(key, b, shape=None, dtype=None):
    """Pareto(b) samples: exp(exponential / b)."""
    random = _random()
    dt = random._float_dtype("pareto", dtype)
    b = np.asarray(nd(b), dt)
    shape = b.shape if shape is None else random._check_shape("pareto", shape)
    e = np.asarray(random.exponential(key, shape, dt))
    return wrap(np.exp(e / b).astype(dt))


def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull samples by the inverse CDF: scale * (-log1p(-u)) ** (1 / concentration)."""
    random = _random()
    dt = random._float_dtype("weibull_min", dtype)
    u = _uniform(key, random._check_shape("weibull_min", shape), dt)
    scale, concentration = np.asarray(nd(scale), dt), np.asarray(nd(concentration), dt)
    return wrap((np.power(-np.log1p(-u), dt.type(1) / concentration) * scale).astype(dt))


def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """A Maxwell sample with a random sign, scaled and shifted; shape shape + broadcast(loc, scale)."""
    random = _random()
    dt = random._float_dtype("double_sided_maxwell", dtype)
    loc, scale = np.asarray(nd(loc), dt), np.asarray(nd(scale), dt)
    params = np.broadcast_shapes(loc.shape, scale.shape)
    shape = random._check_shape("double_sided_maxwell", shape)
    shape = (shape or params) + params
    k_maxwell, k_sign = _keys(key, 2)
    draws = np.asarray(random.maxwell(k_maxwell, shape, dt))
    sign = np.asarray(random.rademacher(k_sign, shape, dt))
    return wrap((sign * draws * scale + loc).astype(dt))


def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian, scale 1) samples by Michael, Schucany and Haas' transformation."""
    random = _random()
    dt = random._float_dtype("wald", dtype)
    mean = np.asarray(nd(mean), dt)
    shape = mean.shape if shape is None else random._check_shape("wald", shape)
    k1, k2 = _keys(key, 2)
    mean = np.broadcast_to(mean, shape)
    v = np.asarray(random.normal(k1, shape, dt))
    z = _uniform(k2, shape, dt)
    y = v * v
    mean_sq = mean * mean
    root = np.sqrt(dt.type(4) * mean * y + mean_sq * (y * y))
    x = mean + mean_sq * y / dt.type(2) - mean / dt.type(2) * root
    return wrap(np.where(z <= mean / (mean + x), x, mean_sq / x).astype(dt))


def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular(left, mode, right) samples by the inverse CDF."""
    random = _random()
    dt = random._float_dtype("triangular", dtype)
    left, mode, right = (np.asarray(nd(v), dt) for v in (left, mode, right))
    if shape is None:
        shape = np.broadcast_shapes(left.shape, mode.shape, right.shape)
    else:
        shape = random._check_shape("triangular", shape)
    left, mode, right = (np.broadcast_to(v, shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = _uniform(key, shape, dt)
    out1 = left + np.sqrt(u * (right - left) * (mode - left))
    out2 = right - np.sqrt((dt.type(1) - u) * (right - left) * (right - mode))
    return wrap(np.where(u < fc, out1, out2).astype(dt))


# -------------------------------------------------------------------------------- keys
def key(seed, *, impl=None):
    """A key for `seed`: the same uint32 words as PRNGKey(seed) (astjax has no typed key arrays)."""
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"astjax.random has only the threefry2x32 generator, got impl={impl!r}")
    return _random().PRNGKey(seed)


def key_data(keys):
    """The uint32 words of `keys` (astjax's keys are these words already)."""
    return wrap(np.asarray(_check_key_words("key_data", keys)))


def wrap_key_data(key_bits_array, *, impl=None):
    """Keys from their uint32 words, shape (..., 2) (an identity in astjax)."""
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"astjax.random has only the threefry2x32 generator, got impl={impl!r}")
    return wrap(np.array(_check_key_words("wrap_key_data", key_bits_array)))


def key_impl(keys):
    """The name of the generator behind `keys`: always "threefry2x32"."""
    _check_key_words("key_impl", keys)
    return "threefry2x32"


def key_dtype(impl=None):
    """The dtype of astjax's keys: uint32 words (JAX's typed keys have a key<impl> dtype instead)."""
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"astjax.random has only the threefry2x32 generator, got impl={impl!r}")
    return np.dtype(np.uint32)


def clone(key):
    """A copy of `key` (JAX's key-reuse checker treats it as a fresh key)."""
    return wrap(np.array(_check_key_words("clone", key)))


def _check_key_words(name, keys):
    a = nd(keys)
    if a.dtype != np.uint32 or a.ndim < 1 or a.shape[-1] != 2:
        raise TypeError(f"{name}: expected uint32 key words of shape (..., 2), got {a.dtype} {a.shape}; "
                        "make keys with astjax.random.PRNGKey(seed) or split()")
    return a
