"""lax.sort's derivative rules (one array, or a tuple sorted by its first num_keys), and the non-differentiable
helpers of lax.reduce (astjax/lax_reduce_sort.py).

lax.reduce is written in Python from primitives, so its derivatives are those of jnp.sum / prod / max / min /
maximum / minimum; its helpers only decide which (an integer, a flag), so they carry no derivative. A sort's
derivative follows its stable permutation: the adjoint scatters back along it, the tangent gathers along it,
for every operand of a tuple (the keys' permutation moves the values too).
"""
from .. import lax
from .. import numpy as jnp
from ..lax import _reduce_sort as helpers
from .decompositions import with_fields
from .helpers import item_adjoint, tree_item_adjoint
from .linalg import COMPOSITES
from .nondifferentiable import INTEGER, nondifferentiable


def _sort_order(operand, dimension, num_keys):
    if isinstance(operand, (tuple, list)):
        return lax.internal.lexsort_order(operand[:num_keys], dimension)
    return jnp.argsort(operand, dimension)


def lax_sort_adjoint(g, operand, dimension, num_keys):
    """operand's adjoint from y = lax.sort(operand): g scattered back along the sorting permutation (for a tuple,
    a TreeAdjoint of the items that got one, built in a function of its own: vmap batches this one without a
    container)."""
    order = _sort_order(operand, dimension, num_keys)
    if not isinstance(operand, (tuple, list)):
        return lax.internal.scatter_along(g, order, dimension, jnp.shape(operand))
    return _sort_items_adjoint(g, operand, order, dimension)


def _sort_items_adjoint(g, operand, order, dimension):
    """The adjoint of a tuple sorted by lax.sort: each item's g scattered back along the common order."""
    total = 0.0
    for i in range(len(operand)):
        gi = item_adjoint(g, i)
        if jnp.ndim(gi) != 0:
            total = total + tree_item_adjoint(i, lax.internal.scatter_along(gi, order, dimension,
                                                                            jnp.shape(operand[i])))
    return total


def lax_sort_tangent(t, operand, y, dimension, num_keys):
    """The tangent of lax.sort: t gathered along the sorting permutation (each item of a tuple's, in a function
    of its own: vmap batches this one without a container)."""
    order = _sort_order(operand, dimension, num_keys)
    if not isinstance(operand, (tuple, list)):
        return lax.internal.gather_along(t, order, dimension)
    return _sort_items_tangent(t, operand, y, order, dimension)


def _sort_items_tangent(t, operand, y, order, dimension):
    """The tangent of a tuple sorted by lax.sort: each item's tangent gathered along the common order."""
    items = []
    for i in range(len(operand)):
        items.append(lax.internal.gather_along(t[i] + 0.0 * operand[i], order, dimension))
    return with_fields(y, items)


COMPOSITES.update({f.__name__: f for f in (_sort_order, lax_sort_adjoint, _sort_items_adjoint, lax_sort_tangent,
                                                 _sort_items_tangent)})

nondifferentiable("lax_computation_kind", helpers.computation_kind, INTEGER)
nondifferentiable("lax_reduce_starts_at_identity", helpers.reduce_starts_at_identity, INTEGER)
nondifferentiable("lax_lexsort_order", lax.internal.lexsort_order, INTEGER)
