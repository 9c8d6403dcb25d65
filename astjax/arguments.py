"""What users pass to the transformations: checked, converted, and split into function and bound arguments.

Differentiated Python floats become float32 arrays (JAX's default); integers
are refused unless `allow_int`; a bound method, `functools.partial` or
callable object is split into the function whose source is read and the
arguments bound to it.
"""
import functools
import inspect
import numbers
import os
import types

import numpy as np

from .array import Array, wrap
from .dtypes import float0

__all__ = ["argnums_as_ints", "split_callable", "differentiable_input", "refuse_complex", "is_float_leaf", "check_callable", "name_of", "FLOAT0",
           "Packing", "library_trampoline"]

FLOAT0 = float0      # JAX's dtype for the "gradient" of an integer


def split_callable(fun, bind_objects=True):
    """(a function with source, leading arguments, keywords) for what a user may pass.

    A bound method of a user class is its function with `self` bound to the object (`bind_objects`; else,
    and for other methods, its function with `self` first); a `functools.partial` adds its arguments; an
    object with `__call__` is that method bound to it.
    """
    bound = getattr(fun, "__astjax_bound__", None)      # jit of a bound method or partial (jit/api.py)
    if bound is not None:
        inner, leading, keywords = bound
        return inner, tuple(leading), dict(keywords)
    if inspect.ismethod(fun):
        special = _bound_to_its_object(fun) if bind_objects else None
        if special is not None:
            return special, (), {}
        inner, leading, keywords = split_callable(fun.__func__, bind_objects)
        return inner, leading + (fun.__self__,), keywords
    if isinstance(fun, functools.partial):
        inner, leading, keywords = split_callable(fun.func, bind_objects)
        return inner, leading + tuple(fun.args), {**keywords, **(fun.keywords or {})}
    if _is_library_function(fun):
        return library_trampoline(fun), (), {}
    if (not inspect.isfunction(fun) and not hasattr(fun, "__astjax_transform__") and not _is_custom(fun)
            and inspect.isfunction(getattr(type(fun), "__call__", None))):
        special = _bound_to_its_object(types.MethodType(type(fun).__call__, fun)) if bind_objects else None
        return (special, (), {}) if special is not None else (type(fun).__call__, (fun,), {})
    return wrapper_trampoline(fun) or fun, (), {}


def _bound_to_its_object(method):
    """A user method bound to an object (`model.loss`) whose code names a method of the object's class
    (`self.predict(w)`): its function with `self` bound to that object, as a call `model.loss(w)` inside a
    transformed function is (frontend/normalize/function_arguments.py), so that `self.predict` is known when
    transforming (`self.scale` is still read when it runs). Else None: the function with `self` as its
    first argument, one derivation for every object of the class (a bound function is built per object)."""
    from .frontend.normalize.function_arguments import _bound_to_receiver, _user_bound_method
    if not _user_bound_method(method) or not _names_a_method(method.__func__.__code__, method.__self__):
        return None
    return _bound_to_receiver(method.__func__, method.__self__)


def _names_a_method(code, obj):
    """Whether `code` (or a function or comprehension inside it) names a function attribute of obj's class."""
    owner = obj if isinstance(obj, type) else type(obj)
    if any(isinstance(inspect.getattr_static(owner, n, None), (types.FunctionType, staticmethod, classmethod))
           for n in code.co_names):
        return True
    return any(_names_a_method(c, obj) for c in code.co_consts if inspect.iscode(c))


_WRAPPER_TRAMPOLINES = {}


def wrapper_trampoline(fun):
    """For a decorator's `wrapper(*args, **kwargs)` around `def f(x, y)` (functools.wraps): a generated
    `def f(x, y): return _wrapper(x, y)`, so the wrapper is transformed as called with those arguments
    (frontend/normalize/call_signatures.py binds its *args and **kwargs). None for anything else, or
    when the wrapped function's parameters are not all plain ones without defaults."""
    if (not inspect.isfunction(fun) or not hasattr(fun, "__wrapped__") or hasattr(fun, "__astjax_function_source__")
            or hasattr(fun, "__astjax_transform__") or os.path.abspath(fun.__code__.co_filename).startswith(
                os.path.dirname(os.path.abspath(__file__)) + os.sep)):
        return None
    if not (fun.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS)):
        return None
    try:
        params = list(inspect.signature(fun).parameters.values())      # the wrapped function's
    except (TypeError, ValueError):
        return None
    if any(p.kind is not p.POSITIONAL_OR_KEYWORD or p.default is not p.empty or not p.name.isidentifier()
           or p.name == "_wrapper" for p in params):
        return None
    found = _WRAPPER_TRAMPOLINES.get(id(fun))
    if found is not None and found[0] is fun:
        return found[1]
    import gast

    from .backends.python import compile_function
    name = fun.__name__ if fun.__name__.isidentifier() else "f"
    names = ", ".join(p.name for p in params)
    text = f"def {name}({names}):\n    return _wrapper({names})\n"
    trampoline, _ = compile_function(gast.parse(text).body[0], {"_wrapper": fun}, label=f"wrapper_{name}")
    _WRAPPER_TRAMPOLINES[id(fun)] = (fun, trampoline)
    return trampoline


def _is_library_function(fun):
    """An astjax.numpy / astjax.lax / NumPy function passed directly (`grad(jnp.sin)`): a primitive, not user code."""
    if hasattr(fun, "__astjax_transform__") or hasattr(fun, "__astjax_function_source__") or _is_custom(fun):
        return False
    if isinstance(fun, np.ufunc):
        return True
    if not callable(fun) or inspect.ismethod(fun) or isinstance(fun, functools.partial):
        return False
    from .analyses.classify import is_library
    from .rules import lookup_callable
    if is_library(fun):         # numpy, astjax.numpy, astjax.lax, ...: not astjax.demo's Python functions
        return True
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
    """Whether a pytree leaf is a floating (or complex) number or array. A string is never one
    (np.result_type would read "f8" or "double_it" as a dtype's name)."""
    if leaf is None or isinstance(leaf, (bool, str, bytes, numbers.Integral)):
        return False
    if isinstance(leaf, numbers.Real):
        return True
    dtype = getattr(leaf, "dtype", None)
    if not isinstance(dtype, np.dtype):
        try:
            dtype = np.asarray(leaf).dtype
        except Exception:       # noqa: BLE001 -- an object NumPy cannot hold is not a float leaf
            return False
    return np.issubdtype(dtype, np.inexact)


def differentiable_input(leaf, kind):
    if type(leaf) is Array and leaf.dtype.kind == "f":
        return leaf
    if is_complex(leaf):
        raise TypeError(_COMPLEX.format(kind=kind))
    dtype = None if isinstance(leaf, numbers.Number) else _leaf_dtype(leaf, kind)
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


def _leaf_dtype(leaf, kind):
    """The dtype of an argument's leaf; an object that is neither a number, an array nor a registered pytree
    (a dataclass, a plain class holding arrays) is refused as JAX refuses it, not with NumPy's own TypeError."""
    try:
        return np.result_type(leaf)
    except TypeError:
        raise TypeError(
            f"{kind}: an argument holds a {type(leaf).__name__}, which is not an array, a number or a "
            f"registered pytree, so astjax cannot find the arrays inside it to differentiate. Pass its arrays "
            f"(a tuple, list or dict of them, or a NamedTuple), or register {type(leaf).__name__} with "
            f"astjax.tree_util.register_pytree_node(_class).") from None


_COMPLEX = ("{kind} requires real-valued inputs (a float dtype), but got a complex value: astjax's derivative "
            "rules are for real numbers and it has no complex differentiation (no holomorphic=True). "
            "Differentiate the real and imaginary parts as separate real arguments.")


def is_complex(leaf):
    return isinstance(leaf, complex) or (isinstance(leaf, (np.ndarray, np.generic)) and leaf.dtype.kind == "c")


def refuse_complex(args, kind):
    """A complex value in any argument of a derivative is refused: the rules assume real numbers, so
    a complex constant mixed into the computation would give a wrong derivative, not an error."""
    for arg in args:
        if type(arg) in (float, int, bool):
            continue
        if isinstance(arg, (np.ndarray, np.generic)):      # the common case, without walking a tree
            leaves = (arg,)
        else:
            from . import tree_util
            leaves = tree_util.tree_leaves(arg)
        if any(is_complex(leaf) for leaf in leaves):
            raise TypeError(_COMPLEX.format(kind=kind))


def argnums_as_ints(argnums):
    """`argnums` with each position a Python int (a NumPy integer counts, as `operator.index` reads it in JAX);
    anything else (a bool, a float, a string) is left as given, for the caller's TypeError."""
    def position(a):
        return int(a) if isinstance(a, np.integer) else a
    if isinstance(argnums, (tuple, list)):
        return tuple(position(a) for a in argnums)
    return position(argnums)


def check_callable(fun, kind):
    if not callable(fun):
        raise TypeError(f"{kind} expects a function, got {type(fun).__name__}: {fun!r}")


def name_of(fun):
    return getattr(fun, "__name__", repr(fun))


class Packing:
    """How a function with `*args` or keyword-only parameters is differentiated.

    The function is transformed as if `*inputs` were one ordinary parameter
    holding a tuple and each keyword-only parameter an ordinary one after it:

        def rnn(params, *inputs, scale=1.0)   ->   def rnn(params, inputs, scale)

    `pack` turns the user's call into that call; argnums count the user's
    positional arguments as JAX does (argnums=1 is the first of `*inputs`).
    """

    def __init__(self, fun):
        self.fun = fun
        self.signature = inspect.signature(fun)
        params = list(self.signature.parameters.values())
        if any(p.kind is p.VAR_KEYWORD for p in params):
            raise TypeError(f"{name_of(fun)} has a **kwargs parameter, which astjax cannot transform yet; "
                            f"list the keyword parameters explicitly.")
        self.positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        var = [p.name for p in params if p.kind is p.VAR_POSITIONAL]
        self.vararg = var[0] if var else None
        self.keyword_only = [p.name for p in params if p.kind is p.KEYWORD_ONLY]
        self.source = _packed_source(fun)

    @staticmethod
    def needed(fun):
        """Whether `fun`'s signature (a transformed function's: its user function's) has *args or
        keyword-only parameters."""
        if hasattr(fun, "__astjax_function_source__") or not callable(fun):
            return False
        transform = getattr(fun, "__astjax_transform__", None)
        if transform is not None:           # a transformed function: as its user function (not a library one)
            inner = getattr(transform, "fun", None)
            return inner is not None and inner is not fun and Packing.needed(inner)
        try:
            params = inspect.signature(fun).parameters.values()
        except (TypeError, ValueError):
            return False
        return any(p.kind in (p.VAR_POSITIONAL, p.KEYWORD_ONLY) for p in params)

    def pack(self, args, kwargs):
        """The packed argument list for the user's call `fun(*args, **kwargs)`."""
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        packed = [bound.arguments[n] for n in self.positional]
        if self.vararg is not None:
            packed.append(tuple(bound.arguments.get(self.vararg, ())))
        packed += [bound.arguments[n] for n in self.keyword_only]
        return packed

    def position(self, argnum, count):
        """(packed parameter, item of the *args tuple or None) of the user's positional argument `argnum`."""
        if argnum < 0:
            argnum += count
        if argnum < len(self.positional):
            return argnum, None
        if self.vararg is None or argnum >= count:
            raise TypeError(f"argnums {argnum} is out of range for {name_of(self.fun)} called with {count} "
                            f"positional arguments")
        return len(self.positional), argnum - len(self.positional)


class _PackedFunction:
    """Stands for a function whose parameters were packed: carries the rewritten source."""

    def __init__(self, fun, source):
        self.fun = fun
        self.__astjax_function_source__ = source
        self.__name__ = getattr(fun, "__name__", "f")

    def __call__(self, *args):
        raise TypeError("internal: a packed function is only transformed, never called")


_PACKED = {}


def _packed_source(fun):
    """A callable carrying the source of `fun` with *args and keyword-only parameters made ordinary."""
    import copy

    from .frontend.parse import function_source
    from .frontend.plain_signature import ordinary_parameters
    key = id(fun)
    if key in _PACKED and _PACKED[key][0] is fun:
        return _PACKED[key][1]
    original = function_source(fun)
    node = copy.deepcopy(original.node)
    arguments = node.args
    params = ordinary_parameters(arguments, with_kwarg=False)
    arguments.posonlyargs, arguments.args, arguments.vararg = [], params, None
    arguments.kwonlyargs, arguments.kw_defaults, arguments.defaults = [], [], []
    source = copy.copy(original)
    source.node = node
    packed = _PackedFunction(fun, source)
    _PACKED[key] = (fun, packed)
    return packed
