"""Calls of custom_vjp functions: the primal sweep runs `fwd`, the adjoint sweep `bwd`.

    y = f(x)        ->   _r1 = f_fwd(x)        (primal: keeps the residuals)
                         y = _r1[0]            (the adjoint sweep differentiates `f(x)` here)
"""
import copy

import gast

from ...analyses.classify import classify
from ...codegen.templates import assign, name
from ...frontend.normalize.base import copy_location, rewrite_inner_blocks

__all__ = ["split_custom_vjp_calls"]


def split_custom_vjp_calls(stmts, context, bind_name):
    """`y = f(x)` for a custom_vjp f becomes `_r1 = f_fwd(x); y = _r1[0]`: the residuals stay for bwd."""
    out = []
    for stmt in stmts:
        rewrite_inner_blocks(stmt, lambda block: split_custom_vjp_calls(block, context, bind_name))
        if isinstance(stmt, gast.Assign):
            app = classify(stmt.value, context.resolver)
            if app.kind == "custom_vjp" and app.callee.fwd is not None:
                residuals = context.namer.fresh("_r")
                fwd = bind_name(app.callee.fwd, f"{app.callee.__name__}_fwd")
                first = copy_location(assign(residuals, gast.Call(func=name(fwd), args=copy.deepcopy(app.args),
                                                                  keywords=copy.deepcopy(stmt.value.keywords))), stmt)
                first.is_custom_forward = True
                output = copy_location(assign(stmt.targets[0].id, gast.Subscript(
                    value=name(residuals), slice=gast.Constant(value=0, kind=None), ctx=gast.Load())), stmt)
                output.custom_call = stmt.value        # the adjoint sweep differentiates this call
                output.residuals = residuals
                out += [first, output]
                continue
        out.append(stmt)
    return out
