"""Inline straight-line generated callees, so that fusion sees through the call.

A derivative calls the adjoint of each user function it differentiates, and that adjoint is its
own compiled function: `bx = vjp_sigmoid(unreduce(bout, sigmoid_x, ...), x)` materializes the
spread seed (a full array of one number) just to pass it in, and `sigmoid_x = jit_sigmoid(x)`
stores an array that a fused sum could recompute. A callee whose body is only assignments and a
return is written into the caller instead (its locals renamed), and the fusion pass then reads the
seed as one scalar and recomputes what it needs:

    bx = vjp_sigmoid(unreduce(np.float32(bout), sigmoid_x, None, False, None), x)
->
    _vjp_sigmoid_1_bout = unreduce(np.float32(bout), sigmoid_x, None, False, None)
    _vjp_sigmoid_1_x = x
    _vjp_sigmoid_1_bx = _vjp_sigmoid_1_bout * (1.0 / (1.0 + jnp.exp(-_vjp_sigmoid_1_x))) / ...
    bx = _vjp_sigmoid_1_bx

A call of the user's own function (`sigmoid_x = sigmoid(x)` in a derivative's primal sweep) is
inlined the same way, from the normalized version jit would otherwise compile as `jit_sigmoid`: then
`value = jnp.sum(sigmoid_x)` fuses into one pass over x, and the adjoint's loop reads x's shape
instead of a stored sigmoid(x). Its types come from running that version on the arguments the user
function first received, so each argument must be a name holding exactly the type its parameter held.

A parameter the callee never assigns, passed a plain name, is replaced by that name (no copy
`_f_1_x = x`): two inlined callees reading the same array then read it through one name, and a
fused loop reads it once.

Only when it cannot change the meaning: the callee takes positional parameters only, every local
held one type in every call the reference run saw (a callee called with several signatures stays a
call: Numba specializes it per signature), and every global it reads is the same object in the
caller's namespace. The inlined lines take the call's line number, so errors name the call.
"""
import copy

import gast

from .known_ranks import pruned_for_inlining
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["inline_callees"]

_MISSING = object()
_DEPTH = 4


def inline_callees(node, context):
    """Inline the eligible calls that are whole top-level assignments of `node`."""
    observed = getattr(context.types, "observed", None)
    if observed is None:
        return
    taken = {n.id for n in walk(node) if isinstance(n, gast.Name)}
    body = []
    pending = [(stmt, 0) for stmt in node.body]
    while pending:                       # an inlined callee's own calls are inlined in turn (a few levels)
        stmt, depth = pending.pop(0)
        inlined = _inline(stmt, context, observed, taken, body + [stmt] + [s for s, _ in pending]) \
            if depth < _DEPTH else None
        if inlined is None:
            body.append(stmt)
        else:
            pending[:0] = [(s, depth + 1) for s in inlined]
    node.body = body


def _inline(stmt, context, observed, taken, caller):
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.Call) and isinstance(stmt.value.func, gast.Name)
            and not any(isinstance(a, gast.Starred) for a in stmt.value.args)
            and not any(k.arg is None for k in stmt.value.keywords)):
        return None
    callee = context.namespace.get(stmt.value.func.id)
    user_function = _user_primal(callee, observed)
    if user_function is not None:
        callee = user_function
    source = getattr(callee, "__astjax_function_source__", None)
    if source is None or callee is context.generated or getattr(callee, "__globals__", None) is None:
        return None
    fn = pruned_for_inlining(source.node, callee, stmt, caller, context, observed)     # known_ranks.py
    params = [a.id for a in fn.args.args] if all(isinstance(a, gast.Name) for a in fn.args.args) else None
    if stmt.value.keywords:         # `callee(g, a, _batch_size=_B1)`: only a pruned callee, by position
        args = _by_position(stmt.value, params) if fn is not source.node else None
        if args is None:
            return None
        stmt = gast.copy_location(gast.Assign(targets=stmt.targets, value=gast.copy_location(gast.Call(
            func=stmt.value.func, args=args, keywords=[]), stmt.value), type_comment=None), stmt)
    if (params is None or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.posonlyargs
            or len(params) != len(stmt.value.args) or not fn.body or not isinstance(fn.body[-1], gast.Return)
            or fn.body[-1].value is None):
        return None
    assigns = fn.body[:-1]
    if not all(isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)
               for s in assigns):
        return None
    local = set(params) | {s.targets[0].id for s in assigns}
    types = observed.for_code(callee.__code__)
    if not all(len(types.get(name, ())) == 1 for name in local):
        return None
    if user_function is not None and not all(
            isinstance(a, gast.Name) and context.types_of(a.id) == types[p] for p, a in zip(params, stmt.value.args)):
        return None          # its types were learned from another call's arguments
    foreign = {}             # a pruned callee's globals the caller lacks: bound under fresh names
    for n in (n for s in fn.body for n in walk(s)):
        if isinstance(n, gast.Name) and n.id not in local:
            if isinstance(n.ctx, gast.Store):
                return None
            if callee.__globals__.get(n.id, _MISSING) is not context.namespace.get(n.id, _MISSING):
                if fn is source.node or n.id not in callee.__globals__:
                    return None
                foreign[n.id] = callee.__globals__[n.id]
        elif isinstance(n, (gast.Lambda, gast.FunctionDef, gast.ListComp, gast.GeneratorExp, gast.SetComp,
                            gast.DictComp, gast.Global, gast.Nonlocal)):
            return None

    index = 1
    while any(f"_{callee.__name__}_{index}_{name}" in taken for name in local):
        index += 1
    assigned = {n.id for s in assigns for n in walk(s.targets[0]) if isinstance(n, gast.Name)}
    passed = {p: a.id for p, a in zip(params, stmt.value.args)
              if isinstance(a, gast.Name) and p not in assigned}
    renamed = {name: passed.get(name, f"_{callee.__name__}_{index}_{name}") for name in local}
    taken |= set(renamed.values())
    if foreign:
        if context.namespace is context.generated.__globals__:
            context.namespace = dict(context.namespace)        # the passes after this one resolve them
        for name, obj in foreign.items():
            label = context.bind(name, obj, taken | set(context.namespace))
            context.namespace[label] = obj
            renamed[name] = label
            taken.add(label)
    for name, new in renamed.items():
        if name not in passed:
            context.types[new] = set(types[name])
    context.tape_placeholders |= {renamed[n] for n in getattr(callee, "__astjax_tape_placeholders__", ())
                                  if n in renamed}     # the callee's tape declarations stay marked

    class Rename(NodeTransformer):
        def visit_Name(self, n):
            if n.id in renamed:
                n.id = renamed[n.id]
            return n

    out = [gast.Assign(targets=[gast.Name(id=renamed[p], ctx=gast.Store(), annotation=None, type_comment=None)],
                       value=arg, type_comment=None) for p, arg in zip(params, stmt.value.args) if p not in passed]
    out += [Rename().visit(copy.deepcopy(s)) for s in assigns]
    out.append(gast.Assign(targets=stmt.targets, value=Rename().visit(copy.deepcopy(fn.body[-1].value)),
                           type_comment=None))
    for s in out:
        for n in walk(s):
            if hasattr(n, "lineno"):
                gast.copy_location(n, stmt)
    return out


def _by_position(call, params):
    """The call's arguments in parameter order (keywords placed), or None."""
    if params is None:
        return None
    args = list(call.args)
    named = {k.arg: k.value for k in call.keywords}
    if len(args) + len(named) != len(params) or any(p in named for p in params[:len(args)]) \
            or set(named) != set(params[len(args):]):
        return None
    return args + [named[p] for p in params[len(args):]]


def _user_primal(callee, observed):
    """The normalized version of a user function that generated code calls, with its types observed,
    or None when `callee` is not one (or the reference run never called it)."""
    from .numba_calls import _is_user_function, primal_of
    if not callable(callee) or not hasattr(callee, "__code__") or not _is_user_function(callee):
        return None
    try:
        primal = primal_of(callee)
    except Exception:        # noqa: BLE001 -- not transformable: the call stays a call (and is refused there)
        return None
    if callee.__code__ in observed.user_calls:
        from ..compiled import _observe_primal_callee
        _observe_primal_callee(primal, observed)
    # (read back from the disk cache, the record holds the types the first process observed: jit/cache.py)
    return primal if observed.for_code(primal.__code__) else None
