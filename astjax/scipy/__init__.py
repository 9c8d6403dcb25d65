"""astjax.scipy: the parts of `jax.scipy` astjax provides.

    special   special functions (gammaln, logsumexp, erf, ...), each a primitive with rules
    stats     distributions' logpdf / pdf / cdf / ... written from those primitives
    linalg    cho_factor, cho_solve, solve_triangular, expm, lu, block_diag, ... with rules
"""
from . import linalg, special, stats  # noqa: F401

__all__ = ["linalg", "special", "stats"]
