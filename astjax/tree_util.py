"""JAX-compatible pytrees in plain Python.

A pytree is a nest of containers (tuple, list, dict, None, namedtuple,
OrderedDict, defaultdict and registered classes) whose non-container parts
are leaves.  Flattening gives the leaves in JAX's order plus a `PyTreeDef`,
which is hashable (transformed functions key their caches on it) and can
rebuild the tree from new leaves without looking at types again.

A treedef is stored as nested tuples: a leaf is `None` and a node is
`(kind, data, children)`, so equality and hashing run in C.
"""
import functools
from collections import OrderedDict, defaultdict

__all__ = [
    "PyTreeDef", "register_pytree_node", "register_pytree_node_class",
    "tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure",
    "tree_map", "tree_reduce", "tree_all", "all_leaves",
    "treedef_is_leaf", "treedef_children", "treedef_tuple",
]

_NoneType = type(None)


class _Kind:
    """How one node type flattens and unflattens; compared by identity."""
    __slots__ = ("type", "flatten", "unflatten", "registered")

    def __init__(self, type_, flatten, unflatten, registered=True):
        self.type = type_
        self.flatten = flatten          # x -> (children, data)
        self.unflatten = unflatten      # (data, children list) -> x
        self.registered = registered    # False for auto-detected namedtuples

    def __repr__(self):
        return "<pytree node kind %s>" % self.type.__name__


def _sorted_keys(d):
    try:
        return tuple(sorted(d))
    except TypeError as e:
        raise ValueError(
            "Comparator raised exception while sorting pytree dictionary "
            "keys: %r" % (list(d),)) from e


def _flatten_dict(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], keys


def _flatten_ordered(d):
    keys = tuple(d)
    return [d[k] for k in keys], keys


def _flatten_defaultdict(d):
    keys = _sorted_keys(d)
    return [d[k] for k in keys], (d.default_factory, keys)


_KINDS = {
    tuple: _Kind(tuple, lambda x: (x, None), lambda d, c: tuple(c)),
    list: _Kind(list, lambda x: (x, None), lambda d, c: c),
    dict: _Kind(dict, _flatten_dict, lambda d, c: dict(zip(d, c))),
    _NoneType: _Kind(_NoneType, lambda x: ((), None), lambda d, c: None),
    OrderedDict: _Kind(OrderedDict, _flatten_ordered,
                       lambda d, c: OrderedDict(zip(d, c))),
    defaultdict: _Kind(defaultdict, _flatten_defaultdict,
                       lambda d, c: defaultdict(d[0], zip(d[1], c))),
}
_TUPLE = _KINDS[tuple]
_LIST = _KINDS[list]


def _namedtuple_kind(t):
    kind = _Kind(t, lambda x: (x, None), lambda d, c: t(*c), registered=False)
    _KINDS[t] = kind
    return kind


def register_pytree_node(nodetype, flatten_func, unflatten_func,
                         flatten_with_keys_func=None):
    """Make `nodetype` a container: `flatten_func(x) -> (children, aux)` and
    `unflatten_func(aux, children) -> x`; aux must be hashable and
    comparable, as it becomes part of the treedef.  `flatten_with_keys_func`
    is accepted for JAX compatibility and ignored (no key paths here)."""
    old = _KINDS.get(nodetype)
    if old is not None and old.registered:
        raise ValueError(
            "Duplicate custom PyTreeDef type registration for %r." % nodetype)
    _KINDS[nodetype] = _Kind(
        nodetype, flatten_func, lambda d, c: unflatten_func(d, tuple(c)))


def register_pytree_node_class(cls):
    """Class decorator: register `cls` via its `tree_flatten` method and
    `tree_unflatten` classmethod."""
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


# --- flatten / unflatten -------------------------------------------------

def _is_node(x):
    t = type(x)
    return t in _KINDS or (isinstance(x, tuple) and hasattr(t, "_fields"))


def _flatten(x, leaves):
    """Append the leaves of `x` to `leaves` and return its node."""
    t = type(x)
    kind = _KINDS.get(t)
    if kind is None:
        if not (isinstance(x, tuple) and hasattr(t, "_fields")):
            leaves.append(x)
            return None
        kind = _namedtuple_kind(t)
    if t is tuple or t is list:
        children, data = x, None
    elif t is dict:
        try:
            data = tuple(sorted(x))
        except TypeError:
            data = _sorted_keys(x)      # raises the ValueError
        children = [x[k] for k in data]
    else:
        children, data = kind.flatten(x)
    nodes = []
    for c in children:
        # Leaves are handled inline: one call per container, not per leaf.
        if type(c) in _KINDS or isinstance(c, tuple):
            nodes.append(_flatten(c, leaves))
        else:
            leaves.append(c)
            nodes.append(None)
    return (kind, data, tuple(nodes))


def _flatten_is_leaf(x, leaves, is_leaf):
    """`_flatten` where `is_leaf(subtree)` may declare a subtree a leaf."""
    if is_leaf(x):
        leaves.append(x)
        return None
    t = type(x)
    kind = _KINDS.get(t)
    if kind is None:
        if not (isinstance(x, tuple) and hasattr(t, "_fields")):
            leaves.append(x)
            return None
        kind = _namedtuple_kind(t)
    children, data = kind.flatten(x)
    return (kind, data, tuple(
        [_flatten_is_leaf(c, leaves, is_leaf) for c in children]))


def _unflatten(node, it):
    kind, data, children = node
    items = [next(it) if c is None else _unflatten(c, it) for c in children]
    if kind is _TUPLE:
        return tuple(items)
    if kind is _LIST:
        return items
    return kind.unflatten(data, items)


def _count_leaves(node):
    if node is None:
        return 1
    return sum(_count_leaves(c) for c in node[2])


def _count_nodes(node):
    if node is None:
        return 1
    return 1 + sum(_count_nodes(c) for c in node[2])


def _hashable_skeleton(node):
    """The node with unhashable custom data replaced, for hashing only."""
    if node is None:
        return None
    kind, data, children = node
    try:
        hash(data)
    except TypeError:
        data = type(data).__name__
    return (kind, data, tuple([_hashable_skeleton(c) for c in children]))


def _repr(node):
    if node is None:
        return "*"
    kind, data, children = node
    parts = [_repr(c) for c in children]
    t = kind.type
    if t is tuple:
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if t is list:
        return "[" + ", ".join(parts) + "]"
    if t is dict:
        return "{" + ", ".join(
            "%r: %s" % (k, p) for k, p in zip(data, parts)) + "}"
    if t is _NoneType:
        return "None"
    if kind.registered:
        head = "%s[%s]" % (t.__name__, data)
    else:
        head = "namedtuple[%s]" % t.__name__
    return "CustomNode(%s, [%s])" % (head, ", ".join(parts))


class _Mismatch(ValueError):
    pass


def _flatten_up_to(node, x, out):
    if node is None:
        out.append(x)
        return
    kind, data, children = node
    if type(x) is not kind.type:
        raise _Mismatch("expected %s, got %s"
                        % (kind.type.__name__, type(x).__name__))
    xs, xdata = kind.flatten(x)
    xs = tuple(xs)
    if len(xs) != len(children):
        raise _Mismatch("%s of length %d, got length %d"
                        % (kind.type.__name__, len(children), len(xs)))
    if xdata != data:
        raise _Mismatch("%s with metadata %r, got %r"
                        % (kind.type.__name__, data, xdata))
    for c, sub in zip(children, xs):
        _flatten_up_to(c, sub, out)


class PyTreeDef:
    """The structure of a pytree: hashable, comparable, and able to rebuild
    the tree from a flat list of leaves."""
    __slots__ = ("_node", "_num_leaves", "_hash")

    def __init__(self, node, num_leaves=None):
        self._node = node
        self._num_leaves = (_count_leaves(node) if num_leaves is None
                            else num_leaves)
        self._hash = None

    @property
    def num_leaves(self):
        return self._num_leaves

    @property
    def num_nodes(self):
        return _count_nodes(self._node)

    def unflatten(self, leaves):
        """Rebuild the tree with `leaves` (any iterable) in flat order."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        n = len(leaves)
        if n != self._num_leaves:
            raise ValueError("Too %s leaves for PyTreeDef; expected %d, got %d"
                             % ("few" if n < self._num_leaves else "many",
                                self._num_leaves, n))
        node = self._node
        if node is None:
            return leaves[0]
        return _unflatten(node, iter(leaves))

    def flatten_up_to(self, tree):
        """Leaves of `tree` cut at this structure: where this treedef has a
        leaf, `tree` may have a whole subtree.  ValueError if they differ."""
        out = []
        try:
            _flatten_up_to(self._node, tree, out)
        except _Mismatch as e:
            raise ValueError("Tree structure mismatch: %s; expected structure "
                             "%r, got tree %r" % (e, self, tree)) from None
        return out

    def children(self):
        """Treedefs of the root's children."""
        if self._node is None:
            return []
        return [PyTreeDef(c) for c in self._node[2]]

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        return self._node == other._node

    def __hash__(self):
        h = self._hash
        if h is None:
            try:
                h = hash(self._node)
            except TypeError:
                h = hash(_hashable_skeleton(self._node))
            self._hash = h
        return h

    def __repr__(self):
        return "PyTreeDef(%s)" % _repr(self._node)


def _flatten_any(tree, leaves, is_leaf):
    if is_leaf is None:
        return _flatten(tree, leaves)
    return _flatten_is_leaf(tree, leaves, is_leaf)


def tree_flatten(tree, is_leaf=None):
    """Leaves of `tree` (dict keys sorted) and its `PyTreeDef`."""
    leaves = []
    node = _flatten_any(tree, leaves, is_leaf)
    return leaves, PyTreeDef(node, len(leaves))


def tree_unflatten(treedef, leaves):
    """Rebuild a tree of structure `treedef` from `leaves`."""
    return treedef.unflatten(leaves)


def tree_leaves(tree, is_leaf=None):
    """The leaves of `tree` in flatten order."""
    leaves = []
    _flatten_any(tree, leaves, is_leaf)
    return leaves


def tree_structure(tree, is_leaf=None):
    """The `PyTreeDef` of `tree`."""
    return tree_flatten(tree, is_leaf)[1]


def tree_map(f, tree, *rest, is_leaf=None):
    """Apply `f` leafwise; `rest` trees must share `tree`'s structure (each
    may hold a subtree where `tree` has a leaf)."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    all_leaves = [leaves]
    node = treedef._node
    for i, r in enumerate(rest):
        out = []
        if _flatten(r, out) == node:    # the common case: same structure
            all_leaves.append(out)
            continue
        out = []
        try:
            _flatten_up_to(node, r, out)
        except _Mismatch as e:
            try:
                other = repr(tree_structure(r))
            except Exception:
                other = repr(r)
            raise ValueError(
                "tree_map: rest[%d] has structure %s, which does not match "
                "the first tree's structure %r (%s)"
                % (i, other, treedef, e)) from None
        all_leaves.append(out)
    return treedef.unflatten([f(*xs) for xs in zip(*all_leaves)])


_NO_INITIALIZER = object()


def tree_reduce(function, tree, initializer=_NO_INITIALIZER, is_leaf=None):
    """`functools.reduce` over the leaves of `tree`."""
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INITIALIZER:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_all(tree, *, is_leaf=None):
    """Whether every leaf of `tree` is truthy."""
    return all(tree_leaves(tree, is_leaf))


def all_leaves(iterable, is_leaf=None):
    """Whether every element of `iterable` is a leaf (None is not one)."""
    items = list(iterable)
    if is_leaf is None:
        return not any(_is_node(x) for x in items)
    leaves = tree_leaves(items, is_leaf)
    return len(leaves) == len(items) and all(
        a is b for a, b in zip(leaves, items))


def treedef_is_leaf(treedef):
    """True for a leaf's treedef, and (as in JAX) for any single-node one
    such as `None` or `()`."""
    return treedef.num_nodes == 1


def treedef_children(treedef):
    """Treedefs of the root's children."""
    return treedef.children()


def treedef_tuple(treedefs):
    """The treedef of a tuple whose children have `treedefs`."""
    treedefs = list(treedefs)
    return PyTreeDef((_TUPLE, None, tuple(t._node for t in treedefs)),
                     sum(t.num_leaves for t in treedefs))
