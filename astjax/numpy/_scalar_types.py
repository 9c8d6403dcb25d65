"""The rest of jax.numpy's type names, and `frompyfunc`.

The aliases are NumPy's scalar types under JAX's spellings (`jnp.double is np.float64`,
`jnp.int_ is np.int64`, as JAX's names with x64 on), so they work as `dtype=` arguments.
The narrow machine-learning float/int types (`bfloat16`, `float8_*`, `int4`, ...) come from
the `ml_dtypes` package when it is installed (as in JAX); without it they are absent.
`frompyfunc` builds a ufunc-like object from a scalar Python function: it runs the
function element by element (NumPy's frompyfunc with JAX's result dtypes), so astjax
refuses it where a derivative reaches it; write the function from astjax.numpy calls
(or use astjax.vmap) to differentiate it.
"""
import numpy as np

from ._promote import nd

double = np.float64
single = np.float32
float_ = np.float64
cdouble = np.complex128
csingle = np.complex64
complex_ = np.complex128
int_ = np.int64
uint = np.uint64
character = np.character
flexible = np.flexible
object_ = np.object_
ComplexWarning = np.exceptions.ComplexWarning

ML_DTYPE_NAMES = ("bfloat16", "float4_e2m1fn", "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3",
                  "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz",
                  "float8_e8m0fnu", "int1", "int2", "int4", "uint1", "uint2", "uint4")


def ml_dtypes_present():
    """{name: scalar type} of the ml_dtypes types installed (empty without the package)."""
    try:
        import ml_dtypes
    except ImportError:
        return {}
    return {n: getattr(ml_dtypes, n) for n in ML_DTYPE_NAMES if hasattr(ml_dtypes, n)}


class ufunc:
    """A ufunc made by `frompyfunc`: call it, or use `outer`, `reduce` and `accumulate` (nin == 2)."""

    def __init__(self, func, nin, nout, identity=None):
        if not callable(func):
            raise TypeError(f"frompyfunc: func must be callable, got {func!r}")
        if int(nin) < 1 or int(nout) < 1:
            raise ValueError(f"frompyfunc: nin and nout must be positive, got {nin} and {nout}")
        self.func, self.nin, self.nout, self.identity = func, int(nin), int(nout), identity
        self.__name__ = getattr(func, "__name__", "ufunc")
        self._np = np.frompyfunc(func, self.nin, self.nout)

    def _typed(self, out, args):
        def cast(o):
            o = np.asarray(o)
            if o.dtype != object:
                return o
            values = [np.asarray(v) for v in o.reshape(-1)] or [np.asarray(a) for a in args]
            dt = np.result_type(*values) if values else np.float64
            return o.astype(dt)
        from ..array import wrap
        if self.nout == 1:
            return wrap(cast(out))
        return tuple(wrap(cast(o)) for o in out)

    def __call__(self, *args):
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}: takes {self.nin} arguments, got {len(args)}")
        arrays = [nd(a) for a in args]
        return self._typed(self._np(*arrays), arrays)

    def _binary(self, what):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{what} is only supported for binary ufuncs with one output (nin=2, nout=1)")

    def outer(self, a, b):
        """f(a[i], b[j]) for every pair."""
        self._binary("outer")
        a, b = nd(a), nd(b)
        return self._typed(self._np.outer(a, b), [a, b])

    def reduce(self, a, axis=0):
        """f folded along `axis` (the identity for an empty axis, if one was given)."""
        self._binary("reduce")
        a = nd(a)
        if a.shape[axis] == 0:
            if self.identity is None:
                raise ValueError(f"reduce of an empty axis with {self.__name__}, which has no identity")
            from ..array import wrap
            return wrap(np.full(np.delete(a.shape, axis), self.identity, dtype=a.dtype))
        return self._typed(self._np.reduce(a.astype(object), axis=axis), [a])

    def accumulate(self, a, axis=0):
        """The running fold of f along `axis`."""
        self._binary("accumulate")
        a = nd(a)
        return self._typed(self._np.accumulate(a.astype(object), axis=axis), [a])


def frompyfunc(func, nin, nout, *, identity=None):
    """A ufunc-like object applying the scalar function `func` element by element (JAX's frompyfunc).
    Not differentiable: it runs `func` in a Python loop."""
    return ufunc(func, nin, nout, identity)


_REFUSAL = ("it runs a Python function element by element, on values astjax does not see",
            "write the function with astjax.numpy calls on whole arrays (they have rules), or batch it with "
            "astjax.vmap")
frompyfunc.__astjax_no_derivative__ = ufunc.__astjax_no_derivative__ = _REFUSAL
