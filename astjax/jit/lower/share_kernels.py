"""Generated loops identical but for their names are compiled once.

Fusion writes one kernel per statement, so the same loop can appear twice: the MLP's
`h1 = tanh(x @ w1)` and `h2 = tanh(h1 @ w2)` both became
`def _fused_k(shape, x0): ... out[i0, i1] = fast_tanh(x0[i0, i1])`, and Numba typed, lowered
and optimized each copy (0.25 s apiece on a cold compile). Numba specializes one dispatcher per
argument types, so calls with other dtypes or ranks still get their own machine code.

A kernel whose text (with its own name written as a placeholder) and Numba options equal an
earlier kernel's is dropped, and every reference to its name, in the lowered function and in
the kernels after it (a sum kernel calls its element function), names the earlier one. Kernels
come in the order they are compiled (an element function before the sums that call it), so a
sum whose element functions were shared compares equal too.
"""
import gast

from ...codegen.node_walk import walk
from ...codegen.unparse import unparse

__all__ = ["share_identical_kernels"]

_PLACEHOLDER = "_astjax_kernel_"


def share_identical_kernels(node, context):
    """Drop the kernels of `context.kernels` that repeat an earlier one; rename their calls in `node`."""
    first = {}              # (text, options) -> label of the first kernel with it
    renamed = {}            # dropped label -> the label kept
    kept = []
    for label, kernel, options in context.kernels:
        _rename(kernel, renamed)
        kernel.name = _PLACEHOLDER
        key = (unparse(kernel), repr(sorted((k, sorted(v) if isinstance(v, set) else v)
                                            for k, v in options.items())))
        kernel.name = label
        if key in first:
            renamed[label] = first[key]
            continue
        first[key] = label
        kept.append((label, kernel, options))
    if renamed:
        context.kernels[:] = kept
        _rename(node, renamed)


def _rename(tree, renamed):
    if not renamed:
        return
    for n in walk(tree):
        if isinstance(n, gast.Name) and n.id in renamed:
            n.id = renamed[n.id]
