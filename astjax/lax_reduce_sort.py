"""lax.reduce and lax.sort of several operands, written in Python from primitives (exported by astjax.lax).

Like lax_composites.py, this module is not a library for classify: the transformations differentiate and batch
these functions like the user's own code, through the primitives they call.

* lax.reduce(operands, init_values, computation, dimensions) of one array: the computation is read as add, mul,
  max or min (lax/_reduce_sort.py refuses any other), and the reduction is jnp.sum / prod / max / min over
  `dimensions` (ties of a max or min share the derivative equally, as jnp.max; a max or min from an init value
  that is not the identity is jnp.maximum / minimum of it and the reduction, sharing a tie half and half as
  lax.max). An add or mul must start from its identity (JAX's value is undefined otherwise).
* lax.sort((k, v, ...), dimension, is_stable, num_keys): the operands taken along the stable permutation that
  sorts by the first num_keys (lexicographically); the derivative follows that permutation. One array goes to
  the lax_sort primitive.
"""
from . import numpy as jnp
from .lax._linear import sort as _sort_one
from .lax._reduce_sort import computation_kind, lexsort_order, reduce_starts_at_identity

__all__ = ["reduce", "sort"]


def reduce(operands, init_values, computation, dimensions):
    """lax.reduce of one array with lax.add, lax.mul, lax.max or lax.min (or a lambda of one of them)."""
    if isinstance(operands, (tuple, list, dict)):
        raise NotImplementedError("astjax's lax.reduce reduces one array (a tuple of operands with a joint "
                                  "computation is not supported): reduce each, or use jnp.argmax for an arg-reduction")
    kind = computation_kind(computation)
    identity = reduce_starts_at_identity(kind, init_values, operands)
    axes = tuple(dimensions)
    if kind == 0:
        return jnp.sum(operands, axis=axes)
    if kind == 1:
        return jnp.prod(operands, axis=axes)
    if kind == 2:
        largest = jnp.max(operands, axis=axes)
        if identity:
            return largest
        return jnp.maximum(largest, init_values)
    smallest = jnp.min(operands, axis=axes)
    if identity:
        return smallest
    return jnp.minimum(smallest, init_values)


def sort(operand, dimension=-1, is_stable=True, num_keys=1):
    """lax.sort: one array sorted along `dimension`, or a tuple of arrays moved by the stable order of the first
    `num_keys` of them."""
    if not isinstance(operand, (tuple, list)):
        return _sort_one(operand, dimension, is_stable, num_keys)
    if num_keys < 1 or num_keys > len(operand):
        raise ValueError(f"lax.sort: num_keys={num_keys} for {len(operand)} operands")
    order = lexsort_order(operand[:num_keys], dimension)
    return tuple([jnp.take_along_axis(item, order, axis=dimension) for item in operand])
