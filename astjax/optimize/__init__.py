"""Cleanup passes that make generated code read like hand-written code.

`cleanup` runs them to a fixed point: fold constants, turn a push popped right
back into an assignment, fold the first adjoint contribution into its zero
initialization (in a loop too), share common subexpressions (and propagate copies and
constants), substitute single-use temporaries, drop dead code.
"""
from gast import AST

from ..codegen.node_walk import breadth_first
from .adjacent_push_pop import fold_adjacent_push_pop
from .common_subexpressions import share_common_subexpressions
from .constant_folding import fold_constants
from .dead_code import remove_dead_code
from .forward_substitution import substitute_temporaries
from .loop_accumulators import fold_loop_accumulators
from .zero_accumulation import fold_zero_accumulation

__all__ = ["cleanup"]


def cleanup(function_node, keep=(), temporaries=(), ones_of_any_dtype=False, float_params=()):
    """Simplify `function_node` in place until nothing changes; return it. `temporaries`: names an
    earlier transformation gave its temporaries (codegen/readable_names.py), substituted like `_t3`.
    `ones_of_any_dtype`: drop every factor 1.0 (constant_folding.py; for code printed, not run).
    `float_params`: parameters that hold floats whenever the function runs (grad's differentiated ones)."""
    after = _fingerprint(function_node)
    for _ in range(8):
        before = after                  # a round starts from the tree the last round ended with
        fold_constants(function_node, ones_of_any_dtype, float_params)
        fold_adjacent_push_pop(function_node)
        fold_zero_accumulation(function_node)
        fold_loop_accumulators(function_node)
        share_common_subexpressions(function_node)
        substitute_temporaries(function_node, temporaries)
        remove_dead_code(function_node)
        after = _fingerprint(function_node)
        if after == before:
            break
    return function_node


def _fingerprint(node):
    """A value equal for two trees exactly when they are equal (as `gast.dump` would print them, which
    this replaces at a third of its cost): each node's class and, per field, its scalar value or the
    count of its list, in `gast.walk`'s order (which, with those counts, fixes the tree's shape).
    A string, an int or None stands for itself (equal exactly when their reprs are, and most scalars
    are names' identifiers); any other scalar by its repr (`0.0` and `-0.0` are equal, not their reprs)."""
    out = []
    append = out.append
    for n in breadth_first(node):
        append(n.__class__)
        for field in n._fields:
            value = getattr(n, field, None)
            kind = value.__class__
            if kind in _SELF_KEYED:
                append((kind, value))
            elif isinstance(value, list):
                append(len(value))
                for item in value:
                    append(item.__class__ if isinstance(item, AST) else (item.__class__, repr(item)))
            elif not isinstance(value, AST):
                append((kind, repr(value)))
    return out


_SELF_KEYED = {str, int, type(None)}      # == between two of one class is == between their reprs
