"""Which statements must stay even if their result is unused (the tape, list appends)."""
import gast

IMPURE_CALLS = {"push", "pop", "append", "print"}


def has_effects(node):
    """Whether evaluating `node` may do something besides computing a value."""
    for child in gast.walk(node):
        if isinstance(child, gast.Call):
            func = child.func
            ident = func.id if isinstance(func, gast.Name) else func.attr if isinstance(func, gast.Attribute) else None
            if ident in IMPURE_CALLS or ident == "__comment__" or ident == "__restore__":
                return True
    return False


def reads(node):
    return {n.id for n in gast.walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}


def writes(node):
    out = set()
    for n in gast.walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            out.add(n.id)
    return out
