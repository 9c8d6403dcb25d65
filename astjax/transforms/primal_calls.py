"""The user functions a derivative's primal sweep calls run as astjax normalized them, never as written.

The generated code holds astjax Arrays where the original program may hold NumPy arrays. A user function
called as written receives them and follows JAX's semantics, not NumPy's: `y[0] = v` into a copy fails
("astjax arrays are immutable"), and `type(v) is np.ndarray` takes the other branch, so the value the sweep
carries on (and the gradient computed from it) silently differs from the program's. Its normalized version
(Derivation.primal: NumPy's item assignment written as functional updates, `type(v)` checked at run time) keeps
the program's semantics or refuses, as the derivative of the same call does.

    y = helper(x)        ->   y = primal_helper(x)
"""
import gast

from ..analyses.classify import classify
from ..codegen.node_walk import walk

__all__ = ["redirect_user_calls"]


def redirect_user_calls(stmts, context, callee_primal):
    """Point each call of a module-level user function in `stmts` at its normalized version (in place)."""
    from .derivation import _gradient_transform
    for node in [n for stmt in stmts for n in walk(stmt) if isinstance(n, gast.Call)]:
        if isinstance(node.func, gast.Name) and context.resolver.is_local(node.func.id):
            continue
        app = classify(node, context.resolver)
        callee = app.callee if app.kind == "function" else None
        if (callee is None or getattr(callee, "__astjax_function_source__", None) is not None
                or getattr(callee, "__astjax_transform__", None) is not None or _gradient_transform(callee) is not None
                or getattr(callee, "__astjax_static_call__", False)):
            continue      # generated code (normalized already), or a transformation (its own wrapper)
        label = callee_primal(callee, (), node)
        node.func = gast.Name(id=label, ctx=gast.Load(), annotation=None, type_comment=None)
