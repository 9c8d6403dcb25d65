"""The real-valued parts of jnp.fft that have derivatives: fftshift/ifftshift and fftfreq/rfftfreq.

fftshift and ifftshift are permutations (rolls), each the other's adjoint.
fftfreq(n, d) is fftfreq(n, 1) / d, so its derivative in d is -y / d. The
complex transforms are not primitives: a derivative reaching one is refused
(astjax's rules are written for real numbers).
"""
import numpy as np

from .. import numpy as jnp
from ..numpy import fft as jnp_fft
from .registry import defjvp, defvjp, primitive

fftshift = primitive("fftshift", jnp_fft.fftshift, aliases=(np.fft.fftshift,))
defvjp(fftshift, "bx += jnp.fft.ifftshift(by, axes)")
defjvp(fftshift, "dy = jnp.fft.fftshift(dx, axes)")
ifftshift = primitive("ifftshift", jnp_fft.ifftshift, aliases=(np.fft.ifftshift,))
defvjp(ifftshift, "bx += jnp.fft.fftshift(by, axes)")
defjvp(ifftshift, "dy = jnp.fft.ifftshift(dx, axes)")

for _name in ("fftfreq", "rfftfreq"):
    _prim = primitive(_name, getattr(jnp_fft, _name), operands=("d",), aliases=(getattr(np.fft, _name),))
    defvjp(_prim, "bd += unbroadcast(jnp.sum(by * (-y / d)), d)")
    defjvp(_prim, "dy = dd * (-y / d)")
