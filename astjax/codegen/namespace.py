"""The names generated code may use besides the user's own: jnp, lax and the rule helpers."""
from .. import lax
from .. import numpy as jnp
from ..rules import helpers
from ..rules.control import Tape, pop, push
from ..rules.linalg import COMPOSITES

GENERATED_NAMESPACE = {"jnp": jnp, "lax": lax, "Tape": Tape, "push": push, "pop": pop}
GENERATED_NAMESPACE.update({n: getattr(helpers, n) for n in helpers.__all__})
GENERATED_NAMESPACE.update(COMPOSITES)
