"""`ravel_pytree`: a pytree of arrays as one flat vector and a function that rebuilds it, as
`jax.flatten_util.ravel_pytree` (optimizers and solvers that want a single parameter vector).

The flat vector has the promoted dtype of the leaves (JAX's rule); `unravel` gives each leaf back its
own shape and dtype. It runs eagerly on values: inside a transformed function a call of it is refused
like any call without a rule (flatten outside, or index the leaves).
"""
import numpy as np

from . import numpy as jnp
from .array import wrap
from .tree_util import tree_flatten, tree_unflatten

__all__ = ["ravel_pytree"]


def ravel_pytree(pytree):
    """(flat, unravel): the leaves of `pytree` raveled and concatenated, and the inverse map."""
    leaves, treedef = tree_flatten(pytree)
    arrays = [np.asarray(leaf) for leaf in leaves]
    shapes = [a.shape for a in arrays]
    dtypes = [a.dtype for a in arrays]
    sizes = [a.size for a in arrays]
    flat_dtype = np.dtype(jnp.result_type(*dtypes)) if dtypes else np.dtype(np.float32)   # JAX's promotion
    flat = np.concatenate([a.ravel().astype(flat_dtype) for a in arrays]) if arrays else np.zeros(0, flat_dtype)
    total = int(sum(sizes))

    def unravel(vector):
        vector = np.asarray(vector)
        if vector.shape != (total,):
            raise ValueError(f"unravel: the vector must have shape ({total},) as the raveled pytree had, "
                             f"got {vector.shape}")
        pieces, start = [], 0
        for shape, dtype, size in zip(shapes, dtypes, sizes):
            pieces.append(wrap(vector[start:start + size].reshape(shape).astype(dtype)))
            start += size
        return tree_unflatten(treedef, pieces)

    return wrap(flat), unravel
