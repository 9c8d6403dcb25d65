"""Numba lowerings of two checks on loops' values: vmap's `example_of(tree, b)` (example b of a batched
value, the batch on axis 0) and lax.scan's carry check.

vmap writes it where it reads one example of a batched tuple: the length check of an unpacked result
(`assert len(example_of(_t1, 0)) == 2`, jacfwd's `(value, tangent)` under vmap), and the loop over
examples that runs what no batching rule covers. A tuple gives the tuple of its items' examples, an
array of rank 1 or more its row b, None stays None (the reference backend's `example_of`); a number
holds no batch axis and is declined, as the reference cannot index it either.
"""
from numba import types

from ..lax._scan_outputs import scan_carry_check as _carry_check
from ..rules.batching import example_of as _reference
from .numba_build import lowers
from .numba_build import implementation as _impl
from .numba_build import is_value as _value
from .numba_typing import is_array, is_none


@lowers("example_of", ("tree", "b"), reference=_reference)
def example_of(tree, b):
    """example_of: row b of each array of the (nested) tuple `tree`."""
    if not isinstance(types.unliteral(b), types.Integer):
        return None
    if is_none(tree):
        return _impl(("tree", "b"), ["return None"])
    if is_array(tree) and tree.ndim > 0:
        return _impl(("tree", "b"), ["return tree[b]"])
    if isinstance(tree, types.BaseTuple):
        items = "".join(f"L.example_of(tree[{k}], b), " for k in range(len(tree.types)))
        return _impl(("tree", "b"), [f"return ({items})"])
    return None


@lowers("scan_carry_check", ("carry", "init"), reference=_carry_check)
def scan_carry_check(carry, init):
    """lax.scan's carry check: Numba gives the carry one type (dtype and rank; the first call's reference
    run checked the dtypes), so what is left are the shapes, leaf by leaf, which can change from call to call."""
    lines = []
    if not _shape_checks(carry, init, "carry", "init", lines):
        return None
    return _impl(("carry", "init"), lines + ["return None"])


def _shape_checks(carry, init, a, b, lines):
    """Lines raising JAX's TypeError where leaf `a` and leaf `b` differ in shape; False for types not lowered."""
    if isinstance(carry, types.BaseTuple) and isinstance(init, types.BaseTuple):
        if len(carry.types) != len(init.types):
            return False
        return all(_shape_checks(c, i, f"{a}[{k}]", f"{b}[{k}]", lines)
                   for k, (c, i) in enumerate(zip(carry.types, init.types)))
    if is_none(carry) and is_none(init):
        return True
    if not (_value(carry) and _value(init)):
        return False
    if is_array(carry) or is_array(init):
        shape_a = f"{a}.shape" if is_array(carry) else "()"
        shape_b = f"{b}.shape" if is_array(init) else "()"
        lines += [f"if {shape_a} != {shape_b}:",
                  "    raise TypeError('scan body function carry input and carry output must have equal types, "
                  "but they differ: the shapes do not match')"]
    return True
