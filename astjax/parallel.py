"""pmap: one call of the compiled function per device, over the leading axis.

astjax computes on the host CPU, which is one device, so `pmap(f)(x)` needs
`x.shape[0] == astjax.device_count()`, as JAX does: each device's slice runs
through `jit(f)` (compiled once) and the results are stacked along
`out_axes`. With an `axis_name`, the function's collectives (`lax.psum(x, 'i')`, `pmean`,
`all_gather`, `axis_index`, ...) read every device's slice: pmap then computes all the slices at
once as `vmap(f, axis_name=...)` does (astjax/rules/collectives.py), which gives the same values.
"""
import functools

import numpy as np

from . import tree_util
from .array import wrap
from .devices import devices as _devices
from .errors import api_boundary
from .jit import jit

__all__ = ["pmap"]


def pmap(fun, axis_name=None, *, in_axes=0, out_axes=0, static_broadcasted_argnums=(), devices=None,
         backend=None, axis_size=None, donate_argnums=()):
    """Map `fun` over the leading axis of its arguments, one slice per device (like `jax.pmap`)."""
    if not callable(fun):
        raise TypeError(f"pmap expects a function, got {type(fun).__name__}")
    targets = list(devices) if devices is not None else _devices(backend)
    static = (static_broadcasted_argnums,) if isinstance(static_broadcasted_argnums, int) \
        else tuple(static_broadcasted_argnums)
    compiled = jit(fun, static_argnums=static)

    @functools.wraps(fun)
    @api_boundary
    def mapped(*args):
        axes = _axes_per_argument(in_axes, args, static)
        sizes = {np.shape(leaf)[axis] for arg, axis in zip(args, axes) if axis is not None
                 for leaf in tree_util.tree_leaves(arg)}
        if not sizes and axis_size is None:
            raise ValueError("pmap needs at least one argument mapped over an axis (in_axes), or axis_size")
        if len(sizes) > 1:
            raise ValueError(f"pmap got mapped axes of different sizes {sorted(sizes)}; they must be equal")
        size = sizes.pop() if sizes else axis_size
        if size > len(targets):
            raise ValueError(f"pmap: the mapped axis has size {size}, more than the {len(targets)} available "
                             f"device(s) ({targets}); reshape to (devices, ...) or use vmap")
        if axis_name is not None:        # collectives see every slice: the slices run together, as vmap's batch
            from .vmap_api import vmap
            return vmap(fun, in_axes=tuple(axes), out_axes=out_axes, axis_name=axis_name,
                        axis_size=size)(*args)
        outputs = []
        for i in range(size):
            sliced = [arg if axis is None else tree_util.tree_map(lambda leaf: np.take(leaf, i, axis=axis), arg)
                      for arg, axis in zip(args, axes)]
            outputs.append(compiled(*sliced))
        return tree_util.tree_map(lambda *leaves: wrap(np.stack([np.asarray(v) for v in leaves], axis=out_axes)),
                                  *outputs)

    return mapped


def _axes_per_argument(in_axes, args, static):
    if isinstance(in_axes, (int, type(None))):
        axes = [in_axes] * len(args)
    else:
        axes = list(in_axes)
        if len(axes) != len(args):
            raise ValueError(f"pmap in_axes has {len(axes)} entries for {len(args)} arguments")
    for i, axis in enumerate(axes):
        if i in static:
            axes[i] = None
        elif axis is not None and not isinstance(axis, int):
            raise ValueError(f"pmap in_axes entries must be ints or None, got {axis!r}")
    return axes
