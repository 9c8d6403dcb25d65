"""A call of a straight-line generated derivative is written out where it is called.

    ba = vjp__inner_fn(1.0, a, b)         ->      ba = 1.0 * b       (then `ba = b`)

    def vjp__inner_fn(bout, a, b):
        ba = bout * b
        return ba

    _b1 = vjp_mul(bc, b, b)               ->      bb = bc * b + bc * b
    bb = _b1[0] + _b1[1]

A teacher differentiating `mul_with_call` writes `b`, not a second function and a call of it. Where
a generated function (a `vjp_` of a user function the derivative calls) is straight-line (single
assignments, each read once unless it is as cheap as `x.T`, then a `return`) it is one expression of its parameters; each call of it
whose arguments are names or numbers becomes that expression with the arguments in place of the
parameters, and a function nobody calls any more is not printed. A callee returning a tuple is
written out where its result `_b1` is only read as `_b1[0]`, `_b1[1]`, ... in the next statement.
The callee's own `# from line N` comments come along as `# via line N` comments.

Names the callee reads besides its parameters must mean the same in the caller (checked on the
functions that ran). Recursive derivatives and callees with loops, branches or a tape stay functions.
"""
import copy
import itertools

import gast

from ..optimize.effects import has_effects
from .library_comments import is_library_comment
from ..codegen.node_walk import walk, NodeTransformer, NodeVisitor

__all__ = ["inline_callees"]


def inline_callees(functions, namespaces):
    """`functions`: the generated FunctionDefs (the main one first); `namespaces`: name -> globals the
    function ran with (or None). Inline in place; return the functions still called (main first)."""
    changed = True
    while changed:
        changed = False
        by_name = {f.name: f for f in functions}
        for callee in functions[1:]:
            expression = _as_expression(callee, set(by_name))
            if expression is None:
                continue
            comments = [_via(c) for c in callee.body if _is_comment(c) and not is_library_comment(c)]
            for caller in functions:
                if caller is not callee and _inline_into(caller, callee, expression, comments,
                                                         namespaces.get(caller.name)):
                    changed = True
        called = {n.id for f in functions for n in walk(f) if isinstance(n, gast.Name)}
        kept = [functions[0]] + [f for f in functions[1:] if f.name in called]
        changed = changed or len(kept) != len(functions)
        functions = kept
    return functions


def _as_expression(callee, generated):
    """(parameters, the expression `callee` returns in terms of them) or None if it is not straight-line."""
    args = callee.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.defaults or getattr(args, "posonlyargs", None):
        return None
    params = [a.id for a in args.args]
    body = [s for s in callee.body if not _is_comment(s)]
    if not body or not isinstance(body[-1], gast.Return) or body[-1].value is None:
        return None
    values = {}
    for stmt in body[:-1]:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)):
            return None
        name = stmt.targets[0].id
        if name in params or name in values or has_effects(stmt.value):
            return None
        values[name] = stmt.value
    result = copy.deepcopy(body[-1].value)
    if has_effects(result):
        return None
    for name in reversed(list(values)):       # substitute the last local first: it reads only earlier ones
        uses = [n for n in walk(result) if isinstance(n, gast.Name) and n.id == name]
        if len(uses) > 1 and not _cheap(values[name]):
            return None
        result = _Substitute({name: values[name]}).visit(result)
    names = {n.id for n in walk(result) if isinstance(n, gast.Name)}
    if names & (set(values) | generated):
        return None                            # a local read before assignment, or a call of a generated function
    if any(isinstance(n, (gast.Lambda, gast.NamedExpr, gast.ListComp, gast.GeneratorExp, gast.DictComp,
                          gast.SetComp, gast.Starred)) for n in walk(result)):
        return None
    return params, result


def _cheap(expr):
    """A value a teacher writes again rather than names: a name, a number, `x.T` (an attribute of one)."""
    if isinstance(expr, gast.Attribute):
        return _cheap(expr.value)
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, gast.USub):
        return isinstance(expr.operand, gast.Constant)
    return isinstance(expr, (gast.Name, gast.Constant))


def _inline_into(caller, callee, expression, comments, namespace):
    params, result = expression
    free = {n.id for n in walk(result) if isinstance(n, gast.Name)} - set(params)
    if not _same_meaning(free, callee.name, namespace) or free & _locals(caller):
        return False
    done = False
    for owner in list(walk(caller)):
        for field in ("body", "orelse"):
            block = getattr(owner, field, None)
            if not (isinstance(block, list) and block and isinstance(block[0], gast.stmt)):
                continue
            i = 0
            while i < len(block):
                replaced = _inline_statement(block, i, callee.name, params, result)
                if replaced:
                    block[i:i] = copy.deepcopy(comments)
                    i += len(comments)
                    done = True
                i += 1
    return done


def _inline_statement(block, i, name, params, result):
    """Inline the calls of `name` in `block[i]` (not inside nested blocks); True if any was."""
    stmt = block[i]
    if isinstance(stmt, (gast.If, gast.For, gast.While)):
        parts = [stmt.test] if isinstance(stmt, (gast.If, gast.While)) else [stmt.iter]
    elif isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr)):
        parts = [stmt]
    else:
        return False
    calls = [n for p in parts for n in walk(p) if _calls(n, name)]
    if not calls or any(not _simple_arguments(c, params) for c in calls):
        return False
    if isinstance(result, gast.Tuple):
        return _inline_tuple(block, i, calls, params, result)
    replacer = _ReplaceCalls(name, params, result)
    for p in parts:
        replacer.visit(p)
    return True


def _inline_tuple(block, i, calls, params, result):
    """`_b1 = f(x)` whose `_b1` the next statement reads only as `_b1[k]`: those reads get the items."""
    stmt = block[i]
    if not (len(calls) == 1 and isinstance(stmt, gast.Assign) and stmt.value is calls[0] and len(stmt.targets) == 1):
        return False
    if isinstance(stmt.targets[0], gast.Tuple):
        return _inline_unpacked(block, i, calls[0], params, result)
    if not isinstance(stmt.targets[0], gast.Name):
        return False
    target = stmt.targets[0].id
    later = [j for j in range(i + 1, len(block)) if not _is_comment(block[j])]
    if not later:
        return False
    following = block[later[0]]
    others = [n for j in later[1:] for n in walk(block[j]) if isinstance(n, gast.Name) and n.id == target]
    if others or isinstance(following, (gast.If, gast.For, gast.While)) or any(
            isinstance(a, gast.Name) and a.id == target for a in calls[0].args):
        return False
    items = _ItemReads(target, len(result.elts))
    items.visit(following)
    if not items.ok or items.found == 0:
        return False
    bound = _bind(params, calls[0].args, result)
    _ReplaceItems(target, bound.elts).visit(following)
    block[i] = gast.Pass()                    # the assignment goes: nothing reads `_b1` any more
    return True


def _inline_unpacked(block, i, call, params, result):
    """`ba, dba = f(x)` returning `(e1, e2)`: `ba = e1` and `dba = e2`, in an order where no item reads
    a target assigned before it (`a, da = jvp_f(a, da)` is `da = da * a + a * da` then `a = a * a`)."""
    targets = block[i].targets[0].elts
    if len(targets) != len(result.elts) or not all(isinstance(t, gast.Name) for t in targets) or len(targets) > 4:
        return False
    bound = _bind(params, call.args, result)
    names = [t.id for t in targets]
    if len(set(names)) != len(names):
        return False
    reads = [{n.id for n in walk(item) if isinstance(n, gast.Name)} for item in bound.elts]
    for order in itertools.permutations(range(len(names))):
        if all(names[k] not in reads[later] for at, k in enumerate(order) for later in order[at + 1:]):
            block[i:i + 1] = [gast.Assign(targets=[gast.Name(id=names[k], ctx=gast.Store(), annotation=None,
                                                             type_comment=None)],
                                          value=bound.elts[k], type_comment=None) for k in order]
            return True
    return False


def _bind(params, args, result):
    return _Substitute(dict(zip(params, args))).visit(copy.deepcopy(result))


def _simple_arguments(call, params):
    if call.keywords or len(call.args) != len(params):
        return False
    return all(isinstance(a, (gast.Name, gast.Constant)) or
               (isinstance(a, gast.UnaryOp) and isinstance(a.operand, gast.Constant)) for a in call.args)


def _locals(function_node):
    """The caller's parameters and the names it assigns: a global of the callee's would be shadowed."""
    names = {a.id for a in function_node.args.args + function_node.args.kwonlyargs}
    for extra in (function_node.args.vararg, function_node.args.kwarg):
        if extra is not None:
            names.add(extra.id)
    return names | {n.id for n in walk(function_node) if isinstance(n, gast.Name)
                    and not isinstance(n.ctx, gast.Load)}


def _same_meaning(free, callee_name, namespace):
    """Whether every name in `free` means in the caller what it means in the callee."""
    if namespace is None:
        return False
    function = namespace.get(callee_name)
    callee_globals = getattr(function, "__globals__", None)
    if callee_globals is None:
        return False
    missing = object()
    return all(namespace.get(n, missing) is callee_globals.get(n, missing) and n in namespace for n in free)


def _calls(node, name):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) and node.func.id == name


def _via(comment):
    comment = copy.deepcopy(comment)
    arg = comment.value.args[0]
    if isinstance(arg, gast.Constant) and str(arg.value).startswith("from line "):
        arg.value = "via line " + str(arg.value)[len("from line "):]
    return comment


class _Substitute(NodeTransformer):
    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.values:
            return copy.deepcopy(self.values[node.id])
        return node


class _ReplaceCalls(NodeTransformer):
    def __init__(self, name, params, result):
        self.name, self.params, self.result = name, params, result

    def visit_Call(self, node):
        self.generic_visit(node)
        if _calls(node, self.name):
            return _bind(self.params, node.args, self.result)
        return node


class _ItemReads(NodeVisitor):
    """Whether every read of `target` is `target[k]` for a literal k in range."""

    def __init__(self, target, size):
        self.target, self.size, self.ok, self.found = target, size, True, 0

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.target:
            index = node.slice
            if (isinstance(index, gast.Constant) and type(index.value) is int and 0 <= index.value < self.size
                    and isinstance(node.ctx, gast.Load)):
                self.found += 1
                return
            self.ok = False
            return
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == self.target:
            self.ok = False


class _ReplaceItems(NodeTransformer):
    def __init__(self, target, items):
        self.target, self.items = target, items

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.target:
            return copy.deepcopy(self.items[node.slice.value])
        return self.generic_visit(node)


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
