"""User names that clash with names generated code uses are renamed first.

    def f(x):                       def f(x):
        push = x * 2.0        ->        push_ = x * 2.0
        return push * len(x)            return push_ * len(x)

Generated code calls `push`, `pop`, `range`, `len`, `unbroadcast`, `jnp`, ...
(codegen/namespace.py: RESERVED). A local variable, parameter or nested
binding with such a name is renamed throughout the function; a free name that
resolves to something other than what generated code means by it (a global
`push`, a module-level `range = ...`) is renamed too and resolves to the
user's value under its new name. Free names that mean the same object (`jnp`
imported as astjax.numpy, the builtin `len`) stay as they are. A renamed
parameter still takes its keyword: the generated function carries the renames
(`__astjax_param_renames__`) and callers translate keywords through them.
"""
import builtins

import gast

from ...codegen.namespace import RESERVED, expected_value
from ..resolve import _INTRODUCED, NOT_STATIC
from .base import Pass, Renamer
from ...codegen.node_walk import walk

__all__ = ["ReservedNames"]


class ReservedNames(Pass):
    """Rename the user's names that generated code reserves."""

    def run(self, node):
        resolver = self.context.resolver
        used = {n.id for n in walk(node) if isinstance(n, gast.Name)}
        bound = {n.id for n in walk(node) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        bound |= {n.name for n in walk(node) if isinstance(n, gast.FunctionDef) and n is not node}
        renames = {}
        for old in sorted(used & RESERVED):
            value = NOT_STATIC if resolver.is_local(old) else resolver.lookup(old)
            if old not in bound and (value is NOT_STATIC or value is expected_value(old)):
                continue          # a free name meaning what generated code means by it (or unknown)
            if value is NOT_STATIC:
                new = self.context.namer.unique(f"{old}_")        # a local variable of the function
            else:
                new = self._free_name(old)
                resolver.closure[new] = value
                self.context.renamed_free[old] = new
            renames[old] = new
            resolver.locals.discard(old)       # from here on `old` means what generated code means by it
            if expected_value(old) is not None:
                resolver.closure[old] = expected_value(old)
        _pin_meanings(resolver, used)
        if renames:
            params = {a.id for a in node.args.args}
            self.context.renamed_params.update({old: new for old, new in renames.items() if old in params})
            node = Renamer(renames).visit(node)
        return node

    def _free_name(self, old):
        """A new name for a free variable: taken in the namer, but not made a local of the function."""
        taken = self.context.namer.taken
        new, n = f"{old}_", 1
        while new in taken:
            n += 1
            new = f"{old}_{n}"
        taken.add(new)
        return new


    def visit_FunctionDef(self, node):
        if node.name in self.renames:
            node.name = self.renames[node.name]
        self.generic_visit(node)
        return node


_MEANINGS = {name: expected_value(name) for name in RESERVED if expected_value(name) is not None}
# Names that resolve to nothing outside the user's module (no astjax-introduced value, no builtin): unless the
# function or its module binds one, generated code must be given its meaning. Most reserved names are these.
_UNBOUND_OUTSIDE = frozenset(n for n in _MEANINGS if n not in _INTRODUCED and not hasattr(builtins, n))


def _pin_meanings(resolver, used):
    """Give the closure every reserved name's meaning that the function does not use but passes may write
    later (`range`, `len` of a loop over a list), where the name resolves to something else (a module-level
    `range` must not capture them) or to nothing. Names bound nowhere are pinned by set operations; the
    rest (bound in the module, introduced by astjax, builtins a user may rebind) are looked up."""
    scoped = resolver.introduced.keys() | resolver.closure.keys() | resolver.globals.keys() | resolver.locals
    unbound = _UNBOUND_OUTSIDE - used - scoped
    resolver.closure.update((name, _MEANINGS[name]) for name in unbound)
    for name in _MEANINGS.keys() - unbound - used:
        meaning = _MEANINGS[name]
        if not resolver.is_local(name) and resolver.lookup(name) is not meaning:
            resolver.closure[name] = meaning
