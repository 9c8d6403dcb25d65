"""Rules of JAX's last special functions (astjax.scipy.special): sici, fresnel, bessel_jn; wofz and
sph_harm_y are refused under a derivative (complex results).

    (si, ci) = sici(x):      si' = sin(x) / x (1 at 0),  ci' = cos(x) / x
    (s, c) = fresnel(x):     s' = sin(pi x^2 / 2),       c' = cos(pi x^2 / 2)
    j = bessel_jn(z, v=v):   J_n' = (J_{n-1} - J_{n+1}) / 2, with J_{-1} = -J_1

The tuple-valued ones read their adjoint item by item (`item_adjoint`); ci's slope is infinite
at 0, where Ci itself is -inf, so its term is left out wherever its adjoint (tangent) is zero
instead of giving 0 * inf = nan to a loss that only reads si. bessel_jn's slope is written with
bessel_jn itself (one order more), so it can be differentiated again.
"""
from .. import numpy as jnp
from ..scipy import special as sp
from .decompositions import with_fields
from .helpers import item_adjoint
from .linalg import COMPOSITES
from .nondifferentiable import no_derivative
from .registry import defjvp, defvjp, primitive

_PI = "3.141592653589793"


def ci_slope_times(g, x):
    """g * cos(x) / x, and 0 where g is 0 (ci's slope is infinite at x = 0)."""
    at_zero = x == 0
    safe = jnp.where(at_zero, 1.0, x)
    infinite = at_zero & (g != 0)          # ci is -inf there: the slope is g * inf, not g * cos(0) / 1
    return jnp.where(g == 0, 0.0, g * jnp.cos(x) / safe) + jnp.where(infinite, jnp.copysign(jnp.inf, g), 0.0)


def sici_adjoint(g, x):
    """x's adjoint from the adjoints of (si, ci)."""
    gs = item_adjoint(g, 0)
    gc = item_adjoint(g, 1)
    return gs * jnp.sinc(x / float(_PI)) + ci_slope_times(gc * jnp.ones_like(x), x)


def sici_tangent(t, x, y):
    return with_fields(y, [t * jnp.sinc(x / float(_PI)), ci_slope_times(t * jnp.ones_like(x), x)])


def bessel_jn_slope(z, v):
    """d/dz of bessel_jn(z, v=v): rows (J_{n-1} - J_{n+1}) / 2 for n = 0..v, J_{-1} = -J_1."""
    ext = sp.bessel_jn(z, v=v + 1)
    lower = jnp.concatenate([-ext[1:2], ext[:v]], axis=0)
    return 0.5 * (lower - ext[1:v + 2])


COMPOSITES.update({f.__name__: f for f in (ci_slope_times, sici_adjoint, sici_tangent, bessel_jn_slope)})

_sici = primitive("sici", sp.sici, operands=("x",), aliases=("scipy.special.sici",))
defvjp(_sici, "bx += sici_adjoint(by, x)")
defjvp(_sici, "dy = sici_tangent(dx, x, y)")

_fresnel = primitive("fresnel", sp.fresnel, operands=("x",), aliases=("scipy.special.fresnel",))
defvjp(_fresnel, f"bx += item_adjoint(by, 0) * jnp.sin({_PI} / 2.0 * x * x)"
                 f" + item_adjoint(by, 1) * jnp.cos({_PI} / 2.0 * x * x)")
defjvp(_fresnel, f"dy = with_fields(y, [dx * jnp.sin({_PI} / 2.0 * x * x), dx * jnp.cos({_PI} / 2.0 * x * x)])")

_bessel = primitive("bessel_jn", sp.bessel_jn, operands=("z",))
defvjp(_bessel, "bz += jnp.sum(by * bessel_jn_slope(z, v), axis=0)")
defjvp(_bessel, "dy = bessel_jn_slope(z, v) * dz")

no_derivative("its result is complex, and astjax has no complex differentiation",
              "compute it outside the differentiated function (its derivative is w'(z) = 2i/sqrt(pi) - 2 z w(z) "
              "for wofz), or differentiate its real and imaginary parts written with real functions", sp.wofz,
              sp.sph_harm_y)
