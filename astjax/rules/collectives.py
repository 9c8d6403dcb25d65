"""Collectives over a named vmap axis (`lax.psum(x, 'i')`, `pmean`, `pmax`, `pmin`, `all_gather`,
`psum_scatter`, `axis_index`): their primitives, derivative rules and batching rules.

Under `vmap(f, axis_name='i')` a collective over 'i' reads every example of the batch, which in the
batched source is axis 0 of its operand:

    y = lax.psum(x, 'i')         ->   _sum1 = jnp.sum(x, axis=0, keepdims=True)
                                      y = jnp.broadcast_to(_sum1, jnp.shape(x))
    i = lax.axis_index('i')      ->   i = jnp.arange(_B1, dtype=jnp.int32)

An operand that does not carry the batch is the same in every example: `psum` of it is `x * _B1`,
`pmean`, `pmax` and `pmin` of it are `x`. A collective over another axis name is left for the vmap
that binds it (an enclosing one: `vmap(vmap(f, axis_name='j'), axis_name='i')`); the per-example
axes it names (all_gather's `axis`, psum_scatter's `scatter_dimension`) shift past this batch axis.
A tuple of names reduces over this axis here and over the others in the vmaps that bind them. A
name that no vmap binds reaches astjax.lax's own function, which raises (lax/_collectives.py).

Derivatives are JAX's: psum is its own transpose (the adjoint of every example's copy of the sum
flows to every example), pmean's is pmean, all_gather's is psum_scatter and psum_scatter's
all_gather. pmax and pmin have no derivative rule (JAX has none either): grad refuses them.
The rules write only primitives, so grad(vmap(f)) and vmap(grad(f)) both work.
"""
import copy

import gast

from .. import lax
from .batching import _call, _const, _name, _static_int, _tuple
from .nondifferentiable import INTEGER, SHAPES
from .registry import PRIMITIVES, defbatch, defjvp, defvjp, primitive

__all__ = ["COLLECTIVES", "collective_rule", "batched_result", "axis_names_of", "scatter_shape",
           "gather_tiled_shape"]


# ---------------------------------------------------------------- shape helpers (no derivative, like jnp.shape)
def scatter_shape(shape, dimension, size, tiled):
    """The shape that splits `dimension` of a summed operand into one part per example: `shape` itself
    (the dimension has one entry per example) or, tiled, with the dimension split into (size, rest)."""
    shape, dimension, size = tuple(int(n) for n in shape), int(dimension), int(size)
    if not -len(shape) <= dimension < len(shape):
        raise ValueError(f"psum_scatter: scatter_dimension {dimension} is out of range for an operand of shape "
                         f"{shape}")
    dimension %= len(shape)
    n = shape[dimension]
    if not tiled:
        if n != size:
            raise ValueError(f"psum_scatter: the scatter dimension ({dimension}) has size {n}, but it must equal "
                             f"the size of the named axis, {size}")
        return shape
    if n % size:
        raise ValueError(f"psum_scatter (tiled): the scatter dimension ({dimension}) has size {n}, which the size "
                         f"of the named axis, {size}, does not divide")
    return shape[:dimension] + (size, n // size) + shape[dimension + 1:]


def gather_tiled_shape(shape, axis):
    """The shape after merging axis `axis` (one entry per example) with the axis after it."""
    shape, axis = tuple(int(n) for n in shape), int(axis)
    return shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:]


for _fn in (scatter_shape, gather_tiled_shape):
    primitive(_fn.__name__, _fn, operands=(), differentiable=False, reason=SHAPES)


# ---------------------------------------------------------------- the primitives and their derivatives
_REDUCING = {"psum": "sum", "pmean": "mean", "pmax": "max", "pmin": "min"}

for _name_, _fn in (("psum", lax.psum), ("pmean", lax.pmean), ("pmax", lax.pmax), ("pmin", lax.pmin)):
    _prim = primitive(_name_, _fn, operands=("x",))
    _prim.elementwise = True        # per example, the result has its operand's shape
defvjp(PRIMITIVES["psum"], "bx += lax.psum(by, axis_name)")
defjvp(PRIMITIVES["psum"], "dy = lax.psum(dx, axis_name)")
defvjp(PRIMITIVES["pmean"], "bx += lax.pmean(by, axis_name)")
defjvp(PRIMITIVES["pmean"], "dy = lax.pmean(dx, axis_name)")
_all_gather = primitive("all_gather", lax.all_gather, operands=("x",))
defvjp(_all_gather, "bx += lax.psum_scatter(by, axis_name, scatter_dimension=axis, tiled=tiled)")
defjvp(_all_gather, "dy = lax.all_gather(dx, axis_name, axis=axis, tiled=tiled)")
_psum_scatter = primitive("psum_scatter", lax.psum_scatter, operands=("x",))
defvjp(_psum_scatter, "bx += lax.all_gather(by, axis_name, axis=scatter_dimension, tiled=tiled)")
defjvp(_psum_scatter, "dy = lax.psum_scatter(dx, axis_name, scatter_dimension=scatter_dimension, tiled=tiled)")
primitive("axis_index", lax.axis_index, operands=(), differentiable=False, reason=INTEGER)

COLLECTIVES = frozenset(_REDUCING) | {"all_gather", "psum_scatter", "axis_index"}


# ---------------------------------------------------------------- batching
def axis_names_of(node, static):
    """The axis names a collective's `axis_name` argument gives, as a tuple (None: not known statically)."""
    if isinstance(node, gast.Constant):
        return (node.value,)
    if isinstance(node, (gast.Tuple, gast.List)) and all(isinstance(e, gast.Constant) for e in node.elts):
        return tuple(e.value for e in node.elts)
    value = static(node)
    if isinstance(value, (tuple, list)):
        return tuple(value)
    if value is not None and not callable(value):
        return (value,)
    return None


def _names(bt, app):
    node = app.bound.get("axis_name")
    names = axis_names_of(node, bt.static) if node is not None else None
    if names is None:
        raise bt.context.error(f"vmap: the axis name of `lax.{app.primitive.name}` must be known when vmap "
                               "transforms the function", app.node,
                               hint="write it as a string literal, or a tuple of them: lax.psum(x, 'i').")
    return names


def batched_result(app, axis_name, static):
    """Whether the collective's result differs between the examples of the vmap whose axis is `axis_name`
    although its operand may not (axis_index, psum_scatter over that axis): the analysis must know."""
    if app.primitive is None or app.primitive.name not in ("axis_index", "psum_scatter") or axis_name is None:
        return False
    node = app.bound.get("axis_name")
    names = axis_names_of(node, static) if node is not None else None
    return names is not None and axis_name in names


def _with(app, **replace):
    """The statement's call with some keyword arguments replaced (`axis_name=rest`, `axis=k + 1`)."""
    call = copy.deepcopy(app.node)
    params = list(app.primitive.signature.parameters)
    for key, value in replace.items():
        position = params.index(key)
        if position < len(call.args):
            call.args[position] = value
        else:
            call.keywords = [k for k in call.keywords if k.arg != key] + [gast.keyword(arg=key, value=value)]
    return call


def _axis_arg(names):
    return _const(names[0]) if len(names) == 1 else _tuple(*[_const(n) for n in names])


def collective_rule(bt, target, app):
    """A collective under vmap: over this vmap's axis name it reads axis 0 (the batch); over another
    name it is left to the vmap that binds that name."""
    prim = app.primitive.name
    names = _names(bt, app)
    ours = bt.axis_name is not None and bt.axis_name in names
    rest = tuple(n for n in names if n != bt.axis_name)
    x = app.bound.get("x")
    batched = x is not None and bt.is_batched(x)
    if x is not None and not isinstance(x, (gast.Name, gast.Constant)):
        raise bt.context.error(f"vmap: the operand of `lax.{prim}` must be a name here", app.node)
    if x is not None and isinstance(x, gast.Name) and bt.kind(x) not in ("array", None):
        raise bt.context.error(f"vmap: `lax.{prim}` of a tuple, list or dict is not supported yet", app.node,
                               hint=f"apply lax.{prim} to each array: jax.tree_util.tree_map(lambda v: "
                                    f"lax.{prim}(v, 'i'), tree).")
    if not ours:
        if prim in ("all_gather", "psum_scatter") and batched:
            key = "axis" if prim == "all_gather" else "scatter_dimension"
            k = _static_int(app.bound.get(key, _const(0)))
            if k is None or k < 0:
                raise bt.context.error(f"vmap: `lax.{prim}`'s {key} must be a non-negative int literal here",
                                       app.node)
            return [bt.assign(target, _with(app, **{key: _const(k + 1)}))]
        return [bt.assign(target, copy.deepcopy(app.node))]
    if x is not None and isinstance(x, gast.Name) and bt.kind(x) != "array":
        raise bt.context.error(f"vmap cannot tell whether the operand of `lax.{prim}` is an array or a tuple, list "
                               "or dict here", app.node,
                               hint="pass it an array (or a tuple built in this function: lax.psum((a, b), 'i')).")
    if prim == "axis_index":
        if rest:
            raise bt.context.error("vmap: `lax.axis_index` of several axis names is not supported yet", app.node,
                                   hint="ask for one axis at a time.")
        return [bt.assign(target, _call("jnp.arange", bt.B, dtype=_call("jnp.int32").func))]   # JAX's int32
    out = []
    if prim in _REDUCING:
        if not batched:
            value = gast.BinOp(left=copy.deepcopy(x), op=gast.Mult(), right=bt.B) if prim == "psum" \
                else copy.deepcopy(x)
        else:
            reduced = bt.fresh(f"_{_REDUCING[prim]}")
            out.append(bt.assign(reduced, _call(f"jnp.{_REDUCING[prim]}", copy.deepcopy(x), axis=_const(0),
                                                keepdims=_const(True))))
            value = _call("jnp.broadcast_to", _name(reduced), _call("jnp.shape", copy.deepcopy(x)))
    elif prim == "all_gather":
        if len(names) > 1:
            raise bt.context.error("vmap: `lax.all_gather` over several axis names is not supported yet", app.node)
        axis = _static_int(app.bound.get("axis", _const(0)))
        tiled = app.bound.get("tiled", _const(False))
        if axis is None or axis < 0 or not isinstance(tiled, gast.Constant):
            raise bt.context.error("vmap: `lax.all_gather`'s axis must be a non-negative int literal and tiled a "
                                   "literal here", app.node)
        source = bt.batched(x, out)        # every example's x, batch first
        gathered = bt.fresh("_gathered")
        out.append(bt.assign(gathered, _call("jnp.moveaxis", source, _const(0), _const(axis))))
        if tiled.value:
            merged = bt.fresh("_gathered")
            out.append(bt.assign(merged, _call("jnp.reshape", _name(gathered), _call(
                bt.helper(gather_tiled_shape), _call("jnp.shape", _name(gathered)), _const(axis)))))
            gathered = merged
        if not batched:
            out.append(bt.assign(target, _name(gathered)))      # the same for every example
            return out
        value = _call("jnp.broadcast_to", _call("jnp.expand_dims", _name(gathered), _const(0)), gast.BinOp(
            left=_tuple(bt.B), op=gast.Add(), right=_call("jnp.shape", _name(gathered))))
    elif prim == "psum_scatter":
        if len(names) > 1:
            raise bt.context.error("vmap: `lax.psum_scatter` over several axis names is not supported yet", app.node)
        dimension = _static_int(app.bound.get("scatter_dimension", _const(0)))
        tiled = app.bound.get("tiled", _const(False))
        if dimension is None or dimension < 0 or not isinstance(tiled, gast.Constant):
            raise bt.context.error("vmap: `lax.psum_scatter`'s scatter_dimension must be a non-negative int "
                                   "literal and tiled a literal here", app.node)
        summed = bt.fresh("_sum")
        if batched:
            out.append(bt.assign(summed, _call("jnp.sum", copy.deepcopy(x), axis=_const(0))))
        else:
            out.append(bt.assign(summed, gast.BinOp(left=copy.deepcopy(x), op=gast.Mult(), right=bt.B)))
        parts = bt.fresh("_parts")
        out.append(bt.assign(parts, _call("jnp.reshape", _name(summed), _call(
            bt.helper(scatter_shape), _call("jnp.shape", _name(summed)), _const(dimension), bt.B,
            _const(bool(tiled.value))))))
        value = _call("jnp.moveaxis", _name(parts), _const(dimension), _const(0))
    else:
        return None
    if rest:
        partial = bt.fresh(f"_{prim}")
        out.append(bt.assign(partial, value))
        value = _with(app, x=_name(partial), axis_name=_axis_arg(rest))
    out.append(bt.assign(target, value))
    return out


for _prim_name in COLLECTIVES:
    defbatch(PRIMITIVES[_prim_name], collective_rule)
