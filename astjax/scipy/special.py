"""astjax.scipy.special: JAX's `jax.scipy.special`, computed by SciPy with JAX's dtype rules.

Every function here is the implementation of a primitive of astjax/rules/special.py
(its derivative rules live there) and is reached also as the SciPy function of the
same name: `scipy.special.gammaln(x)` in user code means `gammaln` below, as
`np.sin` means `jnp.sin`. Python scalars and integers give float32; a float64
array gives float64. The module is in classify._LIBRARIES: its functions are
used through their rules only (`grad(special.gammaln)` differentiates the primitive).

Not differentiable (astjax refuses them where a derivative reaches them): `wofz` and
`sph_harm_y` (complex results), `lpmn`, `lpmn_values`, `betainc`'s derivatives in `a`
and `b` (as in JAX, where they are not implemented either). `sici`, `fresnel` and
`bessel_jn` have rules (astjax/rules/special_fill.py).
"""
import numpy as np

from .._lazy import lazy_module
from ..numpy._promote import inexact_all as _inexact_values, inexact_arg as _inexact, nd as _nd, out as _out, plain as _plain
from ..numpy._promote import promote_inexact as _promote_inexact

_sc = lazy_module("scipy.special")     # imported when a function first runs: `import astjax` stays fast

__all__ = ["bernoulli", "beta", "betainc", "betaln", "digamma", "entr", "erf", "erfc", "erfinv", "exp1", "expi",
           "expit", "expn", "factorial", "gamma", "gammainc", "gammaincc", "gammaln", "gammasgn", "i0", "i0e",
           "i1", "i1e", "kl_div", "log_expit", "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr",
           "ndtri", "poch", "polygamma", "rel_entr", "softmax", "spence", "xlog1py", "xlogy", "zeta",
           "erfcx", "dawsn", "loggamma", "boxcox", "boxcox1p", "comb", "hyp1f1", "hyp2f1", "owens_t",
           "sici", "fresnel", "bessel_jn", "wofz", "sph_harm_y"]


def _dtype(*values):
    """The float dtype of the promoted operands (a Python scalar beside an array takes the array's)."""
    kinds = [v.dtype for v in values if hasattr(v, "dtype")]
    return np.result_type(*kinds) if kinds else np.dtype(np.float32)


def _f(x):
    """`x` as a plain float ndarray (SciPy's Python-level functions cannot take astjax's immutable Array)."""
    return _nd(_inexact(x))


def _promote_f(x1, x2):
    x1, x2 = _promote_inexact(x1, x2)
    return _plain(x1), _plain(x2)


def _unary(fn, x):
    x = _f(x)
    return _out(np.asarray(fn(x), dtype=x.dtype))


def _binary(fn, x1, x2):
    x1, x2 = _promote_f(x1, x2)
    return _out(np.asarray(fn(x1, x2), dtype=_dtype(x1, x2)))


# ----------------------------------------------------------- logistic and error functions
def expit(x):
    """The logistic sigmoid 1 / (1 + exp(-x))."""
    return _unary(_sc.expit, x)


def log_expit(x):
    """log(expit(x)) = -log(1 + exp(-x)), accurate for large |x|."""
    return _unary(_sc.log_expit, x)


def logit(x):
    """log(x / (1 - x)), the inverse of expit."""
    return _unary(_sc.logit, x)


def erf(x):
    """The error function."""
    return _unary(_sc.erf, x)


def erfc(x):
    """1 - erf(x), accurate for large x."""
    return _unary(_sc.erfc, x)


def erfinv(x):
    """The inverse of erf on (-1, 1)."""
    return _unary(_sc.erfinv, x)


def ndtr(x):
    """The standard normal CDF."""
    return _unary(_sc.ndtr, x)


def ndtri(p):
    """The inverse of the standard normal CDF."""
    return _unary(_sc.ndtri, p)


def log_ndtr(x):
    """log(ndtr(x)), accurate in both tails."""
    return _unary(_sc.log_ndtr, x)


# ----------------------------------------------------------- gamma family
def gammaln(x):
    """log |Gamma(x)|."""
    return _unary(_sc.gammaln, x)


def gamma(x):
    """The Gamma function."""
    return _unary(_sc.gamma, x)


def gammasgn(x):
    """The sign of Gamma(x) (piecewise constant: no derivative)."""
    return _unary(_sc.gammasgn, x)


def digamma(x):
    """The logarithmic derivative of Gamma."""
    return _unary(_sc.digamma, x)


def polygamma(n, x):
    """The n-th derivative of digamma (n a non-negative integer; it carries no derivative)."""
    x = _f(x)
    return _out(np.asarray(_sc.polygamma(np.asarray(n), x), dtype=x.dtype))


def betaln(a, b):
    """log |B(a, b)|."""
    return _binary(_sc.betaln, a, b)


def beta(a, b):
    """The Beta function B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b)."""
    return _binary(_sc.beta, a, b)


def betainc(a, b, x):
    """The regularized incomplete Beta function I_x(a, b); differentiable in x only (as in JAX)."""
    a, x = _promote_f(a, x)
    b, x = _promote_f(b, x)
    return _out(np.asarray(_sc.betainc(a, b, x), dtype=_dtype(a, b, x)))


def gammainc(a, x):
    """The regularized lower incomplete Gamma function P(a, x); differentiable in x only (as in JAX)."""
    return _binary(_sc.gammainc, a, x)


def gammaincc(a, x):
    """The regularized upper incomplete Gamma function Q(a, x) = 1 - P(a, x); differentiable in x only."""
    return _binary(_sc.gammaincc, a, x)


def factorial(n, exact=False):
    """Gamma(n + 1) for n >= 0 and 0 for n < 0, as SciPy's factorial(n, exact=False)."""
    if exact:
        raise NotImplementedError("factorial(n, exact=True) is not supported (as in JAX): use exact=False")
    n = _f(n)
    return _out(np.asarray(np.where(n < 0, 0.0, _sc.gamma(n + 1)), dtype=n.dtype))


def poch(z, m):
    """The Pochhammer symbol Gamma(z + m) / Gamma(z)."""
    return _binary(_sc.poch, z, m)


def multigammaln(a, d):
    """The log of the multivariate Gamma function of dimension d (an integer; derivative in a)."""
    return _unary(lambda v: _sc.multigammaln(v, int(d)), a)


def bernoulli(n):
    """The Bernoulli numbers B_0 ... B_n (no derivative: n is an integer)."""
    return _out(np.asarray(_sc.bernoulli(int(n)), dtype=np.float32))


# ----------------------------------------------------------- exponential integrals, zeta
def expi(x):
    """The exponential integral Ei(x)."""
    return _unary(_sc.expi, x)


def exp1(x):
    """The exponential integral E1(x) = integral from x to inf of exp(-t) / t."""
    return _unary(_sc.exp1, x)


def expn(n, x):
    """The generalized exponential integral E_n(x) (n a non-negative integer; derivative in x only)."""
    x = _f(x)
    return _out(np.asarray(_sc.expn(np.asarray(n), x), dtype=x.dtype))


def spence(x):
    """Spence's function (the dilogarithm Li2(1 - x)), for x >= 0."""
    return _unary(_sc.spence, x)


def zeta(x, q=None):
    """The Hurwitz zeta function sum over k of (k + q) ** -x (Riemann's for q=None); derivative in q only."""
    if q is None:
        return _unary(_sc.zeta, x)
    return _binary(_sc.zeta, x, q)


# ----------------------------------------------------------- Bessel functions
def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    return _unary(_sc.i0, x)


def i0e(x):
    """exp(-|x|) * i0(x)."""
    return _unary(_sc.i0e, x)


def i1(x):
    """The modified Bessel function of the first kind, order 1."""
    return _unary(_sc.i1, x)


def i1e(x):
    """exp(-|x|) * i1(x)."""
    return _unary(_sc.i1e, x)


# ----------------------------------------------------------- information theory
def xlogy(x, y):
    """x * log(y), 0 where x == 0."""
    return _binary(_sc.xlogy, x, y)


def xlog1py(x, y):
    """x * log1p(y), 0 where x == 0."""
    return _binary(_sc.xlog1py, x, y)


def entr(x):
    """-x log x for x > 0, 0 at 0, -inf below."""
    return _unary(_sc.entr, x)


def rel_entr(x, y):
    """x log(x / y) for x, y > 0; 0 at x == 0, y >= 0; inf otherwise."""
    return _binary(_sc.rel_entr, x, y)


def kl_div(x, y):
    """x log(x / y) - x + y for x, y > 0; y at x == 0, y >= 0; inf otherwise."""
    return _binary(_sc.kl_div, x, y)


# ----------------------------------------------------------- reductions over an axis
def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(b * exp(a))) over `axis`, computed without overflow (SciPy's signature).

    With `return_sign` it returns (log|sum|, sign of the sum); without it a
    negative sum gives nan, as in JAX.
    """
    a = _f(a)
    dtype = a.dtype
    if b is not None:
        a, b = _promote_f(a, b)
        dtype = _dtype(a, b)
    value, sign = _sc.logsumexp(a, axis=axis, b=b, keepdims=keepdims, return_sign=True)
    value = np.asarray(value, dtype=dtype)
    sign = np.asarray(sign, dtype=dtype)
    if return_sign:
        return _out(value), _out(sign)
    return _out(np.where(sign < 0, np.asarray(np.nan, dtype=dtype), value))


def softmax(x, axis=None):
    """exp(x) / sum(exp(x)) over `axis` (all axes for None, as SciPy)."""
    x = _f(x)
    return _out(np.asarray(_sc.softmax(x, axis=axis), dtype=x.dtype))


def log_softmax(x, axis=None):
    """x - logsumexp(x) over `axis` (all axes for None, as SciPy)."""
    x = _f(x)
    return _out(np.asarray(_sc.log_softmax(x, axis=axis), dtype=x.dtype))


def _weight_or_one(b):
    """`b`, or 1.0 for None: logsumexp's rules read its optional weights through this."""
    return 1.0 if b is None else b


# ----------------------------------------------------------- more of jax.scipy.special
def _nary(fn, *args):
    """`fn` of the operands promoted to one float dtype (Python numbers are weak: they take the arrays')."""
    values = _inexact_values(args)
    return _out(np.asarray(fn(*values), dtype=values[0].dtype))


def erfcx(x):
    """The scaled complementary error function exp(x^2) erfc(x)."""
    return _unary(_sc.erfcx, x)


def dawsn(x):
    """Dawson's integral exp(-x^2) times the integral of exp(t^2) from 0 to x."""
    return _unary(_sc.dawsn, x)


def loggamma(x):
    """The principal branch of log Gamma(x) for real x (nan for x < 0, as SciPy and JAX)."""
    return _unary(_sc.loggamma, x)


def boxcox(x, lmbda):
    """The Box-Cox transform (x^lmbda - 1) / lmbda, log(x) at lmbda = 0."""
    return _nary(_sc.boxcox, x, lmbda)


def boxcox1p(x, lmbda):
    """The Box-Cox transform of 1 + x."""
    return _nary(_sc.boxcox1p, x, lmbda)


def comb(N, k):
    """The number of combinations N choose k as a float (Gamma functions for non-integers)."""
    return _nary(_sc.comb, N, k)


def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function 1F1(a; b; x); differentiable in x only."""
    return _nary(_sc.hyp1f1, a, b, x)


def hyp2f1(a, b, c, x):
    """The Gauss hypergeometric function 2F1(a, b; c; x); differentiable in x only."""
    return _nary(_sc.hyp2f1, a, b, c, x)


def owens_t(h, a):
    """Owen's T function T(h, a)."""
    return _nary(_sc.owens_t, h, a)


# ----------------------------------------------------------- integrals, Bessel, complex (JAX's last five)
def sici(x):
    """The sine and cosine integrals (Si(x), Ci(x)): Si = int_0^x sin(t)/t dt, Ci = gamma + log x +
    int_0^x (cos(t) - 1)/t dt; for x < 0 Ci is Ci(|x|), the real part, as SciPy and JAX)."""
    x = _f(x)
    si, ci = _sc.sici(x)
    return _out(np.asarray(si, dtype=x.dtype)), _out(np.asarray(ci, dtype=x.dtype))


def fresnel(x):
    """The Fresnel integrals (S(x), C(x)) = (int_0^x sin(pi t^2 / 2) dt, int_0^x cos(pi t^2 / 2) dt)."""
    x = _f(x)
    s, c = _sc.fresnel(x)
    return _out(np.asarray(s, dtype=x.dtype)), _out(np.asarray(c, dtype=x.dtype))


def bessel_jn(z, *, v, n_iter=50):
    """Bessel functions of the first kind J_0(z) ... J_v(z), stacked on a new first axis (shape
    (v + 1, *z.shape)), as JAX. Computed by SciPy (`n_iter`, the length of JAX's recurrence, is
    accepted and unused)."""
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise ValueError(f"bessel_jn: v must be a non-negative int, got {v!r}")
    z = _f(z)
    orders = np.arange(int(v) + 1).reshape((-1,) + (1,) * z.ndim)
    return _out(np.asarray(_sc.jv(orders, z), dtype=z.dtype))


def _complex_of(x):
    return np.dtype(np.complex128) if x.dtype in (np.float64, np.complex128) else np.dtype(np.complex64)


def wofz(z):
    """The Faddeeva function w(z) = exp(-z^2) erfc(-i z) (complex; no derivative in astjax)."""
    z = _nd(z)
    z = z if z.dtype.kind in "fc" else z.astype(np.float32)
    return _out(np.asarray(_sc.wofz(z.astype(_complex_of(z))), dtype=_complex_of(z)))


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonic Y_n^m(theta, phi), theta the polar and phi the azimuthal angle (SciPy's
    convention, as JAX's sph_harm_y). Complex: no derivative in astjax. `n_max` (JAX's static bound on
    n) is accepted and only checked."""
    if diff_n not in (None, 0):
        raise NotImplementedError(f"sph_harm_y: diff_n={diff_n!r} is not supported (JAX supports only 0 too)")
    n, m = _nd(n), _nd(m)
    if n.dtype.kind not in "iu" or m.dtype.kind not in "iu":
        raise TypeError(f"sph_harm_y: n and m must be integer arrays, got {n.dtype} and {m.dtype}")
    if n_max is not None and np.size(n) and int(np.max(n)) > int(n_max):
        raise ValueError(f"sph_harm_y: n = {int(np.max(n))} exceeds n_max = {n_max}")
    theta, phi = _promote_f(theta, phi)
    dt = _complex_of(np.empty(0, _dtype(theta, phi)))
    return _out(np.asarray(_sc.sph_harm_y(n, m, theta, phi), dtype=dt))
