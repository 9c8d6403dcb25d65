"""astjax.scipy: the parts of `jax.scipy` astjax provides.

    special   special functions (gammaln, logsumexp, erf, ...), each a primitive with rules
    stats     distributions' logpdf / pdf / cdf / ... written from those primitives
"""
from . import special, stats  # noqa: F401

__all__ = ["special", "stats"]
