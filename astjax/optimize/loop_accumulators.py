"""An adjoint a loop body zeroes at the end of every iteration is assigned, not accumulated, at its start.

    b_t3 = 0.0                              (removed: nothing reads it)
    for _i1 in reversed(range(n)):          for _i1 in reversed(range(n)):
        b_t3 += bh * (1.0 - h * h)    ->        b_t3 = bh * (1.0 - h * h)
        bW += jnp.outer(b_t3, x)                bW += jnp.outer(b_t3, x)
        b_t3 = 0.0                              (removed)

This is exact when `b_t3` is zero every time the `+=` runs: the reset is the
body's last statement mentioning it, nothing (`break`, `continue`, `return`)
can skip the reset, and everywhere outside the loop `b_t3` is only set to zero
(so it is zero when the loop starts, and its value after the loop is never
read). The reverse sweep of a loop writes exactly this for the adjoints of
temporaries computed inside the loop.
"""
import gast

from .zero_accumulation import _is_shaped_zero, _is_zero, _may_be_bare_zero
from ..codegen.node_walk import breadth_first, name_ids, nodes

__all__ = ["fold_loop_accumulators"]


def fold_loop_accumulators(function_node):
    index = None
    for loop in [n for n in breadth_first(function_node) if isinstance(n, (gast.For, gast.While))]:
        if _can_skip_the_end(loop):
            continue
        body_names = [_names(stmt) for stmt in loop.body]     # kept in step with loop.body by _fold
        inside = None
        for variable in _reset_at_the_end(loop, body_names):
            if index is None:
                index = _MentionIndex(function_node)
            if inside is None:
                inside = {id(n) for stmt in loop.body for n in nodes(stmt)}
            if index.only_zeroed_outside(loop, variable, inside):
                _fold(loop, variable, body_names, index, inside)
    return function_node


class _MentionIndex:
    """The ids of every `Name` node of the function by identifier, and of the nodes of each `v = <zero>`:
    one walk of the function, updated by each fold, instead of one walk per (loop, variable) pair (that
    was quadratic: most of the build time of a loop's gradient). Nodes a fold removes are kept alive in
    `removed`, so their ids cannot be reused by new nodes while the index holds them."""

    def __init__(self, function_node):
        self.mentions = {}
        self.zeroing = {}
        self.removed = []
        for node in nodes(function_node):
            if isinstance(node, gast.Name):
                self.mentions.setdefault(node.id, set()).add(id(node))
            elif _is_zeroing(node):
                self.zeroing.setdefault(node.targets[0].id, set()).update(id(n) for n in nodes(node))

    def only_zeroed_outside(self, loop, variable, inside):
        """Whether every statement outside `loop` mentioning `variable` sets it to zero (a `zeros_shaped`
        reading it for its dtype included), and the loop's header does not mention it. `inside`: the ids
        of the loop body's nodes (an `else:` block runs after the loop)."""
        header = [loop.test] if isinstance(loop, gast.While) else [loop.target, loop.iter]
        if any(variable in _names(part) for part in header):
            return False
        zeroing = self.zeroing.get(variable, ())
        return all(n in inside or n in zeroing for n in self.mentions.get(variable, ()))

    def remove(self, node):
        self.removed.append(node)
        for n in gast.walk(node):
            if isinstance(n, gast.Name):
                self.mentions[n.id].discard(id(n))
            elif _is_zeroing(n):
                self.zeroing[n.targets[0].id].difference_update(id(m) for m in gast.walk(n))

    def add(self, node):
        for n in gast.walk(node):
            if isinstance(n, gast.Name):
                self.mentions.setdefault(n.id, set()).add(id(n))
            elif _is_zeroing(n):
                self.zeroing.setdefault(n.targets[0].id, set()).update(id(m) for m in gast.walk(n))


def _is_zeroing(node):
    return (isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name)
            and _is_zero(node.value))


def _reset_at_the_end(loop, body_names):
    """Variables whose last mention in the loop body is a top-level `v = <zero>`."""
    found = []
    seen_later = set()
    for stmt, names in zip(reversed(loop.body), reversed(body_names)):
        if _is_zeroing(stmt) and stmt.targets[0].id not in seen_later:
            found.append(stmt.targets[0].id)
        seen_later |= names
    return found


def _fold(loop, variable, body_names, index, inside):
    """Turn the body's first mention of `variable`, a top-level `v += e`, into `v = e`; drop the reset
    (keeping `body_names`, `index` and `inside` in step)."""
    first = next(i for i, names in enumerate(body_names) if variable in names)
    last = max(i for i, names in enumerate(body_names) if variable in names)
    stmt, reset = loop.body[first], loop.body[last]
    if not (isinstance(stmt, gast.AugAssign) and isinstance(stmt.op, gast.Add)
            and isinstance(stmt.target, gast.Name) and stmt.target.id == variable
            and variable not in _names(stmt.value) and first < last):
        return
    if _is_shaped_zero(reset.value) and _may_be_bare_zero(stmt.value):
        return          # the contribution may be a bare 0.0 where the reset gave a shaped zero
    assign = gast.copy_location(
        gast.Assign(targets=[gast.Name(id=variable, ctx=gast.Store(), annotation=None, type_comment=None)],
                    value=stmt.value, type_comment=None), stmt)
    loop.body[first] = assign
    del loop.body[last]
    del body_names[last]
    index.remove(stmt.target)
    index.remove(reset)
    index.removed.append(stmt)
    index.add(assign)
    inside.update((id(assign), id(assign.targets[0]), id(assign.targets[0].ctx)))


def _can_skip_the_end(loop):
    """Whether some iteration may end before the body's last statement and the loop go on (break,
    continue; return too, to be safe; a raise ends the whole call)."""
    def walk(stmts, nested):
        for stmt in stmts:
            if isinstance(stmt, gast.Return) or (not nested and isinstance(stmt, (gast.Break, gast.Continue))):
                return True
            if isinstance(stmt, (gast.FunctionDef, gast.ClassDef)):
                continue
            inner_nested = nested or isinstance(stmt, (gast.For, gast.While))
            for field in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(stmt, field, None)
                if isinstance(block, list) and walk(block, inner_nested):
                    return True
        return False
    return walk(loop.body, False)


def _names(node):
    return name_ids(node)
