"""grad of grad of grad: quotients, shared denominators, negations, outputs shaped like x.

grad(grad(f)) runs forward mode over the generated gradient, and cleanup then
shares `-dx2 / x2` across every division by the same x2, substitutes
temporaries holding a negated name where they are read, and leaves out the
inner scalar-output check where the output provably has x's shape. Each case
checks orders 2 and 3 against finite differences of the original function
(float64, computed without astjax).
"""
import numpy as np

import astjax
import astjax.numpy as jnp

from .case import case, scalar


def _finite_derivatives(fn, x, h=1e-3):
    """(second, third) derivative of the scalar fn at x by central differences (float64)."""
    f = {k: float(fn(np.float64(x + k * h))) for k in (-3, -2, -1, 0, 1, 2, 3)}
    second = (-f[2] + 16 * f[1] - 30 * f[0] + 16 * f[-1] - f[-2]) / (12 * h * h)
    third = (-f[3] + 8 * f[2] - 13 * f[1] + 13 * f[-1] - 8 * f[-2] + f[-3]) / (8 * h ** 3)
    return second, third


def _orders_2_and_3(fn, args):
    x = args[0]
    second, third = _finite_derivatives(fn, float(x))
    g2 = astjax.grad(astjax.grad(fn))
    g3 = astjax.grad(g2)
    return [(float(g2(x)), second, "grad(grad(f))"), (float(g3(x)), third, "grad(grad(grad(f)))"),
            (float(astjax.hessian(fn)(x)), second, "hessian(f)")]


def _register(fn, lo=0.3, hi=1.2):
    case(fn, lambda r: (scalar(r, lo, hi),), "works", mode="custom", check=_orders_2_and_3, rtol=1e-4)


def rational_chain(x):
    return (x * x + 1.0) / (x - 3.0) / (x + 2.0)


_register(rational_chain)


def shared_denominator(x):
    d = 2.0 + x * x
    return jnp.sin(x) / d + jnp.cos(x) / d + x / d


_register(shared_denominator)


def denominator_is_the_numerator(x):
    d = jnp.exp(x)
    return d / d + x / d


_register(denominator_is_the_numerator)


def negations_everywhere(x):
    n = -x
    return n / (1.0 + x * x) + n * jnp.sin(n) - (-(n / 3.0))


_register(negations_everywhere)


def constant_and_varied_denominators(x):
    return x / 2.0 + 1.0 / (x + 3.0) - (1.0 / x) / x


_register(constant_and_varied_denominators)


def where_shaped_like_x(x):
    return jnp.where(x > 0.5, x / (1.0 + x), x * x / 3.0)


_register(where_shaped_like_x, 0.6, 1.2)


def quotient_in_a_loop(x):
    y = x
    for i in range(3):
        y = (y + 1.0) / (y * y + 2.0)
    return y


_register(quotient_in_a_loop)
