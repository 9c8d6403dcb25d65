"""A number assigned to a name is written where it is the only value the name can hold.

    ba = 1.0                       ->      if a > 0:
    if a > 0:                                  ba = 3.0
        ba = ba * 3.0                      else:
    else:                                      ba = 2.0
        ba = ba * 2.0

The reverse sweep starts from the seed `ba = 1.0` and multiplies it along; a teacher writes the
product. A read of a name is replaced by a number when every assignment that can reach the read
(through branches and loops, found by a forward data-flow walk over the structured code) is that one
assignment of a number. Constant folding then turns `1.0 * 3.0` into `3.0` and `1.0 * a` into `a`,
and the assignment goes when no read is left that it reaches. A function with statements the walk
does not model (`try`, `with`, `break`, `continue`, nested functions, `global`) is left as it is.
"""
import gast
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["propagate_constants"]

_OTHER = "other"      # an assignment that is not a number (or a parameter, or a loop target)


class _Unmodelled(Exception):
    pass


def propagate_constants(function_node, kinds=(int, float)):
    """Replace reads of a name that can only hold one constant of a type in `kinds` (in place)."""
    reaching = {}
    args = function_node.args
    params = args.args + args.kwonlyargs + [a for a in (args.vararg, args.kwarg) if a is not None]
    state = {a.id: frozenset([_OTHER]) for a in params}
    try:
        _Walk(reaching, kinds).block(function_node.body, state)
    except _Unmodelled:
        return function_node
    replace = {}
    for load, defs in reaching.items():
        if len(defs) == 1:
            (definition,) = defs
            if definition is not _OTHER:
                replace[load] = definition.value
    if replace:
        _Replace(replace).visit(function_node)
    return function_node


def _added_to_zero(stmt, number):
    """`b += e` where `b` can only hold `number`: `b = number + e`, and `b = e` for a zero added to."""
    value = stmt.value
    if not (isinstance(stmt.op, gast.Add) and number == 0):
        value = gast.BinOp(left=gast.Constant(value=number, kind=None), op=stmt.op, right=stmt.value)
    target = gast.Name(id=stmt.target.id, ctx=gast.Store(), annotation=None, type_comment=None)
    return gast.Assign(targets=[target], value=value, type_comment=None)


class _Walk:
    """Records, for each read of a name, the assignments that may reach it."""

    def __init__(self, reaching, kinds=(int, float)):
        self.reaching, self.kinds = reaching, kinds

    def block(self, stmts, state):
        for stmt in stmts:
            state = self.statement(stmt, state)
        return state

    def statement(self, stmt, state):
        if isinstance(stmt, gast.Assign):
            self.reads(stmt.value, state)
            state = dict(state)
            for target in stmt.targets:
                self.reads_in_target(target, state)
                number = (len(stmt.targets) == 1 and isinstance(target, gast.Name)
                          and isinstance(stmt.value, gast.Constant) and type(stmt.value.value) in self.kinds)
                for name in _stored(target):
                    state[name] = frozenset([stmt if number else _OTHER])
            return state
        if isinstance(stmt, gast.AugAssign):
            self.reads(stmt.value, state)
            self.reads(stmt.target, state, store_too=True)
            if isinstance(stmt.target, gast.Name) and stmt.target.id in state:
                self.reaching[stmt] = state[stmt.target.id]
            state = dict(state)
            for name in _stored(stmt.target):
                state[name] = frozenset([_OTHER])
            return state
        if isinstance(stmt, gast.If):
            self.reads(stmt.test, state)
            return _merge(self.block(stmt.body, dict(state)), self.block(stmt.orelse, dict(state)))
        if isinstance(stmt, (gast.For, gast.While)):
            header = stmt.iter if isinstance(stmt, gast.For) else stmt.test
            entry = dict(state)
            for _ in range(100):
                self.reads(header, entry)
                inner = dict(entry)
                if isinstance(stmt, gast.For):
                    for name in _stored(stmt.target):
                        inner[name] = frozenset([_OTHER])
                out = self.block(stmt.body, inner)
                grown = _merge(entry, out)
                if grown == entry:
                    break
                entry = grown
            else:
                raise _Unmodelled()
            if stmt.orelse:
                raise _Unmodelled()
            return entry
        if isinstance(stmt, (gast.Return, gast.Expr)):
            if stmt.value is not None:
                self.reads(stmt.value, state)
            return state
        if isinstance(stmt, gast.Pass):
            return state
        if isinstance(stmt, gast.Raise):        # the path ends: what follows sees the state from before
            for part in (stmt.exc, stmt.cause):
                if part is not None:
                    self.reads(part, state)
            return state
        raise _Unmodelled()                    # break and continue among them: their states go elsewhere

    def reads(self, expr, state, store_too=False):
        for node in walk(expr):
            if isinstance(node, (gast.Lambda, gast.NamedExpr, gast.ListComp, gast.SetComp, gast.DictComp,
                                 gast.GeneratorExp)):
                raise _Unmodelled()
            if isinstance(node, gast.Name) and (isinstance(node.ctx, gast.Load) or store_too):
                if isinstance(node.ctx, gast.Load) and node.id in state:
                    self.reaching[node] = state[node.id]

    def reads_in_target(self, target, state):
        """`x[i] = v` reads `x` and `i`."""
        if isinstance(target, (gast.Subscript, gast.Attribute)):
            self.reads(target, state)
        elif isinstance(target, (gast.Tuple, gast.List)):
            for elt in target.elts:
                self.reads_in_target(elt, state)


def _stored(target):
    """Names whose value an assignment to `target` changes (`x` for `x[i] = v` too)."""
    if isinstance(target, gast.Name):
        return [target.id]
    if isinstance(target, (gast.Subscript, gast.Attribute)):
        return _stored(target.value)
    if isinstance(target, (gast.Tuple, gast.List)):
        return [n for elt in target.elts for n in _stored(elt)]
    if isinstance(target, gast.Starred):
        return _stored(target.value)
    return []


def _merge(a, b):
    out = {}
    for name in set(a) | set(b):
        out[name] = a.get(name, frozenset([_OTHER])) | b.get(name, frozenset([_OTHER]))
    return out


class _Replace(NodeTransformer):
    def __init__(self, replace):
        self.replace = replace

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        value = self.replace.get(node)
        if value is None or type(value.value) not in (int, float):
            return node
        return _added_to_zero(node, value.value)

    def visit_Name(self, node):
        value = self.replace.get(node)
        if value is not None and isinstance(node.ctx, gast.Load):
            return gast.Constant(value=value.value, kind=None)
        return node
