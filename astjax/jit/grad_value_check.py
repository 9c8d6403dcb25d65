"""jit(grad(f)) without computing f's value, where grad's check of it is decided per signature.

grad runs value_and_grad and checks the value (one float scalar, else TypeError, astjax/api.py's
_check_scalar_output), then drops it. Under jit that value is real work: for `sum(sigmoid(x))` the
value's float64 partial sums were a quarter of the compiled gradient's time. The gradient-only
generated function (mode "grad", the one grad(grad(f)) composes from) computes no value.

The check may be skipped only where its outcome cannot change between calls of one signature:

- f's value is `jnp.sum(e)` with no other argument, assigned once at the top of the generated
  value_and_grad function and returned as it is: an array of rank 0, whatever the data;
- that function and every generated function or user function it reaches is straight-line code (no
  `if`, loop, conditional expression, `try`, comprehension or astjax.lax call), so the dtype of `e`,
  hence of the value, is a function of the argument types alone (NumPy's and JAX's dtype rules read no
  values);
- the reference backend ran value_and_grad once on this signature's first arguments and its value
  passed the check.

Anything else (a has_aux function, keyword arguments, bound arguments, the GPU backend, a value that
failed the check, a reference run that raised) runs value_and_grad and the check as before, so a
non-scalar or integer output raises grad's own TypeError.
"""
import weakref

import gast

from ..array import Array
from ..codegen.node_walk import walk

__all__ = ["gradient_without_value"]

_VERDICTS = weakref.WeakKeyDictionary()     # generated value_and_grad -> {signature: the check passes}
_SHAPES = weakref.WeakKeyDictionary()       # generated value_and_grad -> whether its value's rank and dtype are static
_BRANCHING = (gast.If, gast.IfExp, gast.For, gast.While, gast.Try, gast.With, gast.ListComp, gast.SetComp,
              gast.DictComp, gast.GeneratorExp, gast.Lambda, gast.FunctionDef, gast.Yield, gast.YieldFrom)


def gradient_without_value(transform, args, kwargs, active):
    """Inside a CPU jit (`active`, jit/api.py's swaps), grad's gradients from the gradient-only
    generated function when the value's check is known to pass for this signature; else None."""
    if (active is None or kwargs or transform.has_aux or transform.packing is not None or transform.leading
            or transform.keywords or getattr(getattr(active, "factory", None), "__self__", None) is None
            or active.factory.__self__.backend != "cpu"):
        return None
    value_and_grad = transform.generated("value_and_grad")
    if not _static_scalar_value(value_and_grad):
        return None
    from .compiled import _signature
    try:
        key = tuple(_signature(a) for a in args)
    except Exception:        # noqa: BLE001 -- an argument jit does not key: the usual path says what it is
        return None
    verdicts = _VERDICTS.setdefault(value_and_grad, {})
    if key not in verdicts:
        try:
            value, _ = value_and_grad(*args)          # the reference backend, once per signature
        except Exception:    # noqa: BLE001 -- the usual path raises it where the user expects it
            return None
        verdicts[key] = type(value) is Array and value.ndim == 0 and value.dtype.kind == "f"
    if not verdicts[key]:
        return None
    return transform.call("grad", args, kwargs)


def _static_scalar_value(generated):
    """Whether the value `generated` (a value_and_grad function) returns is `jnp.sum(e)` of static rank 0
    and a dtype the argument types decide (see the module doc)."""
    if generated not in _SHAPES:
        try:
            _SHAPES[generated] = _returns_a_full_sum(generated) and all(
                _straight_line(fn) for fn in _reachable(generated))
        except Exception:    # noqa: BLE001 -- anything unexpected: not known static
            _SHAPES[generated] = False
    return _SHAPES[generated]


def _reachable(generated):
    from .cache import reachable_generated
    return reachable_generated(generated)


def _node(fn):
    return fn.__astjax_function_source__.node


def _straight_line(fn):
    """No branch or loop in `fn`, and every call is of astjax, NumPy, a builtin, or a function whose
    generated code is itself among those checked."""
    node = _node(fn)
    for n in walk(node):
        if n is not node and isinstance(n, _BRANCHING):
            return False
        if isinstance(n, gast.Call) and not _known_callee(n.func, fn.__globals__):
            return False
    return True


def _known_callee(func, namespace):
    import builtins
    from .cache import _primal_of_user_function
    if isinstance(func, gast.Name):
        if func.id in namespace:
            obj = namespace[func.id]
        elif hasattr(builtins, func.id):
            return True
        else:
            return False                 # a local: not known
    elif isinstance(func, gast.Attribute) and not _names_lax(func, namespace):
        base = func
        while isinstance(base, gast.Attribute):
            base = base.value
        if not (isinstance(base, gast.Name) and base.id in namespace):
            return False                 # a method of a local value
        obj = namespace[base.id]
        for attr in _attribute_chain(func):
            obj = getattr(obj, attr, None)
    else:
        return False
    if getattr(obj, "__astjax_function_source__", None) is not None:
        return True                      # generated: reachable_generated follows it
    module = getattr(obj, "__module__", None) or getattr(obj, "__name__", "")
    if isinstance(module, str) and (module.split(".")[0] in ("astjax", "numpy", "builtins", "math")):
        return not module.startswith("astjax.lax")
    return _primal_of_user_function(obj) is not None     # a user function: its primal is checked too


def _attribute_chain(func):
    chain = []
    while isinstance(func, gast.Attribute):
        chain.append(func.attr)
        func = func.value
    return reversed(chain)


def _names_lax(func, namespace):
    """Whether a call's function is an attribute of astjax.lax (cond, while_loop, scan... decide at run time)."""
    while isinstance(func, gast.Attribute):
        func = func.value
        if isinstance(func, gast.Name):
            module = namespace.get(func.id)
            return getattr(module, "__name__", "").startswith("astjax.lax")
    return False


def _returns_a_full_sum(generated):
    """`return (value, grads)` last, with `value` bound once, at the top, to a name bound once, at the top,
    to `jnp.sum(e)` (jnp: astjax.numpy)."""
    node = _node(generated)
    body = node.body
    returns = [n for n in walk(node) if isinstance(n, gast.Return)]
    if not body or returns != [body[-1]] or not isinstance(body[-1].value, gast.Tuple) or len(body[-1].value.elts) != 2:
        return False
    value = body[-1].value.elts[0]
    seen = set()
    while isinstance(value, gast.Name) and value.id not in seen:
        seen.add(value.id)
        assigned = _single_top_assignment(node, value.id)
        if assigned is None:
            return False
        value = assigned
    return _is_full_sum(value, generated.__globals__)


def _single_top_assignment(node, name):
    """The value of the one `name = value` at the top of the body, where nothing else binds `name`."""
    binds = [n for n in walk(node) if isinstance(n, gast.Name) and n.id == name
             and isinstance(n.ctx, (gast.Store, gast.Del, gast.Param))]
    tops = [s for s in node.body if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id == name]
    if len(binds) != 1 or len(tops) != 1:
        return None
    return tops[0].value


def _is_full_sum(value, namespace):
    if not (isinstance(value, gast.Call) and len(value.args) == 1 and not value.keywords
            and not isinstance(value.args[0], gast.Starred)):
        return False
    func = value.func
    if not (isinstance(func, gast.Attribute) and func.attr == "sum" and isinstance(func.value, gast.Name)):
        return False
    module = namespace.get(func.value.id)
    return getattr(module, "__name__", None) == "astjax.numpy"
