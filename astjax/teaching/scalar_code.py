"""`unbroadcast` between scalars is the identity, in branches the example did not take too.

    ba = unbroadcast(ba * a, a)      ->      ba = ba * a
    dba = broadcast_like(dt, a, a)   ->      dba = dt          (a second derivative's tangent)

The folds in folds.py know the shapes of the calls the run made; a branch the example did not take
keeps its helpers. Where every argument of the function is a number (a Python float or int, a 0-d
array), which names can only ever hold numbers follows from the code: a name is a scalar if every
assignment to it is arithmetic, a comparison or an elementwise function of scalars and constants (or
a restore from a tape that only ever saves scalars). A generated function the run never called is
folded the same way where every call of it passes numbers (`fold_in_callees`). That is the largest such set (assume every name
a scalar, drop those with an assignment that is not, repeat), which holds by induction over any run.
"""
import gast
import numpy as np
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["fold_scalar_unbroadcasts", "fold_in_callees"]

_ELEMENTWISE = {"sin", "cos", "tan", "exp", "log", "tanh", "sinh", "cosh", "abs", "sqrt", "arctan", "log1p",
                "expm1", "square", "negative", "sign"}


def fold_scalar_unbroadcasts(function_node, arguments):
    """Replace `unbroadcast(g, x)` of scalars by `g` in `function_node` (in place) when every argument
    in `arguments` (name -> value of the run) is a number."""
    if not arguments or not all(_is_number(v) for v in arguments.values()):
        return function_node
    scalars = _scalar_names(function_node, set(arguments))
    if scalars is None:
        return function_node

    class Fold(NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if (_named(node, "unbroadcast") and len(node.args) == 2 and not node.keywords
                    and _scalar(node.args[0], scalars) and _scalar(node.args[1], scalars)):
                return node.args[0]
            if (_named(node, "broadcast_like") and node.args and not node.keywords
                    and all(_scalar(a, scalars) for a in node.args)):
                return node.args[0]       # a tangent of numbers broadcast to their shape, (): itself
            return node
    Fold().visit(function_node)
    return function_node


def fold_in_callees(callee, callers, others=()):
    """Fold a generated function the run never called (`vjp__inner_fn` of a branch not taken) when
    every call of it in `callers` ([(function node, its run's arguments)]) passes numbers only and
    none of the `others` (functions that did not run) calls it."""
    params = [a.id for a in callee.args.args]
    if callee.args.vararg or callee.args.kwarg or callee.args.kwonlyargs:
        return callee
    if any(isinstance(n, gast.Name) and n.id == callee.name for other in others for n in walk(other)):
        return callee
    calls = 0
    for caller, arguments in callers:
        if not arguments or not all(_is_number(v) for v in arguments.values()):
            continue
        scalars = None
        for node in walk(caller):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == callee.name:
                if scalars is None:
                    scalars = _scalar_names(caller, set(arguments))
                if (scalars is None or node.keywords or len(node.args) != len(params)
                        or not all(_scalar(a, scalars) for a in node.args)):
                    return callee
                calls += 1
    if calls:
        fold_scalar_unbroadcasts(callee, {p: 0.0 for p in params})
    return callee


def _is_number(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    return isinstance(value, (np.ndarray, np.generic)) and np.ndim(value) == 0 and np.asarray(value).dtype.kind in "fi"


def _scalar_names(function_node, parameters):
    """The names that only ever hold numbers (the function's parameters being numbers), or None."""
    assignments = {}
    for node in walk(function_node):
        if isinstance(node, gast.Assign):
            for target in node.targets:
                if isinstance(target, gast.Name):
                    assignments.setdefault(target.id, []).append(node.value)
                else:
                    for n in walk(target):
                        if isinstance(n, gast.Name):
                            assignments.setdefault(n.id, []).append(None)
        elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            assignments.setdefault(node.target.id, []).append(
                gast.BinOp(left=gast.Name(id=node.target.id, ctx=gast.Load(), annotation=None, type_comment=None),
                           op=node.op, right=node.value))
        elif isinstance(node, gast.For):
            for n in walk(node.target):
                if isinstance(n, gast.Name):
                    ok = isinstance(node.target, gast.Name) and _range_call(node.iter)
                    assignments.setdefault(n.id, []).append(gast.Constant(value=0, kind=None) if ok else None)
        elif isinstance(node, (gast.With, gast.Try, gast.FunctionDef, gast.Lambda, gast.NamedExpr, gast.Global,
                               gast.Nonlocal, gast.Delete)) and node is not function_node:
            return None
    pushed = [n.args[1] for n in walk(function_node) if _named(n, "push") and len(n.args) == 2]
    for name in parameters:
        assignments.setdefault(name, []).append(gast.Constant(value=0.0, kind=None))
    scalars = set(assignments)
    while True:                       # the largest set closed under the assignments: shrink until stable
        tape = all(_scalar(p, scalars) for p in pushed)
        keep = {name for name, values in assignments.items()
                if all(v is not None and _scalar(v, scalars, tape) for v in values)}
        if keep == scalars:
            return scalars
        scalars = keep


def _scalar(expr, scalars, tape=False):
    if isinstance(expr, gast.Constant):
        return isinstance(expr.value, (int, float, bool))
    if isinstance(expr, gast.Name):
        return expr.id in scalars
    if isinstance(expr, gast.BinOp):
        return not isinstance(expr.op, gast.MatMult) and _scalar(expr.left, scalars, tape) and \
            _scalar(expr.right, scalars, tape)
    if isinstance(expr, gast.UnaryOp):
        return _scalar(expr.operand, scalars, tape)
    if isinstance(expr, gast.Compare):
        return all(_scalar(e, scalars, tape) for e in [expr.left] + expr.comparators)
    if isinstance(expr, gast.IfExp):
        return all(_scalar(e, scalars, tape) for e in (expr.test, expr.body, expr.orelse))
    if isinstance(expr, gast.Call):
        if _named(expr, "pop"):
            return tape
        if _named(expr, "unbroadcast") and len(expr.args) == 2:
            return _scalar(expr.args[0], scalars, tape)
        if _named(expr, "broadcast_like") and expr.args and not expr.keywords:     # a second derivative's
            return all(_scalar(a, scalars, tape) for a in expr.args)               # tangent of numbers
        func = expr.func
        if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == "jnp"
                and func.attr in ("zeros_like", "ones_like") and len(expr.args) == 1 and not expr.keywords):
            return _scalar(expr.args[0], scalars, tape)
        if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == "jnp"
                and func.attr in _ELEMENTWISE and len(expr.args) == 1 and not expr.keywords):
            return _scalar(expr.args[0], scalars, tape)
    return False


def _named(node, name):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == name


def _range_call(node):
    return _named(node, "range") or (_named(node, "reversed") and len(node.args) == 1 and _range_call(node.args[0]))
