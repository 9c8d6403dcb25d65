"""Resolve the free names of a function: closure cells, globals, builtins.

beniget's def-use chains say which names are local to the function; every
other name is looked up in the function's closure, then its globals, then
builtins. Attribute chains on resolved modules (`np.sin`, `jnp.linalg.norm`,
`math.exp`) are evaluated statically, so `np.sin` and `jnp.sin` resolve to the
same object under any import alias.
"""
import builtins
import importlib
import types

import beniget
import gast

from ..rules import helpers
from ..codegen.node_walk import walk

__all__ = ["Resolver", "NOT_STATIC"]


class _NotStatic:
    def __repr__(self):
        return "NOT_STATIC"


NOT_STATIC = _NotStatic()


class _QuietChains(beniget.DefUseChains):
    """beniget's def-use chains without its warnings about unbound names (globals)."""

    def unbound_identifier(self, name, node):
        pass

    def warn(self, msg, node):
        pass


def def_use_chains(function_node):
    """beniget's def-use chains of `function_node`, analysed as the only statement of a module."""
    chains = _QuietChains()
    chains.visit(gast.Module(body=[function_node], type_ignores=[]))
    return chains


def release(chains):
    """Drop what `chains` hold, once read. beniget's chains refer to themselves (their `defs` attribute is
    a bound method), so without this the whole analysis (a `Def`, an ordered set and a dict per name,
    one per builtin too) outlives the build as cyclic garbage that only the cyclic collector frees,
    scanning it again after every build (collection_pause.py)."""
    chains.__dict__.clear()


def local_names(function_node, chains=None):
    """Names bound inside `function_node`'s own scope (parameters included)."""
    if chains is None:
        chains = def_use_chains(function_node)
        try:
            return local_names(function_node, chains)
        finally:
            release(chains)
    return {definition.name() for definition in chains.locals[function_node]}


def free_name_nodes(function_node, chains=None):
    """The Name loads in `function_node` that no binding inside it reaches: globals, closure cells,
    builtins. A comprehension's or a lambda's own variable is not one of them, so a module-level
    loop counter `i` that a comprehension inside reuses as its name does not count."""
    if chains is None:
        chains = def_use_chains(function_node)
        try:
            return free_name_nodes(function_node, chains)
        finally:
            release(chains)
    return _unresolved_loads(function_node, {id(use.node) for definition in chains.chains.values()
                                             for use in definition.users()})


def _unresolved_loads(function_node, resolved):
    return [n for n in walk(function_node)
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and id(n) not in resolved]


# Names that normalization itself writes into user code (`y[i] = v` -> `y = at_set(y, i, v)`,
# `x.sum()` -> `jnp.sum(x)`), for files that never imported them.
_INTRODUCED = {name: getattr(helpers, name) for name in ("at_set", "at_add", "at_multiply", "unique_index",
                                                         "distinct_index", "dict_keys", "sorted_keys", "key_order", "key_extremum", "zip_star_length", "list_items", "iterated", "sequence_part",
                                                         "unshared_item", "not_a_view", "has_key", "array_holder", "not_a_row", "basic_index",
                                                         "tree_leaves_of", "leaves_like", "tree_rebuilt")}
_INTRODUCED["jnp"] = importlib.import_module("astjax.numpy")
_INTRODUCED["jsp_special"] = importlib.import_module("astjax.scipy.special")   # normalize/scipy_calls.py
_INTRODUCED["jsp_stats"] = importlib.import_module("astjax.scipy.stats")


class Resolver:
    """Answers "what does this name or attribute chain mean?" for one function."""

    def __init__(self, fn, function_node):
        self.fn = fn
        chains = def_use_chains(function_node)
        self.locals = local_names(function_node, chains)
        # for free_name_nodes of the same node: the uses the analysis resolved (kept alive, so their ids
        # stay theirs), read before the analysis is released
        self._resolved = (function_node, [use.node for d in chains.chains.values() for use in d.users()])
        release(chains)
        code = getattr(fn, "__code__", None)
        cells = getattr(fn, "__closure__", None) or ()
        self.closure = {}
        if code is not None:
            for name, cell in zip(code.co_freevars, cells):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:   # an empty cell: the name is not bound yet
                    pass
        self.globals = getattr(fn, "__globals__", {})
        self.introduced = {}      # names normalization bound to known values (normalize/function_arguments.py)

    def free_name_nodes(self, function_node):
        """`free_name_nodes(function_node)`, from the chains this resolver already computed when it is the
        node the resolver was made for (a derivation records its function's free names: one analysis)."""
        node, uses = self._resolved
        if node is not function_node:
            return free_name_nodes(function_node)
        return _unresolved_loads(function_node, {id(use) for use in uses})

    def introduce(self, base, value, namer):
        """A new free name (from `namer`) that resolves to `value`: generated code reads it as a global."""
        label = namer.fresh(base)
        self.locals.discard(label)
        self.introduced[label] = value
        return label

    def introduce_as(self, label, value):
        """Make the free name `label` (one the function's own source does not use as a local) resolve to
        `value` in generated code: a global read by code inlined from another function."""
        self.locals.discard(label)
        self.introduced[label] = value
        return label

    def is_local(self, name):
        return name in self.locals

    def lookup(self, name):
        """The value a free name refers to, or NOT_STATIC for locals and unknown names."""
        if name in self.locals:
            return NOT_STATIC
        if name in self.introduced:
            return self.introduced[name]
        if name in self.closure:
            return self.closure[name]
        if name in self.globals:
            return self.globals[name]
        if name in _INTRODUCED:
            return _INTRODUCED[name]
        return getattr(builtins, name, NOT_STATIC)

    def static_value(self, expr):
        """The value of an expression made only of free names, else NOT_STATIC.

        Names, attribute chains on modules and classes, callable attributes of
        other objects (`model.loss`), and calls of astjax's transformations on
        such values (`astjax.grad(model.loss)`), which build functions whose
        generated source the next transformation reads.
        """
        if isinstance(expr, gast.Name):
            return self.lookup(expr.id)
        if isinstance(expr, gast.Attribute):
            base = self.static_value(expr.value)
            if base is NOT_STATIC:
                return NOT_STATIC
            value = getattr(base, expr.attr, NOT_STATIC)
            if isinstance(base, (types.ModuleType, type)) or callable(value):
                return value
            return NOT_STATIC
        if isinstance(expr, gast.Call):
            func = self.static_value(expr.func)
            if not getattr(func, "__astjax_static_call__", False):
                return NOT_STATIC
            args = [self._static_argument(a) for a in expr.args]
            keywords = {k.arg: self._static_argument(k.value) for k in expr.keywords}
            if any(a is NOT_STATIC for a in args) or any(v is NOT_STATIC for v in keywords.values()):
                return NOT_STATIC
            return func(*args, **keywords)
        return NOT_STATIC

    def _static_argument(self, expr):
        """An argument of a static call: a literal (`in_axes=(None, 0)`) or a static value."""
        if isinstance(expr, gast.Constant):
            return expr.value
        if isinstance(expr, (gast.Tuple, gast.List)):
            items = [self._static_argument(e) for e in expr.elts]
            if any(i is NOT_STATIC for i in items):
                return NOT_STATIC
            return tuple(items) if isinstance(expr, gast.Tuple) else list(items)
        return self.static_value(expr)

    def free_names(self, function_node):
        """Free names the function's body refers to, with their values."""
        found = {}
        for node in walk(function_node):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                value = self.lookup(node.id)
                if value is not NOT_STATIC:
                    found[node.id] = value
        return found
