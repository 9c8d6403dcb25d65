"""Array builders whose values carry derivatives, and gathers that copy elements around.

`jnp.full(shape, x)` and `full_like` spread their fill value, `linspace(a, b)`
interpolates between its ends, `meshgrid` lays out its inputs along a grid:
each is linear in its values, so its adjoint sums the result's adjoint back
(`bx += unbroadcast(by, x)`). `diagonal`, `repeat` and `cumprod` copy or
multiply elements along an axis. (Listing any of these as non-differentiable
would drop their derivatives silently.)
"""
import numpy as np

from .. import numpy as jnp
from . import helpers
from .helpers import diagonal_adjoint
from .linalg import COMPOSITES
from .registry import PRIMITIVES
from .registry import deflowering, defjvp, defvjp, parse_expression, primitive


def _rules(prim, vjp, jvp, shape_params=()):
    for rule in (vjp if isinstance(vjp, tuple) else (vjp,)):
        defvjp(prim, rule)
    for rule in (jvp if isinstance(jvp, tuple) else (jvp,)):
        defjvp(prim, rule)
    prim.shape_params = prim.shape_params | frozenset(shape_params)
    return prim


# ------------------------------------------------------------------ builders
_rules(primitive("full", jnp.full, operands=("fill_value",), aliases=(np.full,)),
       "bfill_value += unbroadcast(by, fill_value)", "dy = jnp.full(shape, dfill_value, dtype)")
deflowering(PRIMITIVES["full"], numba="astjax.runtime.numba_cpu:full")
_rules(primitive("full_like", jnp.full_like, operands=("fill_value",), aliases=(np.full_like,), result_shape_of="a",
                 signature=lambda a, fill_value, dtype=None, shape=None: None),
       "bfill_value += unbroadcast(by, fill_value)", "dy = jnp.full_like(a, dfill_value, dtype, shape)",
       shape_params=("a",))
deflowering(PRIMITIVES["full_like"], numba="astjax.runtime.numba_cpu:full_like")

_WEIGHTS = "linspace_weights(y, num, endpoint, axis)"
linspace = _rules(
    primitive("linspace", jnp.linspace, operands=("start", "stop"), aliases=(np.linspace,),
              signature=lambda start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0: None),
    (f"bstart += unbroadcast(jnp.sum(by * (1.0 - {_WEIGHTS}), axis), start)",
     f"bstop += unbroadcast(jnp.sum(by * {_WEIGHTS}, axis), stop)"),
    (f"dstart -> jnp.broadcast_to(jnp.expand_dims(dstart, axis) * (1.0 - {_WEIGHTS}), jnp.shape(y))",
     f"dstop -> jnp.broadcast_to(jnp.expand_dims(dstop, axis) * {_WEIGHTS}, jnp.shape(y))"))


def _linspace_check(bound):
    retstep = bound.get("retstep")
    if not (getattr(retstep, "value", False) is False):
        return ("linspace(..., retstep=True) under a derivative is not supported",
                "compute the step yourself: (stop - start) / (num - 1)")
    return None


linspace.static_check = _linspace_check
deflowering(linspace, numba="astjax.runtime.numba_cpu:linspace")

# meshgrid(*xi): grid k holds input k laid out along one axis; its adjoint sums the other axes. A grid
# the function never read has a bare zero adjoint: broadcast to the grid's shape, its sum is zeros too.
_MESHGRID_VJP = parse_expression(
    "jnp.reshape(jnp.sum(jnp.broadcast_to(item_adjoint(by, k), jnp.shape(y[k])), meshgrid_axes(k, y, indexing)), "
    "jnp.shape(item))")
for _prim, _operand in ((primitive("meshgrid", jnp.meshgrid, operands=("xi",), sequence_operand="xi",
                                   aliases=(np.meshgrid,)), "xi"),
                        (primitive("meshgrid_list", helpers.meshgrid_list, operands=("xs",),
                                   sequence_operand="xs"), "xs")):
    defjvp(_prim, f"dy = meshgrid_list(d{_operand}, sparse, indexing)")
    _prim.sequence_vjp = _MESHGRID_VJP
    _prim.vjp[_operand] = _MESHGRID_VJP      # read element by element (the operand is always a literal list)

# ------------------------------------------------------------ gathers
_rules(primitive("diagonal", jnp.diagonal, operands=("a",), aliases=(np.diagonal,)),
       "ba += diagonal_adjoint(by, a, offset, axis1, axis2)", "dy = jnp.diagonal(da, offset, axis1, axis2)")
deflowering(PRIMITIVES["diagonal"], numba="astjax.runtime.numba_cpu:diagonal")
_rules(primitive("diagonal_adjoint", helpers.diagonal_adjoint, operands=("g",)),
       "bg += jnp.diagonal(by, offset, axis1, axis2)", "dy = diagonal_adjoint(dg, a, offset, axis1, axis2)",
       shape_params=("a",))
deflowering(PRIMITIVES["diagonal_adjoint"], numba="astjax.runtime.numba_cpu:diagonal_adjoint")

def diag_adjoint(g, v, k):
    """The adjoint of `v` from `y = jnp.diag(v, k)`: the k-th diagonal of g (v a vector), else g on it."""
    if jnp.ndim(v) == 1:
        return jnp.diagonal(g, k)
    return diagonal_adjoint(g, v, k, 0, 1)


COMPOSITES[diag_adjoint.__name__] = diag_adjoint
_rules(primitive("diag", jnp.diag, operands=("v",), aliases=(np.diag,)),
       "bv += diag_adjoint(by, v, k)", "dy = jnp.diag(dv, k)")
deflowering(PRIMITIVES["diag"], numba="astjax.runtime.numba_cpu:diag")

repeat = _rules(primitive("repeat", jnp.repeat, operands=("a",), aliases=(np.repeat,),
                          signature=lambda a, repeats, axis=None, total_repeat_length=None: None),
                "ba += repeat_adjoint(by, a, repeats, axis)", "dy = jnp.repeat(da, repeats, axis)")
repeat.static_check = lambda bound: (
    None if getattr(bound.get("total_repeat_length"), "value", None) is None else
    ("repeat(..., total_repeat_length=...) under a derivative is not supported",
     "repeat without it, then slice the result"))
_rules(primitive("repeat_adjoint", helpers.repeat_adjoint, operands=("g",)),
       "bg += jnp.repeat(by, repeats, axis)", "dy = repeat_adjoint(dg, a, repeats, axis)", shape_params=("a",))


# ------------------------------------------------------------ cumprod
def _products_without(a, axis):
    """p[..., i, j] = the product of a[k] for k <= j, k != i, along `axis` (moved last): exact at zeros."""
    x = jnp.moveaxis(a, axis, -1)
    n = jnp.shape(x)[-1]
    others = jnp.eye(n) == 0.0
    spread = jnp.where(others, jnp.expand_dims(x, -2), 1.0)
    products = jnp.cumprod(spread, axis=-1)
    upto = jnp.expand_dims(jnp.arange(n), -1) <= jnp.expand_dims(jnp.arange(n), 0)
    return jnp.where(upto, products, 0.0)


def cumprod_adjoint(g, a, axis):
    """The adjoint of `a` from `y = jnp.cumprod(a, axis)`: sum over j >= i of g[j] * d y[j] / d a[i]."""
    shape = jnp.shape(a)
    if axis is None:
        a = jnp.ravel(a)
        g = jnp.ravel(g)
        axis = 0
    products = _products_without(a, axis)
    spread = jnp.expand_dims(jnp.moveaxis(g, axis, -1), -2)
    summed = jnp.sum(products * spread, axis=-1)
    return jnp.reshape(jnp.moveaxis(summed, -1, axis), shape)


def cumprod_tangent(t, a, axis):
    """The tangent of `y = jnp.cumprod(a, axis)` for a tangent `t` of `a`."""
    if axis is None:
        a = jnp.ravel(a)
        t = jnp.ravel(t)
        axis = 0
    products = _products_without(a, axis)
    spread = jnp.expand_dims(jnp.moveaxis(t, axis, -1), -1)
    summed = jnp.sum(products * spread, axis=-2)
    return jnp.moveaxis(summed, -1, axis)


COMPOSITES.update({f.__name__: f for f in (cumprod_adjoint, cumprod_tangent, _products_without)})
_rules(primitive("cumprod", jnp.cumprod, operands=("a",), aliases=(np.cumprod,),
                 signature=lambda a, axis=None: None),
       "ba += cumprod_adjoint(by, a, axis)", "dy = cumprod_tangent(da, a, axis)")
deflowering(PRIMITIVES["cumprod"], numba="astjax.runtime.numba_cpu:cumprod")


# ------------------------------------------------------------ pytrees
# tree_util.tree_leaves(params): the list of leaves; each leaf's adjoint goes back to its place in the tree.
from .. import tree_util as _tree_util  # noqa: E402 (the pytree functions are registered with the others)

_leaves = _rules(primitive("tree_leaves", _tree_util.tree_leaves, operands=("tree",),
                           aliases=(helpers.tree_leaves_of,), signature=lambda tree, is_leaf=None: None),
                 "btree += tree_leaves_adjoint(tree, by)", "dy = adjoint_leaves(dtree, tree)")
_leaves.static_check = lambda bound: (
    None if getattr(bound.get("is_leaf"), "value", None) is None else
    ("tree_leaves(..., is_leaf=...) under a derivative is not supported", "flatten the tree without is_leaf"))
_rules(primitive("tree_leaves_adjoint", helpers.tree_leaves_adjoint, operands=("g",)),
       "bg += leaves_adjoint(by, tree)", "dy = tree_leaves_adjoint(tree, dg)", shape_params=("tree",))
# The leaves of an adjoint or tangent of `tree` in tree's order: as a list (a tangent), as a list's adjoint.
# Both are the transpose of tree_leaves_adjoint.
_rules(primitive("adjoint_leaves", helpers.adjoint_leaves, operands=("g",)),
       "bg += tree_leaves_adjoint(tree, by)", "dy = adjoint_leaves(dg, tree)", shape_params=("tree",))
# tree_map(f, tree, *rest), as normalize/tree_map_calls.py writes it: f over the leaves, rebuilt into a tree.
_rules(primitive("leaves_like", helpers.leaves_like, operands=("tree",)),
       "btree += tree_leaves_adjoint(tree, by)", "dy = adjoint_leaves(dtree, tree)", shape_params=("like",))
_rules(primitive("tree_rebuilt", helpers.tree_rebuilt, operands=("leaves",)),
       "bleaves += leaves_adjoint(by, y)", "dy = tree_rebuilt(like, dleaves)", shape_params=("like",))
# A custom_vjp's cotangent given the output's structure (linear in g).
_rules(primitive("cotangent_like", helpers.cotangent_like, operands=("g",)),
       "bg += by", "dy = cotangent_like(dg, like)", shape_params=("like",))
_rules(primitive("leaves_adjoint", helpers.leaves_adjoint, operands=("g",)),
       "bg += tree_leaves_adjoint(tree, by)", "dy = leaves_adjoint(dg, tree)", shape_params=("tree",))


# ------------------------------------------------------------ more builders (issue 9)

from .nondifferentiable import INTEGER, SHAPES, nondifferentiable  # noqa: E402

for _name, _reason in (("tri", SHAPES), ("tril_indices", INTEGER), ("triu_indices", INTEGER),
                       ("tril_indices_from", INTEGER), ("triu_indices_from", INTEGER), ("diag_indices", INTEGER),
                       ("diag_indices_from", INTEGER), ("indices", INTEGER), ("ix_", INTEGER)):
    nondifferentiable(_name, getattr(jnp, _name), _reason, aliases=(getattr(np, _name),))


def vander_slope(x, N, increasing):
    """d vander(x, N, increasing) / dx, column by column: p * x ** (p - 1) for each column's power p."""
    count = jnp.size(x) if N is None else N
    if increasing:
        powers = jnp.arange(count)
    else:
        powers = jnp.arange(count - 1, -1, -1)
    lowered = jnp.where(powers > 0, powers - 1, 0)
    return powers * jnp.expand_dims(x, -1) ** lowered


COMPOSITES[vander_slope.__name__] = vander_slope
_rules(primitive("vander", jnp.vander, operands=("x",), aliases=(np.vander,)),
       "bx += jnp.sum(by * vander_slope(x, N, increasing), axis=1)",
       "dy = jnp.expand_dims(dx, -1) * vander_slope(x, N, increasing)")

# logspace: y = base ** (start + (stop - start) * w); geomspace: y = start ** (1 - w) * stop ** w (w from 0 to 1).
_W = "linspace_weights(y, num, endpoint, axis)"
_rules(primitive("logspace", jnp.logspace, operands=("start", "stop"), aliases=(np.logspace,),
                 signature=lambda start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0: None),
       (f"bstart += unbroadcast(jnp.sum(by * y * jnp.log(jnp.full_like(y, base)) * (1.0 - {_W}), axis), start)",
        f"bstop += unbroadcast(jnp.sum(by * y * jnp.log(jnp.full_like(y, base)) * {_W}, axis), stop)"),
       (f"dstart -> jnp.expand_dims(dstart, axis) * (1.0 - {_W}) * y * jnp.log(jnp.full_like(y, base))",
        f"dstop -> jnp.expand_dims(dstop, axis) * {_W} * y * jnp.log(jnp.full_like(y, base))"))
_rules(primitive("geomspace", jnp.geomspace, operands=("start", "stop"), aliases=(np.geomspace,),
                 signature=lambda start, stop, num=50, endpoint=True, dtype=None, axis=0: None),
       (f"bstart += unbroadcast(jnp.sum(by * y * (1.0 - {_W}), axis) / start, start)",
        f"bstop += unbroadcast(jnp.sum(by * y * {_W}, axis) / stop, stop)"),
       (f"dstart -> jnp.expand_dims(dstart / start, axis) * (1.0 - {_W}) * y",
        f"dstop -> jnp.expand_dims(dstop / stop, axis) * {_W} * y"))
