"""lax's names for functions astjax.numpy and astjax.scipy.special already have: the same function
objects, so they share one primitive and its rules (`lax.lgamma` is `gammaln`, `lax.igamma` is
`gammainc`, `lax.bessel_i0e` is `i0e`)."""
from .. import numpy as jnp
from ..scipy import special as _special

__all__ = ["acosh", "asinh", "atanh", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "conj", "real",
           "imag", "reciprocal", "erf_inv", "erfc", "lgamma", "digamma", "igamma", "igammac", "betainc", "zeta",
           "polygamma", "bessel_i0e", "bessel_i1e"]

acosh, asinh, atanh = jnp.arccosh, jnp.arcsinh, jnp.arctanh
bitwise_and, bitwise_or, bitwise_xor, bitwise_not = jnp.bitwise_and, jnp.bitwise_or, jnp.bitwise_xor, jnp.bitwise_not
conj, real, imag, reciprocal = jnp.conj, jnp.real, jnp.imag, jnp.reciprocal
erf_inv, erfc, lgamma, digamma = _special.erfinv, _special.erfc, _special.gammaln, _special.digamma
igamma, igammac, betainc, zeta, polygamma = (_special.gammainc, _special.gammaincc, _special.betainc, _special.zeta,
                                             _special.polygamma)
bessel_i0e, bessel_i1e = _special.i0e, _special.i1e
