"""The public transformations: grad, value_and_grad, vjp (and source, to read what they generate).

Each returns a Python function. Its first call generates the derivative's
source (once per transformation, not per input shape) and runs it on the
reference backend; `astjax.source(g)` prints that source. A transformed
function can be transformed again: the next pass reads the generated source.
"""
import functools
import numbers

import numpy as np

from . import tree_util
from .array import Array, wrap
from .rules.helpers import materialize
from .transforms.derivation import Derivation

__all__ = ["grad", "value_and_grad", "vjp", "source"]


class ReverseTransform:
    """What `grad(f, argnums, has_aux)` knows: the function, the arguments, the generated code."""

    def __init__(self, fun, argnums, has_aux, kind):
        _check_callable(fun, kind)
        self.fun = fun
        self.single = isinstance(argnums, int)
        self.argnums = (argnums,) if self.single else tuple(argnums)
        if not self.argnums or not all(isinstance(a, int) for a in self.argnums):
            raise TypeError(f"argnums must be an int or a tuple of ints, got {argnums!r}")
        self.has_aux = has_aux
        self.kind = kind
        self._built = {}

    def derivation(self, mode):
        """The Derivation for `mode` ("grad", "value_and_grad" or "vjp"), built on first use."""
        if mode not in self._built:
            derivation = Derivation()
            wrt = self.argnums if mode != "vjp" else None
            derivation.reverse(self.fun, wrt if wrt is not None else self._all_positions(), mode=mode,
                               has_aux=self.has_aux)
            self._built[mode] = derivation
        return self._built[mode]

    def _all_positions(self):
        from .frontend.parse import function_source
        return tuple(range(len(function_source(self.fun).node.args.args)))

    def generated(self, mode):
        derivation = self.derivation(mode)
        return derivation.functions[derivation.sources[-1][0]]

    def composable_source(self):
        """The FunctionSource of the generated function, for the next transformation to read."""
        return self.generated(self.kind).__astjax_function_source__

    def source_text(self):
        return self.derivation(self.kind).source_text()

    def prepare(self, args):
        """Check the arguments and turn differentiated Python floats into float32 arrays."""
        args = list(args)
        for i in self.argnums:
            if i >= len(args) or i < -len(args):
                raise TypeError(f"{self.kind} of {_name(self.fun)} with argnums={self.argnums} needs at least "
                                f"{max(self.argnums) + 1} positional arguments, got {len(args)}")
            args[i] = tree_util.tree_map(lambda leaf: _differentiable_input(leaf, self.kind), args[i])
        return args


def _differentiable_input(leaf, kind):
    dtype = np.result_type(leaf) if not isinstance(leaf, numbers.Number) else None
    if isinstance(leaf, bool) or isinstance(leaf, numbers.Integral) or (
            dtype is not None and not np.issubdtype(dtype, np.inexact)):
        shown = "int" if dtype is None else dtype.name
        raise TypeError(
            f"{kind} requires real-valued inputs (a float dtype), but got {shown}. "
            f"Pass a float (e.g. 3.0 instead of 3, or x.astype(jnp.float32)), or move the integer "
            f"argument out of argnums.")
    if isinstance(leaf, numbers.Real):
        return wrap(np.float32(leaf))
    if isinstance(leaf, np.ndarray) and type(leaf) is not Array:
        return wrap(leaf)
    return leaf


def _check_callable(fun, kind):
    if not callable(fun):
        raise TypeError(f"{kind} expects a function, got {type(fun).__name__}: {fun!r}")


def _name(fun):
    return getattr(fun, "__name__", repr(fun))


def _check_scalar_output(value, fun):
    shape = np.shape(value)
    if shape != ():
        raise TypeError(f"grad requires a function with a scalar output, but {_name(fun)} returned an array "
                        f"of shape {shape}. Use jnp.sum(...) to reduce it, or astjax.vjp / astjax.jacrev for "
                        f"non-scalar outputs.")
    dtype = np.result_type(value)
    if not np.issubdtype(dtype, np.inexact):
        raise TypeError(f"grad requires a float-valued output, but {_name(fun)} returned {dtype.name}.")


def _materialize_grads(transform, grads, args):
    grads = grads if len(transform.argnums) > 1 else (grads,)
    out = tuple(materialize(g, args[i]) for g, i in zip(grads, transform.argnums))
    return out[0] if transform.single else out


def value_and_grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """A function returning `(fun(*args), grad(fun)(*args))`, computed in one pass.

    With has_aux=True, `fun` returns `(output, aux)` and the result is `((output, aux), grad)`.
    """
    transform = ReverseTransform(fun, argnums, has_aux, "value_and_grad")

    @functools.wraps(fun)
    def value_and_grad_f(*args, **kwargs):
        args = transform.prepare(args)
        value, grads = transform.generated("value_and_grad")(*args, **kwargs)
        output = value[0] if has_aux else value
        _check_scalar_output(output, fun)
        if has_aux:
            value = (wrap(output), value[1])
        else:
            value = wrap(value)
        return value, _materialize_grads(transform, grads, args)

    value_and_grad_f.__astjax_transform__ = transform
    return value_and_grad_f


def grad(fun, argnums=0, has_aux=False, holomorphic=False, allow_int=False):
    """The gradient of a scalar-valued `fun` with respect to the arguments in `argnums`.

    Like `jax.grad`: `argnums` is an int or a tuple of ints; arguments may be
    pytrees of float arrays; with has_aux=True `fun` returns `(output, aux)` and
    the result is `(gradient, aux)`. The derivative is Python source generated
    from `fun`'s source: see it with `astjax.source(grad(fun))`.
    """
    transform = ReverseTransform(fun, argnums, has_aux, "grad")

    @functools.wraps(fun)
    def grad_f(*args, **kwargs):
        args = transform.prepare(args)
        value, grads = transform.generated("value_and_grad")(*args, **kwargs)
        _check_scalar_output(value[0] if has_aux else value, fun)
        result = _materialize_grads(transform, grads, args)
        return (result, value[1]) if has_aux else result

    grad_f.__astjax_transform__ = transform
    return grad_f


def vjp(fun, *primals, has_aux=False):
    """`(fun(*primals), pullback)` where `pullback(ct)` gives the cotangents of all primals.

    Like `jax.vjp`; with has_aux=True the result is `(output, pullback, aux)`.
    """
    _check_callable(fun, "vjp")
    transform = ReverseTransform(fun, tuple(range(len(primals))) or (0,), has_aux, "vjp")
    args = transform.prepare(primals) if primals else []
    value = fun(*args)
    output, aux = (value[0], value[1]) if has_aux else (value, None)
    output = wrap(output) if isinstance(output, (np.ndarray, numbers.Number)) else output
    generated = transform.generated("vjp")

    def pullback(cotangent):
        if np.shape(cotangent) != np.shape(output):
            raise ValueError(f"the cotangent passed to the vjp pullback has shape {np.shape(cotangent)}, "
                             f"but the output of {_name(fun)} has shape {np.shape(output)}; they must match.")
        cotangent = wrap(np.asarray(cotangent, dtype=np.result_type(output)))
        grads = generated(cotangent, *args)
        grads = grads if len(args) > 1 else (grads,)
        return tuple(materialize(g, a) for g, a in zip(grads, args))

    pullback.__astjax_transform__ = transform
    return (output, pullback, aux) if has_aux else (output, pullback)


def source(fun):
    """The generated Python source behind an astjax-transformed function, as a string."""
    transform = getattr(fun, "__astjax_transform__", None)
    if transform is None:
        text = getattr(fun, "__astjax_source_text__", None)
        if text is not None:
            return text
        raise TypeError(f"{_name(fun)} is not an astjax-transformed function; pass e.g. astjax.grad(f).")
    return transform.source_text()
