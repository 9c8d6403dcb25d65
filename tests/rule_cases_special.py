"""Rule cases for astjax.scipy.special (tests/test_rules.py runs them; see tests/rule_cases.py).

Each case is `sum(w * <special function>(...))` with float64 inputs inside the
function's smooth domain; a few sit where a rule has a special branch (i1 at 0,
spence at 1, xlogy with x == 0, log_ndtr far in both tails).
"""
from collections import namedtuple

import numpy as np

import astjax.numpy as jnp
from astjax.scipy import special

Case = namedtuple("Case", "primitive label fn args argnums")
CASES = []
_rng = np.random.default_rng(20261123)


def _array(values):
    return jnp.asarray(np.asarray(values, dtype=np.float64))


def uniform(low, high, *shape):
    return _array(_rng.uniform(low, high, shape))


def normal(*shape):
    return _array(_rng.standard_normal(shape))


def case(primitive, label, fn, *args, argnums=None):
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(range(len(args))) if argnums is None else argnums))


# ------------------------------------------------------------------ unary
def expit_fn(x, w):
    return jnp.sum(w * special.expit(x))


def log_expit_fn(x, w):
    return jnp.sum(w * special.log_expit(x))


def logit_fn(x, w):
    return jnp.sum(w * special.logit(x))


def erf_fn(x, w):
    return jnp.sum(w * special.erf(x))


def erfc_fn(x, w):
    return jnp.sum(w * special.erfc(x))


def erfinv_fn(x, w):
    return jnp.sum(w * special.erfinv(x))


def ndtr_fn(x, w):
    return jnp.sum(w * special.ndtr(x))


def ndtri_fn(x, w):
    return jnp.sum(w * special.ndtri(x))


def log_ndtr_fn(x, w):
    return jnp.sum(w * special.log_ndtr(x))


def gammaln_fn(x, w):
    return jnp.sum(w * special.gammaln(x))


def gamma_fn(x, w):
    return jnp.sum(w * special.gamma(x))


def digamma_fn(x, w):
    return jnp.sum(w * special.digamma(x))


def polygamma_fn(x, w):
    return jnp.sum(w * special.polygamma(2, x))


def multigammaln_fn(a, w):
    return jnp.sum(w * special.multigammaln(a, 3))


def factorial_fn(n, w):
    return jnp.sum(w * special.factorial(n))


def expi_fn(x, w):
    return jnp.sum(w * special.expi(x))


def exp1_fn(x, w):
    return jnp.sum(w * special.exp1(x))


def expn_fn(x, n, w):
    return jnp.sum(w * special.expn(n, x))


def spence_fn(x, w):
    return jnp.sum(w * special.spence(x))


def zeta_fn(q, w):
    return jnp.sum(w * special.zeta(_ZETA_S, q))


def i0_fn(x, w):
    return jnp.sum(w * special.i0(x))


def i0e_fn(x, w):
    return jnp.sum(w * special.i0e(x))


def i1_fn(x, w):
    return jnp.sum(w * special.i1(x))


def i1e_fn(x, w):
    return jnp.sum(w * special.i1e(x))


def entr_fn(x, w):
    return jnp.sum(w * special.entr(x))


# Arguments without a derivative rule are module constants (the jvp test gives every float argument a tangent).
_A = _array([0.6, 1.3, 2.2, 2.9])
_B = _array([2.7, 0.8, 1.5, 0.6])
_ZETA_S = _array([2.5, 3.0, 4.0, 6.5])


def gammainc_fn(x, w):
    return jnp.sum(w * special.gammainc(_A, x))


def gammaincc_fn(x, w):
    return jnp.sum(w * special.gammaincc(_A, x))


def betainc_fn(x, w):
    return jnp.sum(w * special.betainc(_A, _B, x))


_POSITIVE = (0.5, 3.0)
for _name, _fn, _x in [
        ("expit", expit_fn, normal(3, 2)), ("logit", logit_fn, uniform(0.1, 0.9, 5)),
        ("log_expit", log_expit_fn, _array([-40.0, -3.0, 0.0, 0.4, 25.0])),
        ("erf", erf_fn, normal(5)), ("erfc", erfc_fn, normal(5)), ("erfinv", erfinv_fn, uniform(-0.9, 0.9, 5)),
        ("ndtr", ndtr_fn, normal(5)), ("ndtri", ndtri_fn, uniform(0.05, 0.95, 5)),
        ("log_ndtr", log_ndtr_fn, 3.0 * normal(5)), ("gammaln", gammaln_fn, uniform(*_POSITIVE, 5)),
        ("gamma", gamma_fn, uniform(*_POSITIVE, 5)), ("digamma", digamma_fn, uniform(*_POSITIVE, 5)),
        ("polygamma", polygamma_fn, uniform(*_POSITIVE, 5)), ("factorial", factorial_fn, uniform(*_POSITIVE, 5)),
        ("multigammaln", multigammaln_fn, uniform(1.5, 4.0, 2, 3)),
        ("expi", expi_fn, _array([-2.0, -0.7, 0.4, 1.3])), ("exp1", exp1_fn, uniform(*_POSITIVE, 5)),
        ("spence", spence_fn, _array([0.3, 1.0, 1.0004, 1.7, 2.5])),
        ("bessel_i0", i0_fn, _array([-1.5, -0.3, 0.0, 0.8, 2.4])),
        ("bessel_i0e", i0e_fn, _array([-1.5, -0.3, 0.8, 2.4])),
        ("bessel_i1", i1_fn, _array([-1.5, -0.3, 0.0, 0.0005, 0.8, 2.4])),
        ("bessel_i1e", i1e_fn, _array([-1.5, -0.3, 0.0005, 0.8, 2.4])),
        ("entr", entr_fn, uniform(0.2, 2.0, 5))]:
    case(_name, "basic", _fn, _x)
# i1e = exp(-|x|) i1(x) is smooth to first order only at 0: no second-order case there.
case("bessel_i1e", "at_zero", i1e_fn, _array([0.0, 0.7]))
case("log_ndtr", "tails", log_ndtr_fn, _array([-35.0, -12.0, -3.0, 6.0, 9.0]))
for _n in (0, 1, 3):
    case("expn", f"n{_n}", expn_fn, uniform(*_POSITIVE, 4), _n, argnums=(0,))
case("zeta", "q", zeta_fn, uniform(*_POSITIVE, 4))
case("gammainc", "x", gammainc_fn, uniform(*_POSITIVE, 4))
case("gammaincc", "x", gammaincc_fn, uniform(*_POSITIVE, 4))
case("betainc", "x", betainc_fn, uniform(0.1, 0.9, 4))


# ------------------------------------------------------------------ binary (broadcasting)
def betaln_fn(a, b, w):
    return jnp.sum(w * special.betaln(a, b))


def beta_fn(a, b, w):
    return jnp.sum(w * special.beta(a, b))


def poch_fn(z, m, w):
    return jnp.sum(w * special.poch(z, m))


def xlogy_fn(x, y, w):
    return jnp.sum(w * special.xlogy(x, y))


def xlog1py_fn(x, y, w):
    return jnp.sum(w * special.xlog1py(x, y))


def rel_entr_fn(x, y, w):
    return jnp.sum(w * special.rel_entr(x, y))


def kl_div_fn(x, y, w):
    return jnp.sum(w * special.kl_div(x, y))


_BROADCAST_SHAPES = [("col_row", (3, 1), (1, 4)), ("same", (3, 4), (3, 4)), ("scalar_array", (), (3, 4)),
                     ("array_scalar", (3, 4), ()), ("vec_rank3", (4,), (2, 3, 4)), ("rank3_vec", (2, 3, 4), (4,))]
for _name, _fn, _low1, _low2 in [("betaln", betaln_fn, 0.5, 0.5), ("beta", beta_fn, 0.5, 0.5),
                                 ("poch", poch_fn, 0.5, 0.2), ("xlogy", xlogy_fn, -1.0, 0.3),
                                 ("xlog1py", xlog1py_fn, -1.0, -0.5), ("rel_entr", rel_entr_fn, 0.2, 0.2),
                                 ("kl_div", kl_div_fn, 0.2, 0.2)]:
    for _label, _shape1, _shape2 in _BROADCAST_SHAPES:
        case(_name, _label, _fn, uniform(_low1, 2.0, *_shape1), uniform(_low2, 2.0, *_shape2))
case("xlogy", "zero_x", xlogy_fn, _array([0.0, 0.5, 0.0]), _array([0.7, 1.2, 2.0]))
case("xlog1py", "zero_x", xlog1py_fn, _array([0.0, 0.5, 0.0]), _array([0.7, 1.2, -0.5]))


# ------------------------------------------------------------------ over an axis
def logsumexp_all(a, w):
    return jnp.sum(w * special.logsumexp(a))


def logsumexp_axis(a, w):
    return jnp.sum(w * special.logsumexp(a, axis=1))


def logsumexp_keepdims(a, w):
    return jnp.sum(w * special.logsumexp(a, axis=0, keepdims=True))


def logsumexp_weights(a, b, w):
    return jnp.sum(w * special.logsumexp(a, axis=-1, b=b))


def logsumexp_large(a, w):
    return jnp.sum(w * special.logsumexp(a + 800.0, axis=1))


def weight_or_one_fn(b, w):
    return jnp.sum(w * special._weight_or_one(b))


def softmax_axis(x, w):
    return jnp.sum(w * special.softmax(x, axis=-1))


def softmax_all(x, w):
    return jnp.sum(w * special.softmax(x))


def log_softmax_axis(x, w):
    return jnp.sum(w * special.log_softmax(x, axis=0))


def log_softmax_all(x, w):
    return jnp.sum(w * special.log_softmax(x))


case("logsumexp", "axis", logsumexp_axis, normal(3, 4))
case("logsumexp", "all", logsumexp_all, normal(3, 4))
case("logsumexp", "keepdims", logsumexp_keepdims, normal(3, 4))
case("logsumexp", "weights", logsumexp_weights, normal(3, 4), uniform(0.2, 2.0, 3, 4))
case("logsumexp", "large", logsumexp_large, normal(2, 3))
case("weight_or_one", "array", weight_or_one_fn, normal(3))
case("softmax", "axis", softmax_axis, normal(3, 4))
case("softmax", "all", softmax_all, normal(3, 4))
case("log_softmax", "axis", log_softmax_axis, normal(3, 4))
case("log_softmax", "all", log_softmax_all, normal(3, 4))


# ------------------------------------------------------------------ differentiable in the second operand only
# The first operand has no rule (gammainc's a, zeta's x, polygamma's and expn's n): integer arrays here, so
# the forward-mode test gives them no tangent; every broadcast shape is still covered.
def gammainc_pair(a, x, w):
    return jnp.sum(w * special.gammainc(a, x))


def gammaincc_pair(a, x, w):
    return jnp.sum(w * special.gammaincc(a, x))


def zeta_pair(s, q, w):
    return jnp.sum(w * special.zeta(s, q))


def polygamma_pair(n, x, w):
    return jnp.sum(w * special.polygamma(n, x))


def expn_pair(n, x, w):
    return jnp.sum(w * special.expn(n, x))


def _integers(low, high, *shape):
    return jnp.asarray(_rng.integers(low, high, shape).astype(np.int64))


for _name, _fn, _low, _high in [("gammainc", gammainc_pair, 1, 4), ("gammaincc", gammaincc_pair, 1, 4),
                                ("zeta", zeta_pair, 2, 5), ("polygamma", polygamma_pair, 0, 3),
                                ("expn", expn_pair, 0, 3)]:
    for _label, _shape1, _shape2 in _BROADCAST_SHAPES:
        case(_name, _label, _fn, _integers(_low, _high, *_shape1), uniform(*_POSITIVE, *_shape2), argnums=(1,))


# ------------------------------------------------------------------ more of jax.scipy.special
def erfcx_fn(x, w):
    return jnp.sum(w * special.erfcx(x))


def dawsn_fn(x, w):
    return jnp.sum(w * special.dawsn(x))


def loggamma_fn(x, w):
    return jnp.sum(w * special.loggamma(x))


def boxcox_fn(x, lmbda, w):
    return jnp.sum(w * special.boxcox(x, lmbda))


def boxcox1p_fn(x, lmbda, w):
    return jnp.sum(w * special.boxcox1p(x, lmbda))


def comb_fn(N, k, w):
    return jnp.sum(w * special.comb(N, k))


def hyp1f1_fn(x, w):
    return jnp.sum(w * special.hyp1f1(1.5, 2.5, x))


def hyp2f1_fn(x, w):
    return jnp.sum(w * special.hyp2f1(1.5, 0.5, 2.5, x))


def owens_t_fn(h, a, w):
    return jnp.sum(w * special.owens_t(h, a))


for _name, _fn, _x in [("erfcx", erfcx_fn, normal(5)), ("dawsn", dawsn_fn, 2.0 * normal(5)),
                       ("loggamma", loggamma_fn, uniform(*_POSITIVE, 5)), ("hyp1f1", hyp1f1_fn, normal(4)),
                       ("hyp2f1", hyp2f1_fn, uniform(-0.8, 0.8, 4))]:
    case(_name, "basic", _fn, _x)
for _name, _fn, _first, _second in [("boxcox", boxcox_fn, (0.5, 3.0), (-1.0, 1.5)),
                                    ("boxcox1p", boxcox1p_fn, (0.1, 3.0), (-1.0, 1.5)),
                                    ("owens_t", owens_t_fn, (-2.0, 2.0), (-1.5, 1.5))]:
    for _label, _shape1, _shape2 in _BROADCAST_SHAPES:
        case(_name, _label, _fn, uniform(*_first, *_shape1), uniform(*_second, *_shape2))
for _label, _shape1, _shape2 in _BROADCAST_SHAPES:      # inside comb's domain 0 <= k <= N
    case("comb", _label, comb_fn, uniform(4.0, 8.0, *_shape1), uniform(0.5, 3.5, *_shape2))
case("boxcox", "lambda_zero", boxcox_fn, uniform(0.5, 3.0, 3), _array([0.0, 0.0, 0.0]), argnums=(0,))
