"""Common subexpressions, copies and constants: a value computed once is read by name after that.

    _t2 = jnp.exp(-2 * x)            ->   _t2 = jnp.exp(-2 * x)
    _t5 = jnp.exp(-2 * x)                 _t6 = 1 + _t2
    _t6 = 1 + _t5
    b_t14 = bbx                      ->   b_t13 = bbx * -2
    b_t13 = b_t14 * -2
    bout = 1.0                       ->   _t7 = -1.0         (a float constant, where it
    _t7 = -bout                                                 folds: an operand of arithmetic)
    bbx = bbx                        ->   (removed)

Nested reverse mode recomputes the primal sweep inside each sweep it
differentiates; this pass is what keeps the k-th derivative from carrying k
copies of the same expressions. Only pure expressions are shared (arithmetic,
`jnp.*` and the rule helpers, never the tape, list methods, or the user's own
functions, which may draw random numbers), and a shared value is forgotten as
soon as a name it reads is assigned again, or anything with an effect runs.
Walks one block at a time; a loop or branch body sees what was known before
it only when it assigns none of the names involved and has no effects.
"""
import gast

from .effects import call_effect, is_guard, reads, writes
from ..codegen.node_walk import nodes, NodeTransformer

__all__ = ["share_common_subexpressions"]

_PURE_BUILTINS = {"float", "int", "len", "abs", "min", "max", "range", "slice", "tuple"}
_NOT_PURE_HELPERS = {"Tape", "push", "pop", "zero_like", "TreeAdjoint", "materialize"}
_SCOPES = (gast.Lambda, gast.FunctionDef, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)
_MUTABLE = (gast.List, gast.Dict, gast.Set)


def share_common_subexpressions(function_node):
    if any(isinstance(n, _SCOPES) for n in nodes(function_node) if n is not function_node):
        return function_node       # names inside a nested scope may mean something else: leave it
    function_node.body = _block(function_node.body, _Known())
    return function_node


class _Known:
    """What is known at a point of a block: expressions held by names, names equal to others or constants.

    Expressions are compared by value number: a name holding a known expression stands for that
    expression's number, so `_t1 = a / c; _t2 = b / c; y = _t1 + _t2` and `a / c + b / c` are one
    value. A name no expression is known for is numbered with how often it was assigned, so its
    old and new values never meet. `uses` indexes each entry under the names it involves, so
    forgetting a name touches only its entries (a stale index entry only makes it forget more).
    """

    def __init__(self, numbers=None):
        self.held = {}       # value number of an expression -> name holding it
        self.value_of = {}   # name -> value number of the expression it holds
        self.equal = {}      # name -> Name or Constant node it equals
        self.uses = {}       # name -> {("held", number) / ("value_of", name) / ("equal", name)}
        self.version = {}    # name -> how often it has been assigned
        self.numbers = {} if numbers is None else numbers      # structure -> value number (shared)

    def copy(self):
        known = _Known(self.numbers)
        known.held, known.value_of, known.equal = dict(self.held), dict(self.value_of), dict(self.equal)
        known.uses = {name: set(entries) for name, entries in self.uses.items()}
        known.version = dict(self.version)
        return known

    def hold(self, number, variable, deps):
        self.held.setdefault(number, variable)
        self.value_of[variable] = number
        for entry in (("held", number), ("value_of", variable)):
            self._index(entry, {variable} | deps)

    def make_equal(self, variable, node, deps):
        self.equal[variable] = node
        self._index(("equal", variable), {variable} | deps)

    def _index(self, entry, names):
        for name in names:
            self.uses.setdefault(name, set()).add(entry)

    def forget(self, names):
        """Drop what depends on `names` (they are being assigned)."""
        tables = {"held": self.held, "value_of": self.value_of, "equal": self.equal}
        for name in names:
            self.version[name] = self.version.get(name, 0) + 1
            for table, key in self.uses.pop(name, ()):
                tables[table].pop(key, None)

    def clear(self):
        self.held, self.value_of, self.equal, self.uses = {}, {}, {}, {}

    def number(self, node, memo=None):
        """The value number of expression `node` (names holding known expressions count as those).
        `memo` ({id(node): (node, number)}) keeps the numbers of subtrees numbered already while nothing
        known changes (one rewrite numbers every subtree bottom-up: without it, each level again)."""
        if memo is not None and isinstance(node, gast.AST):
            hit = memo.get(id(node))
            if hit is not None and hit[0] is node:
                return hit[1]
            number = self._number(node, memo)
            memo[id(node)] = (node, number)
            return number
        return self._number(node, memo)

    def _number(self, node, memo):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
            if node.id in self.value_of:
                return self.value_of[node.id]
            structure = ("Name", node.id, self.version.get(node.id, 0))
        elif isinstance(node, gast.AST):
            structure = (type(node).__name__,) + tuple(self.number(getattr(node, f, None), memo) for f in node._fields
                                                       if f not in ("ctx", "type_comment", "kind", "annotation"))
        elif isinstance(node, list):
            structure = ("list",) + tuple(self.number(n, memo) for n in node)
        else:
            structure = (type(node).__name__, node)
        return self.numbers.setdefault(structure, len(self.numbers))


def _block(block, known):
    out = []
    for stmt in block:
        if isinstance(stmt, gast.Assign):
            stmt.value = _rewrite(stmt.value, known)
            target = stmt.targets[0]
            if isinstance(target, gast.Name) and isinstance(stmt.value, gast.Name) and stmt.value.id == target.id:
                continue                                   # x = x
            names = writes(target)
            pure = _pure(stmt.value)
            if not pure:
                known.clear()
            known.forget(names | _written_through(target))
            if isinstance(target, gast.Name):
                value_reads = reads(stmt.value)
                if target.id not in value_reads:
                    _learn(known, target.id, stmt.value, pure, value_reads)
        elif isinstance(stmt, (gast.AugAssign, gast.Return)) or _is_comment(stmt):
            if stmt.value is not None and not _is_comment(stmt):
                stmt.value = _rewrite(stmt.value, known)
                if not _pure(stmt.value):
                    known.clear()
            if isinstance(stmt, gast.AugAssign):
                known.forget(writes(stmt.target) | _written_through(stmt.target))
        elif is_guard(stmt):          # `if jnp.ndim(out) != 0: raise ...`: nothing known is lost
            stmt.test = _rewrite(stmt.test, known)
        elif isinstance(stmt, (gast.If, gast.For, gast.While)):
            changed = writes(stmt) | {n.target.id for n in nodes(stmt)
                                      if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)}
            clean = not _has_impure_calls(stmt)
            inner = known.copy() if clean else _Known()
            inner.forget(changed)
            if isinstance(stmt, gast.If):
                stmt.test = _rewrite(stmt.test, known)
                stmt.body = _block(stmt.body, inner.copy()) or [gast.Pass()]
                stmt.orelse = _block(stmt.orelse, inner.copy())
            elif isinstance(stmt, gast.For):
                stmt.iter = _rewrite(stmt.iter, known)
                stmt.body = _block(stmt.body, inner.copy()) or [gast.Pass()]
                stmt.orelse = _block(stmt.orelse, inner.copy())
            else:
                stmt.test = _rewrite(stmt.test, inner)
                stmt.body = _block(stmt.body, inner.copy()) or [gast.Pass()]
                stmt.orelse = _block(stmt.orelse, inner.copy())
            if clean:
                known.forget(changed)
            else:
                known.clear()
        else:                   # an effect (push, append), assert, raise, break: trust nothing after it
            if isinstance(stmt, gast.Expr) and not _is_push(stmt):     # a push names the variable its pop restores
                stmt.value = _rewrite(stmt.value, known)
            known.clear()
        out.append(stmt)
    return out


def _is_push(stmt):
    call = stmt.value
    return isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and call.func.id == "push"


def _learn(known, variable, value, pure, value_reads):
    if isinstance(value, gast.Name):
        root = known.equal.get(value.id, value)
        known.make_equal(variable, root, {root.id} if isinstance(root, gast.Name) else set())
    elif isinstance(value, gast.Constant) and type(value.value) is float:    # seeds and zeros (not counters)
        known.make_equal(variable, value, set())
    elif pure and not isinstance(value, _MUTABLE):
        known.hold(known.number(value), variable, value_reads)


def _rewrite(node, known):
    """`node` with names replaced by what they equal and known expressions by their names."""
    if not known.held and not known.equal:
        return node
    return _Rewrite(known).visit(node)


class _Rewrite(NodeTransformer):
    def __init__(self, known):
        self.known = known
        self.numbered = {}          # id(node) -> (node, value number): see _Known.number

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.known.equal:
            replacement = self.known.equal[node.id]
            if isinstance(replacement, gast.Name):
                return gast.Name(id=replacement.id, ctx=gast.Load(), annotation=None, type_comment=None)
        return node

    def generic_visit(self, node):
        node = super().generic_visit(node)
        if isinstance(node, (gast.BinOp, gast.UnaryOp)):       # constants go where they fold: `-bout` -> `-1.0`
            for field in ("left", "right", "operand"):
                operand = getattr(node, field, None)
                if isinstance(operand, gast.Name) and isinstance(operand.ctx, gast.Load):
                    replacement = self.known.equal.get(operand.id)
                    if isinstance(replacement, gast.Constant):
                        setattr(node, field, gast.Constant(value=replacement.value, kind=None))
        if isinstance(node, gast.expr) and not isinstance(node, (gast.Name, gast.Constant)) and self.known.held:
            held = self.known.held.get(self.known.number(node, self.numbered))
            if held is not None:
                return gast.Name(id=held, ctx=gast.Load(), annotation=None, type_comment=None)
        return node


def _pure(node):
    """Whether evaluating `node` only computes a value: every call is to jnp or a pure rule helper."""
    for child in nodes(node):
        if isinstance(child, gast.Call) and (not _pure_callee(child.func) or call_effect(child)):
            return False
    return True


def _has_impure_calls(node):
    for child in nodes(node):
        if isinstance(child, gast.Call) and not _pure_callee(child.func):
            return True
    return False


def _pure_callee(func):
    from ..codegen.namespace import GENERATED_NAMESPACE
    if isinstance(func, gast.Name):
        return func.id in _PURE_BUILTINS or (func.id in GENERATED_NAMESPACE and func.id not in _NOT_PURE_HELPERS
                                              and func.id not in ("jnp", "lax"))
    while isinstance(func, gast.Attribute):
        func = func.value
    return isinstance(func, gast.Name) and func.id == "jnp"


def _written_through(target):
    """Names whose object an assignment changes in place (`x[i] = v`, `x.a = v`)."""
    if isinstance(target, (gast.Subscript, gast.Attribute)):
        return reads(target)
    if isinstance(target, (gast.Tuple, gast.List)):
        out = set()
        for element in target.elts:
            out |= _written_through(element)
        return out
    return set()


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
