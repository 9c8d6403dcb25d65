"""The abstract types of Python numbers (weakly typed, as in JAX)."""
from ..observe import WEAK_FLOAT, WEAK_INT

WEAK_KINDS = frozenset({WEAK_FLOAT, WEAK_INT})
