"""Helpers of tests/test_primitive_sweep.py: batches of a rule case's arguments, float32 copies, comparisons.

A rule case (tests/rule_cases.py) is `fn(*args, w)`; its floating-point arguments (arrays, or containers
whose leaves are all floating-point arrays) are the ones a batch maps, every other argument (integers,
booleans, Python ints, index arrays) stays unbatched (in_axes None). The batch's examples are the case's
own arguments scaled by 1, 1.05 and 1.1: scaling keeps every input in its primitive's domain (signs,
orderings, positive definiteness, distance from ties) where adding noise might not.
"""
import numpy as np

import astjax.numpy as jnp
from astjax import tree_util

BATCH = 3


def is_float_operand(a):
    """A floating-point array, or a non-empty container whose leaves all are: vmap maps it."""
    if isinstance(a, (tuple, list, dict)):
        leaves = tree_util.tree_leaves(a)
        return bool(leaves) and all(is_float_operand(leaf) for leaf in leaves)
    return hasattr(a, "dtype") and np.issubdtype(np.dtype(a.dtype), np.floating)


def scaled(a, k):
    """Example k of the batch: every leaf multiplied by 1 + 0.05 k."""
    return tree_util.tree_map(lambda leaf: jnp.asarray(np.asarray(leaf) * (1 + 0.05 * k)), a)


def stacked(examples):
    """The examples stacked leaf by leaf on a new axis 0."""
    return tree_util.tree_map(lambda *leaves: jnp.asarray(np.stack([np.asarray(x) for x in leaves])), *examples)


def batch(args, mapped):
    """(the per-example argument tuples, the batched arguments, in_axes) for the positions in `mapped`."""
    axes = tuple(0 if i in mapped else None for i in range(len(args)))
    examples = [tuple(scaled(a, k) if ax is not None else a for a, ax in zip(args, axes)) for k in range(BATCH)]
    batched = tuple(stacked([e[i] for e in examples]) if ax is not None else args[i] for i, ax in enumerate(axes))
    return examples, batched, axes


def float32(a):
    """`a` with every floating-point leaf cast to float32 (others as they are)."""
    return tree_util.tree_map(lambda leaf: jnp.asarray(np.asarray(leaf, dtype=np.float32))
                              if is_float_operand(leaf) else leaf, a)


def assert_trees_close(got, expected, rtol, atol, what):
    """Same structure, same shapes, values close (NaN where the other has NaN)."""
    got_leaves, got_def = tree_util.tree_flatten(got)
    exp_leaves, exp_def = tree_util.tree_flatten(expected)
    assert got_def == exp_def, f"{what}: structure {got_def}, expected {exp_def}"
    for g, e in zip(got_leaves, exp_leaves):
        g, e = np.asarray(g), np.asarray(e)
        assert g.shape == e.shape, f"{what}: shape {g.shape}, expected {e.shape}"
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, equal_nan=True, err_msg=what)


def negative_base_power(x, n):
    """`(-1.0) ** n`: normalization folds -1.0 into one constant, which must print with its parentheses."""
    return jnp.sum((-1.0) ** n * x)
