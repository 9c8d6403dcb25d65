"""An `else` after a branch that returns is the code that follows the `if`.

    if a > 0:                       ->      if a > 0:
        return 3.0                              return 3.0
    else:                                   return 2.0
        return 2.0

    if a > 0:                       ->      if a > 0:
        if a < 10:                              if a < 10:
            return 2 * a                            return 2 * a
    else:                                       return 1.0
        return 3.0                          return 3.0
    return 1.0

A teacher writes the early return and carries on. Where only the `else` branch returns and a single
`return` follows the `if`, that return is what the `if` branch falls through to: it moves to the
branch's end, and the `else` code follows. Only where the `if` branch ends in a `return` or
`raise` (or an `if`/`else` every branch of which does): then the `else` code runs exactly when the
test is false, as it does after the `if`. An `elif` chain unwinds one level at a time.
"""
import gast

__all__ = ["drop_else_after_return"]


def drop_else_after_return(function_node):
    _block(function_node.body)
    return function_node


def _block(block):
    i = 0
    while i < len(block):
        stmt = block[i]
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                _block(inner)
        for handler in getattr(stmt, "handlers", None) or []:
            _block(handler.body)
        if isinstance(stmt, gast.If) and stmt.orelse and not _ends(stmt.body) and _ends(stmt.orelse):
            after = [s for s in block[i + 1:] if not _is_comment(s)]
            if len(after) == 1 and isinstance(after[0], gast.Return):
                block[i + 1:], stmt.body = [], stmt.body + block[i + 1:]   # the return where the `if` branch ends
        if isinstance(stmt, gast.If) and stmt.orelse and _ends(stmt.body):
            rest = stmt.orelse
            stmt.orelse = []
            block[i + 1:i + 1] = rest
        i += 1


def _ends(block):
    """Whether control never leaves `block` at its end (its last statement returns or raises)."""
    real = [s for s in block if not _is_comment(s)]
    if not real:
        return False
    last = real[-1]
    if isinstance(last, (gast.Return, gast.Raise)):
        return True
    return isinstance(last, gast.If) and bool(last.orelse) and _ends(last.body) and _ends(last.orelse)


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")
