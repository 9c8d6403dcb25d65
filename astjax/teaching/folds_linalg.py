"""Textbook forms of the matrix, norm and softmax rules once the shapes are known (see folds.py).

    solve_lhs_adjoint(g, A, y)        A (3, 3), y (3,)        ->  -jnp.outer(jnp.linalg.solve(A.T, g), y)
    solve_lhs_adjoint(g, A, y)        A (3, 3), y (3, 2)      ->  -jnp.linalg.solve(A.T, g) @ y.T
    solve_rhs_adjoint(g, A, b)        A (3, 3), b (3,)        ->  jnp.linalg.solve(A.T, g)
    solve_lhs_tangent(t, A, y)        A (3, 3)                ->  -jnp.linalg.solve(A, t @ y)
    norm_adjoint(g, x, y, None, None, False)                  ->  g * x / y
    norm_tangent(t, x, y, None, None, False)                  ->  jnp.sum(t * x) / y
    jnp.multiply(jnp.expand_dims(g, (-2, -1)), M)   g 0-d     ->  g * M
    jnp.multiply(v, jsp_special._weight_or_one(None))         ->  v
    jnp.reshape(x, (3,)), jnp.ravel(x)   x (3,)               ->  x
    jnp.dot(G, b)                     G (3, 2), b (2,)        ->  G @ b
    jnp.sum(x, None, keepdims=True)                           ->  jnp.sum(x, keepdims=True)

Every fold gives the helper's value for the signature it saw, with the same shape and
dtype: a fold asks for equal dtypes wherever NumPy's and JAX's promotion could differ.
Folds of NumPy functions another module may also fold are chained: the earlier fold
is asked first.
"""
import gast

from .. import numpy as jnp
from ..rules import decompositions, linalg
from ..scipy import special as jsp_special
from .folds import FOLDS, fold_for, template

__all__ = []


def _chained(fn):
    """Register the decorated fold for `fn` after any fold already there (which is asked first)."""
    def register(fold):
        earlier = FOLDS.get(fn)
        if earlier is None:
            FOLDS[fn] = fold
            return fold

        def both(nodes, seen):
            folded = earlier(nodes, seen)
            return folded if folded is not None else fold(nodes, seen)
        FOLDS[fn] = both
        return fold
    return register


def _array(s, ndim=None):
    return s is not None and s.kind == "array" and (ndim is None or len(s.shape) == ndim)


def _one_dtype(*seen):
    """All arrays, of one floating dtype (so no promotion rule can differ between two forms)."""
    return all(_array(s) for s in seen) and len({s.dtype for s in seen}) == 1 and seen[0].dtype.startswith("float")


def _literal_value(seen, value):
    return seen.kind == "value" and seen.value == value and type(seen.value) is type(value)


def _is_constant(node, value):
    return isinstance(node, gast.Constant) and type(node.value) is type(value) and node.value == value


# ------------------------------------------------------------------ solve
@fold_for(linalg.solve_lhs_adjoint)
def _solve_lhs_adjoint(nodes, seen):
    g, a, y = seen["g"], seen["a"], seen["y"]
    if not (_one_dtype(g, a, y) and len(a.shape) == 2 and g.shape == y.shape):
        return None
    text = {1: "-jnp.outer(jnp.linalg.solve(a.T, g), y)", 2: "-jnp.linalg.solve(a.T, g) @ y.T"}.get(len(y.shape))
    return template(text, g=nodes["g"], a=nodes["a"], y=nodes["y"]) if text else None


@fold_for(linalg.solve_rhs_adjoint)
def _solve_rhs_adjoint(nodes, seen):
    g, a, b = seen["g"], seen["a"], seen["b"]
    if not (_one_dtype(g, a, b) and len(a.shape) == 2 and len(b.shape) in (1, 2) and g.shape == b.shape):
        return None
    return template("jnp.linalg.solve(a.T, g)", g=nodes["g"], a=nodes["a"])


@fold_for(linalg.solve_lhs_tangent)
def _solve_lhs_tangent(nodes, seen):
    t, a, y = seen["t"], seen["a"], seen["y"]
    if not (_one_dtype(t, a, y) and len(a.shape) == 2 and t.shape == a.shape and len(y.shape) in (1, 2)):
        return None
    return template("-jnp.linalg.solve(a, t @ y)", t=nodes["t"], a=nodes["a"], y=nodes["y"])


# ------------------------------------------------------------------- norm
def _two_norm_of_everything(seen):
    """norm(x) over all of x's axes with the 2-norm: ord None, or 2 of a vector, or 'fro' of a matrix."""
    x, ord_ = seen["x"], seen["ord"]
    if not (_array(x) and _literal_value(seen["axis"], None) and _literal_value(seen["keepdims"], False)):
        return False
    return (_literal_value(ord_, None) or (len(x.shape) == 1 and _literal_value(ord_, 2))
            or (len(x.shape) == 2 and _literal_value(ord_, "fro")))


def _scalar_like(g, x):
    """g is 0-d: a Python float, or an array of x's dtype."""
    return g.kind == "float" or (_array(g, 0) and g.dtype == x.dtype)


@fold_for(decompositions.norm_adjoint)
def _norm_adjoint(nodes, seen):
    g, x, y = seen["g"], seen["x"], seen["y"]
    if not (_two_norm_of_everything(seen) and _one_dtype(x, y) and y.shape == () and _scalar_like(g, x)):
        return None
    return template("g * x / y", g=nodes["g"], x=nodes["x"], y=nodes["y"])


@fold_for(decompositions.norm_tangent)
def _norm_tangent(nodes, seen):
    t, x, y = seen["t"], seen["x"], seen["y"]
    if not (_two_norm_of_everything(seen) and _one_dtype(t, x, y) and y.shape == () and t.shape == x.shape):
        return None
    return template("jnp.sum(t * x) / y", t=nodes["t"], x=nodes["x"], y=nodes["y"])


# ---------------------------------------------------- products and weights
@fold_for(jsp_special._weight_or_one)
def _weight_or_one(nodes, seen):
    return gast.Constant(value=1.0, kind=None) if _literal_value(seen["b"], None) else None


@_chained(jnp.multiply)
def _multiply(nodes, seen):
    x1, x2 = seen["x1"], seen["x2"]
    left, right = nodes["x1"], nodes["x2"]
    if _is_constant(right, 1.0) and _array(x1) and x1.dtype.startswith("float"):
        return left                                      # v * 1.0 (logsumexp without weights)
    scalar = _expanded_scalar(left, x1)
    if scalar is not None and _one_dtype(x1, x2) and len(x2.shape) >= len(x1.shape):
        return template("g * m", g=scalar, m=right)      # a 0-d value given unit axes, then broadcast
    if _one_dtype(x1, x2):
        return template("a * b", a=left, b=right)
    return None


def _expanded_scalar(node, seen):
    """g for `jnp.expand_dims(g, axes)` whose result has only unit axes, one per axis added (g was 0-d)."""
    if not (isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) and node.func.attr == "expand_dims"
            and len(node.args) == 2 and not node.keywords and _array(seen)):
        return None
    axes = node.args[1]
    count = len(axes.elts) if isinstance(axes, gast.Tuple) else 1 if isinstance(axes, gast.Constant) else None
    if count is None or seen.shape != (1,) * count:
        return None
    return node.args[0]


@_chained(jnp.reshape)
def _reshape(nodes, seen):
    a, shape = seen["a"], seen["shape"]
    if (_array(a) and shape.kind == "value" and shape.value == a.shape and "newshape" not in nodes
            and "order" not in nodes and "copy" not in nodes):
        return nodes["a"]
    return None


@_chained(jnp.ravel)
def _ravel(nodes, seen):
    return nodes["a"] if _array(seen["a"], 1) and "order" not in nodes else None


@_chained(jnp.dot)
def _dot(nodes, seen):
    a, b = seen["a"], seen["b"]
    if set(nodes) - {"a", "b"} or not _one_dtype(a, b) or not (1 <= len(a.shape) <= 2 and 1 <= len(b.shape) <= 2):
        return None
    return template("a @ b", a=nodes["a"], b=nodes["b"])


@_chained(jnp.sum)
def _sum(nodes, seen):
    if "axis" in nodes and _literal_value(seen["axis"], None) and _is_constant(nodes["axis"], None):
        call = gast.Call(func=gast.Attribute(value=gast.Name(id="jnp", ctx=gast.Load(), annotation=None,
                                                             type_comment=None), attr="sum", ctx=gast.Load()),
                         args=[nodes["a"]],
                         keywords=[gast.keyword(arg=k, value=v) for k, v in nodes.items() if k not in ("a", "axis")])
        return call
    return None
