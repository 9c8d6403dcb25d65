"""Fast walks over a gast tree, for the passes that collect names or look for a kind of node.

`gast.walk` (ast.walk) goes through two nested generators and a deque for every
node; the cleanup passes call it for every statement of a generated function,
several times per fixed-point round, and it was most of the build time of
higher derivatives. These walk the same nodes (every field of every node,
`ctx` and annotations included) with one explicit stack or list. `nodes` and
the name sets visit in no particular order: use them only where the result is
a set or a yes/no answer; `breadth_first` keeps `gast.walk`'s order, and
`walk` is `gast.walk` itself, lazy as it is, with one generator instead of three.

`NodeVisitor` and `NodeTransformer` are the standard library's, with the same
behaviour and a faster `visit` (the method for a node class is looked up once
per visitor class) and `generic_visit` (fields read directly): every pass of
the package derives from these, and their generic walks were a fifth of the
time a derivative took to build.

>>> import gast
>>> sorted(name_ids(gast.parse("y = f(x) + y")))
['f', 'x', 'y']
>>> sorted(loaded_names(gast.parse("y = f(x) + y"))), sorted(stored_names(gast.parse("y = f(x) + y")))
(['f', 'x', 'y'], ['y'])
"""
from collections import deque

import gast

__all__ = ["nodes", "breadth_first", "walk", "name_ids", "loaded_names", "stored_names", "copy_tree",
           "NodeVisitor", "NodeTransformer"]

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


def walk(root):
    """Every node under `root` in `gast.walk`'s order, lazily and with its semantics: a node's children
    are queued before the node is yielded, so a caller that rebinds a yielded node's fields walks its old
    children, and one that changes a node deeper down walks the new ones."""
    todo = deque([root])
    popleft, append = todo.popleft, todo.append
    while todo:
        node = popleft()
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, _AST):
                append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
        yield node


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



def copy_tree(node):
    """A deep copy of the gast tree `node`, as `copy.deepcopy` makes it, at a fraction of its cost:
    every node is copied, with its fields and attributes (positions and the markers passes set); lists
    and tuples are copied item by item; dicts and sets deeply; anything else (constants' values,
    strings, numbers) is shared, as nothing changes those in place."""
    if isinstance(node, _AST):
        return _copy_node(node)
    return _copy_value(node)


def _copy_node(node):
    cls = node.__class__
    clone = cls.__new__(cls)
    values = {}
    for key, value in node.__dict__.items():
        kind = value.__class__
        if kind is list:
            values[key] = [_copy_node(v) if isinstance(v, _AST) else _copy_value(v) for v in value]
        elif isinstance(value, _AST):
            values[key] = _copy_node(value)
        elif kind in _SHARED:
            values[key] = value
        else:
            values[key] = _copy_value(value)
    clone.__dict__.update(values)
    return clone


_SHARED = {str, int, float, bool, type(None), bytes, complex}


def _copy_value(value):
    if isinstance(value, _AST):
        return _copy_node(value)
    if isinstance(value, list):
        return [_copy_value(item) for item in value]
    if isinstance(value, tuple):
        return tuple(_copy_value(item) for item in value)
    if isinstance(value, (dict, set)):
        import copy
        return copy.deepcopy(value)
    return value


_DEPRECATED_CONSTANT_VISIT = gast.NodeVisitor.visit_Constant


def _visit_method(visitor_class, node_class):
    """`visitor_class`'s `visit_<NodeClass>` as a plain function, or None for `generic_visit`.

    The table lives on the visitor class itself (`_visit_table`, with the class it was made for, so a
    subclass never reads its base's), never in a module-level dict: a pass that defines a visitor class per call (whose methods close over that
    call's context) would otherwise keep every such class, its context and that build's trees alive."""
    owner, table = visitor_class._visit_table      # (the class the table was made for, the table)
    if owner is not visitor_class:                  # a subclass reads its base's: it gets its own
        table = {}
        visitor_class._visit_table = (visitor_class, table)
    try:
        return table[node_class]
    except KeyError:
        method = getattr(visitor_class, "visit_" + node_class.__name__, None)
        if method is _DEPRECATED_CONSTANT_VISIT:   # only forwards to visit_Num & co., which no pass defines
            method = None
        table[node_class] = method
        return method


# Node classes without fields (`Load`, `Store`, `Add`, ...): visiting one that a visitor has no method for
# does nothing, so generic visits skip them (a `ctx` of every name, an operator of every operation).
_LEAF_CLASSES = frozenset(c for c in vars(gast).values()
                          if isinstance(c, type) and issubclass(c, _AST) and not c._fields)


def _skipped_leaves(visitor_class):
    """The field-less node classes `visitor_class` has no `visit_` method for (kept on the class, as the
    method table is); none for a visitor that overrides `visit` itself (it may act on every node)."""
    owner, skipped = visitor_class.__dict__.get("_skipped_leaf_table", (None, None))
    if owner is not visitor_class:
        own_visit = visitor_class.visit not in (NodeVisitor.visit, NodeTransformer.visit)
        skipped = frozenset() if own_visit else frozenset(
            c for c in _LEAF_CLASSES if _visit_method(visitor_class, c) is None)
        visitor_class._skipped_leaf_table = (visitor_class, skipped)
    return skipped


class NodeVisitor(gast.NodeVisitor):
    """`gast.NodeVisitor` with a cached method lookup and a direct walk over the fields."""

    _visit_table = (None, None)

    def visit(self, node):
        method = _visit_method(self.__class__, node.__class__)
        if method is None:
            return self.generic_visit(node)
        return method(self, node)

    def generic_visit(self, node):
        visit = self.visit
        skipped = _skipped_leaves(self.__class__)
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, _AST) and item.__class__ not in skipped:
                        visit(item)
            elif isinstance(value, _AST) and value.__class__ not in skipped:
                visit(value)


class NodeTransformer(gast.NodeTransformer):
    """`gast.NodeTransformer` with a cached method lookup and a direct walk over the fields; a visit
    returns the node to keep, None to drop it, or a list of nodes to put in its place in a list field."""

    _visit_table = (None, None)

    def visit(self, node):
        method = _visit_method(self.__class__, node.__class__)
        if method is None:
            return self.generic_visit(node)
        return method(self, node)

    def generic_visit(self, node):
        visit = self.visit
        skipped = _skipped_leaves(self.__class__)
        for field in node._fields:
            try:
                old = getattr(node, field)
            except AttributeError:
                continue
            if isinstance(old, list):
                kept = []
                for item in old:
                    if isinstance(item, _AST) and item.__class__ not in skipped:
                        item = visit(item)
                        if item is None:
                            continue
                        if not isinstance(item, _AST):
                            kept.extend(item)
                            continue
                    kept.append(item)
                old[:] = kept
            elif isinstance(old, _AST) and old.__class__ not in skipped:
                new = visit(old)
                if new is None:
                    delattr(node, field)
                else:
                    setattr(node, field, new)
        return node
