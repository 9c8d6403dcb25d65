"""A value assigned and then returned is returned directly.

    ba = bout * b                 ->      return bout * b
    return ba

    if a > 0:                     ->      if a > 0:
        ba = 3.0                              return 3.0
    else:                                 else:
        ba = 2.0                              return 2.0
    return ba

    ba += ba                      ->      return ba + ba
    return ba

A teacher writes `return b`, not a name for it on the line before. Only for a `return v` right after
(comments between are fine) the statement that last assigns `v`: an assignment, an augmented
assignment (`v += e` returns `v + e`: the same numbers, without changing an array in place), or an
`if`/`else` every branch of which ends in such an assignment (the `return` moves into each branch);
or, where `v` starts as a number, an `if` some branches of which (nested ones too) end assigning it:
those return there, and the number is returned after the `if` (`_partial_branches`).
Run last: the cleanup passes see returns at the top of a function only.
"""
import copy

import gast
from ..codegen.node_walk import walk

__all__ = ["return_assigned_values"]

_AUGMENTED = (gast.Add, gast.Sub, gast.Mult, gast.Div)
_MAX_RETURNED_SIZE = 10      # expression nodes


def return_assigned_values(function_node):
    if not _block(function_node.body):
        _partial_branches(function_node)
    return function_node


def _partial_branches(function_node):
    """`v = c; if t: [if u: v = e1] else: v = e2; return v` (c a number) as `if t: [if u: return e1]
    else: return e2; return c`: each branch that ends assigning `v` returns there, and the number is
    returned where no branch assigned (only where that leaves `v = c` the one assignment of `v` and the
    final `return v` its one read)."""
    body = function_node.body
    real = [i for i, s in enumerate(body) if not _is_comment(s)]
    if len(real) < 3:
        return
    ret, last = body[real[-1]], body[real[-2]]
    if not (isinstance(ret, gast.Return) and isinstance(ret.value, gast.Name) and isinstance(last, gast.If)):
        return
    name = ret.value.id
    if _named_in_comments(body, name):
        return
    trial = copy.deepcopy(last)
    if not _returns_in_branches(trial, name):
        return
    inits = [i for i in real[:-2] if isinstance(body[i], gast.Assign) and len(body[i].targets) == 1
             and isinstance(body[i].targets[0], gast.Name) and body[i].targets[0].id == name]
    if len(inits) != 1 or not isinstance(body[inits[0]].value, gast.Constant):
        return
    rest = body[:real[-2]] + [trial]
    stores = [n for s in rest for n in walk(s) if isinstance(n, gast.Name) and n.id == name
              and not isinstance(n.ctx, gast.Load)]
    loads = [n for s in rest for n in walk(s) if isinstance(n, gast.Name) and n.id == name
             and isinstance(n.ctx, gast.Load)]
    if len(stores) != 1 or loads:
        return
    body[real[-2]] = trial
    ret.value = body[inits[0]].value
    del body[inits[0]]


def _returns_in_branches(stmt, name):
    """Write `return e` for each branch of the `if` `stmt` (nested ones too) ending in `name = e`; True
    if some branch did."""
    done = False
    for branch in (stmt.body, stmt.orelse):
        real = [i for i, s in enumerate(branch) if not _is_comment(s)]
        if not real:
            continue
        end = branch[real[-1]]
        if (isinstance(end, gast.Assign) and len(end.targets) == 1 and isinstance(end.targets[0], gast.Name)
                and end.targets[0].id == name and _short(end.value)):
            branch[real[-1]] = gast.Return(value=end.value)
            done = True
        elif isinstance(end, gast.If):
            done = _returns_in_branches(end, name) or done
    return done


def _block(block):
    """Fold the `return v` that ends `block` (a list of statements) into what assigns `v`; True if done."""
    real = [i for i, s in enumerate(block) if not _is_comment(s)]
    if len(real) < 2:
        return False
    ret, last = block[real[-1]], block[real[-2]]
    if isinstance(ret, gast.Return) and ret.value is not None and not isinstance(ret.value, gast.Name):
        return _into_branches(block, real, ret, last)
    if not (isinstance(ret, gast.Return) and isinstance(ret.value, gast.Name)):
        return False
    name = ret.value.id
    if not _folds(last, name) or _named_in_comments(block[:real[-1]], name):
        return False
    comments = block[real[-2] + 1:real[-1]]
    replacement = _fold(last, name)
    block[real[-2]:] = replacement[:-1] + comments + replacement[-1:]
    return True


def _into_branches(block, real, ret, last):
    """`if c: v = e1 else: v = e2; return E(v)` (E short, reading `v` once and nothing the `if` assigns)
    as `if c: return E(e1) else: return E(e2)`: the return written in each branch, as a teacher does."""
    if not isinstance(last, gast.If) or not _short(ret.value):
        return False
    loads = [n.id for n in walk(ret.value) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)]
    if any(isinstance(n, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp,
                          gast.NamedExpr)) for n in walk(ret.value)):
        return False
    stored = {n.id for n in walk(last) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    for name in sorted(set(loads)):
        if loads.count(name) != 1 or not _folds(last, name) or (set(loads) - {name}) & stored:
            continue
        if _named_in_comments(block[:real[-1]], name):
            continue
        comments = block[real[-2] + 1:real[-1]]     # the lines `E` comes from: above each return
        _write_returns(last, name, ret.value, comments)
        block[real[-2]:] = [last]
        return True
    return False


def _write_returns(stmt, name, expr, comments):
    """Each branch of `stmt` (an `if` that `_folds`) ends `return expr` with its last value of `name` in it."""
    from ..codegen.templates import substitute_loads
    for branch in (stmt.body, stmt.orelse):
        real = [i for i, s in enumerate(branch) if not _is_comment(s)]
        end = branch[real[-1]]
        if isinstance(end, gast.If):
            _write_returns(end, name, expr, comments)
            continue
        if isinstance(end, gast.Assign):
            value = end.value
        else:
            target = gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)
            value = gast.BinOp(left=target, op=end.op, right=end.value)
        returned = gast.Return(value=substitute_loads(copy.deepcopy(expr), {name: value}))
        start = real[-1]
        while start > 0 and _is_comment(branch[start - 1]):
            start -= 1                # the branch's own comments stay next to its return (explain pairs them)
        branch[real[-1]:real[-1] + 1] = [returned]
        branch[start:start] = copy.deepcopy(comments)


def _folds(stmt, name):
    """Whether `stmt` followed by `return name` folds (see the module docstring)."""
    if isinstance(stmt, gast.Assign):
        return (len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name) and stmt.targets[0].id == name
                and _short(stmt.value))
    if isinstance(stmt, gast.AugAssign):
        return (isinstance(stmt.target, gast.Name) and stmt.target.id == name and isinstance(stmt.op, _AUGMENTED)
                and _short(stmt.value))
    if isinstance(stmt, gast.If):
        if not stmt.orelse:
            return False
        return all(_branch_folds(branch, name) for branch in (stmt.body, stmt.orelse))
    return False


def _short(expr):
    """A returned expression reads well up to about `bb * a + bb * a`; a longer one keeps its name."""
    return sum(1 for n in walk(expr) if isinstance(n, gast.expr)) <= _MAX_RETURNED_SIZE


def _named_in_comments(stmts, name):
    """Whether a comment among `stmts` names `name` (a textbook identity `... so bb = a @ by`): keep it."""
    import re
    pattern = re.compile(rf"(?<![\w.]){re.escape(name)}(?!\w)")
    return any(_is_comment(s) and pattern.search(str(s.value.args[0].value)) for s in stmts)


def _branch_folds(branch, name):
    real = [s for s in branch if not _is_comment(s)]
    return bool(real) and _folds(real[-1], name)


def _fold(stmt, name):
    """The statements that replace `stmt; return name` (the last one the return itself, for comments)."""
    if isinstance(stmt, gast.Assign):
        return [gast.Return(value=stmt.value)]
    if isinstance(stmt, gast.AugAssign):
        target = gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)
        return [gast.Return(value=gast.BinOp(left=target, op=stmt.op, right=stmt.value))]
    for branch in (stmt.body, stmt.orelse):
        branch.append(gast.Return(value=gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)))
        _block(branch)
    return [stmt]


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
