"""The reference a batching rule is checked against: the function called on each example in turn."""
import numpy as np

__all__ = ["loop_over_batch"]


def loop_over_batch(f, args, in_axes):
    """`f` over the batch by a Python loop: each batched argument's example `b` taken along its in_axes,
    the unbatched ones (axis None) passed whole, the results stacked on a new axis 0."""
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(np.shape(a)[ax] for a, ax in zip(args, axes) if ax is not None)
    return np.stack([np.asarray(f(*[a if ax is None else np.take(a, b, axis=ax) for a, ax in zip(args, axes)]))
                     for b in range(size)])
