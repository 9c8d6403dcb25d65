"""The primitive table. Importing this package registers every rule family."""
from .registry import PRIMITIVES, Primitive, all_primitives, lookup_callable, lookup_operator
from . import elementwise, reductions, linalg, structural, nondifferentiable, control  # noqa: F401 (registration)

__all__ = ["PRIMITIVES", "Primitive", "all_primitives", "lookup_callable", "lookup_operator",
           "elementwise", "reductions", "linalg", "structural", "nondifferentiable", "control"]
