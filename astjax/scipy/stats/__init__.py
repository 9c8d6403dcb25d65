"""astjax.scipy.stats: the distributions of jax.scipy.stats, written in Python from primitives.

Each distribution is a module (`astjax.scipy.stats.norm.logpdf(x, loc, scale)`),
its functions plain astjax code that the transformations differentiate like
the user's own (they are not in classify._LIBRARIES), built from the special
functions of astjax.scipy.special and astjax.numpy. The cdf families of beta,
gamma and chi2 are differentiable in x only (betainc and gammainc are); a
derivative in their shape parameters is an error, as in JAX.

Each elementwise function first gives its arguments one inexact dtype and shape, as JAX's
promote_args_inexact: a Python number is weak, so `norm.logpdf(x64, 0.3, 1.7)` takes logarithms in
float64 (a bare `jnp.log(1.7)` would be float32, and the float64 result wrong in its eighth digit).
The zeros it adds are built from shapes and dtypes only, so no argument's derivative reaches another.

Besides the distributions: `sem` (written from primitives), `rankdata` (non-differentiable: ranks are
piecewise constant), `mode` (refused under a derivative: it jumps where values tie) and the class
`gaussian_kde` (its methods written from primitives; see _kde.py).

Plain `scipy.stats.norm.logpdf(x)` in a differentiated function means
`astjax.scipy.stats.norm.logpdf(x)` (astjax/frontend/normalize/scipy_calls.py);
a scipy.stats method astjax does not have (`norm.rvs`) is refused at that line.
"""
from . import (bernoulli, beta, cauchy, chi2, dirichlet, expon, gamma, laplace, logistic,  # noqa: F401
               multivariate_normal, norm, poisson, t, uniform)
from . import (betabinom, binom, gennorm, geom, gumbel_l, gumbel_r, multinomial, nbinom, pareto,  # noqa: F401
               truncnorm, vonmises, wrapcauchy)
from ._kde import gaussian_kde  # noqa: F401
from ._ranks import ModeResult, mode, rankdata  # noqa: F401
from ._summary import sem  # noqa: F401

__all__ = ["bernoulli", "beta", "cauchy", "chi2", "dirichlet", "expon", "gamma", "laplace", "logistic",
           "multivariate_normal", "norm", "poisson", "t", "uniform",
           "betabinom", "binom", "gennorm", "geom", "gumbel_l", "gumbel_r", "multinomial", "nbinom", "pareto",
           "truncnorm", "vonmises", "wrapcauchy", "gaussian_kde", "mode", "rankdata", "sem"]
