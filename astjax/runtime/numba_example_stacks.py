"""Numba lowerings of vmap's stacking of per-example results: `stack_examples(results)` and
`stack_adjoint_examples(results)` (rules/batching.py), where vmap loops over the batch.

`results` is the list the compiled loop built (`_results1.append(_example1)`): Numba gives its items one
type, so a list of arrays of one rank and dtype, of numbers, or of tuples of those (stacked item by item,
as the reference stacks a tuple leaf by leaf). Arrays must have one shape (np.stack's ValueError
otherwise).

A derivative's example may hold a bare `0.0` adjoint (an example whose loop ran no iteration), which the
reference widens to the other examples' shape. Compiled code holds it as typed_placeholders' zeros of
shape (1, ..., 1), so stack_adjoint_examples widens an all-zero array of size one to the shape the other
examples share, as the reference widens the bare zero; any other mismatch raises np.stack's ValueError.
"""
from numba import types

from ..rules.batching import stack_adjoint_examples as _adjoint_reference
from ..rules.batching import stack_examples as _reference
from .numba_build import lowers
from .numba_build import implementation as _impl
from .numba_typing import dtype_of, is_array, is_scalar


def _stacking(results, widen):
    """The implementation stacking the list type `results`, or None for items it does not lower."""
    if not isinstance(results, types.List):
        return None
    item = results.dtype
    head = ["if len(results) == 0:", "    raise ValueError('need at least one array to stack')"]
    if is_scalar(item) and dtype_of(item) is not None:
        return _impl(("results",), head + [
            "out = np.empty(len(results), dtype)",
            "for k in range(len(results)):",
            "    out[k] = results[k]",
            "return out"], dtype=dtype_of(item).type)
    if is_array(item) and dtype_of(item) is not None:
        lines = head + ["shape = results[0].shape"]
        if widen:           # the shape of the first example that is not a placeholder's zeros
            lines += ["for r in results:",
                      "    if not (r.size == 1 and np.all(r == 0)):",
                      "        shape = r.shape",
                      "        break"]
        lines += ["out = np.empty((len(results),) + shape, dtype)",
                  "for k in range(len(results)):",
                  "    r = results[k]",
                  "    if r.shape == shape:",
                  "        out[k] = r"]
        if widen:
            lines += ["    elif r.size == 1 and np.all(r == 0):",
                      "        out[k] = 0"]
        lines += ["    else:",
                  "        raise ValueError('all input arrays must have the same shape')",
                  "return out"]
        return _impl(("results",), lines, dtype=dtype_of(item).type)
    if isinstance(item, types.BaseTuple) and len(item.types) > 0:
        name = "stack_adjoint_examples" if widen else "stack_examples"
        parts = "".join(f"L.{name}([r[{k}] for r in results]), " for k in range(len(item.types)))
        return _impl(("results",), head + [f"return ({parts})"])
    return None


@lowers("stack_examples", ("results",), reference=_reference)
def stack_examples(results):
    """stack_examples: the per-example results stacked on a new axis 0 (a tuple item by item)."""
    return _stacking(results, widen=False)


@lowers("stack_adjoint_examples", ("results",), reference=_adjoint_reference)
def stack_adjoint_examples(results):
    """stack_adjoint_examples: stack_examples, a placeholder's zeros widened to the other examples' shape."""
    return _stacking(results, widen=True)
