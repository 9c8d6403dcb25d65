"""What memory a value may share: the facts the aliasing pass (frontend/normalize/aliasing.py) reasons with.

A *tag* stands for one object a value may be: an allocation site (`x * 2.0`,
`[a, b]`), a parameter, or something outside the function (a global). Arrays
that are views of one another share a tag. A tag made by a list, tuple or dict
display (or `list(...)`, a comprehension, `xs.copy()`) is a *container*: its
identity is the container object itself, and what its items may be is kept
apart, in `State.contents`::

    xs = [a, b]        xs: {L}          contents[L] = tags(a) | tags(b)
    v = xs[0]          v:  tags(a) | tags(b)      (an item, not the list)
    xs.append(w)       changes L only: `v` does not see it; contents[L] |= tags(w)

So a list mutator conflicts only with names that may reach the list object
itself (another name for it, or a list holding it), while an in-place change
of an array conflicts with every name that may reach that array, through any
number of containers (`rows = [row]; row += 1` changes `rows[0]`).

Tags are bounded (one per site, plus one "older" generation for values a loop
made on earlier iterations), so loops reach a fixed point.
"""
import ast

import gast
import numpy as np
from ..codegen.node_walk import walk

__all__ = ["Tag", "State", "ALLOCATING", "VIEWS", "ALLOCATING_METHODS", "IN_PLACE_METHODS", "LIST_MUTATORS", "DICT_MUTATORS",
           "MUTATING_FUNCTIONS", "METADATA", "NUMBER_BUILTINS", "COPYING_BUILTINS", "LAZY_BUILTINS",
           "ITEM_BUILTINS", "text", "root_name", "base_name", "reads", "closure_reads_of", "module_of", "mutable",
           "integral"]

# numpy / astjax.numpy functions whose result is a new array that shares no memory with the arguments
ALLOCATING = {
    "zeros", "ones", "empty", "full", "zeros_like", "ones_like", "empty_like", "full_like", "array", "copy",
    "arange", "linspace", "logspace", "geomspace", "eye", "identity", "tri", "sum", "mean", "prod", "max", "min",
    "amax", "amin", "std", "var", "median", "average", "dot", "matmul", "vdot", "inner", "outer", "tensordot",
    "einsum", "kron", "cross", "trace", "concatenate", "stack", "vstack", "hstack", "dstack", "column_stack",
    "where", "cumsum", "cumprod", "sort", "argsort", "argmax", "argmin", "clip", "round", "around", "tile",
    "repeat", "diff", "convolve", "correlate", "polyval", "interp", "maximum", "minimum", "fmax", "fmin",
    "norm", "det", "inv", "solve", "cholesky", "logsumexp", "softmax", "roll", "pad", "take", "allclose",
    "all", "any", "count_nonzero", "nonzero", "unique", "searchsorted", "histogram", "bincount", "cov",
    "corrcoef", "meshgrid", "tril", "triu", "vander", "nan_to_num", "logaddexp", "heaviside",
}
# functions whose result may share the first argument's memory (views, or the argument itself)
VIEWS = {
    "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "reshape", "ravel", "transpose",
    "swapaxes", "moveaxis", "rollaxis", "squeeze", "expand_dims", "atleast_1d", "atleast_2d", "atleast_3d",
    "broadcast_to", "broadcast_arrays", "diagonal", "diag", "real", "imag", "flip", "fliplr", "flipud",
    "rot90", "split", "array_split", "hsplit", "vsplit", "dsplit", "require", "matrix_transpose",
    "permute_dims", "unstack",
}
# array methods that allocate (`x.copy()`), read shapes, or reduce
ALLOCATING_METHODS = ALLOCATING | {"copy", "astype", "tolist", "flatten", "item", "dot", "conj"}
# array methods and functions that write into their first argument
IN_PLACE_METHODS = {"sort", "fill", "resize", "put", "partition", "itemset", "setfield", "byteswap", "setflags"}
LIST_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "reverse"}
# dict methods that change the dict (`pop` and `clear` are in LIST_MUTATORS): through another name that holds
# the dict (`e = d; e.update(...)`, `inner = d["a"]`) they change what that name reads too
DICT_MUTATORS = {"update", "setdefault", "popitem"}
MUTATING_FUNCTIONS = {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis", "shuffle"}
METADATA = {"shape", "ndim", "size", "dtype", "itemsize", "nbytes"}
NUMBER_BUILTINS = {float, int, len, bool, abs, round, complex, isinstance, hash, ord, id}
# builtins that make a new container holding the items of their arguments
COPYING_BUILTINS = {list, tuple, sorted, set, dict, frozenset}
# builtins whose result iterates over their arguments (it keeps the argument itself)
LAZY_BUILTINS = {reversed, zip, enumerate, iter, map, filter}
# builtins that return one of the items of their arguments
ITEM_BUILTINS = {max, min, next}


class Tag:
    """One object a value may be: an allocation site, a parameter or an outside value."""

    __slots__ = ("kind", "label", "container")

    def __init__(self, kind, label, container=False):
        self.kind = kind              # "fresh", "older", "parameter", "external"
        self.label = label
        self.container = container    # a list, tuple or dict made here: its items are kept in contents

    def __repr__(self):
        return f"<{self.kind}{' container' if self.container else ''} {self.label}>"


class State:
    """At one point of the program: name -> tags its value may be, container tag -> tags its items may be,
    where each name was bound, and its kind ("int_array", "int", "list", "array", or absent: unknown)."""

    def __init__(self, tags=None, origin=None, kind=None, contents=None):
        self.tags = dict(tags or {})
        self.origin = dict(origin or {})      # name -> the statement that last bound it
        self.kind = dict(kind or {})
        self.contents = dict(contents or {})  # tag -> frozenset of the tags its items may be

    def copy(self):
        return State(self.tags, self.origin, self.kind, self.contents)

    def join(self, other):
        out = State()
        for key in set(self.tags) | set(other.tags):
            out.tags[key] = self.tags.get(key, frozenset()) | other.tags.get(key, frozenset())
            out.origin[key] = self.origin.get(key) or other.origin.get(key)
            if key not in self.tags:            # unbound on one path: the other path's kind
                kind = other.kind.get(key)
            elif key not in other.tags:
                kind = self.kind.get(key)
            else:
                kind = self.kind.get(key) if self.kind.get(key) == other.kind.get(key) else None
            if kind is not None:
                out.kind[key] = kind
        for key in set(self.contents) | set(other.contents):
            out.contents[key] = self.contents.get(key, frozenset()) | other.contents.get(key, frozenset())
        return out

    def same(self, other):
        return self.tags == other.tags and self.kind == other.kind and self.contents == other.contents

    # ------------------------------------------------------------ containers
    def items_of(self, tags):
        """The tags an item of a value with `tags` may be: a container's contents; an array's item is a
        view of the array itself (and an object of unknown kind may be either)."""
        out = set()
        for tag in tags:
            if not tag.container:
                out.add(tag)
            out |= self.contents.get(tag, frozenset())
        return frozenset(out)

    def reach(self, tags):
        """Every object a value with `tags` may let a reader see: the tags and, through containers, all
        that their items (and their items' items) may be."""
        seen = set(tags)
        todo = list(tags)
        while todo:
            for inner in self.contents.get(todo.pop(), ()):
                if inner not in seen:
                    seen.add(inner)
                    todo.append(inner)
        return frozenset(seen)

    def add_items(self, containers, items):
        """`items` may now be held by each of `containers` (a container and an object of unknown kind)."""
        items = frozenset(items)
        for tag in containers:
            self.contents[tag] = self.contents.get(tag, frozenset()) | items

    def all_tags(self):
        out = set()
        for tags in self.tags.values():
            out |= tags
        for key, tags in self.contents.items():
            out.add(key)
            out |= tags
        return out

    def rename(self, mapping):
        """Replace tags by others everywhere (an earlier generation becomes the "older" one)."""
        def swap(tags):
            return frozenset(mapping.get(t, t) for t in tags)
        self.tags = {n: swap(tags) for n, tags in self.tags.items()}
        contents = {}
        for key, tags in self.contents.items():
            key = mapping.get(key, key)
            contents[key] = contents.get(key, frozenset()) | swap(tags)
        self.contents = contents


# ---------------------------------------------------------------- small facts about nodes and values
def text(node):
    return ast.unparse(gast.gast_to_ast(node)).strip()


def root_name(target):
    while isinstance(target, gast.Subscript):
        target = target.value
    return target.id if isinstance(target, gast.Name) else None


def reads(node):
    return frozenset(n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load))


def module_of(value):
    module = getattr(value, "__module__", None) or ""
    if isinstance(value, np.ufunc):
        return "numpy"
    return module.split(".")[0]


def mutable(value):
    import types
    return isinstance(value, (np.ndarray, list, dict, set, bytearray)) or (
        hasattr(value, "__dict__") and not callable(value) and not isinstance(value, type)
        and type(value).__module__ not in ("builtins",) and not isinstance(value, types.ModuleType))


def integral(dtype):
    try:
        return np.issubdtype(np.dtype(dtype), np.integer) or np.dtype(dtype) == np.bool_
    except TypeError:
        return False


def closure_reads_of(function):
    """Local function or lambda name -> the names its body reads, with those of the local functions it
    names in turn."""
    def free(local):        # the names it reads that it does not bind itself (parameters, assignments)
        args = local.args
        bound = {a.id for a in args.args + args.kwonlyargs + [args.vararg, args.kwarg] if a is not None}
        bound |= {n.id for n in walk(local) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        return reads(local) - bound

    direct = {}
    for node in walk(function):
        if isinstance(node, gast.FunctionDef) and node is not function:
            direct.setdefault(node.name, set()).update(free(node))
        elif isinstance(node, gast.Assign) and isinstance(node.value, gast.Lambda):
            for target in node.targets:
                if isinstance(target, gast.Name):
                    direct.setdefault(target.id, set()).update(free(node.value))
    changed = True
    while changed:
        changed = False
        for name_, names in direct.items():
            more = set().union(*(direct[n] for n in names if n in direct and n != name_)) - names
            if more:
                names |= more
                changed = True
    return {n: frozenset(names) for n, names in direct.items()}


def base_name(node):
    """The name an expression like `pair[0]` or `obj.items` starts from (None for a call's result)."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None
