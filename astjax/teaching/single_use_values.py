"""An adjoint (or a temporary of the derivation) read once, by the next statement, is written there.

    bx = x + x                      ->      ba = (x + x) * a
    ba = bx * a
    ba = 1.0                        ->      ba = 3.0 ** (n + 1) * 2.0
    ba = ba * 3.0 ** (n + 1)
    ba = ba * 2.0
    dot_input = input @ W           ->      h1 = input @ W + b
    h1 = dot_input + b

A teacher names a value that is read in several places; one read right on the next line is the
expression itself. Only for `v = e` (v an adjoint `b<name>` of a name in the function, or a temporary
the derivation named; a user's own name only where the next statement assigns it again, `y = e;
y = jnp.tanh(y)` as `y = jnp.tanh(e)`) followed, comments and saves of other values
(`push(_tape, x)`) aside, by a simple statement (assignment, augmented assignment of another name,
return) that reads `v` once, outside any lambda or comprehension, where the statement assigns `v` anew
or every other read of `v` comes after another `v = ...` in a block holding it (so `e` never reaches
it); not where `e` pushes or pops the tape, calls a function by its bare name (`vjp_f(by, x)`) or
updates an item other than into `return v` (`by.at[2].add(e)` reads best on its own line), a
comment names `v`, or the result would be wider than 88 characters. `1.0 * e` where `e` computes a
float is written `e`.
"""
import copy
import re

import gast

from ..codegen.templates import substitute_loads
from ..codegen.unparse import unparse
from ..codegen.node_walk import NodeTransformer

__all__ = ["fold_single_use_values"]

_WIDTH = 88
_EFFECTS = {"push", "pop", "Tape"}


def fold_single_use_values(function_node, temporaries=frozenset()):
    changed = True
    while changed:
        changed = False
        names = {n.id for n in gast.walk(function_node) if isinstance(n, gast.Name)}
        comments = " ".join(str(s.value.args[0].value) for s in gast.walk(function_node) if _is_comment(s))
        for owner, depth in _blocks(function_node):
            block = getattr(owner[0], owner[1])
            if _fold_one(function_node, block, depth, names, temporaries, comments):
                changed = True
                break
        if changed:
            continue
        for owner, depth in _blocks(function_node):
            block = getattr(owner[0], owner[1])
            if _fold_past(function_node, block, depth, names, temporaries, comments):
                changed = True
                break
    return function_node


def _fold_past(function_node, block, depth, names, temporaries, comments):
    """`v = e; w = f; x = g(v)` where `x = g(v)` may run before `w = f` (neither writes what the other
    reads or writes, no effects): `x = g(e); w = f`. A second derivative's tangent line then stands
    before its primal line (`dba = 2 * (dba * a + ba * da)` above `ba = 2 * (ba * a)`)."""
    for i, first in enumerate(block):
        if not (isinstance(first, gast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], gast.Name)):
            continue
        name = first.targets[0].id
        j = i + 1
        while j < len(block) and _is_comment(block[j]):
            j += 1
        for k in range(j + 1, len(block)):
            reader = block[k]
            if _is_comment(reader):
                continue
            if not _reads(reader, name, store_too=True):
                continue
            between = [s for s in block[j:k] if not _is_comment(s)]
            if not all(_commutes(s, reader) and not _reads(s, name, store_too=True) for s in between):
                break
            trial = block[:]
            block[j:k + 1] = [reader] + block[j:k]
            if _fold_one(function_node, block, depth, names, temporaries, comments, only=i):
                return True
            block[:] = trial
            break
    return False


def _commutes(stmt, other):
    """Whether two plain assignments may swap: no effects, and neither writes what the other reads or writes."""
    for s in (stmt, other):
        if not (isinstance(s, (gast.Assign, gast.AugAssign)) and all(
                isinstance(t, gast.Name) for t in (s.targets if isinstance(s, gast.Assign) else [s.target]))):
            return False
        if _has_effects(s) or _calls_a_function(s):
            return False
    writes = lambda s: {t.id for t in (s.targets if isinstance(s, gast.Assign) else [s.target])}
    reads = lambda s: {n.id for n in gast.walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    return not (writes(stmt) & (reads(other) | writes(other)) or writes(other) & reads(stmt))


def _blocks(function_node):
    """(owner, field), indentation depth of every statement block of the function."""
    out = []

    def walk(node, depth):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                out.append(((node, field), depth))
                for child in block:
                    walk(child, depth + 1)
        for handler in getattr(node, "handlers", None) or []:
            walk(handler, depth + 1)
    walk(function_node, 1)
    return out


def _fold_one(function_node, block, depth, names, temporaries, comments, only=None):
    for i, first in enumerate(block):
        if only is not None and i != only:
            continue
        if not (isinstance(first, gast.Assign) and len(first.targets) == 1 and isinstance(first.targets[0], gast.Name)):
            continue
        name = first.targets[0].id
        if _has_effects(first.value) or _calls_a_function(first.value):
            continue
        overwritten = _overwritten_next(block, i, name)     # the name stays: comments may still name it
        if not _foldable_name(name, names, temporaries) and not overwritten:
            continue
        if not overwritten and re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)", comments):
            continue
        j = i + 1
        while j < len(block) and (_is_comment(block[j]) or _save_not_reading(block[j], name)):
            j += 1
        if j == len(block):
            continue
        second = block[j]
        if not isinstance(second, (gast.Assign, gast.AugAssign, gast.Return)) or second.value is None:
            continue
        if _item_update(first.value) and not (isinstance(second, gast.Return) and isinstance(second.value, gast.Name)):
            continue
        if isinstance(second, gast.AugAssign) and _reads(second.target, name, store_too=True):
            continue
        if isinstance(second, gast.Assign) and any(_reads(t, name) for t in second.targets):
            continue
        reads = [n for n in gast.walk(second.value) if isinstance(n, gast.Name) and n.id == name]
        if len(reads) != 1 or _inside_deferred(second.value, reads[0]) or _has_effects(second.value):
            continue
        reassigns = isinstance(second, gast.Assign) and any(
            isinstance(t, gast.Name) and t.id == name for t in second.targets)
        covered = _covered_reads(function_node, name, first)
        other_reads = [n for n in gast.walk(function_node) if isinstance(n, gast.Name) and n.id == name
                       and isinstance(n.ctx, gast.Load) and n is not reads[0] and id(n) not in covered]
        if not (reassigns or not other_reads):
            continue
        folded = copy.deepcopy(second)
        substitute_loads(folded, {name: first.value})
        folded.value = _OneTimes().visit(folded.value)
        if len(unparse(folded).strip()) + 4 * depth > _WIDTH or "\n" in unparse(folded).strip():
            continue
        block[j] = folded
        del block[i]
        return True
    return False


def _covered_reads(function_node, name, first):
    """ids of the reads of `name` that `first`'s value never reaches: in a statement of a block after an
    assignment `name = ...` of that block, with `first` in neither the statements between nor that
    one (every way into a block starts at its first statement, so it passes the assignment)."""
    covered = set()

    def walk(block):
        seen = False
        for stmt in block:
            holds_first = any(n is first for n in gast.walk(stmt))
            if seen and not holds_first:
                covered.update(id(n) for n in gast.walk(stmt) if isinstance(n, gast.Name) and n.id == name
                               and isinstance(n.ctx, gast.Load))
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(stmt, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    walk(inner)
            if holds_first:
                seen = False
            if (stmt is not first and isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name
                    and not _reads(stmt.value, name)):
                seen = True
    walk(function_node.body)
    return covered


def _save_not_reading(stmt, name):
    """`push(_tape, x)` of another name: it changes no variable, so `e` may move past it."""
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)) or _reads(stmt.value, name):
        return False
    func = stmt.value.func
    if isinstance(func, gast.Name):
        return func.id == "push"
    return (isinstance(func, gast.Attribute) and func.attr == "append" and isinstance(func.value, gast.Name)
            and len(stmt.value.args) == 1 and isinstance(stmt.value.args[0], gast.Name))     # `a_saved.append(a)`


def _overwritten_next(block, i, name):
    """`y = e` and next `y = f(y)`: the user's name keeps its meaning in `y = f(e)`."""
    j = i + 1
    while j < len(block) and _is_comment(block[j]):
        j += 1
    return (j < len(block) and isinstance(block[j], gast.Assign) and len(block[j].targets) == 1
            and isinstance(block[j].targets[0], gast.Name) and block[j].targets[0].id == name)


def _foldable_name(name, names, temporaries):
    if name in temporaries:
        return True
    return name.startswith("b") and len(name) > 1 and name[1:] in names


def _has_effects(expr):
    return any(isinstance(n, gast.Call) and (isinstance(n.func, gast.Name) and n.func.id in _EFFECTS
                                             or isinstance(n.func, gast.Attribute) and n.func.attr in ("pop", "append"))
               for n in gast.walk(expr)) or any(isinstance(n, (gast.NamedExpr, gast.Yield, gast.YieldFrom, gast.Await))
                                                for n in gast.walk(expr))


def _calls_a_function(expr):
    """Whether `expr` calls a function by its bare name (`vjp_f(by, x)`): a call in a call reads worse than
    a named result. Library calls (`jnp.tanh(h)`) and `len`/`abs`/`max`/`min` fold."""
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
               and n.func.id not in ("len", "abs", "max", "min", "float") for n in gast.walk(expr))


def _item_update(expr):
    """`v.at[i].add(e)` / `.set(e)`: an update of one item reads best on its own line (`bx[1] += e`)."""
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute)
            and isinstance(expr.func.value, gast.Subscript) and isinstance(expr.func.value.value, gast.Attribute)
            and expr.func.value.value.attr == "at")


def _inside_deferred(expr, target):
    """Whether `target` sits in a lambda or comprehension of `expr` (evaluated other than once)."""
    for node in gast.walk(expr):
        if isinstance(node, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            if any(n is target for n in gast.walk(node)):
                return True
    return False


def _reads(expr, name, store_too=False):
    return any(isinstance(n, gast.Name) and n.id == name and (store_too or isinstance(n.ctx, gast.Load))
               for n in gast.walk(expr))


class _OneTimes(NodeTransformer):
    """`1.0 * e` and `e * 1.0` as `e` where `e` is arithmetic with a float number in it (a float either way)."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, gast.Mult):
            for one, other in ((node.left, node.right), (node.right, node.left)):
                if _is_float_one(one) and _float_arithmetic(other):
                    return other
        return node


def _is_float_one(expr):
    return isinstance(expr, gast.Constant) and type(expr.value) is float and expr.value == 1.0


def _float_arithmetic(expr):
    if isinstance(expr, gast.Constant):
        return type(expr.value) is float
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)):
        return _float_arithmetic(expr.left) or _float_arithmetic(expr.right)
    return False


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
