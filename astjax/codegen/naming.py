"""Names in generated code: `bx` is the adjoint of `x`, `dx` its tangent, `_t3` a temporary.

A Namer knows every name already used in a function, so the names it makes
never capture a user's variable.
"""
import gast
from .node_walk import walk

__all__ = ["Namer", "names_in"]


def names_in(node):
    """Every identifier used in `node` (variables and parameters)."""
    found = set()
    for child in walk(node):
        if isinstance(child, gast.Name):
            found.add(child.id)
        elif isinstance(child, (gast.FunctionDef,)):
            found.add(child.name)
    return found


class Namer:
    """Hands out fresh names that do not clash with the function's own."""

    def __init__(self, taken=(), on_new=None):
        self.taken = set(taken)
        self.counters = {}
        self.derived = {}
        self.on_new = on_new

    def reserve(self, name):
        self.taken.add(name)
        if self.on_new is not None:
            self.on_new(name)      # e.g. the resolver learns that the name is a local variable
        return name

    def fresh(self, base="_t"):
        """A new temporary: `_t1`, `_t2`, ..."""
        n = self.counters.get(base, 0)
        while True:
            n += 1
            candidate = f"{base}{n}"
            if candidate not in self.taken:
                self.counters[base] = n
                return self.reserve(candidate)

    def unique(self, base):
        """`base` itself if free, else `base2`, `base3`, ..."""
        if base not in self.taken:
            return self.reserve(base)
        n = 2
        while f"{base}{n}" in self.taken:
            n += 1
        return self.reserve(f"{base}{n}")

    def adjoint(self, name):
        """`bx` for `x` (then `bx_`, `bx__`, ... if `bx` is a user's name)."""
        return self._derived("b", name)

    def tangent(self, name):
        """`dx` for `x`."""
        return self._derived("d", name)

    def _derived(self, prefix, name):
        key = (prefix, name)
        if key not in self.derived:
            candidate = prefix + name
            while candidate in self.taken:
                candidate += "_"
            self.derived[key] = self.reserve(candidate)
        return self.derived[key]
