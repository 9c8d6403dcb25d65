"""Dead code: assignments nobody reads, branches and loops left empty.

    _t1 = jnp.cos(x)         (never read)   ->   (removed)
    for i in range(n):                        ->   (removed)
        pass
"""
import gast

from .effects import has_effects, reads, writes

__all__ = ["remove_dead_code"]


def remove_dead_code(function_node):
    live = set()
    for stmt in function_node.body:
        if isinstance(stmt, gast.Return) and stmt.value is not None:
            live |= reads(stmt.value)
    function_node.body = drop_dangling_comments(_block(function_node.body, live)[0]) or [gast.Pass()]
    return function_node


def _block(stmts, live_out, dry=False):
    """(kept statements, names live before them), working backwards; `dry` computes liveness only."""
    live = set(live_out)
    kept = []
    for stmt in reversed(stmts):
        stmt, live = _statement(stmt, live, dry)
        if stmt is not None:
            kept.append(stmt)
    kept.reverse()
    return kept, live


def _statement(stmt, live, dry=False):
    if isinstance(stmt, gast.Assign):
        targets = writes(stmt.targets[0])
        if not (targets & live) and not has_effects(stmt.value):
            return None, live
        return stmt, (live - targets) | reads(stmt.value)
    if isinstance(stmt, gast.AugAssign):
        if stmt.target.id not in live and not has_effects(stmt.value):
            return None, live
        return stmt, live | reads(stmt.value) | {stmt.target.id}
    if isinstance(stmt, gast.If):
        body, live_body = _block(stmt.body, live, dry)
        orelse, live_else = _block(stmt.orelse, live, dry)
        if not _does_something(body) and not _does_something(orelse):
            return None, live
        live_in = live_body | live_else | reads(stmt.test)
        if dry:
            return stmt, live_in
        if not _does_something(body):      # if c: pass else: s   ->   if not c: s
            body, orelse = orelse, []
            stmt.test = gast.UnaryOp(op=gast.Not(), operand=stmt.test)
        stmt.body = body
        stmt.orelse = orelse if _does_something(orelse) else []
        return stmt, live_in
    if isinstance(stmt, (gast.For, gast.While)):
        # What a later iteration reads is live at the end of this one: find that fixed point
        # first, then prune the body once with it.
        loop_live = set(live) | (reads(stmt.test) if isinstance(stmt, gast.While) else set())
        while True:
            _, live_in = _block(stmt.body, loop_live, dry=True)
            grown = loop_live | live_in
            if grown == loop_live:
                break
            loop_live = grown
        body, _ = _block(stmt.body, loop_live, dry)
        if not _does_something(body):
            return None, live
        if not dry:
            stmt.body = body
        header = reads(stmt.iter) if isinstance(stmt, gast.For) else reads(stmt.test)
        target = {stmt.target.id} if isinstance(stmt, gast.For) else set()
        return stmt, (loop_live - target) | live | header
    if isinstance(stmt, gast.Pass):
        return None, live
    if isinstance(stmt, gast.Expr):
        if has_effects(stmt.value):
            return stmt, live | reads(stmt.value)
        return None, live
    return stmt, live | reads(stmt)


def drop_dangling_comments(block):
    """Remove comments left with nothing under them (their statements were dead).

    A `# from line N` comment heads its group: a comment is kept when what follows it (among the
    statements kept) is a statement or another comment of its group (`# d inv(A) = ...` above an
    adjoint line), not the next group's head or the end of the block."""
    for stmt in block:
        for field in ("body", "orelse"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list):
                setattr(stmt, field, drop_dangling_comments(inner) or ([gast.Pass()] if field == "body" else []))
    out = []
    for stmt in reversed(block):
        if _is_comment(stmt) and (not out or _is_group_head(out[-1])):
            continue
        out.append(stmt)
    return out[::-1]


def _is_group_head(stmt):
    return _is_comment(stmt) and str(stmt.value.args[0].value).startswith("from line ")


def _does_something(block):
    return any(not isinstance(s, gast.Pass) and not _is_comment(s) for s in block)


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
