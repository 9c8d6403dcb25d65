"""How a helper call of generated code reads once the shapes of its arguments are known.

Each fold receives the call's argument nodes and what every execution of the
call saw (call_sites.Seen), and returns the expression a person would write
for that case, or None to keep the call. A fold must give the same value as
the helper for what was seen: `specialize` checks the whole function by
running it again.

    unbroadcast(g, x)              g (3,), x (3,)         ->  g
    unbroadcast(g, b)              g (8, 3), b (3,)       ->  jnp.sum(g, axis=0)
    unreduce(bout, h)              bout float, h (3,)     ->  jnp.full((3,), bout)
    matmul_lhs_adjoint(g, W, x)    W (3, 3), x (3,)       ->  jnp.outer(g, x)
    matmul_rhs_adjoint(g, W, x)    W (3, 3), x (3,)       ->  W.T @ g
    jnp.swapaxes(a, -1, -2)        a (3, 3)               ->  a.T
"""
import copy

import gast
import numpy as np

from .. import numpy as jnp
from ..rules import helpers
from ..rules import linalg
from ..codegen.node_walk import NodeTransformer

__all__ = ["FOLDS", "fold_for", "template"]

FOLDS = {}


def fold_for(*functions):
    """Register the decorated fold for calls of `functions`."""
    def register(fold):
        for fn in functions:
            FOLDS[fn] = fold
        return fold
    return register


def template(text, **nodes):
    """The expression `text` with each name in `nodes` replaced by (a copy of) that node."""
    expr = gast.parse(text, mode="eval").body

    class Substitute(NodeTransformer):
        def visit_Name(self, node):
            if node.id in nodes:
                return copy.deepcopy(nodes[node.id])
            return node
    return Substitute().visit(expr)


def _literal(value):
    return gast.parse(repr(value), mode="eval").body


def _arrays(*seen):
    return all(s is not None and s.kind == "array" for s in seen)


def _ndims(*seen):
    return tuple(len(s.shape) for s in seen) if _arrays(*seen) else None


# ----------------------------------------------------------------- broadcasting
@fold_for(helpers.unbroadcast)
def _unbroadcast(nodes, seen):
    g, x = seen["g"], seen["x"]
    if g.kind == "float" and _arrays(x) and x.shape == () and x.dtype.startswith("float"):
        return nodes["g"]          # a Python float meeting a float scalar takes its dtype anyway (weak type)
    if not _arrays(g, x):
        return None
    if g.shape == x.shape:
        return nodes["g"]
    extra = len(g.shape) - len(x.shape)
    if extra > 0 and g.shape[extra:] == x.shape:          # broadcast along leading axes only
        axis = 0 if extra == 1 else tuple(range(extra))
        return template(f"jnp.sum(g, axis={axis!r})", g=nodes["g"])
    return None


@fold_for(helpers.unbroadcast_to)
def _unbroadcast_to(nodes, seen):
    g, shape = seen["g"], seen["shape"]
    if _arrays(g) and shape.kind == "value" and isinstance(shape.value, tuple) and g.shape == shape.value:
        return nodes["g"]
    return None


@fold_for(helpers.unreduce)
def _unreduce(nodes, seen):
    g, x = seen["g"], seen["x"]
    plain = all(seen[k].kind == "value" and seen[k].value in (None, False) for k in ("axis", "keepdims", "where"))
    if not plain or not _arrays(x):
        return None
    if g.kind == "array" and g.shape == x.shape:
        return nodes["g"]
    if g.shape == () and (g.kind == "float" or g.dtype == x.dtype):
        if x.shape == () and g.kind == "float":
            return nodes["g"] if x.dtype.startswith("float") else None     # weakly typed, as above
        dtype = "" if x.dtype == "float32" else f", jnp.{x.dtype}"
        return template(f"jnp.full({x.shape!r}, g{dtype})", g=nodes["g"])
    return None


@fold_for(helpers.zeros_shaped)
def _zeros_shaped(nodes, seen):
    shape, like = seen["shape"], seen["like"]
    if shape.kind != "value" or not isinstance(shape.value, tuple) or not _arrays(like):
        return None
    dtype = "" if like.dtype == "float32" else f", jnp.{like.dtype}"
    return gast.parse(f"jnp.zeros({shape.value!r}{dtype})", mode="eval").body


@fold_for(helpers.broadcast_like)
def _broadcast_like(nodes, seen):
    """A tangent already shaped like what its operands broadcast to is itself."""
    t, operands = seen["t"], seen["operands"]
    if _all_floats(t, operands):
        return nodes["t"]          # numbers all: nothing is broadcast
    if operands.kind != "tuple" or not all(o.kind in ("array", "float") for o in operands.value):
        return None
    shape = np.broadcast_shapes(*(o.shape for o in operands.value))
    if t.kind == "array" and t.shape == shape:
        return nodes["t"]          # (a Python float operand is a number: it broadcasts nothing)
    if not all(o.kind == "array" for o in operands.value):
        return None
    if t.kind == "float" and shape == () and operands.value[0].dtype.startswith("float"):
        return nodes["t"]          # a Python float meeting a float scalar takes its dtype anyway (weak type)
    return None


def _all_floats(t, operands):
    """A Python float tangent of float numbers (a second derivative's `broadcast_like(0.0, 0.0, b)`)."""
    return (t.kind == "float" and operands.kind == "tuple" and operands.value
            and all(o.kind == "float" or (o.kind == "array" and o.shape == () and o.dtype.startswith("float"))
                    for o in operands.value))


@fold_for(jnp.zeros_like)
def _zeros_like(nodes, seen):
    """`jnp.zeros_like(ba)` of a float32 number is `0.0`; of an array, zeros of its shape."""
    a = seen["a"]
    if any(seen[k].kind != "value" or seen[k].value is not None for k in ("dtype", "shape")):
        return None
    if a.kind == "float" or (_arrays(a) and a.shape == () and a.dtype == "float32"):
        return _literal(0.0)
    if not _arrays(a) or not a.dtype.startswith("float"):
        return None
    dtype = "" if a.dtype == "float32" else f", jnp.{a.dtype}"
    return gast.parse(f"jnp.zeros({a.shape!r}{dtype})", mode="eval").body


@fold_for(helpers.reduced_size)
def _reduced_size(nodes, seen):
    x = seen["x"]
    defaults = {"axis": None, "ddof": 0, "correction": None, "where": None}
    if not _arrays(x) or any(seen[k].kind != "value" or seen[k].value != v for k, v in defaults.items()):
        return None
    return _literal(int(np.prod(x.shape, dtype=np.int64)))


@fold_for(jnp.shape)
def _shape(nodes, seen):
    a = seen["a"]
    return _literal(a.shape) if _arrays(a) else None


@fold_for(jnp.ndim)
def _ndim(nodes, seen):
    """`jnp.ndim(x)` of an array: its rank (a guard `if jnp.ndim(x) != 0: raise ...` then folds away)."""
    a = seen.get("a")
    return _literal(len(a.shape)) if a is not None and _arrays(a) else None


@fold_for(jnp.swapaxes)
def _swapaxes(nodes, seen):
    a, axis1, axis2 = seen["a"], seen["axis1"], seen["axis2"]
    if _ndims(a) == (2,) and {axis1.value, axis2.value} in ({-1, -2}, {0, 1}, {-1, 0}, {1, -2}):
        return template("a.T", a=nodes["a"])
    return None


# ------------------------------------------------------------------ products
@fold_for(linalg.matmul_lhs_adjoint, linalg.dot_lhs_adjoint)
def _product_lhs(nodes, seen):
    g, left, right = nodes["g"], *(nodes[k] for k in _operands(seen))
    form = {(1, 1): "g * b", (2, 1): "jnp.outer(g, b)", (1, 2): "b @ g", (2, 2): "g @ b.T"}
    text = form.get(_ndims(*(seen[k] for k in _operands(seen))))
    return template(text, g=g, a=left, b=right) if text else None


@fold_for(linalg.matmul_rhs_adjoint, linalg.dot_rhs_adjoint)
def _product_rhs(nodes, seen):
    g, left, right = nodes["g"], *(nodes[k] for k in _operands(seen))
    form = {(1, 1): "g * a", (1, 2): "jnp.outer(a, g)", (2, 1): "a.T @ g", (2, 2): "a.T @ g"}
    text = form.get(_ndims(*(seen[k] for k in _operands(seen))))
    return template(text, g=g, a=left, b=right) if text else None


def _operands(seen):
    """The parameter names of the two factors: (x1, x2) for matmul's helpers, (a, b) for dot's."""
    return ("x1", "x2") if "x1" in seen else ("a", "b")


from . import folds_linalg  # noqa: E402,F401 -- registers the textbook forms of the matrix and softmax rules
