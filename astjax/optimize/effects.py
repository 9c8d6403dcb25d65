"""Effects are declared: which calls do something besides computing a value.

Two tables say it, and every pass reads them rather than matching names of its own:

* a primitive's `effect` field (the tape's `push` and `pop`, `print`), and
* MUTATING_METHODS, the methods of lists, dicts, sets and arrays that change
  the object they are called on (`xs.append(v)`, `xs.pop()`, `a.sort()`).

Dead-code elimination keeps every call with an effect; the refuse-by-default
check (analyses/classify.py) refuses a mutation under a derivative unless the
transformations know how to reverse it (REVERSIBLE_METHODS).
"""
import builtins

import gast

from ..codegen.node_walk import loaded_names, name_ids, nodes, stored_names, walk

__all__ = ["MUTATING_METHODS", "REVERSIBLE_METHODS", "FORWARD_METHODS", "MARKERS", "has_effects", "call_effect",
           "mutation_refusal", "reads", "writes"]

# method -> what it changes in its receiver
MUTATING_METHODS = {
    "append": "adds an item at the end", "pop": "removes an item", "extend": "adds items at the end",
    "insert": "adds an item", "remove": "removes an item", "clear": "removes every item",
    "reverse": "reverses the order in place", "sort": "sorts in place", "update": "changes entries",
    "setdefault": "may add an entry", "popitem": "removes an entry", "add": "adds an element",
    "discard": "removes an element", "difference_update": "removes elements",
    "intersection_update": "removes elements", "symmetric_difference_update": "changes elements",
    "fill": "overwrites every element", "resize": "changes the shape in place", "put": "writes elements",
    "itemset": "writes an element", "partition": "reorders in place", "byteswap": "may swap bytes in place",
    "setfield": "writes a field", "setflags": "changes flags", "__setitem__": "writes an element",
    "__delitem__": "removes an element", "__iadd__": "adds in place",
}

# Mutations whose derivative the transformations write: list append (reverse mode
# pops the item back off and hands it its adjoint; forward mode appends the tangent
# to a tangent list beside it). Every other mutation of a value that carries a
# derivative is refused.
REVERSIBLE_METHODS = {"append"}
# Forward mode also mirrors `xs.pop()` on the tangent list (generated reverse sweeps pop their lists).
FORWARD_METHODS = {"append", "pop"}

# Calls generated code uses as markers for later passes: never removed.
MARKERS = {"__comment__", "__restore__"}


def call_effect(call, namespace=None):
    """What the call `call` does besides returning a value (a short phrase), or None."""
    from ..codegen.namespace import GENERATED_NAMESPACE
    from ..rules import lookup_callable
    func = call.func
    if isinstance(func, gast.Name):
        if func.id in MARKERS:
            return "marks a position for a later pass"
        scope = namespace if namespace is not None else GENERATED_NAMESPACE
        target = scope.get(func.id, getattr(builtins, func.id, None))
        prim = lookup_callable(target) if target is not None else None
        return prim.effect if prim is not None else None
    if isinstance(func, gast.Attribute) and func.attr in MUTATING_METHODS and not _is_module(func.value) \
            and not _is_index_update(func.value):
        return MUTATING_METHODS[func.attr]
    if _is_internal_lax(func):          # `lax.internal.scan_carry_check(...)`: a check normalization wrote
        prim = lookup_callable(getattr(_internal_lax(), func.attr, None))
        return prim.effect if prim is not None else None
    if _uses_global_random_state(func):
        return "uses the global random state (a seed, or a draw that moves it on)"
    return None


def _is_internal_lax(func):
    return isinstance(func, gast.Attribute) and isinstance(func.value, gast.Attribute) \
        and func.value.attr == "internal" and isinstance(func.value.value, gast.Name) and func.value.value.id == "lax"


def _internal_lax():
    from ..lax import internal
    return internal


def _uses_global_random_state(func):
    """`np.random.seed(0)`, `np.random.randn(3)`, `random.shuffle(xs)`: NumPy's or Python's global random
    state, read and moved on by every call, so none may be dropped or reordered even when its value is
    unused (`np.random.seed(0)` changes every later draw). Read from the spelling, which survives the
    generated source being parsed again: a dotted name whose module part is `random`."""
    parts = []
    while isinstance(func, gast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, gast.Name) or not parts:
        return False
    parts.append(func.id)
    return "random" in parts[1:] and func.id not in ("jnp", "lax")


def _is_index_update(node):
    """`x.at[i]`: its methods (`.add`, `.set`, ...) return a new array and change nothing."""
    return (isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute)
            and node.value.attr == "at")


def has_effects(node):
    """Whether evaluating `node` may do something besides computing a value."""
    return any(isinstance(child, gast.Call) and call_effect(child) for child in nodes(node))


def mutation_refusal(call, resolver, varied, useful=None, forward=False):
    """(message, hint) for a mutating method call whose derivative no rule covers, else None.

    `xs.extend(ys)` under grad with xs or ys carrying a derivative would lose
    the items' adjoints (the reverse sweep does not undo it): refused. `useful`:
    the names the output depends on (None: all of them).
    """
    func = call.func
    if not (isinstance(func, gast.Attribute) and func.attr in MUTATING_METHODS) or _is_index_update(func.value):
        return None
    from ..frontend.resolve import NOT_STATIC
    supported = FORWARD_METHODS if forward else REVERSIBLE_METHODS
    if resolver.static_value(func.value) is not NOT_STATIC or func.attr in supported:
        return None
    names = name_ids(call)
    receiver = name_ids(func.value)
    if not (names & varied) or (useful is not None and not (receiver & useful)):
        return None
    return (f"`.{func.attr}()` {MUTATING_METHODS[func.attr]} of a value that carries a derivative; "
            f"astjax cannot differentiate through that mutation",
            "build a new list instead (`xs = xs + [v]`, `xs = xs[:-1]`, `v = xs[-1]`), "
            "or use `.append(v)`, which astjax differentiates.")


def _is_module(node):
    return isinstance(node, gast.Name) and node.id in ("jnp", "np", "lax", "math")


def reads(node):
    return loaded_names(node)


def writes(node):
    return stored_names(node)


def is_guard(stmt):
    """`if <test>: raise E("...")` with no else: it changes nothing, so what was known before it
    still holds after it (either it raised, or nothing happened)."""
    return (isinstance(stmt, gast.If) and not stmt.orelse and len(stmt.body) == 1
            and isinstance(stmt.body[0], gast.Raise) and not has_effects(stmt.test)
            and all(isinstance(a, gast.Constant) for n in walk(stmt.body[0])
                    if isinstance(n, gast.Call) for a in n.args))

