"""Arrays compiled in as constants, and whether they still hold what they held then.

Numba compiles a global array (or one a closure captured) into the machine code
as a constant. The reference backend reads it at each call, so a program that
writes into it (`TABLE[0] = 10.0`) between two calls sees the new values; the
compiled code would silently keep the old ones. Rebinding the name is noticed
elsewhere (`Derivation.current`, by identity); this module notices writes into
the array itself: a build records a copy of each array its lowered source reads,
and a call whose arrays changed since compiles the signature again.
"""
import gast
import numpy as np
from ..codegen.node_walk import walk

__all__ = ["FrozenArrays"]


class FrozenArrays:
    """(name, array, copy) for each array a build's lowered functions read from their namespace."""

    def __init__(self):
        self.items = []

    def capture(self, node, namespace):
        """Record the arrays among the names `node` (a lowered function) loads from `namespace`."""
        seen = {id(a) for _, a, _ in self.items}
        for name in sorted({n.id for n in walk(node) if isinstance(n, gast.Name)}):
            for array in _arrays_in(namespace.get(name)):
                if id(array) not in seen:
                    seen.add(id(array))
                    self.items.append((name, array, array.copy()))

    def changed(self):
        """Whether any recorded array was written into since (bit for bit: -0.0 is not 0.0, nor one NaN another)."""
        for _, array, copy in self.items:
            if array.shape != copy.shape or array.dtype != copy.dtype:
                return True
            if array.tobytes() != copy.tobytes():
                return True
        return False


def _arrays_in(value, depth=0):
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, tuple) and depth < 4:
        return [a for v in value for a in _arrays_in(v, depth + 1)]
    return []
