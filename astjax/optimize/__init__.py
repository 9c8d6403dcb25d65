"""Cleanup passes that make generated code read like hand-written code.

`cleanup` runs them to a fixed point: fold constants, turn a push popped right
back into an assignment, fold the first adjoint contribution into its zero
initialization (in a loop too), share common subexpressions (and propagate copies and
constants), substitute single-use temporaries, drop dead code.
"""
from .adjacent_push_pop import fold_adjacent_push_pop
from .common_subexpressions import share_common_subexpressions
from .constant_folding import fold_constants
from .dead_code import remove_dead_code
from .forward_substitution import substitute_temporaries
from .loop_accumulators import fold_loop_accumulators
from .zero_accumulation import fold_zero_accumulation

__all__ = ["cleanup"]


def cleanup(function_node, keep=(), temporaries=()):
    """Simplify `function_node` in place until nothing changes; return it. `temporaries`: names an
    earlier transformation gave its temporaries (codegen/readable_names.py), substituted like `_t3`."""
    for _ in range(8):
        before = _fingerprint(function_node)
        fold_constants(function_node)
        fold_adjacent_push_pop(function_node)
        fold_zero_accumulation(function_node)
        fold_loop_accumulators(function_node)
        share_common_subexpressions(function_node)
        substitute_temporaries(function_node, temporaries)
        remove_dead_code(function_node)
        if _fingerprint(function_node) == before:
            break
    return function_node


def _fingerprint(node):
    import gast
    return gast.dump(node)
