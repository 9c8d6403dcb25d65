"""jnp.fft's rules: the transforms (linear maps), the shifts, and the frequency grids.

Every transform is linear, so its JVP is the transform of the tangent and its
VJP is its transpose applied to the cotangent. Cotangents of complex values
follow JAX's convention: for a real loss L of z = u + iv the cotangent is
dL/du - i dL/dv, so a complex-linear map transposes without conjugation (the
DFT matrix is symmetric: fft's transpose is fft, ifft's is ifft) and a real
input keeps the real part of its cotangent. rfft drops the negative
frequencies (its transpose pads them with zeros); irfft counts each middle bin
twice (its transpose doubles them and conjugates); hfft and ihfft are irfft
and rfft with a conjugate and the dual `norm`. `n` / `s` padding or truncation
transposes to truncation or padding back to the input's shape.

All fourteen transforms share two helper primitives, each the other's
transpose: `fft_apply(x, kind, s, axes, norm)` (the transform called `kind`)
and `fft_adjoint(g, like, kind, s, axes, norm)` (its transpose, shaped like
`like`). Which complex values a derivative may flow through is checked before
any rule runs (analyses/complex_flow.py).

fftshift and ifftshift are permutations (rolls), each the other's adjoint.
fftfreq(n, d) is fftfreq(n, 1) / d, so its derivative in d is -y / d.
"""
import numpy as np

from ..array import wrap as _wrap
from ..errors import AstjaxError
from ..numpy import fft as jnp_fft
from .linalg import COMPOSITES
from .registry import PRIMITIVES, defbatch, defjvp, defvjp, primitive

__all__ = ["fft_apply", "fft_adjoint", "COMPLEX_RESULT", "TAKES_COMPLEX", "REAL_INPUT", "ONE_D"]

ONE_D = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
N_D = ("fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn")
COMPLEX_RESULT = frozenset({"fft", "ifft", "rfft", "ihfft", "fft2", "ifft2", "rfft2", "fftn", "ifftn", "rfftn"})
REAL_INPUT = frozenset({"rfft", "ihfft", "rfft2", "rfftn"})     # a complex input would lose its imaginary part
TAKES_COMPLEX = frozenset(ONE_D + N_D) - REAL_INPUT
_DUAL_NORM = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _plain(x):
    return np.asarray(x.__array__() if hasattr(x, "__array__") else x)


def _cook(kind, shape, s, axes):
    """The transformed axes and their output lengths (NumPy's defaults), as lists of ints."""
    ndim = len(shape)
    if kind in ONE_D:
        s, axes = (None if s is None else (s,)), (axes,)
    if axes is None:
        axes = range(ndim) if s is None else range(-len(s), 0)
    axes = [int(a) % ndim for a in axes]
    if len(set(axes)) != len(axes):
        raise AstjaxError(f"astjax differentiates jnp.fft.{kind} over distinct axes only (got axes {axes})")
    if s is None:
        s = [shape[a] for a in axes]
        if kind in ("irfft", "hfft", "irfft2", "irfftn"):
            s[-1] = 2 * (shape[axes[-1]] - 1)
    s = list(s)
    if len(s) != len(axes) or any(n is None for n in s):
        raise AstjaxError(f"jnp.fft.{kind}: `s` must give one length per transformed axis")
    return [shape[a] if int(n) == -1 else int(n) for n, a in zip(s, axes)], axes


def _resize(g, sizes):
    """g zero-padded or truncated to `sizes` (axis -> length)."""
    for axis, n in sizes.items():
        m = g.shape[axis]
        if m > n:
            g = np.take(g, np.arange(n), axis=axis)
        elif m < n:
            pad = [(0, 0)] * g.ndim
            pad[axis] = (0, n - m)
            g = np.pad(g, pad)
    return g


def _hermitian_weights(n, axis, ndim):
    """irfft's bin multiplicities along `axis`: 1 for the zero (and, n even, the Nyquist) bin, 2 for the rest."""
    w = np.full(n // 2 + 1, 2.0)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = w.size
    return w.reshape(shape)


def _transpose(g, like_shape, like_complex, kind, s, axes, norm):
    """The transpose (JAX's convention) of jnp.fft.<kind>(·, s, axes, norm) at a cotangent g of its result."""
    if kind == "ihfft":         # ihfft(x) = conj(rfft(x)) with the dual norm
        return _transpose(np.conj(g), like_shape, like_complex, "rfft", s, axes, _DUAL_NORM[norm])
    if kind == "hfft":          # hfft(a) = irfft(conj(a)) with the dual norm
        out = np.conj(_transpose(g, like_shape, True, "irfft", s, axes, _DUAL_NORM[norm]))
        return out if like_complex else np.real(out)
    sizes, axes = _cook(kind, like_shape, s, axes)
    if kind in ("fft", "fft2", "fftn"):
        out = np.fft.fftn(g, axes=axes, norm=norm)
    elif kind in ("ifft", "ifft2", "ifftn"):
        out = np.fft.ifftn(g, axes=axes, norm=norm)
    elif kind in ("rfft", "rfft2", "rfftn"):
        out = np.fft.fftn(_resize(g, {axes[-1]: sizes[-1]}), axes=axes, norm=norm)
    elif kind in ("irfft", "irfft2", "irfftn"):
        last = axes[-1]
        weights = _hermitian_weights(sizes[-1], last, len(like_shape))
        out = np.conj(np.fft.rfft(g, sizes[-1], last, _DUAL_NORM[norm])) * weights
        if len(axes) > 1:
            out = np.fft.ifftn(out, axes=axes[:-1], norm=norm)
    else:
        raise AstjaxError(f"astjax has no transpose for jnp.fft.{kind}")
    out = _resize(out, {a: like_shape[a] for a in axes})
    return out if like_complex else np.real(out)


def fft_apply(x, kind, s=None, axes=None, norm=None):
    """jnp.fft.<kind>(x, s, axes, norm) (for the 1-D transforms s is n and axes is axis)."""
    return getattr(jnp_fft, kind)(x, s, axes, norm)


def fft_adjoint(g, like, kind, s=None, axes=None, norm=None):
    """The transpose of jnp.fft.<kind>(·, s, axes, norm) applied to g, shaped like `like`: real where `like` is."""
    like = _plain(like)
    g = _plain(g)
    if kind in REAL_INPUT and np.iscomplexobj(like):
        raise AstjaxError(f"jnp.fft.{kind} of a complex array drops its imaginary part; astjax does not "
                          f"differentiate that")
    out = _transpose(g, like.shape, np.iscomplexobj(like), kind, s, axes, norm)
    dtype = like.dtype if like.dtype.kind in "fc" else np.dtype(np.float32)
    return _wrap(np.asarray(out).astype(dtype, copy=False))


COMPOSITES.update({"fft_apply": fft_apply, "fft_adjoint": fft_adjoint})

apply_prim = primitive("fft_apply", fft_apply, operands=("x",))
defvjp(apply_prim, "bx += fft_adjoint(by, x, kind, s, axes, norm)")
defjvp(apply_prim, "dy = fft_apply(dx, kind, s, axes, norm)")
adjoint_prim = primitive("fft_adjoint", fft_adjoint, operands=("g",), shape_params=("like",))
defvjp(adjoint_prim, "bg += fft_apply(by, kind, s, axes, norm)")
defjvp(adjoint_prim, "dy = fft_adjoint(dg, like, kind, s, axes, norm)")
for _prim in (apply_prim, adjoint_prim):
    _prim.identity = "the DFT is linear: d fft(x) = fft(dx); its transpose is fft again (the DFT matrix is symmetric)"

for _kind in ONE_D + N_D:
    _prim = primitive(_kind, getattr(jnp_fft, _kind), operands=("a",), aliases=(getattr(np.fft, _kind),))
    _s, _axes = ("n", "axis") if _kind in ONE_D else ("s", "axes")
    defvjp(_prim, f"ba += fft_adjoint(by, a, {_kind!r}, {_s}, {_axes}, norm)")
    defjvp(_prim, f"dy = jnp.fft.{_kind}(da, {_s}, {_axes}, norm)")
    _prim.identity = f"{_kind} is linear: d {_kind}(a) = {_kind}(da); its transpose carries the cotangent back"


def _transform_batch_rule(bt, target, app):
    """vmap: the per-example axis (axes) shifts past the batch axis; `axes=None` with `s` loops instead."""
    from .batching import _call, _const, _is_const, _shift
    import copy
    prim = app.primitive
    a = app.bound["a"]
    if any(bt.is_batched(node) for name, node in app.bound.items() if name != "a"):
        return None
    one_d = prim.name in ONE_D
    axes_name, s_name = ("axis", "n") if one_d else ("axes", "s")
    axes = app.bound.get(axes_name, _const(None))
    s = app.bound.get(s_name, _const(None))
    if _is_const(axes, None):
        if not _is_const(s, None) or bt.rank(a) is None:
            return None
    shifted = _shift(axes, bt, a)
    call = _call(f"jnp.fft.{prim.name}", copy.deepcopy(a), copy.deepcopy(s), shifted,
                 copy.deepcopy(app.bound.get("norm", _const(None))))
    return [bt.assign(target, call)]


for _kind in ONE_D + N_D:
    defbatch(PRIMITIVES[_kind], _transform_batch_rule)

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
