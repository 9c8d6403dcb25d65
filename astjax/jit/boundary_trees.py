"""Pytree arguments and results at the jit boundary: leaves in, leaves out.

Numba unboxes arrays, numbers and tuples from Python, but not dicts or
NamedTuples, and it cannot box a dict it returns. For a signature whose
arguments or result hold such containers, jit compiles a small entry function
in front of the compiled one: it takes every leaf as its own parameter (Numba
types each leaf on its own and unboxes nothing nested), rebuilds each argument
in a prologue (a dict with string keys becomes Numba's literal-key dict, so
`params["W"]` compiles to a direct reference; lists and tuples become tuples;
a NamedTuple is constructed from its class), calls the compiled function, and
returns the result's leaves as one flat tuple, which Python rebuilds into the
reference backend's structure. Separate leaf parameters rather than one tuple
of leaves: the entry's signature is then exactly the leaves' types, and
nothing is packed in Python on the way in.

Dict keys keep their insertion order, since the reference backend iterates a
dict in that order; the order is part of the signature (JAX sorts keys, but a
jitted call must equal the un-jitted one). A `None` inside a container is
structure, not a leaf, as in JAX. Containers Numba cannot build (custom
pytree classes, dataclasses, non-string dict keys, empty dicts) are refused
with a JitError that names the argument.
"""
from ..backends.numba_cpu import JitError

__all__ = ["needs_boundary", "Layout", "layout_of", "tree_signature", "entry_source"]


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(type(value), "_fields")


def needs_boundary(value):
    """Whether `value` holds a container Numba cannot take or give as it is (a dict or a NamedTuple)."""
    if isinstance(value, dict) or _is_namedtuple(value):
        return True
    if isinstance(value, (tuple, list)):
        return any(needs_boundary(v) for v in value)
    return False


class Layout:
    """The structure of one value: a tree of ("leaf",), ("none",), ("tuple", kids), ("list", kids),
    ("dict", keys, kids), ("namedtuple", cls, kids); hashable, so part of a cache key."""

    __slots__ = ("node", "count", "leaves")

    def __init__(self, node):
        self.node = node
        self.count = _count(node)
        paths = []
        _paths(node, "value", paths)
        # `leaves(value)`: one expression reading every leaf, written once per layout (the dispatch path)
        self.leaves = eval(f"lambda value: [{', '.join(paths)}]", {})     # noqa: S307 -- keys are repr()s of str

    def rebuild(self, leaves):
        """The value of this layout with these leaves (Python containers, as the reference backend builds)."""
        return _rebuild(self.node, iter(leaves))

    def __eq__(self, other):
        return isinstance(other, Layout) and self.node == other.node

    def __hash__(self):
        return hash(self.node)


def layout_of(value, what="an argument"):
    """The Layout of `value`; a JitError for a container compiled code cannot hold."""
    return Layout(_node(value, what))


def _node(value, what):
    if value is None:
        return ("none",)
    if type(value) is dict:
        keys = tuple(value)
        if not keys:
            raise JitError(f"jit cannot pass an empty dict as {what} into compiled code",
                           hint="mark the argument static, or leave the empty dict out")
        bad = [k for k in keys if type(k) is not str]
        if bad:
            raise JitError(f"jit passes dicts with string keys into compiled code; {what} has the key {bad[0]!r}",
                           hint="use string keys, or a tuple or list, or mark the argument static")
        return ("dict", keys, tuple(_node(value[k], what) for k in keys))
    if _is_namedtuple(value):
        return ("namedtuple", type(value), tuple(_node(v, what) for v in value))
    if type(value) is tuple:
        return ("tuple", tuple(_node(v, what) for v in value))
    if type(value) is list:
        return ("list", tuple(_node(v, what) for v in value))
    if isinstance(value, (dict, tuple, list)) or _is_custom_node(value):
        raise JitError(f"jit cannot pass a {type(value).__name__} ({what}) into compiled code",
                       hint="pass dicts, lists, tuples and NamedTuples of arrays and numbers, "
                            "or mark the argument static")
    return ("leaf",)


def _is_custom_node(value):
    from .. import tree_util
    return type(value) in tree_util._KINDS


def _count(node):
    kind = node[0]
    if kind == "leaf":
        return 1
    if kind == "none":
        return 0
    return sum(_count(k) for k in node[-1])


def _rebuild(node, leaves):
    kind = node[0]
    if kind == "leaf":
        return next(leaves)
    if kind == "none":
        return None
    if kind == "dict":
        return {key: _rebuild(kid, leaves) for key, kid in zip(node[1], node[2])}
    items = [_rebuild(kid, leaves) for kid in node[-1]]
    if kind == "namedtuple":
        return node[1](*items)
    return items if kind == "list" else tuple(items)


def tree_signature(value, leaf_signature):
    """The signature of a container argument: its structure with each leaf's signature in place."""
    if value is None:
        return ("none",)
    if type(value) is dict:
        return ("dict", tuple(value), tuple(tree_signature(v, leaf_signature) for v in value.values()))
    if _is_namedtuple(value):
        return ("namedtuple", type(value), tuple(tree_signature(v, leaf_signature) for v in value))
    if type(value) in (tuple, list):
        return (type(value).__name__, tuple(tree_signature(v, leaf_signature) for v in value))
    return leaf_signature(value)


def entry_source(name, target, arg_layouts, out_layout):
    """(source text, names it needs) of the entry function: leaves in, `target` called on the rebuilt
    arguments, the result's leaves out as one tuple (or the result as it is when `out_layout` is None)."""
    names = {}
    params, counter = [], iter(range(10 ** 9))
    rebuilt = []
    for layout in arg_layouts:
        rebuilt.append(_expression(layout.node, params, counter, names))
    lines = [f"def {name}({', '.join(params)}):",
             f"    out = {target}({', '.join(rebuilt)})"]
    if out_layout is None:
        lines.append("    return out")
    else:
        paths = []
        _paths(out_layout.node, "out", paths)
        lines.append(f"    return ({''.join(p + ', ' for p in paths)})")
    return "\n".join(lines) + "\n", names


def _expression(node, params, counter, names):
    kind = node[0]
    if kind == "leaf":
        params.append(f"leaf{next(counter)}")
        return params[-1]
    if kind == "none":
        return "None"
    kids = [_expression(kid, params, counter, names) for kid in node[-1]]
    if kind == "dict":
        return "{" + ", ".join(f"{key!r}: {kid}" for key, kid in zip(node[1], kids)) + "}"
    if kind == "namedtuple":
        label = f"astjax_tuple_class{len(names)}"
        names[label] = node[1]
        return f"{label}({', '.join(kids)})"
    return "(" + "".join(k + ", " for k in kids) + ")"


def _paths(node, expression, out):
    kind = node[0]
    if kind == "leaf":
        out.append(expression)
    elif kind == "dict":
        for key, kid in zip(node[1], node[2]):
            _paths(kid, f"{expression}[{key!r}]", out)
    elif kind != "none":
        for i, kid in enumerate(node[-1]):
            _paths(kid, f"{expression}[{i}]", out)
