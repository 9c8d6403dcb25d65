"""The name normalization gave a returned expression is a temporary, not the user's.

    exp_a = jnp.exp(a)                  ->      exp_a = jnp.exp(a)
    out = jnp.exp(exp_a)                        return jnp.exp(exp_a) * exp_a
    return out * exp_a

`return jnp.exp(jnp.exp(a))` is normalized to `out = ...; return out`, and the derivative reads `out`
(the derivative of exp is exp). The user never wrote `out`; a teacher writes the expression where it is
read. `out` (or `out2`, ...) is treated as a derivation's temporary, with its adjoint, when the user's
function (found in the user's file from the `# from line N` comments) names no such thing, and no
tangent `dout` stands beside it (forward mode prints each tangent line beside its primal line).
"""
import ast
import linecache
import re

import gast
from ..codegen.node_walk import walk

__all__ = ["returned_names"]

_RETURNED = re.compile(r"out\d*")


def returned_names(function_node, namespaces):
    """The `out` names of `function_node` the user's function does not have (an empty set if unsure)."""
    candidates = {n.id for n in walk(function_node) if isinstance(n, gast.Name)
                  and not isinstance(n.ctx, gast.Load) and _RETURNED.fullmatch(n.id)}
    if not candidates:
        return set()
    user = _user_names(function_node, namespaces)
    if user is None:
        return set()
    tangents = {n.id for n in walk(function_node) if isinstance(n, gast.Name) and n.id.startswith("d")}
    # a forward mode keeps `out = ...` beside its tangent `dout = ...` (a tangent line beside its primal)
    return {name for name in candidates - user if "d" + name not in tangents}


def _user_names(function_node, namespaces):
    from ..errors import _user_file
    lines = [int(m.group(1)) for n in walk(function_node) if _is_comment(n)
             for m in [re.match(r"from line (\d+):", str(n.value.args[0].value))] if m]
    filename = None
    for namespace in namespaces.values():
        fn = (namespace or {}).get(function_node.name)
        source = getattr(fn, "__astjax_function_source__", None)
        if source is not None and source.filename:
            filename = _user_file(source.filename)
            break
    if not lines or not filename:
        return None
    try:
        tree = ast.parse("".join(linecache.getlines(filename)))
    except (SyntaxError, ValueError):
        return None
    enclosing = [d for d in walk(tree) if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and d.lineno <= min(lines) and max(lines) <= d.end_lineno]
    if not enclosing:
        return None
    user = min(enclosing, key=lambda d: d.end_lineno - d.lineno)
    return {n.id for n in walk(user) if isinstance(n, ast.Name)} | {a.arg for a in walk(user)
                                                                       if isinstance(a, ast.arg)}


def _is_comment(node):
    return (isinstance(node, gast.Expr) and isinstance(node.value, gast.Call)
            and isinstance(node.value.func, gast.Name) and node.value.func.id == "__comment__"
            and node.value.args and isinstance(node.value.args[0], gast.Constant))
