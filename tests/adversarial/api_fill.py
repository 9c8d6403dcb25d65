"""The API fill (issue 9) attacked: custom_jvp.defjvps, the gamma family and the other new samplers
inside differentiated code, sici / fresnel / bessel_jn in loops, tuple unpacking and plain-SciPy
spellings, and the refusals (a sampler's parameters, frompyfunc, complex special functions)."""
import numpy as np
import scipy.special

import astjax
import astjax.numpy as jnp
import astjax.random as ar
from astjax.scipy import special

from .case import case, pos, vec

KEY = ar.PRNGKey(11)


# ------------------------------------------------------------------ defjvps
@astjax.custom_jvp
def _scaled_tanh(x, s):
    return jnp.tanh(x) * s


def _scaled_tanh_dx(tx, out, x, s):
    return (1.0 - jnp.tanh(x) ** 2) * s * tx


def _scaled_tanh_ds(ts, out, x, s):
    return jnp.tanh(x) * ts


_scaled_tanh.defjvps(_scaled_tanh_dx, _scaled_tanh_ds)


def defjvps_in_a_loop(x):
    total = 0.0
    for k in range(3):
        total = total + jnp.sum(_scaled_tanh(x * (k + 1.0), x))
    return total


case(defjvps_in_a_loop, lambda r: (vec(r, 4),), "works")


def defjvps_same_value_twice(x):
    y = _scaled_tanh(x, x)
    return jnp.sum(_scaled_tanh(y, y) * y)


case(defjvps_same_value_twice, lambda r: (vec(r, 3),), "works")


def defjvps_second_argument_only(x, s):
    return jnp.sum(_scaled_tanh(x, s) ** 2)


case(defjvps_second_argument_only, lambda r: (vec(r, 3), pos(r, 3)), "works", argnums=1)


# ------------------------------------------------------------------ samplers in differentiated code
def gamma_weights_times_x(x):
    w = ar.gamma(KEY, 2.5, (4,), dtype=jnp.float64)
    return jnp.sum(w * jnp.sin(x))


case(gamma_weights_times_x, lambda r: (vec(r, 4),), "works")


def dirichlet_mixture(x):
    w = ar.dirichlet(KEY, jnp.array([0.5, 1.0, 2.0, 3.0]), dtype=jnp.float64)
    return jnp.log(jnp.sum(w * jnp.exp(x)))


case(dirichlet_mixture, lambda r: (vec(r, 4),), "works")


def key_made_inside(x):
    k1, k2 = ar.split(ar.key(3))
    noise = ar.t(k1, 4.0, (3,), dtype=jnp.float64) + ar.poisson(k2, 2.0, (3,))
    return jnp.sum((x - noise) ** 2)


case(key_made_inside, lambda r: (vec(r, 3),), "works")


def reparameterized_beta_like(x):
    u = ar.beta(KEY, 2.0, 3.0, (3,), dtype=jnp.float64)
    return jnp.sum(x[0] + x[1] * u)


case(reparameterized_beta_like, lambda r: (vec(r, 2),), "works")


def gamma_shape_from_x(x):
    return jnp.sum(ar.gamma(KEY, jnp.exp(x), dtype=jnp.float64))


case(gamma_shape_from_x, lambda r: (vec(r, 3),), "refuse")


def mvn_mean_from_x(x):
    cov = jnp.eye(3) * 2.0
    return jnp.sum(ar.multivariate_normal(KEY, x, cov, dtype=jnp.float64))


case(mvn_mean_from_x, lambda r: (vec(r, 3),), "refuse")


def poisson_rate_from_x(x):
    return jnp.sum(ar.poisson(KEY, x * x) * x)


case(poisson_rate_from_x, lambda r: (pos(r, 3),), "refuse")


# ------------------------------------------------------------------ special functions
def sici_accumulated(x):
    acc = 0.0
    for k in range(1, 4):
        si, ci = special.sici(x * k)
        acc = acc + jnp.sum(si * ci)
    return acc


case(sici_accumulated, lambda r: (pos(r, 3),), "works")


def plain_scipy_fresnel_item(x):
    return jnp.sum(scipy.special.fresnel(x)[1] * x)


case(plain_scipy_fresnel_item, lambda r: (vec(r, 4),), "works")


def si_only_through_tuple(x):
    parts = special.sici(x)
    si = parts[0]
    return jnp.sum(si * si)


case(si_only_through_tuple, lambda r: (vec(r, 4),), "works")


def bessel_rows_in_a_loop(z):
    j = special.bessel_jn(z, v=4)
    total = 0.0
    for n in range(5):
        total = total + (n + 1.0) * jnp.sum(j[n] * z)
    return total


case(bessel_rows_in_a_loop, lambda r: (vec(r, 3, -3.0, 3.0),), "works")


def _scalar_square_plus(a, b):
    return a * a + b


SQUARE_PLUS = jnp.frompyfunc(_scalar_square_plus, 2, 1)


def frompyfunc_under_grad(x):
    return jnp.sum(SQUARE_PLUS(x, x))


case(frompyfunc_under_grad, lambda r: (vec(r, 3),), "refuse")


def wofz_real_part(x):
    return jnp.sum(jnp.real(special.wofz(x)))


case(wofz_real_part, lambda r: (vec(r, 3),), "refuse")


def sph_harm_magnitude(theta):
    y = special.sph_harm_y(jnp.array([2, 2]), jnp.array([1, 0]), theta, theta)
    return jnp.sum(jnp.abs(y))


case(sph_harm_magnitude, lambda r: (pos(r, 2),), "refuse")


# ------------------------------------------------------------------ second order
def _hessian_check(fn, args):
    from .harness import fd_hessian
    return [(astjax.hessian(fn)(*args), fd_hessian(fn, args), "hessian(f)")]


def fresnel_and_bessel_curvature(x):
    s, c = special.fresnel(x)
    return jnp.sum(s * c) + jnp.sum(special.bessel_jn(x, v=2)[2] * x)


case(fresnel_and_bessel_curvature, lambda r: (vec(r, 3),), "works", mode="custom", check=_hessian_check, rtol=1e-4)


def defjvps_curvature(x):
    return jnp.sum(_scaled_tanh(x, x * x))


case(defjvps_curvature, lambda r: (vec(r, 3),), "either", mode="custom", check=_hessian_check, rtol=1e-4,
     note="hessian is jacfwd(jacrev): reverse over a custom_jvp transposes its rule (no higher derivative)")


# ------------------------------------------------------------------ the new scipy.stats distributions
import scipy.stats  # noqa: E402

from astjax.scipy import stats as astats  # noqa: E402


def gumbel_fit_plain_scipy(params):
    data = jnp.array([-1.5, 0.2, 1.3, 2.5])
    return jnp.sum(scipy.stats.gumbel_r.logpdf(data, params[0], jnp.exp(params[1])))


case(gumbel_fit_plain_scipy, lambda r: (vec(r, 2),), "works")


def count_models_in_p(p):
    k = jnp.array([0.0, 1.0, 3.0, 6.0])
    q = 1.0 / (1.0 + jnp.exp(-p))
    return jnp.sum(astats.binom.logpmf(k, 8.0, q) + astats.nbinom.logpmf(k, 2.5, q) + astats.geom.logpmf(k + 1.0, q))


case(count_models_in_p, lambda r: (vec(r, 4),), "works")


def circular_and_heavy_tails(x):
    return jnp.sum(astats.vonmises.logpdf(x, 2.0) + astats.wrapcauchy.logpdf(x + 3.0, 0.3)
                   + astats.pareto.logpdf(x + 3.0, 2.5, 0.0, 1.0) + astats.gennorm.logpdf(x, 1.7))


case(circular_and_heavy_tails, lambda r: (vec(r, 4),), "works")


def beta_cdf_shape_from_x(x):
    return jnp.sum(astats.beta.cdf(0.4, jnp.exp(x), 2.0))


case(beta_cdf_shape_from_x, lambda r: (vec(r, 2),), "refuse")
