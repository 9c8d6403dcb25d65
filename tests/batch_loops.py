"""The reference a batching rule is checked against: the function called on each example in turn."""
import builtins
import contextlib
import sys

import numpy as np

__all__ = ["loop_over_batch", "assert_vmap_matches_the_loop", "assert_rule_batches_without_a_loop", "batch_loops_run"]


def loop_over_batch(f, args, in_axes):
    """`f` over the batch by a Python loop: each batched argument's example `b` taken along its in_axes,
    the unbatched ones (axis None) passed whole, the results stacked on a new axis 0."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    return np.stack([np.asarray(f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes)]))
                     for b in range(size)])


def assert_vmap_matches_the_loop(f, args, in_axes):
    """`vmap(f)` gives what the loop over the batch gives (a combination a rule leaves to vmap's loop)."""
    import astjax
    np.testing.assert_allclose(astjax.vmap(f, in_axes=in_axes)(*args), loop_over_batch(f, args, in_axes),
                               rtol=1e-12, atol=1e-12)


def assert_rule_batches_without_a_loop(name, f, args, in_axes, rtol):
    """The primitive `name` has a batching rule, `vmap(f)` equals the loop over the batch, and its
    generated source holds no loop over the batch."""
    import astjax
    from astjax.rules.batching import generic_rule
    from astjax.rules.registry import PRIMITIVES
    assert generic_rule(PRIMITIVES[name]) is not None, name
    batched = astjax.vmap(f, in_axes=in_axes)
    np.testing.assert_allclose(batched(*args), loop_over_batch(f, args, in_axes), rtol=rtol, atol=1e-12,
                               equal_nan=True)
    source = astjax.source(batched)
    assert "_results" not in source and "range(_B" not in source, source


@contextlib.contextmanager
def batch_loops_run(size):
    """The names of the generated functions that ran a loop over the batch (`range(size)` called from generated
    source) while the block ran: a rule's source may keep the loop in a branch (on ranks) that does not run."""
    real, seen = builtins.range, []

    def counting(*args):
        code = sys._getframe(1).f_code
        if code.co_filename.startswith("<astjax:") and args == (size,):
            seen.append(code.co_name)
        return real(*args)
    builtins.range = counting
    try:
        yield seen
    finally:
        builtins.range = real
