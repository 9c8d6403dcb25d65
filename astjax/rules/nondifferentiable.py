"""Primitives whose results carry no derivative, each with the reason why.

A reason is one of: the result is boolean or integer; the result is piecewise
constant in its inputs (rounding); or it depends only on shapes and dtypes.
Their outputs are never active, so the transformations copy them into the
derivative's primal sweep unchanged. (A function with a real derivative must
never be listed here: a missing rule is an error, a zero rule a wrong answer.)
"""
import builtins
import math

import gast
import numpy as np

from .. import numpy as jnp
from . import helpers
from .registry import PRIMITIVES, deflowering, primitive

BOOLEAN = "its result is boolean"
INTEGER = "its result is an integer (an index, a count or a size)"
PIECEWISE = "its result is piecewise constant (rounding): the derivative is zero almost everywhere"
SHAPES = "its result depends only on shapes and dtypes, not on values"
NOTHING = "it returns nothing (printing)"
TEXT = "its result is text"
FUNCTION = "its result is a function, not a number"


def nondifferentiable(name, impl, reason, aliases=(), operator=None, signature=None, effect=None,
                      result_shape_of=None, guard=False):
    return primitive(name, impl, operands=(), differentiable=False, aliases=aliases, operator=operator,
                     signature=signature, reason=reason, effect=effect, result_shape_of=result_shape_of, guard=guard)


for _name, _op in [("less", gast.Lt), ("less_equal", gast.LtE), ("greater", gast.Gt),
                   ("greater_equal", gast.GtE), ("equal", gast.Eq), ("not_equal", gast.NotEq)]:
    nondifferentiable(_name, getattr(jnp, _name), BOOLEAN, aliases=(getattr(np, _name),), operator=_op)
nondifferentiable("floor_divide", jnp.floor_divide, PIECEWISE, aliases=(np.floor_divide,), operator=gast.FloorDiv)
for _name in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal", "floor_divide"):
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")

_REASONS = {
    BOOLEAN: ["isnan", "isfinite", "isinf", "logical_and", "logical_or", "logical_not", "logical_xor",
              "allclose", "all", "any", "isclose"],
    PIECEWISE: ["floor", "ceil", "round", "sign", "trunc", "around"],
    INTEGER: ["argmax", "argmin", "argsort", "arange"],
    SHAPES: ["zeros_like", "ones_like", "zeros", "ones", "empty", "empty_like", "eye", "identity", "shape",
             "ndim", "size"],
}
for _reason, _names in _REASONS.items():
    for _name in _names:
        if hasattr(jnp, _name) and _name not in PRIMITIVES:
            nondifferentiable(_name, getattr(jnp, _name), _reason,
                              aliases=tuple(a for a in (getattr(np, _name, None),) if a is not None),
                              result_shape_of="a" if _name.endswith("_like") else None)
for _name in ("isnan", "isfinite", "isinf", "logical_and", "logical_or", "logical_not", "logical_xor",
              "all", "any", "floor", "ceil", "round", "sign", "trunc", "around", "argmax", "argmin"):
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")
# dtype queries read an array's dtype, never its values (`jnp.result_type(y, g)`, `jnp.finfo(x)`)
for _name in ("result_type", "promote_types", "can_cast", "finfo", "iinfo"):
    if hasattr(jnp, _name) and _name not in PRIMITIVES:
        nondifferentiable(_name, getattr(jnp, _name), SHAPES, aliases=(getattr(np, _name),))

# arange(start, stop, step) is start + k * step: with a float start or step that carries a derivative its
# result moves with them (only its length is piecewise constant). Like JAX, which needs them concrete, astjax
# refuses such arguments (analyses/classify.py) rather than give the silently zero derivative of an index.
PRIMITIVES["arange"].refuse_varied_arguments = True
nondifferentiable("floor_math", math.floor, PIECEWISE, aliases=(math.ceil, math.trunc))
nondifferentiable("isnan_math", math.isnan, BOOLEAN, aliases=(math.isinf, math.isfinite))
for _builtin, _reason in (("len", INTEGER), ("range", INTEGER), ("int", PIECEWISE), ("bool", BOOLEAN),
                          ("isinstance", BOOLEAN), ("round", PIECEWISE)):
    nondifferentiable(f"builtin_{_builtin}", getattr(builtins, _builtin), _reason)
nondifferentiable("builtin_print", builtins.print, NOTHING, effect="prints")
# normalize/container_idioms.py writes `for k, v in d.items()` as a loop over `dict_keys(d)`, `sorted(d)` as
# `sorted_keys(d)`: the keys of a dict are its (pytree) structure, strings or integers, never values.
KEYS = "its result is the keys of a dict, or whether it has a key (its structure), not its values"
nondifferentiable("dict_keys", helpers.dict_keys, KEYS)
nondifferentiable("sorted_keys", helpers.sorted_keys, KEYS)
nondifferentiable("has_key", helpers.has_key, KEYS)
# normalize/keyed_ordering.py: the order of a keyed sort and the position of a keyed min/max (the items are
# gathered by them, so their derivative flows through the gather).
nondifferentiable("key_order", helpers.key_order, INTEGER)
nondifferentiable("key_extremum", helpers.key_extremum, INTEGER)
nondifferentiable("zip_star_length", helpers.zip_star_length, INTEGER)   # normalize/iteration_builtins.py
# frontend/normalize/type_inspection.py writes the user's `isinstance(v, C)` / `type(v)` as these checked versions.
nondifferentiable("checked_isinstance", helpers.checked_isinstance, BOOLEAN)
nondifferentiable("checked_isscalar", helpers.checked_isscalar, BOOLEAN)
nondifferentiable("checked_hasattr", helpers.checked_hasattr, BOOLEAN)
nondifferentiable("checked_memory_attribute", helpers.checked_memory_attribute, SHAPES)    # base, flags: storage
nondifferentiable("checked_type", helpers.checked_type, SHAPES)     # a type: never a value
nondifferentiable("checked_identity", helpers.checked_identity, BOOLEAN)    # `a is b`: which object each is
nondifferentiable("checked_id", helpers.checked_id, INTEGER)      # `id(v)`: which object v is
nondifferentiable("checked_repr", helpers.checked_repr, TEXT)
nondifferentiable("checked_callee", helpers.checked_callee, FUNCTION)   # the function it is given (primal_calls.py)
nondifferentiable("iterated", helpers.iterated, NOTHING, guard=True,
                  effect="checks that a loop iterates a sequence, not a dict")
deflowering(PRIMITIVES["iterated"], numba="astjax.runtime.numba_cpu:iterated")
nondifferentiable("sequence_part", helpers.sequence_part, SHAPES)     # normalize/sequence_sums.py: a type check
nondifferentiable("unshared_item", helpers.unshared_item, NOTHING,
                  effect="checks that a list's item updated in place is not another item too", guard=True)
nondifferentiable("array_holder", helpers.array_holder, NOTHING,
                  effect="checks that an item updated in place belongs to an array, not to a list's shallow copy",
                  guard=True)
deflowering(PRIMITIVES["array_holder"], numba="astjax.runtime.numba_cpu:array_holder")
nondifferentiable("not_a_row", helpers.not_a_row, NOTHING,
                  effect="checks that an item updated in place is a number, not a row of the array it came from",
                  guard=True)
deflowering(PRIMITIVES["not_a_row"], numba="astjax.runtime.numba_cpu:not_a_row")
nondifferentiable("basic_index", helpers.basic_index, NOTHING,
                  effect="checks that an index written through is not an advanced one (whose result is a copy)",
                  guard=True)
deflowering(PRIMITIVES["basic_index"], numba="astjax.runtime.numba_cpu:basic_index")
nondifferentiable("not_a_view", helpers.not_a_view, NOTHING,
                  effect="checks that a value is not a view of the array it is written into", guard=True)
deflowering(PRIMITIVES["not_a_view"], numba="astjax.runtime.numba_cpu:not_a_view")
for _helper, _reason in (("reduced_size", SHAPES), ("invert_permutation", INTEGER), ("clip_mask", BOOLEAN),
                         ("clip_lower_weight", BOOLEAN), ("clip_upper_weight", BOOLEAN), ("extremum_mask", BOOLEAN), ("linspace_weights", SHAPES), ("meshgrid_axes", SHAPES),
                         ("inexact_zero", SHAPES),
                         ("unique_index", INTEGER), ("distinct_index", INTEGER)):
    nondifferentiable(_helper, getattr(helpers, _helper), _reason)
PRIMITIVES["inexact_zero"].promotes_tuple_items = True
for _name in ("zeros_like", "ones_like", "zeros", "ones", "empty", "empty_like", "eye", "identity", "shape", "ndim",
              "size", "arange", "reduced_size", "invert_permutation", "clip_mask", "clip_lower_weight", "clip_upper_weight",
              "extremum_mask", "unique_index",
              "distinct_index", "isclose", "allclose", "linspace_weights", "inexact_zero", "builtin_len"):
    deflowering(PRIMITIVES[_name], numba=f"astjax.runtime.numba_cpu:{_name}")

# ---------------------------------------------------- issue 9: math, integer and set functions
# (nextafter is not here: it moves with x1 (slope 1), so it has rules in elementwise.py. unique, intersect1d, union1d, setdiff1d and setxor1d return values
# of their input, which carry derivatives: they are refused too.)
_ISSUE9 = {
    BOOLEAN: ["signbit", "isneginf", "isposinf", "isreal", "iscomplex", "isin", "array_equal", "array_equiv"],
    PIECEWISE: ["rint", "fix", "spacing"],
    INTEGER: ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift", "bitwise_count",
              "gcd", "lcm", "searchsorted", "digitize", "argwhere", "nonzero", "flatnonzero", "packbits",
              "unpackbits", "count_nonzero", "nanargmax", "nanargmin"],
    SHAPES: ["isrealobj", "iscomplexobj"],
}
_NUMPY_TWINS = {"invert": (np.invert, np.bitwise_not, np.bitwise_invert),
                "left_shift": (np.left_shift, np.bitwise_left_shift),
                "right_shift": (np.right_shift, np.bitwise_right_shift)}
# `a & b`, `~mask`, ...: Python's operators on integer and boolean arrays
_OPERATORS = {"bitwise_and": gast.BitAnd, "bitwise_or": gast.BitOr, "bitwise_xor": gast.BitXor,
              "left_shift": gast.LShift, "right_shift": gast.RShift, "invert": gast.Invert}
for _reason, _names in _ISSUE9.items():
    for _name in _names:
        _aliases = _NUMPY_TWINS.get(_name, (getattr(np, _name, None),))
        nondifferentiable(_name, getattr(jnp, _name), _reason, aliases=tuple(a for a in _aliases if a is not None),
                          operator=_OPERATORS.get(_name))

# ---------------------------------------------------- windows, index arithmetic, shape queries
_UTILITIES = {
    SHAPES: ["bartlett", "blackman", "hamming", "hanning", "broadcast_shapes", "isscalar", "iterable"],
    INTEGER: ["unravel_index", "ravel_multi_index", "lexsort", "argpartition"],
}
for _reason, _names in _UTILITIES.items():
    for _name in _names:
        nondifferentiable(_name, getattr(jnp, _name), _reason, aliases=(getattr(np, _name),))


# ---------------------------------------------------- functions without a rule, and why (said where a derivative reaches them)
def no_derivative(reason, hint, *functions):
    """Mark astjax's own `functions` as having no derivative rule, for `reason`: the refusal names it."""
    for fn in functions:
        fn.__astjax_no_derivative__ = (reason, hint)


no_derivative("the eigenvalues and eigenvectors of a non-symmetric matrix are complex in general, and astjax has "
              "no complex differentiation",
              "for a symmetric matrix use jnp.linalg.eigh or eigvalsh (they have rules); otherwise compute the "
              "eigendecomposition outside the differentiated function", jnp.linalg.eig, jnp.linalg.eigvals)
no_derivative("its result's length depends on which entries are equal, and where entries tie the result has no "
              "derivative",
              "differentiate a computation on the input itself (jnp.sort has rules), or take the unique values of "
              "something that does not depend on the differentiated input",
              jnp.unique, jnp.unique_values, jnp.unique_counts, jnp.unique_inverse, jnp.unique_all, jnp.intersect1d,
              jnp.union1d, jnp.setdiff1d, jnp.setxor1d)
no_derivative("the counts are piecewise constant, the bin edges move with the data unless `range` is given, and "
              "weights enter linearly: astjax has no rule for these",
              "compute the histogram of values that do not depend on the differentiated input, or use a smooth "
              "density (a sum of kernels) instead", jnp.histogram, jnp.histogram_bin_edges, jnp.histogram2d,
              jnp.histogramdd)
no_derivative("polynomial roots are complex in general and their order changes with the coefficients",
              "evaluate polynomials with jnp.polyval (it has rules), or compute roots outside the differentiated "
              "function", jnp.roots)
no_derivative("its result is complex, and astjax has no complex differentiation",
              "sort the real values with jnp.sort or jnp.lexsort (they have rules or no derivative to lose)",
              jnp.sort_complex)
no_derivative("astjax has no rule for it yet (for real roots its coefficients are products of the roots)",
              "build the polynomial from its roots with jnp.polymul of [1, -r] factors (it has rules)", jnp.poly)
no_derivative("astjax has no rule for polynomial division yet",
              "compute the quotient outside the differentiated function", jnp.polydiv)
no_derivative("it calls the functions you pass on arrays astjax does not see",
              "write the pieces with jnp.where or jnp.select (they have rules)", jnp.piecewise)
no_derivative("it calls the function you pass on index grids astjax does not see",
              "pass a lambda written in place (astjax rewrites `jnp.fromfunction(lambda i, j: ..., shape)`), or "
              "apply your function to jnp.indices(shape)", jnp.fromfunction)
