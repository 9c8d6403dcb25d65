"""`astjax.tree`: the short names of `astjax.tree_util`, as `jax.tree` gives them (`tree.map`, `tree.leaves`).

Each is the tree_util function itself, so a transformed function calling `tree.map(f, params, grads)`
is transformed exactly as one calling `tree_util.tree_map`.
"""
from .tree_util import (tree_all as all, tree_flatten as flatten, tree_leaves as leaves, tree_map as map,  # noqa: A004
                        tree_reduce as reduce, tree_structure as structure, tree_unflatten as unflatten)

__all__ = ["all", "flatten", "leaves", "map", "reduce", "structure", "unflatten"]
