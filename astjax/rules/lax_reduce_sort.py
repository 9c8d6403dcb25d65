"""The non-differentiable helpers of lax.reduce and the multi-operand lax.sort (astjax/lax_reduce_sort.py).

Those two functions are written in Python from primitives, so their derivatives are those of jnp.sum / prod /
max / min / maximum / minimum and take_along_axis; the helpers only decide which (an integer, a flag, a
permutation), so they carry no derivative.
"""
from ..lax import _reduce_sort as helpers
from .nondifferentiable import BOOLEAN, INTEGER, nondifferentiable

nondifferentiable("lax_computation_kind", helpers.computation_kind, INTEGER)
nondifferentiable("lax_reduce_starts_at_identity", helpers.reduce_starts_at_identity, BOOLEAN)
nondifferentiable("lax_lexsort_order", helpers.lexsort_order, INTEGER)
