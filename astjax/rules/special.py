"""Special functions (astjax.scipy.special): one primitive each, its rules written with other primitives.

Templates name the special functions as `jsp_special.<name>` (the generated
code's namespace holds astjax.scipy.special under that name). Each primitive is
also reached as the SciPy function of the same name (`scipy.special.gammaln`).
Rules follow JAX's: `gammainc`, `gammaincc`, `betainc` are differentiable in x
only, `zeta` in q only, `polygamma` and `expn` in x only. The other arguments are
operands without a rule (not static parameters), so a derivative that reaches
one is an error at the user's line ("has no derivative with respect to its
argument"), never a zero.
"""
import math

from .. import nn
from ..scipy import special as sp
from .nondifferentiable import PIECEWISE, nondifferentiable
from .registry import PRIMITIVES, defjvp, deflowering, defvjp, primitive

SQRT_PI_OVER_2 = "0.886226925452758"         # sqrt(pi) / 2
TWO_OVER_SQRT_PI = "1.1283791670955126"       # 2 / sqrt(pi)
INV_SQRT_2PI = "0.3989422804014327"           # 1 / sqrt(2 pi)
SQRT_2PI = "2.5066282746310002"


def _elementwise(name, impl, operands, vjp, jvp, aliases=(), signature=None):
    prim = primitive(name, impl, operands=operands, aliases=aliases, unbroadcast=len(operands) > 1,
                     signature=signature)
    defvjp(prim, *vjp)
    defjvp(prim, *jvp)
    prim.elementwise = True
    return prim


def unary(name, vjp, jvp, fn_name=None, math_fn=None):
    """A one-operand elementwise special function `x -> y`, also reached as scipy.special.<fn_name> (and as
    the `math` module's function of the same meaning: math.erf on a scalar is erf, not an unknown call)."""
    fn_name = fn_name or name
    aliases = (f"scipy.special.{fn_name}",) + ((math_fn,) if math_fn is not None else ())
    return _elementwise(name, getattr(sp, fn_name), ("x",), [vjp], [jvp], aliases=aliases)


def binary(name, vjp, jvp, operands=("x1", "x2")):
    return _elementwise(name, getattr(sp, name), operands, vjp, jvp, aliases=(f"scipy.special.{name}",))


# ------------------------------------------------------------ logistic, error functions
unary("expit", "bx += by * y * (1.0 - y)", "dy = dx * y * (1.0 - y)")
unary("log_expit", "bx += by * jsp_special.expit(-x)", "dy = dx * jsp_special.expit(-x)")
unary("logit", "bx += by / (x * (1.0 - x))", "dy = dx / (x * (1.0 - x))")
unary("erf", f"bx += by * {TWO_OVER_SQRT_PI} * jnp.exp(-x * x)", f"dy = dx * {TWO_OVER_SQRT_PI} * jnp.exp(-x * x)",
      math_fn=math.erf)
unary("erfc", f"bx += -by * {TWO_OVER_SQRT_PI} * jnp.exp(-x * x)", f"dy = -dx * {TWO_OVER_SQRT_PI} * jnp.exp(-x * x)",
      math_fn=math.erfc)
unary("erfinv", f"bx += by * {SQRT_PI_OVER_2} * jnp.exp(y * y)", f"dy = dx * {SQRT_PI_OVER_2} * jnp.exp(y * y)")
unary("ndtr", f"bx += by * {INV_SQRT_2PI} * jnp.exp(-0.5 * x * x)", f"dy = dx * {INV_SQRT_2PI} * jnp.exp(-0.5 * x * x)")
_elementwise("ndtri", sp.ndtri, ("p",), [f"bp += by * {SQRT_2PI} * jnp.exp(0.5 * y * y)"],
             [f"dy = dp * {SQRT_2PI} * jnp.exp(0.5 * y * y)"], aliases=("scipy.special.ndtri",))
# d log ndtr(x) = pdf(x) / ndtr(x) = exp(-x^2/2 - log ndtr(x)) / sqrt(2 pi): no 0 / 0 in the left tail.
unary("log_ndtr", f"bx += by * {INV_SQRT_2PI} * jnp.exp(-0.5 * x * x - y)",
      f"dy = dx * {INV_SQRT_2PI} * jnp.exp(-0.5 * x * x - y)")

# ------------------------------------------------------------ gamma family
unary("gammaln", "bx += by * jsp_special.digamma(x)", "dy = dx * jsp_special.digamma(x)", math_fn=math.lgamma)
unary("gamma", "bx += by * y * jsp_special.digamma(x)", "dy = dx * y * jsp_special.digamma(x)", math_fn=math.gamma)
unary("digamma", "bx += by * jsp_special.polygamma(1, x)", "dy = dx * jsp_special.polygamma(1, x)")
_elementwise("polygamma", sp.polygamma, ("n", "x"), ["bx += by * jsp_special.polygamma(n + 1, x)"],
             ["dy = dx * jsp_special.polygamma(n + 1, x)"], aliases=("scipy.special.polygamma",))
binary("betaln", ["ba += by * (jsp_special.digamma(a) - jsp_special.digamma(a + b))",
                  "bb += by * (jsp_special.digamma(b) - jsp_special.digamma(a + b))"],
       ["dy = da * (jsp_special.digamma(a) - jsp_special.digamma(a + b))"
        " + db * (jsp_special.digamma(b) - jsp_special.digamma(a + b))"], operands=("a", "b"))
binary("beta", ["ba += by * y * (jsp_special.digamma(a) - jsp_special.digamma(a + b))",
                "bb += by * y * (jsp_special.digamma(b) - jsp_special.digamma(a + b))"],
       ["dy = da * y * (jsp_special.digamma(a) - jsp_special.digamma(a + b))"
        " + db * y * (jsp_special.digamma(b) - jsp_special.digamma(a + b))"], operands=("a", "b"))
# d/dx P(a, x) = x^(a-1) exp(-x) / Gamma(a), written in logs so large a and x do not overflow.
_GAMMA_DENSITY = "jnp.exp((a - 1.0) * jnp.log(x) - x - jsp_special.gammaln(a))"
binary("gammainc", [f"bx += by * {_GAMMA_DENSITY}"], [f"dx -> dx * {_GAMMA_DENSITY}"], operands=("a", "x"))
binary("gammaincc", [f"bx += -by * {_GAMMA_DENSITY}"], [f"dx -> -dx * {_GAMMA_DENSITY}"], operands=("a", "x"))
_BETA_DENSITY = "jnp.exp((a - 1.0) * jnp.log(x) + (b - 1.0) * jnp.log1p(-x) - jsp_special.betaln(a, b))"
binary("betainc", [f"bx += by * {_BETA_DENSITY}"], [f"dx -> dx * {_BETA_DENSITY}"], operands=("a", "b", "x"))
# factorial(n) = Gamma(n + 1) for n >= 0, 0 below (a constant there).
_elementwise("factorial", sp.factorial, ("n",),
             ["bn += by * y * jsp_special.digamma(n + 1.0)"], ["dy = dn * y * jsp_special.digamma(n + 1.0)"],
             aliases=("scipy.special.factorial",))
binary("poch", ["bz += by * y * (jsp_special.digamma(z + m) - jsp_special.digamma(z))",
                "bm += by * y * jsp_special.digamma(z + m)"],
       ["dy = dz * y * (jsp_special.digamma(z + m) - jsp_special.digamma(z)) + dm * y * jsp_special.digamma(z + m)"],
       operands=("z", "m"))

# multigammaln(a, d) = d (d - 1) / 4 log(pi) + sum over j < d of gammaln(a - j / 2); d is an integer.
_MULTIDIGAMMA = "jnp.sum(jsp_special.digamma(jnp.expand_dims(a, -1) - jnp.arange(d) / 2.0), axis=-1)"
_elementwise("multigammaln", sp.multigammaln, ("a",), [f"ba += by * {_MULTIDIGAMMA}"],
             [f"da -> da * {_MULTIDIGAMMA}"], aliases=("scipy.special.multigammaln",))

# ------------------------------------------------------------ exponential integrals, zeta
unary("expi", "bx += by * jnp.exp(x) / x", "dy = dx * jnp.exp(x) / x")
unary("exp1", "bx += -by * jnp.exp(-x) / x", "dy = -dx * jnp.exp(-x) / x")
# d/dx E_n(x) = -E_{n-1}(x); E_0(x) = exp(-x) / x.
_EXPN_SLOPE = ("jnp.where(n == 0, -(1.0 + x) * jnp.exp(-x) / (x * x),"
               " -jsp_special.expn(jnp.maximum(n - 1, 0), x))")
_elementwise("expn", sp.expn, ("n", "x"), [f"bx += by * {_EXPN_SLOPE}"], [f"dy = dx * {_EXPN_SLOPE}"],
             aliases=("scipy.special.expn",))
# spence(x) = integral from 1 to x of log(t) / (1 - t): slope log(x) / (1 - x). Within 1e-3 of x = 1 its
# Taylor series in u = x - 1 stands in (error below 1e-15, and it differentiates again: no 0 / 0 at 1).
_NEAR_ONE = "(jnp.abs(x - 1.0) < 1e-3)"
_SPENCE_SLOPE = (f"jnp.where({_NEAR_ONE}, -(1.0 - (x - 1.0) / 2.0 + (x - 1.0) ** 2 / 3.0 - (x - 1.0) ** 3 / 4.0"
                 f" + (x - 1.0) ** 4 / 5.0), jnp.log(jnp.where({_NEAR_ONE}, 2.0, x))"
                 f" / (1.0 - jnp.where({_NEAR_ONE}, 2.0, x)))")
unary("spence", f"bx += by * {_SPENCE_SLOPE}", f"dy = dx * {_SPENCE_SLOPE}")
zeta = _elementwise("zeta", sp.zeta, ("x", "q"), ["bq += -by * x * jsp_special.zeta(x + 1.0, q)"],
                    ["dy = -dq * x * jsp_special.zeta(x + 1.0, q)"], aliases=("scipy.special.zeta",))

# ------------------------------------------------------------ Bessel functions
# i1(x) / x (1/2 at 0): within 1e-3 of 0 its series 1/2 + x^2/16 + x^4/384 stands in, which differentiates
# again (no 0 / 0); i1e(x) / x is exp(-|x|) times that.
_NEAR_ZERO = "(jnp.abs(x) < 1e-3)"
_I1_OVER_X = (f"jnp.where({_NEAR_ZERO}, 0.5 + x * x / 16.0 + x ** 4 / 384.0,"
              f" jsp_special.i1(x) / jnp.where({_NEAR_ZERO}, 1.0, x))")
_I1E_OVER_X = (f"jnp.where({_NEAR_ZERO}, jnp.exp(-jnp.abs(x)) * (0.5 + x * x / 16.0 + x ** 4 / 384.0),"
               f" jsp_special.i1e(x) / jnp.where({_NEAR_ZERO}, 1.0, x))")
unary("bessel_i0", "bx += by * jsp_special.i1(x)", "dy = dx * jsp_special.i1(x)", fn_name="i0")
unary("bessel_i0e", "bx += by * (jsp_special.i1e(x) - jnp.sign(x) * y)",
      "dy = dx * (jsp_special.i1e(x) - jnp.sign(x) * y)", fn_name="i0e")
unary("bessel_i1", f"bx += by * (jsp_special.i0(x) - {_I1_OVER_X})",
      f"dy = dx * (jsp_special.i0(x) - {_I1_OVER_X})", fn_name="i1")
unary("bessel_i1e", f"bx += by * (jsp_special.i0e(x) - {_I1E_OVER_X} - jnp.sign(x) * y)",
      f"dy = dx * (jsp_special.i0e(x) - {_I1E_OVER_X} - jnp.sign(x) * y)", fn_name="i1e")

# ------------------------------------------------------------ information theory
# As in JAX: the slope in x is log(y) (0 * log 0 is 0 in the value, not in its slope); in y it is x / y,
# taken as 0 where x == 0 so xlogy(0, 0) has no nan slope in y.
_X_OVER_Y = "jnp.where(x1 == 0.0, 0.0, x1 / jnp.where(x1 == 0.0, 1.0, x2))"
_X_OVER_1PY = "jnp.where(x1 == 0.0, 0.0, x1 / jnp.where(x1 == 0.0, 1.0, 1.0 + x2))"
_PAIR = lambda x1, x2: None     # noqa: E731 (SciPy's (x, y): `y` names the result in templates)
_elementwise("xlogy", sp.xlogy, ("x1", "x2"), ["bx1 += by * jnp.log(x2)", f"bx2 += by * {_X_OVER_Y}"],
             ["dy = dx1 * jnp.log(x2) + dx2 * " + _X_OVER_Y], aliases=("scipy.special.xlogy",), signature=_PAIR)
_elementwise("xlog1py", sp.xlog1py, ("x1", "x2"), ["bx1 += by * jnp.log1p(x2)", f"bx2 += by * {_X_OVER_1PY}"],
             ["dy = dx1 * jnp.log1p(x2) + dx2 * " + _X_OVER_1PY], aliases=("scipy.special.xlog1py",), signature=_PAIR)
unary("entr", "bx += -by * (jnp.log(x) + 1.0)", "dy = -dx * (jnp.log(x) + 1.0)")
_elementwise("rel_entr", sp.rel_entr, ("x1", "x2"), ["bx1 += by * (jnp.log(x1 / x2) + 1.0)", "bx2 += -by * x1 / x2"],
             ["dy = dx1 * (jnp.log(x1 / x2) + 1.0) + dx2 * -x1 / x2"], aliases=("scipy.special.rel_entr",), signature=_PAIR)
_elementwise("kl_div", sp.kl_div, ("x1", "x2"), ["bx1 += by * jnp.log(x1 / x2)", "bx2 += by * (1.0 - x1 / x2)"],
             ["dy = dx1 * jnp.log(x1 / x2) + dx2 * (1.0 - x1 / x2)"], aliases=("scipy.special.kl_div",), signature=_PAIR)

# Lowered to Numba (astjax/runtime/numba_special.py); the others are refused by jit.
for _name in ("expit", "log_expit", "logit", "erf", "erfc", "ndtr", "log_ndtr", "gammaln", "digamma", "xlogy",
              "xlog1py", "entr"):
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")

# ------------------------------------------------------------ over an axis
# d/da log sum(b exp(a)) = b exp(a - logsumexp); d/db = exp(a - logsumexp). `b` may be None (weights 1).
_SPREAD = "unreduce(by, a, axis, keepdims) * jnp.exp(a - unreduce(y, a, axis, keepdims))"
logsumexp = primitive("logsumexp", sp.logsumexp, operands=("a", "b"), unbroadcast=True,
                      aliases=("scipy.special.logsumexp",))
# jnp.multiply: the teaching view drops a factor `_weight_or_one(None)` (no weights) only from a call.
defvjp(logsumexp, f"ba += jnp.multiply({_SPREAD}, jsp_special._weight_or_one(b))", f"bb += {_SPREAD}")
defjvp(logsumexp, "dy = jnp.sum(da * jsp_special._weight_or_one(b) * jnp.exp(a - unreduce(y, a, axis, keepdims)),"
                  " axis, keepdims=keepdims)"
                  " + jnp.sum(db * jnp.exp(a - unreduce(y, a, axis, keepdims)), axis, keepdims=keepdims)")
logsumexp.accepts_scalar_zero = True
logsumexp.identity = "d logsumexp(a) = sum(exp(a - logsumexp(a)) * da) = sum(softmax(a) * da)"


def _logsumexp_check(bound):
    sign = bound.get("return_sign")
    if getattr(sign, "value", False) is not False:
        return ("logsumexp(..., return_sign=True) has no derivative rule in astjax",
                "take the derivative of logsumexp without return_sign (positive weights), "
                "or compute the sign outside the differentiated function")
    return None


logsumexp.static_check = _logsumexp_check

weight_or_one = primitive("weight_or_one", sp._weight_or_one, operands=("b",))
defvjp(weight_or_one, "bb += by")
defjvp(weight_or_one, "dy = db")
weight_or_one.elementwise = True
deflowering(weight_or_one, numba="astjax.runtime.numba_cpu:weight_or_one")

softmax = primitive("softmax", sp.softmax, operands=("x",), aliases=("scipy.special.softmax",))
defvjp(softmax, "bx += y * (by - jnp.sum(by * y, axis, keepdims=True))")
defjvp(softmax, "dy = y * (dx - jnp.sum(dx * y, axis, keepdims=True))")
softmax.identity = "s = softmax(x): ds = s * (dx - sum(s * dx)), so bx = s * (by - sum(by * s))"
log_softmax = primitive("log_softmax", sp.log_softmax, operands=("x",), aliases=("scipy.special.log_softmax",))
defvjp(log_softmax, "bx += by - jnp.exp(y) * jnp.sum(by, axis, keepdims=True)")
defjvp(log_softmax, "dy = dx - jnp.sum(jnp.exp(y) * dx, axis, keepdims=True)")
log_softmax.identity = "d log_softmax(x) = dx - sum(softmax(x) * dx)"
for _prim in (logsumexp, softmax, log_softmax):
    deflowering(_prim, numba=f"astjax.runtime.numba_cpu:{_prim.name}")

# ------------------------------------------------------------ no derivative
nondifferentiable("gammasgn", sp.gammasgn, PIECEWISE, aliases=("scipy.special.gammasgn",))
nondifferentiable("bernoulli", sp.bernoulli, PIECEWISE, aliases=("scipy.special.bernoulli",))    # of int(n)
nondifferentiable("one_hot", nn.one_hot, PIECEWISE)      # 0 or 1 by the class of x
deflowering(PRIMITIVES["one_hot"], numba="astjax.runtime.numba_cpu:one_hot")
deflowering(PRIMITIVES["signbit"], numba="astjax.runtime.numba_cpu:signbit")      # copysign's rules read it


# ------------------------------------------------------------ more of jax.scipy.special
unary("erfcx", f"bx += by * (2.0 * x * y - {TWO_OVER_SQRT_PI})", f"dy = dx * (2.0 * x * y - {TWO_OVER_SQRT_PI})")
unary("dawsn", "bx += by * (1.0 - 2.0 * x * y)", "dy = dx * (1.0 - 2.0 * x * y)")
unary("loggamma", "bx += by * jsp_special.digamma(x)", "dy = dx * jsp_special.digamma(x)")
# d/dlmbda (x^l - 1) / l = (x^l log x) / l - (x^l - 1) / l^2, which tends to log(x)^2 / 2 at l = 0.
_SAFE_L = "jnp.where(lmbda == 0.0, 1.0, lmbda)"
_BOXCOX_L = ("jnp.where(lmbda == 0.0, 0.5 * {log} ** 2, "
             "{base} ** lmbda * {log} / {safe} - ({base} ** lmbda - 1.0) / {safe} ** 2)")
for _name, _base, _log in (("boxcox", "x", "jnp.log(x)"), ("boxcox1p", "(1.0 + x)", "jnp.log1p(x)")):
    _dl = _BOXCOX_L.format(log=_log, base=_base, safe=_SAFE_L)
    binary(_name, [f"bx += by * {_base} ** (lmbda - 1.0)", f"blmbda += by * {_dl}"],
           [f"dy = dx * {_base} ** (lmbda - 1.0) + dlmbda * {_dl}"], operands=("x", "lmbda"))
# comb(N, k) = exp(gammaln(N + 1) - gammaln(k + 1) - gammaln(N + 1 - k)) where 0 <= k <= N, else 0: JAX's
# form, differentiable in N and k (zero where the result is the constant 0).
_COMB_DOMAIN = "jnp.logical_and(jnp.logical_and(k <= N, N >= 0.0), k >= 0.0)"
_COMB_N = f"jnp.where({_COMB_DOMAIN}, y * (jsp_special.digamma(N + 1.0) - jsp_special.digamma(N + 1.0 - k)), 0.0)"
_COMB_K = f"jnp.where({_COMB_DOMAIN}, y * (jsp_special.digamma(N + 1.0 - k) - jsp_special.digamma(k + 1.0)), 0.0)"
binary("comb", [f"bN += by * {_COMB_N}", f"bk += by * {_COMB_K}"], [f"dy = dN * {_COMB_N} + dk * {_COMB_K}"],
       operands=("N", "k"))
binary("hyp1f1", ["bx += by * a / b * jsp_special.hyp1f1(a + 1.0, b + 1.0, x)"],
       ["dx -> dx * a / b * jsp_special.hyp1f1(a + 1.0, b + 1.0, x)"], operands=("a", "b", "x"))
binary("hyp2f1", ["bx += by * a * b / c * jsp_special.hyp2f1(a + 1.0, b + 1.0, c + 1.0, x)"],
       ["dx -> dx * a * b / c * jsp_special.hyp2f1(a + 1.0, b + 1.0, c + 1.0, x)"], operands=("a", "b", "c", "x"))
# dT/dh = -pdf(h) erf(a h / sqrt 2) / 2;  dT/da = exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)).
_OWENS_H = f"-{INV_SQRT_2PI} * jnp.exp(-0.5 * h * h) * jsp_special.erf(a * h * 0.7071067811865476) * 0.5"
_OWENS_A = "jnp.exp(-0.5 * h * h * (1.0 + a * a)) / (6.283185307179586 * (1.0 + a * a))"
binary("owens_t", [f"bh += by * {_OWENS_H}", f"ba += by * {_OWENS_A}"],
       [f"dy = dh * {_OWENS_H} + da * {_OWENS_A}"], operands=("h", "a"))
