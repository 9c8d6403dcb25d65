"""Functions defined inside the transformed function are inlined where they are called.

    def f(x):                          def f(x):
        def scaled(t):                     scaled_t = x
            return t * c                   _t1 = scaled_t * c
        sq = lambda t: t * t      ->       y = _t1 ...
        return sq(scaled(x))

A local function may read the enclosing function's variables, which may need
derivatives themselves; inlining its body (its own names prefixed with its
name) keeps those dependencies visible to the derivative passes. This pass
lifts the definitions out of the body and normalizes them; the
one-primitive-per-statement pass inlines each call.
"""
import gast

from .base import Pass, copy_location

__all__ = ["LocalFunctions"]


class LocalFunctions(Pass):
    """Collect `def g(...)` and `g = lambda ...` from the body into `function.local_functions`."""

    def run(self, node):
        from . import AugmentedAssignment, ControlFlow, MethodCalls, TupleAssignment
        local = {}
        body = []
        for stmt in node.body:
            if isinstance(stmt, gast.FunctionDef):
                local[stmt.name] = stmt
                continue
            if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                    and isinstance(stmt.value, gast.Lambda)):
                lam = stmt.value
                ret = copy_location(gast.Return(value=lam.body), lam.body)
                local[stmt.targets[0].id] = copy_location(
                    gast.FunctionDef(name=stmt.targets[0].id, args=lam.args, body=[ret], decorator_list=[],
                                     returns=None, type_comment=None, type_params=[]), stmt)
                continue
            body.append(stmt)
        for name, fdef in list(local.items()):
            if fdef.args.vararg or fdef.args.kwarg or fdef.args.kwonlyargs or fdef.args.defaults:
                raise self.error(f"local function `{name}` may only take plain positional parameters", fdef,
                                 hint="define it at module level to use defaults, *args or keywords.")
            for pass_class in (MethodCalls, AugmentedAssignment, TupleAssignment, ControlFlow):
                fdef = pass_class(self.context).run(fdef)
            local[name] = fdef
        node.body = body
        node.local_functions = local
        return node
