"""What lax.reduce and the multi-operand lax.sort need to know before they compute (non-differentiable helpers).

`computation_kind` names the monoid of lax.reduce's `computation`: it must be lax.add, lax.mul, lax.max or lax.min
(or jnp's / NumPy's / operator's function of the same meaning), or a lambda or one-line def whose result is one of
those applied to its two parameters (`lambda a, b: a + b`, `lambda x, y: lax.max(x, y)`). Anything else is refused:
astjax computes lax.reduce by its monoid, never by calling `computation`, so a function it cannot read would give a
wrong number. `lexsort_order` is the stable permutation that sorts several operands by their first `num_keys`.
"""
import ast
import functools
import inspect
import linecache
import operator

import numpy as np

from ..array import wrap
from ..errors import AstjaxError
from ..numpy._promote import nd

__all__ = ["computation_kind", "reduce_starts_at_identity", "lexsort_order", "KINDS"]

KINDS = ("add", "mul", "max", "min")


class UnsupportedComputation(AstjaxError, NotImplementedError):
    """lax.reduce's computation is not one astjax can read as add, mul, max or min."""


@functools.lru_cache(maxsize=None)
def _known():
    from .. import numpy as jnp
    table = {}
    for kind, functions in (("add", (jnp.add, np.add, operator.add)), ("mul", (jnp.multiply, np.multiply, operator.mul)),
                            ("max", (jnp.maximum, np.maximum)), ("min", (jnp.minimum, np.minimum))):
        for fn in functions:
            table[id(fn)] = (fn, kind)
    return table


def _by_identity(fn):
    found = _known().get(id(fn))
    return found[1] if found is not None and found[0] is fn else None


_OPERATORS = {ast.Add: "add", ast.Mult: "mul"}


def _function_nodes(fn):
    """The Lambda / FunctionDef nodes that may be fn's source (same first line, same parameters)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return []
    lines = linecache.getlines(code.co_filename)
    if not lines:
        return []
    try:
        tree = ast.parse("".join(lines))
    except SyntaxError:
        return []
    params = code.co_varnames[:code.co_argcount]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Lambda, ast.FunctionDef)) and tuple(a.arg for a in node.args.args) == params:
            first = node.lineno if isinstance(node, ast.Lambda) else min([node.lineno] + [d.lineno for d in
                                                                                          node.decorator_list])
            if first == code.co_firstlineno or node.lineno == code.co_firstlineno:
                found.append(node)
    return found


def _resolve(node, fn):
    """The object a Name / Attribute chain names in fn's scope (closure, globals, builtins), else None."""
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, fn)
        return getattr(base, node.attr, None) if base is not None else None
    if isinstance(node, ast.Name):
        code = fn.__code__
        if fn.__closure__ and node.id in code.co_freevars:
            try:
                return fn.__closure__[code.co_freevars.index(node.id)].cell_contents
            except ValueError:
                return None
        if node.id in fn.__globals__:
            return fn.__globals__[node.id]
        return getattr(__import__("builtins"), node.id, None)
    return None


def _expression_kind(expr, params, fn):
    """add/mul/max/min when `expr` applies one of them to the two parameters (in either order), else None."""
    if isinstance(expr, ast.BinOp) and type(expr.op) in _OPERATORS:
        operands = (expr.left, expr.right)
        kind = _OPERATORS[type(expr.op)]
    elif isinstance(expr, ast.Call) and not expr.keywords and len(expr.args) == 2:
        operands = tuple(expr.args)
        kind = _by_identity(_resolve(expr.func, fn))
    else:
        return None
    names = {o.id for o in operands if isinstance(o, ast.Name)}
    if kind is None or len(names) != 2 or names != set(params):
        return None
    return kind


def _read_kind(fn):
    nodes = _function_nodes(fn)
    kinds = set()
    for node in nodes:
        if isinstance(node, ast.Lambda):
            body = node.body
        else:
            statements = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
            if len(statements) != 1 or not isinstance(statements[0], ast.Return) or statements[0].value is None:
                return None
            body = statements[0].value
        kinds.add(_expression_kind(body, [a.arg for a in node.args.args], fn))
    return kinds.pop() if len(kinds) == 1 else None


def computation_kind(computation):
    """0, 1, 2, 3 for a computation that adds, multiplies, takes the maximum or the minimum (see the module doc)."""
    kind = _by_identity(computation)
    if kind is None and inspect.isfunction(computation) and computation.__code__.co_argcount == 2:
        kind = _read_kind(computation)
    if kind is None:
        raise UnsupportedComputation(
            f"astjax computes lax.reduce for the computations lax.add, lax.mul, lax.max and lax.min (or a lambda "
            f"applying one of them to its two arguments, such as `lambda a, b: a + b`); it cannot read "
            f"{getattr(computation, '__name__', computation)!r} as one of them. Use jnp.sum / jnp.prod / jnp.max / "
            f"jnp.min, or a lax.reduce with one of those computations")
    return KINDS.index(kind)


def reduce_starts_at_identity(kind, init_value, operand):
    """0 when lax.reduce's init value is not its computation's identity (0, 1, -inf / the dtype's least, +inf /
    its greatest), 1 when it is and is a Python number (a constant), 2 when it is an array (it may carry a
    derivative: the reduction then combines it once, its natural meaning). An add or mul reduction from anything
    but its identity is refused: XLA may apply the init value any number of times (JAX's
    lax.reduce(ones(1000), 1.0, lax.add, (0,)) gives 1033)."""
    if isinstance(operand, (tuple, list, dict)) or isinstance(init_value, (tuple, list, dict)):
        raise UnsupportedComputation("astjax's lax.reduce reduces one array (a tuple of operands with a joint "
                                     "computation is not supported): reduce each, or use jnp.argmax for an "
                                     "arg-reduction")
    init = np.asarray(nd(init_value))
    if init.ndim != 0:
        raise UnsupportedComputation("lax.reduce: astjax takes one scalar init value per operand")
    dtype = np.asarray(nd(operand)).dtype
    if kind in (0, 1):
        if not np.all(init == (0 if kind == 0 else 1)):
            raise UnsupportedComputation(
                f"lax.reduce with lax.{KINDS[kind]} from init_value {init.item()!r}: the init value must be the "
                f"identity ({0 if kind == 0 else 1}), since XLA may apply it any number of times (its result is not "
                f"defined otherwise); combine it outside: `init + lax.reduce(x, 0.0, lax.add, dims)` "
                f"(`init * lax.reduce(x, 1.0, lax.mul, dims)`)")
        return _identity_code(init_value)
    if dtype.kind == "f":
        extreme = -np.inf if kind == 2 else np.inf
    elif dtype.kind in "iu":
        extreme = np.iinfo(dtype).min if kind == 2 else np.iinfo(dtype).max
    elif dtype.kind == "b":
        extreme = False if kind == 2 else True
    else:
        return 0
    return _identity_code(init_value) if bool(init == extreme) else 0


def _identity_code(init_value):
    return 1 if isinstance(init_value, (bool, int, float)) else 2


def lexsort_order(keys, dimension):
    """The stable permutation along `dimension` that sorts by keys[0], then keys[1], ... (NaNs last), as int64."""
    arrays = [np.moveaxis(np.asarray(nd(k)), dimension, -1) for k in keys]
    if len({a.shape for a in arrays}) != 1 or arrays[0].ndim == 0:
        raise ValueError("lax.sort: the operands must be arrays of one shape (at least 1-D)")
    order = np.lexsort(tuple(reversed(arrays)), axis=-1)
    return wrap(np.moveaxis(order, -1, dimension).astype(np.int64))
