"""NumPy's index tricks with JAX's dtypes: `mgrid`, `ogrid`, `r_`, `c_` build arrays from an index;
`s_` and `index_exp` build the index itself; `euler_gamma` is the constant.

Their values come from NumPy's objects of the same names; only the dtype follows JAX's rules: a grid of
Python ints is int32, one with a float or complex (`3j`: a count) part float32; `r_` and `c_` take the
result type of their pieces (Python numbers weak, as everywhere in astjax.numpy). Inside a transformed
function an index computed from values that carry a derivative is refused (frontend/normalize/
object_subscripts.py): the result would not carry it.
"""
import numpy as np

from ._promote import out, plain

__all__ = ["mgrid", "ogrid", "r_", "c_", "s_", "index_exp", "euler_gamma"]

euler_gamma = np.euler_gamma
s_ = np.s_
index_exp = np.index_exp


def _weak(piece):
    """What a piece of an index contributes to the result type (a Python number stands for a weak type)."""
    if isinstance(piece, slice):
        parts = (piece.start, piece.stop, piece.step)
        return 0.0 if any(isinstance(p, (float, complex)) for p in parts) else 0
    if isinstance(piece, (list, tuple)):
        return 0.0 if np.asarray(piece).dtype.kind in "fc" else 0
    return piece


def _plain_key(key):
    return tuple(plain(k) for k in key) if isinstance(key, tuple) else plain(key)


class IndexGrid:
    """`mgrid[...]` / `ogrid[...]`: the index grid NumPy builds, int32 or float32."""

    def __init__(self, grid):
        self._grid = grid

    def __getitem__(self, key):
        pieces = key if isinstance(key, tuple) else (key,)
        dtype = np.float32 if any(isinstance(_weak(p), float) for p in pieces) else np.int32
        result = self._grid[_plain_key(key)]
        if isinstance(result, (list, tuple)):
            return [out(np.asarray(r, dtype)) for r in result]
        return out(np.asarray(result, dtype))


class IndexConcatenator:
    """`r_[...]` / `c_[...]`: NumPy's concatenation along the index, in the pieces' result type."""

    def __init__(self, concatenator):
        self._concatenator = concatenator

    def __getitem__(self, key):
        from . import result_type
        pieces = [p for p in (key if isinstance(key, tuple) else (key,)) if not isinstance(p, str)]
        result = self._concatenator[_plain_key(key)]
        dtype = result_type(*[_weak(p) for p in pieces]) if pieces else np.float32
        return out(np.asarray(result, dtype))


mgrid = IndexGrid(np.mgrid)
ogrid = IndexGrid(np.ogrid)
r_ = IndexConcatenator(np.r_)
c_ = IndexConcatenator(np.c_)
