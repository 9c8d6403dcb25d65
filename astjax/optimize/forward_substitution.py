"""Forward substitution: a temporary read once is replaced by its expression.

    _t1 = jnp.cos(x)                 ->   bx += by * jnp.cos(x)
    bx += by * _t1

Only generated temporaries (`_t3`, `b_t3`, `d_t3`, `_y1`, ...) are substituted, never
the user's own names, and only within one block, when nothing in between
changes what the expression reads, and never into a loop body. A temporary
holding a negated name (`d_t2 = -d_t1`) is substituted wherever it is read:
`-d_t1` reads as easily as `d_t2`, and is one name less to look up.
"""
import re

import gast

from .effects import has_effects, reads, writes
from ..codegen.templates import substitute_loads
from ..codegen.node_walk import nodes, NodeTransformer

__all__ = ["substitute_temporaries", "is_temporary"]

_TEMPORARY = re.compile(r"^[bd]*_(t\d+|y\d+|b\d+|ret)_*$")


_FAMILY = re.compile(r"^[bd]*(?P<base>.*?)(_shape)?_*$")


def is_temporary(identifier, named=()):
    """`_t3`, `b_t3`, ...; or a temporary an earlier transformation named (`sin_x`) and its adjoints and tangents."""
    if _TEMPORARY.match(identifier):
        return True
    return bool(named) and (identifier in named or _FAMILY.match(identifier).group("base") in named)


def substitute_temporaries(function_node, named=()):
    counts, stores = _uses(function_node)
    _block(function_node.body, counts, stores, frozenset(named))
    return function_node


def _uses(node):
    """(how often each name is read, how often it is assigned) in `node`."""
    loads, stores = {}, {}
    for n in nodes(node):
        if isinstance(n, gast.Name):
            table = loads if isinstance(n.ctx, gast.Load) else stores
            table[n.id] = table.get(n.id, 0) + 1
    return loads, stores


def _block(block, counts, stores, named):
    i = 0
    while i < len(block):
        stmt = block[i]
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and not isinstance(stmt, gast.FunctionDef):
                _block(inner, counts, stores, named)
        if _try_substitute(block, i, counts, stores, named):
            del block[i]
            continue
        i += 1


def _try_substitute(block, i, counts, stores, named):
    stmt = block[i]
    if not (isinstance(stmt, gast.Assign) and isinstance(stmt.targets[0], gast.Name)):
        return False
    target = stmt.targets[0].id
    if _is_negated_name(stmt.value) and is_temporary(target, named) and stores.get(target) == 1:
        return _substitute_everywhere(block, i, target, stmt.value, counts.get(target, 0))
    if not is_temporary(target, named) or counts.get(target) != 1 or stores.get(target) != 1 or has_effects(stmt.value):
        return False
    if _calls_user_function(stmt.value) or _size(stmt.value) > _MAX_SUBSTITUTED_SIZE:
        return False     # a call of the user's code, or a long expression, reads better on its own line
    needs = reads(stmt.value)
    for j in range(i + 1, len(block)):
        later = block[j]
        if _simple(later):
            if target in reads(later):
                return _replace(later, target, stmt.value)
        elif isinstance(later, gast.If) and target in reads(later.test):
            return _replace(later.test, target, stmt.value, parent=later, field="test")
        elif target in reads(later):
            return False     # used inside a loop or a branch body: keep it where it is computed
        if writes(later) & needs or (needs & _aug_targets(later)):
            return False
    return False


def _is_negated_name(node):
    """`-d_t1`: as short as a name, so a temporary holding it is substituted wherever it is read."""
    return (isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
            and isinstance(node.operand, gast.Name))


def _substitute_everywhere(block, i, target, value, uses):
    """Replace every read of `target` by `value` when all of them are in plain statements of this block
    after statement i and before anything assigns `target` or the name `value` reads."""
    needs = reads(value) | {target}
    found, later = 0, []
    for j in range(i + 1, len(block)):
        if found == uses:
            break
        stmt = block[j]
        here = sum(1 for n in nodes(stmt) if isinstance(n, gast.Name) and n.id == target
                   and isinstance(n.ctx, gast.Load))
        if here and not isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return)):
            return False        # a branch, a loop, a push naming the variable its pop restores
        found += here
        if here:
            later.append(stmt)
        if writes(stmt) & needs or needs & _aug_targets(stmt) or needs & _changed_in_place(stmt):
            break
    if found != uses:
        return False
    for stmt in later:
        for field in ("value", "targets", "target"):
            node = getattr(stmt, field, None)
            if isinstance(node, gast.AST):
                setattr(stmt, field, substitute_loads(node, {target: value}))
    return True


def _changed_in_place(stmt):
    """Names whose object `stmt` may change without assigning them: `a[0] = v`, `a.x = v`, `a.sort()`."""
    out = set()
    for n in nodes(stmt):
        if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, (gast.Store, gast.Del)):
            out |= reads(n.value)
    if has_effects(stmt):
        out |= reads(stmt)
    return out


_MAX_SUBSTITUTED_SIZE = 12     # nodes: keeps substituted lines about as long as a person writes them


def _size(node):
    return sum(1 for n in nodes(node) if isinstance(n, gast.expr))


def _calls_user_function(node):
    """Calls by a bare name that is not a rule helper: the user's functions and generated vjps."""
    from ..codegen.namespace import GENERATED_NAMESPACE
    return any(isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id not in GENERATED_NAMESPACE
               and n.func.id not in _BUILTIN_CALLS for n in nodes(node))


_BUILTIN_CALLS = {"float", "int", "len", "range", "reversed", "abs", "min", "max", "slice"}


def _simple(stmt):
    return isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr))


def _aug_targets(stmt):
    return {n.target.id for n in nodes(stmt) if isinstance(n, gast.AugAssign)}


class _Replace(NodeTransformer):
    def __init__(self, target, value):
        self.target, self.value, self.done = target, value, False

    def visit_Name(self, node):
        if node.id == self.target and isinstance(node.ctx, gast.Load):
            self.done = True
            return self.value
        return node


def _replace(node, target, value, parent=None, field=None):
    replacer = _Replace(target, value)
    new = replacer.visit(node)
    if parent is not None:
        setattr(parent, field, new)
    return replacer.done
