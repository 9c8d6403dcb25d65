"""lax.reduce, written in Python from primitives (exported by astjax.lax).

Like lax_composites.py, this module is not a library for classify: the transformations differentiate and batch
it like the user's own code, through the primitives it calls.

* lax.reduce(operands, init_values, computation, dimensions) of one array: the computation is read as add, mul,
  max or min (lax/_reduce_sort.py refuses any other), and the reduction is jnp.sum / prod / max / min over
  `dimensions` (ties of a max or min share the derivative equally, as jnp.max; a max or min from an init value
  that is not the identity is jnp.maximum / minimum of it and the reduction, sharing a tie half and half as
  lax.max). An add or mul must start from its identity (JAX's value is undefined otherwise).
"""
from . import numpy as jnp
from .lax._reduce_sort import computation_kind, reduce_starts_at_identity

__all__ = ["reduce"]


def reduce(operands, init_values, computation, dimensions):
    """lax.reduce of one array with lax.add, lax.mul, lax.max or lax.min (or a lambda of one of them)."""
    kind = computation_kind(computation)
    identity = reduce_starts_at_identity(kind, init_values, operands)
    axes = tuple(dimensions)
    if kind == 0:
        total = jnp.sum(operands, axis=axes)
        if identity == 2:          # an array init (zero here) may carry a derivative: combined once
            return total + init_values
        return total
    if kind == 1:
        product = jnp.prod(operands, axis=axes)
        if identity == 2:
            return product * init_values
        return product
    if kind == 2:
        largest = jnp.max(operands, axis=axes)
        if identity == 0:
            return jnp.maximum(largest, init_values)
        return largest
    smallest = jnp.min(operands, axis=axes)
    if identity == 0:
        return jnp.minimum(smallest, init_values)
    return smallest
