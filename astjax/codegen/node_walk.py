"""Fast walks over a gast tree, for the passes that collect names or look for a kind of node.

`gast.walk` (ast.walk) goes through two nested generators and a deque for every
node; the cleanup passes call it for every statement of a generated function,
several times per fixed-point round, and it was most of the build time of
higher derivatives. These walk the same nodes (every field of every node,
`ctx` and annotations included) with one explicit stack or list. `nodes` and
the name sets visit in no particular order: use them only where the result is
a set or a yes/no answer; `breadth_first` keeps `gast.walk`'s order.

>>> import gast
>>> sorted(name_ids(gast.parse("y = f(x) + y")))
['f', 'x', 'y']
>>> sorted(loaded_names(gast.parse("y = f(x) + y"))), sorted(stored_names(gast.parse("y = f(x) + y")))
(['f', 'x', 'y'], ['y'])
"""
import gast

__all__ = ["nodes", "breadth_first", "name_ids", "loaded_names", "stored_names"]

_AST = gast.AST
_NAME = gast.Name


def nodes(root):
    """Every node under `root` (itself included), in no particular order."""
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        yield node
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(value, _AST):
                push(value)


def breadth_first(root):
    """Every node under `root` in `gast.walk`'s order (breadth first, fields in order), as a list."""
    out = [root]
    append = out.append
    k = 0
    while k < len(out):
        node = out[k]
        k += 1
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, _AST):
                append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
    return out


def _names(root, context):
    found = set()
    stack = [root]
    pop, push, add = stack.pop, stack.append, found.add
    while stack:
        node = pop()
        if node.__class__ is _NAME and (context is None or node.ctx.__class__ is context):
            add(node.id)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        push(item)
            elif isinstance(value, _AST):
                push(value)
    return found


def name_ids(root):
    """The identifiers of every `Name` under `root`, whatever its context."""
    return _names(root, None)


def loaded_names(root):
    """The identifiers `root` reads (`Name` nodes in a Load context)."""
    return _names(root, gast.Load)


def stored_names(root):
    """The identifiers `root` assigns (`Name` nodes in a Store context)."""
    return _names(root, gast.Store)
