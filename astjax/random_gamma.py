"""jax.random's gamma family (gamma, loggamma, beta, dirichlet, chisquare, t, f, generalized_normal,
ball), with JAX's algorithm so that a key gives JAX's numbers.

JAX draws each gamma variate with Marsaglia and Tsang's rejection method ("A simple method for
generating gamma variables", ACM TOMS 2000), one element at a time: element i gets the i-th key of
`split(key, n)` and runs its own rejection loop, drawing scalar normals and uniforms from keys it
splits off as it goes. This module runs all the elements' loops at once on arrays of keys (a
threefry hash whose key words are arrays), each element stepping only while it is still rejecting,
so that every element sees exactly the draws it sees in JAX.

Derivatives: JAX differentiates a gamma sample with respect to its shape parameter by implicit
reparameterization; astjax has no rule for these samplers, so a derivative that reaches one of
their parameters is refused (the samplers are library functions without rules). A derivative
that only reaches values computed from the samples, not the parameters, is unaffected.
"""
import numpy as np

from .array import wrap
from .numpy._promote import nd

__all__ = ["gamma", "loggamma", "beta", "dirichlet", "chisquare", "t", "f", "generalized_normal", "ball"]

_U32 = np.uint32
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_KS_PARITY = _U32(0x1BD11BDA)


def _random():
    from . import random
    return random


# ------------------------------------------------------------ threefry with one key per element
def _threefry_keyed(k0, k1, x0, x1):
    """threefry-2x32 of the counter words (x0, x1), element i hashed under key (k0[i], k1[i])."""
    ks = (k0, k1, k0 ^ k1 ^ _KS_PARITY)
    x0 = x0 + ks[0]
    x1 = x1 + ks[1]
    for group in range(5):
        for r in _ROTATIONS[group % 2]:
            x0 = x0 + x1
            x1 = ((x1 << _U32(r)) | (x1 >> _U32(32 - r))) ^ x0
        x0 = x0 + ks[(group + 1) % 3]
        x1 = x1 + ks[(group + 2) % 3] + _U32(group + 1)
    return x0, x1


def _split_keys(keys, num):
    """split(key, num) of each key in `keys` (shape (n, 2)): shape (num, n, 2)."""
    k0, k1 = keys[:, 0], keys[:, 1]
    zero = np.zeros_like(k0)
    out = []
    for i in range(num):
        hi, lo = _threefry_keyed(k0, k1, zero, np.full_like(k0, i))
        out.append(np.stack([hi, lo], axis=-1))
    return out


def _scalar_floats(keys, dt):
    """uniform(key, (), dt) in [0, 1) for each key: the bits of counter 0, as JAX's uniform."""
    k0, k1 = keys[:, 0], keys[:, 1]
    zero = np.zeros_like(k0)
    hi, lo = _threefry_keyed(k0, k1, zero, zero)
    info = np.finfo(dt)
    if info.bits == 64:
        raw = (hi.astype(np.uint64) << np.uint64(32)) | lo
        udt = np.uint64
    else:
        raw = hi ^ lo
        udt = np.uint32
    if info.bits == 16:
        raw = raw.astype(np.uint16)
        udt = np.uint16
    raw = raw >> udt(info.bits - info.nmant)
    raw = raw | np.array(1.0, dt).view(udt)
    return raw.view(dt) - dt.type(1.0)


def _scalar_uniform(keys, dt):
    return _scalar_floats(keys, dt)


def _scalar_normal(keys, dt):
    """normal(key, (), dt) for each key, as astjax.random.normal computes it (JAX's numbers)."""
    random = _random()
    floats = _scalar_floats(keys, dt)
    lo = np.nextafter(dt.type(-1), dt.type(0))
    u = np.maximum(lo, random._fma(floats, dt.type(1) - lo, lo, dt)).astype(dt)
    if dt == np.float16:
        out = random._erfinv(u.astype(np.float32)).astype(dt)
    else:
        out = random._erfinv(u)
    return (out * dt.type(np.sqrt(2))).astype(dt)


def _scalar_exponential(keys, dt):
    return -np.log1p(-_scalar_uniform(keys, dt))


# ------------------------------------------------------------------------------- gamma
def _gamma_each(keys, alpha, log_space):
    """JAX's _gamma_one for every (key, alpha) pair at once (keys (n, 2), alpha (n,))."""
    dt = alpha.dtype
    one, third = dt.type(1), dt.type(1.0 / 3.0)
    fma = _random()._fma
    boost_mask = alpha >= one
    alpha_orig = alpha
    alpha = np.where(boost_mask, alpha, alpha + one).astype(dt)
    d = (alpha - third).astype(dt)
    with np.errstate(invalid="ignore", divide="ignore"):
        c = (third / np.sqrt(d)).astype(dt)
    keys, subkeys = _split_keys(keys, 2)
    n = alpha.shape[0]
    X = np.zeros(n, dt)
    V = np.ones(n, dt)
    U = np.full(n, 2, dt)
    rejecting = np.ones(n, bool)       # the initial state (X, V, U) = (0, 1, 2) always loops once
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        while rejecting.any():
            i = np.flatnonzero(rejecting)
            key_i, x_key, u_key = _split_keys(keys[i], 3)
            keys[i] = key_i
            # inner loop: normals until v = 1 + x c is positive
            x = np.zeros(i.size, dt)
            v = np.full(i.size, -1, dt)
            pending = np.ones(i.size, bool)
            while pending.any():
                j = np.flatnonzero(pending)
                x_key_j, sub = _split_keys(x_key[j], 2)
                x_key[j] = x_key_j
                xj = _scalar_normal(sub, dt)
                x[j] = xj
                v[j] = fma(xj, c[i[j]], one, dt)
                pending = v <= 0
            Xi = (x * x).astype(dt)
            Vi = (v * v * v).astype(dt)
            Ui = _scalar_uniform(u_key, dt)
            X[i], V[i], U[i] = Xi, Vi, Ui
            squeeze = fma(-dt.type(0.0331), (Xi * Xi).astype(dt), one, dt)
            di = d[i]
            bound = fma(di, (one - Vi + np.log(Vi)).astype(dt), (Xi * dt.type(0.5)).astype(dt), dt)
            again = (Ui >= squeeze) & (np.log(Ui) >= bound)
            rejecting[i] = again
        if log_space:
            log_samples = -_scalar_exponential(subkeys, dt)
            log_boost = np.where(boost_mask | (log_samples == 0), dt.type(0), log_samples * (one / alpha_orig))
            return (np.log(d) + np.log(V) + log_boost).astype(dt)
        samples = one - _scalar_uniform(subkeys, dt)
        boost = np.where(boost_mask, one, np.power(samples, one / alpha_orig))
        return (d * V * boost).astype(dt)


def _gamma(name, key, a, shape, dtype, log_space):
    random = _random()
    k = random._check_key(name, key)
    dt = random._float_dtype(name, dtype)
    a = np.asarray(nd(a), dt)
    if shape is None:
        shape = a.shape
    else:
        shape = random._check_shape(name, shape)
        random._check_broadcast(name, shape, a)
    alphas = np.broadcast_to(a, shape).reshape(-1)
    n = alphas.size
    if n == 0:
        return np.zeros(shape, dt)
    hi, lo = random._hash_iota(k, n)
    keys = np.stack([hi, lo], axis=-1)
    return _gamma_each(keys, alphas.copy(), log_space).reshape(shape)


def gamma(key, a, shape=None, dtype=None):
    """Gamma(a, 1) samples (Marsaglia-Tsang, element by element as JAX, so JAX's numbers)."""
    return wrap(_gamma("gamma", key, a, shape, dtype, log_space=False))


def loggamma(key, a, shape=None, dtype=None):
    """log of Gamma(a, 1) samples, computed in log space (accurate for small a), as JAX."""
    return wrap(_gamma("loggamma", key, a, shape, dtype, log_space=True))


def beta(key, a, b, shape=None, dtype=None):
    """Beta(a, b) samples: Ga / (Ga + Gb) from two log-gamma draws, as JAX."""
    random = _random()
    random._check_key("beta", key)
    dt = random._float_dtype("beta", dtype)
    a, b = np.asarray(nd(a), dt), np.asarray(nd(b), dt)
    if shape is None:
        shape = np.broadcast_shapes(a.shape, b.shape)
    else:
        shape = random._check_shape("beta", shape)
        random._check_broadcast("beta", shape, a, b)
    key_a, key_b = np.asarray(random.split(key))
    log_a = _gamma("beta", key_a, np.broadcast_to(a, shape), shape, dt, True)
    log_b = _gamma("beta", key_b, np.broadcast_to(b, shape), shape, dt, True)
    log_max = np.maximum(log_a, log_b)
    ga, gb = np.exp(log_a - log_max), np.exp(log_b - log_max)
    return wrap((ga / (ga + gb)).astype(dt))


def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet(alpha) samples along alpha's last axis: a softmax of log-gamma draws, as JAX."""
    random = _random()
    dt = random._float_dtype("dirichlet", dtype)
    alpha = np.asarray(nd(alpha), dt)
    if alpha.ndim < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {alpha.ndim}")
    if shape is None:
        shape = alpha.shape[:-1]
    else:
        shape = random._check_shape("dirichlet", shape)
        random._check_broadcast("dirichlet", shape, np.empty(alpha.shape[:-1]))
    full = shape + alpha.shape[-1:]
    logs = _gamma("dirichlet", key, np.broadcast_to(alpha, full), full, dt, True)
    shifted = np.exp(logs - logs.max(axis=-1, keepdims=True))
    return wrap((shifted / shifted.sum(axis=-1, keepdims=True)).astype(dt))


def chisquare(key, df, shape=None, dtype=None):
    """Chi-square(df) samples: 2 exp(loggamma(df / 2)), as JAX."""
    dt = _random()._float_dtype("chisquare", dtype)
    half = (np.asarray(nd(df), dt) / dt.type(2)).astype(dt)
    return wrap((np.exp(_gamma("chisquare", key, half, shape, dt, True)) * dt.type(2)).astype(dt))


def t(key, df, shape=None, dtype=None):
    """Student's t(df) samples: normal * sqrt((df / 2) / gamma(df / 2)), as JAX."""
    random = _random()
    random._check_key("t", key)
    dt = random._float_dtype("t", dtype)
    df = np.asarray(nd(df), dt)
    if shape is None:
        shape = df.shape
    else:
        shape = random._check_shape("t", shape)
        random._check_broadcast("t", shape, df)
    key_n, key_g = np.asarray(random.split(key))
    n = np.asarray(random.normal(key_n, shape, dt))
    half = (df / dt.type(2)).astype(dt)
    g = _gamma("t", key_g, half, shape, dt, False)
    return wrap((n * np.sqrt(half / g)).astype(dt))


def f(key, dfnum, dfden, shape=None, dtype=None):
    """F(dfnum, dfden) samples: a ratio of two scaled chi-square draws, as JAX."""
    random = _random()
    random._check_key("f", key)
    dt = random._float_dtype("f", dtype)
    dfnum, dfden = np.asarray(nd(dfnum), dt), np.asarray(nd(dfden), dt)
    if shape is None:
        shape = np.broadcast_shapes(dfnum.shape, dfden.shape)
    key_dfd, key_dfn = np.asarray(random.split(key))
    chi_num = np.asarray(chisquare(key_dfn, np.broadcast_to(dfnum, shape), shape, dt))
    chi_den = np.asarray(chisquare(key_dfd, np.broadcast_to(dfden, shape), shape, dt))
    return wrap(((chi_num / dfnum) / (chi_den / dfden)).astype(dt))


def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal samples with exponent p (density ~ exp(-|x|^p)): a signed gamma(1/p)^(1/p)."""
    random = _random()
    random._check_key("generalized_normal", key)
    dt = random._float_dtype("generalized_normal", dtype)
    shape = random._check_shape("generalized_normal", shape)
    p = dt.type(p)
    k0, k1 = np.asarray(random.split(key))
    g = _gamma("generalized_normal", k0, np.asarray(dt.type(1) / p, dt), shape, dt, False)
    r = np.asarray(random.rademacher(k1, shape, dt))
    return wrap((r * g ** (dt.type(1) / p)).astype(dt))


def ball(key, d, p=2, shape=(), dtype=None):
    """Points uniform in the d-dimensional unit p-norm ball (Barthe et al.), shape shape + (d,)."""
    random = _random()
    random._check_key("ball", key)
    dt = random._float_dtype("ball", dtype)
    shape = random._check_shape("ball", shape)
    if not isinstance(d, (int, np.integer)) or d < 0:
        raise ValueError(f"ball: d must be a non-negative int, got {d!r}")
    k1, k2 = np.asarray(random.split(key))
    g = np.asarray(generalized_normal(k1, p, shape + (int(d),), dt))
    e = np.asarray(random.exponential(k2, shape, dt))
    p = dt.type(p)
    return wrap((g / (((np.abs(g) ** p).sum(-1) + e) ** (dt.type(1) / p))[..., None]).astype(dt))
