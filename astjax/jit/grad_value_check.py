"""jit(grad(f)) without computing f's value, where grad's check of it is decided per signature.

grad runs value_and_grad and checks the value (one float scalar, else TypeError, astjax/api.py's
_check_scalar_output), then drops it. Under jit that value is real work: for `sum(sigmoid(x))` the
value's float64 partial sums were a quarter of the compiled gradient's time. The gradient-only
generated function (mode "grad", the one grad(grad(f)) composes from) computes no value.

The check may be skipped only where its outcome cannot change between calls of one signature:

- f (the user's function, read as written) is straight-line code ending in `return jnp.sum(e)` with
  no other argument: its value is an array of rank 0, whatever the data;
- f and every user function it calls have no `if`, loop, conditional expression, `try`,
  comprehension, lambda or astjax.lax call, and every call is of astjax, NumPy, a builtin or such a
  function: the dtype of `e`, hence of the value, is a function of the argument types alone (NumPy's
  and JAX's dtype rules read no values);
- f ran once on this signature's first arguments (the reference backend, as the first call of any
  jitted signature runs it) and its value passed the check.

Anything else (has_aux, keyword or bound arguments, *args, a closure, the GPU backend, a value that
failed the check, a run that raised) runs value_and_grad and the check as before, so a non-scalar or
integer output raises grad's own TypeError. The verdicts are kept per generated gradient, which is
built again when a global or closure value f read is rebound.
"""
import builtins
import inspect
import weakref

import gast

from ..array import Array
from ..codegen.node_walk import walk

__all__ = ["gradient_without_value"]

_VERDICTS = weakref.WeakKeyDictionary()     # generated gradient -> {signature: the check passes}
_STATIC = weakref.WeakKeyDictionary()       # user function -> whether its value is a static-rank, static-dtype sum
                                            # (read again whenever its gradient is built again)
_BRANCHING = (gast.If, gast.IfExp, gast.For, gast.While, gast.Try, gast.With, gast.ListComp, gast.SetComp,
              gast.DictComp, gast.GeneratorExp, gast.Lambda, gast.FunctionDef, gast.Yield, gast.YieldFrom,
              gast.Global, gast.Nonlocal, gast.Delete, gast.Raise, gast.Assert)


def gradient_without_value(transform, args, kwargs, active):
    """Inside a CPU jit (`active`, jit/api.py's swaps), grad's gradients from the gradient-only
    generated function when the value's check is known to pass for this signature; else None."""
    if (active is None or kwargs or transform.has_aux or transform.packing is not None or transform.leading
            or transform.keywords or getattr(getattr(active, "factory", None), "__self__", None) is None
            or active.factory.__self__.backend != "cpu"):
        return None
    fun = transform.fun
    if not inspect.isfunction(fun):
        return None
    if fun not in _STATIC:
        _STATIC[fun] = _static_scalar_value(fun)
    if not _STATIC[fun]:
        return None                         # value_and_grad, without deriving the gradient-only function
    gradient = transform.generated("grad")
    verdicts = _VERDICTS.get(gradient)
    if verdicts is None:                    # first use, or built again since (a global f reads was rebound)
        _STATIC[fun] = _static_scalar_value(fun)
        if not _STATIC[fun]:
            return None
        verdicts = _VERDICTS[gradient] = {}
    from .compiled import _signature
    try:
        key = tuple(_signature(a) for a in args)
    except Exception:        # noqa: BLE001 -- an argument jit does not key: the usual path says what it is
        return None
    if key not in verdicts:
        try:
            value = fun(*args)              # the reference backend, once per signature
        except Exception:    # noqa: BLE001 -- the usual path raises it where the user expects it
            return None
        verdicts[key] = type(value) is Array and value.ndim == 0 and value.dtype.kind == "f"
    if not verdicts[key]:
        return None
    return transform.call("grad", args, kwargs)


def _static_scalar_value(fun):
    """Whether `fun`'s value is `jnp.sum(e)` of static rank 0 and a dtype the argument types decide."""
    try:
        return _ends_in_a_full_sum(fun) and _straight_line(fun, set())
    except Exception:        # noqa: BLE001 -- anything unexpected: not known static
        return False


def _node(fun):
    from ..frontend.parse import function_source
    return function_source(fun).node


def _plain_function(fun):
    return (inspect.isfunction(fun) and not hasattr(fun, "__astjax_transform__") and fun.__closure__ is None
            and not fun.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS))


def _ends_in_a_full_sum(fun):
    if not _plain_function(fun):
        return False
    body = _node(fun).body
    if not body or not isinstance(body[-1], gast.Return) or body[-1].value is None:
        return False
    value = body[-1].value
    if not (isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords
            and not isinstance(value.args[0], gast.Starred)):
        return False
    import astjax.numpy as jnp
    return _resolve(value.func, fun.__globals__, _bound_here(fun)) is jnp.sum


def _straight_line(fun, seen):
    """No branch or loop in `fun` or the user functions it calls, statements only assignments and a
    final return, and every call of astjax, NumPy, a builtin or such a function."""
    if fun in seen:
        return True
    seen.add(fun)
    if not _plain_function(fun):
        return False
    node = _node(fun)
    for i, stmt in enumerate(node.body):
        docstring = i == 0 and isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant)
        if not (docstring or isinstance(stmt, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return))):
            return False
    local = _bound_here(fun)
    for n in walk(node):
        if n is not node and isinstance(n, _BRANCHING):
            return False
        if isinstance(n, gast.Call):
            callee = _resolve(n.func, fun.__globals__, local)
            if callee is _UNKNOWN:
                return False
            module = getattr(callee, "__module__", None) or ""
            if inspect.isfunction(callee) and not module.startswith(("astjax.", "numpy")):
                if not _straight_line(callee, seen):
                    return False
            elif module.startswith("astjax.lax") or not (
                    module.split(".")[0] in ("astjax", "numpy", "builtins", "math")
                    or callee in vars(builtins).values()):
                return False
    return True


_UNKNOWN = object()


def _bound_here(fun):
    """The names `fun` binds itself (parameters and assignment targets): a call through one of them
    (`jnp = other; jnp.sum(e)`) is not the global of that name."""
    return {n.id for n in walk(_node(fun)) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}


def _resolve(func, namespace, local=()):
    """The object a call's function names (a global, a builtin, or attributes of one), or _UNKNOWN
    (also for a name the function binds itself, in `local`)."""
    chain = []
    while isinstance(func, gast.Attribute):
        chain.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or func.id in local:
        return _UNKNOWN
    if func.id in namespace:
        obj = namespace[func.id]
    elif hasattr(builtins, func.id):
        obj = getattr(builtins, func.id)
    else:
        return _UNKNOWN
    for attr in reversed(chain):
        obj = getattr(obj, attr, _UNKNOWN)
        if obj is _UNKNOWN:
            return _UNKNOWN
    if isinstance(obj, type(inspect)) and obj.__name__.startswith("astjax.lax"):
        return _UNKNOWN
    return obj


