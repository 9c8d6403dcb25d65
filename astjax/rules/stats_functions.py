"""jax.scipy.stats's functions that are not distributions: rankdata (no derivative: ranks are piecewise
constant) and mode (refused: its value jumps wherever two data values tie or stop tying).

sem and gaussian_kde's methods are written from primitives in astjax/scipy/stats and need nothing here.
"""
from ..scipy.stats import _ranks
from .nondifferentiable import PIECEWISE, no_derivative, nondifferentiable

nondifferentiable("rankdata", _ranks.rankdata, PIECEWISE)
no_derivative("the mode is the most common value: moving one copy of a repeated value changes which value is "
              "most common, so the result jumps and has no derivative",
              "differentiate a smooth summary (jnp.mean, jnp.median, a kernel density's maximum), or "
              "compute the mode of values that do not depend on the differentiated input", _ranks.mode)
