"""The names generated code may use besides the user's own: jnp, lax, the rule helpers, some builtins.

A user's variable with one of these names would shadow what generated code
calls (`push = x * 2` breaking the tape, a global `range` replacing the
builtin in a reversed loop), so `RESERVED` lists them and normalization
renames the user's (frontend/normalize/reserved_names.py).
"""
import builtins

from .. import lax
from .. import numpy as jnp
from ..rules import helpers
from ..rules.batching_eighth import NAMES as _BATCHED_ADJOINT_HELPERS
from ..rules.batching_examples import NAMES as _EXAMPLE_HELPERS
from ..rules.control import Tape, pop, push
from ..rules.custom_jvp_transpose import NAMES as _CUSTOM_JVP_HELPERS
from ..rules.record_constructions import NAMES as _RECORD_HELPERS
from ..rules.linalg import COMPOSITES
from ..scipy import special as jsp_special, stats as jsp_stats

__all__ = ["GENERATED_NAMESPACE", "RESERVED", "expected_value", "renamed_keywords"]

GENERATED_NAMESPACE = {"jnp": jnp, "lax": lax, "Tape": Tape, "push": push, "pop": pop}
GENERATED_NAMESPACE.update({n: getattr(helpers, n) for n in helpers.__all__})
GENERATED_NAMESPACE.update(COMPOSITES)
GENERATED_NAMESPACE.update(_EXAMPLE_HELPERS)      # derivatives of vmap's loop over examples
GENERATED_NAMESPACE.update(_BATCHED_ADJOINT_HELPERS)   # batched items of adjoint trees, and their derivatives
GENERATED_NAMESPACE.update(_RECORD_HELPERS)       # namedtuples built in the function
GENERATED_NAMESPACE.update(_CUSTOM_JVP_HELPERS)   # second derivatives through a custom_jvp function
GENERATED_NAMESPACE["jsp_special"] = jsp_special     # special functions in rules (rules/special.py)
GENERATED_NAMESPACE["jsp_stats"] = jsp_stats         # scipy.stats calls (frontend/normalize/scipy_calls.py)

# Builtins that rules, templates and control-flow reversal write into generated code.
GENERATED_BUILTINS = frozenset({
    "range", "reversed", "len", "list", "tuple", "zip", "enumerate", "float", "int", "bool", "abs", "min",
    "max", "sum", "slice", "isinstance", "getattr",
})

# Names the user's code may not keep: the generated namespace, those builtins, and `np`.
RESERVED = frozenset(GENERATED_NAMESPACE) | GENERATED_BUILTINS | {"np"}

_NOTHING = object()


def expected_value(name):
    """What generated code means by `name` (a helper or a builtin), or None where it has no fixed meaning."""
    if name in GENERATED_NAMESPACE:
        return GENERATED_NAMESPACE[name]
    value = getattr(builtins, name, _NOTHING) if name in GENERATED_BUILTINS else _NOTHING
    return None if value is _NOTHING else value


def renamed_keywords(generated, keywords):
    """Keyword arguments for a generated function whose parameters clashing with RESERVED were renamed
    (`def clip(x, max)` -> `def grad_clip(x, max_)`): the user still passes `max=...`."""
    renames = getattr(generated, "__astjax_param_renames__", None)
    return {renames.get(k, k): v for k, v in keywords.items()} if renames else keywords
