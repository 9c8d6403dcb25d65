"""What users pass to the transformations: checked, converted, and split into function and bound arguments.

Differentiated Python floats become float32 arrays (JAX's default); integers
are refused unless `allow_int`; a bound method, `functools.partial` or
callable object is split into the function whose source is read and the
arguments bound to it.
"""
import functools
import inspect
import numbers

import numpy as np

from .array import Array, wrap

__all__ = ["split_callable", "differentiable_input", "is_float_leaf", "check_callable", "name_of", "FLOAT0"]

FLOAT0 = np.dtype([("float0", np.void, 0)])    # JAX's dtype for the "gradient" of an integer


def split_callable(fun):
    """(a function with source, leading arguments, keywords) for what a user may pass.

    A bound method is its function with `self` first; a `functools.partial`
    adds its arguments; an object with `__call__` is that method bound to it.
    """
    if inspect.ismethod(fun):
        inner, leading, keywords = split_callable(fun.__func__)
        return inner, leading + (fun.__self__,), keywords
    if isinstance(fun, functools.partial):
        inner, leading, keywords = split_callable(fun.func)
        return inner, leading + tuple(fun.args), {**keywords, **(fun.keywords or {})}
    if _is_library_function(fun):
        return library_trampoline(fun), (), {}
    if (not inspect.isfunction(fun) and not hasattr(fun, "__astjax_transform__") and not _is_custom(fun)
            and inspect.isfunction(getattr(type(fun), "__call__", None))):
        return type(fun).__call__, (fun,), {}
    return fun, (), {}


def _is_library_function(fun):
    """An astjax.numpy / astjax.lax / NumPy function passed directly (`grad(jnp.sin)`): a primitive, not user code."""
    if hasattr(fun, "__astjax_transform__") or hasattr(fun, "__astjax_function_source__") or _is_custom(fun):
        return False
    if isinstance(fun, np.ufunc):
        return True
    if not callable(fun) or inspect.ismethod(fun) or isinstance(fun, functools.partial):
        return False
    module = getattr(fun, "__module__", None) or ""
    if module == "numpy" or module.startswith(("numpy.", "astjax.")):
        return True
    from .rules import lookup_callable
    try:
        return not hasattr(fun, "__code__") and lookup_callable(fun) is not None      # math.sin, abs
    except TypeError:
        return False


_TRAMPOLINES = {}


def library_trampoline(fun):
    """A generated `def sin(x): return _primitive(x)`, so transforming a library function meets it as a call
    with a rule. Its parameters are the function's positional parameters without defaults."""
    key = id(fun)
    if key in _TRAMPOLINES and _TRAMPOLINES[key][0] is fun:
        return _TRAMPOLINES[key][1]
    import gast

    from .backends.python import compile_function
    if isinstance(fun, np.ufunc):
        params = [f"x{i}" for i in range(fun.nin)]
    else:
        try:
            signature = inspect.signature(fun)
        except (TypeError, ValueError):
            raise TypeError(f"cannot read the parameters of {name_of(fun)}; wrap it in a Python function "
                            f"(def f(x): return op(x)) and transform that.") from None
        params = []
        for p in signature.parameters.values():
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.default is not p.empty:
                break
            params.append(p.name)
    name = getattr(fun, "__name__", "f")
    if not name.isidentifier():
        name = "f"
    text = f"def {name}({', '.join(params)}):\n    return _primitive({', '.join(params)})\n"
    trampoline, _ = compile_function(gast.parse(text).body[0], {"_primitive": fun}, label=f"primitive_{name}")
    _TRAMPOLINES[key] = (fun, trampoline)
    return trampoline


def _is_custom(fun):
    from .custom_derivatives import custom_jvp, custom_vjp
    return isinstance(fun, (custom_vjp, custom_jvp))


def is_float_leaf(leaf):
    if isinstance(leaf, bool) or isinstance(leaf, numbers.Integral):
        return False
    if isinstance(leaf, numbers.Real):
        return True
    return np.issubdtype(np.result_type(leaf), np.inexact)


def differentiable_input(leaf, kind):
    if type(leaf) is Array and leaf.dtype.kind in "fc":
        return leaf
    dtype = np.result_type(leaf) if not isinstance(leaf, numbers.Number) else None
    if isinstance(leaf, bool) or isinstance(leaf, numbers.Integral) or (
            dtype is not None and not np.issubdtype(dtype, np.inexact)):
        shown = "int" if dtype is None else dtype.name
        raise TypeError(
            f"{kind} requires real-valued inputs (a float dtype), but got {shown}. "
            f"Pass a float (e.g. 3.0 instead of 3, or x.astype(jnp.float32)), or move the integer "
            f"argument out of argnums.")
    if isinstance(leaf, np.generic):
        return wrap(np.asarray(leaf))          # a NumPy scalar keeps its dtype (float64 stays float64)
    if isinstance(leaf, numbers.Real):
        return wrap(np.float32(leaf))
    if isinstance(leaf, np.ndarray) and type(leaf) is not Array:
        return wrap(leaf)
    return leaf


def check_callable(fun, kind):
    if not callable(fun):
        raise TypeError(f"{kind} expects a function, got {type(fun).__name__}: {fun!r}")


def name_of(fun):
    return getattr(fun, "__name__", repr(fun))
