"""`lax.switch`'s branch list held in a local name, resolved to the list it was bound to.

    branches = [f0, lambda v: v * 2.0]          (dropped)
    y = lax.switch(i, branches, x)       ->     y = lax.switch(i, [f0, lambda v: v * 2.0], x)

JAX code often names the list of branches first. The list may be resolved when the name means the same
functions at every switch that reads it, which holds when:

* the name is stored exactly once in the function, by an assignment in its top-level body of a list or
  tuple literal, before the statement holding the switch;
* each item is a lambda (which reads the enclosing variables when called, so inlining it at the switch
  gives what the call gives), a local function (lifted by normalize/local_functions.py, one body per
  name), or a function known at transform time (a global, `jnp.sin`);
* every read of the name is the branch argument of a `lax.switch`, so nothing else sees or changes the list.

Anything else is refused by lax_control_flow.py at the switch, with what to write instead.
"""
import gast

from ... import lax
from ...codegen.node_walk import walk

__all__ = ["resolvable_branch_lists"]


def resolvable_branch_lists(function, resolver, is_switch):
    """name -> (its assignment statement, the list literal) for each branch list that may be resolved.

    `is_switch(call)` tells whether a call node is `lax.switch(...)`."""
    stores, loads, switch_reads = {}, {}, set()
    position = {}
    params = {a.id for a in function.args.args + function.args.kwonlyargs if isinstance(a, gast.Name)}
    for extra in (function.args.vararg, function.args.kwarg):
        if isinstance(extra, gast.Name):
            params.add(extra.id)
    for k, stmt in enumerate(function.body):
        for node in walk(stmt):
            position.setdefault(id(node), k)
            if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
                stores.setdefault(node.id, []).append(node)
            elif isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load):
                loads.setdefault(node.id, []).append(node)
            elif isinstance(node, (gast.FunctionDef, gast.ClassDef)):
                stores.setdefault(node.name, []).append(node)
            if isinstance(node, gast.Call) and len(node.args) >= 2 and isinstance(node.args[1], gast.Name) \
                    and is_switch(node):
                switch_reads.add(id(node.args[1]))
    local_functions = getattr(function, "local_functions", {}) or {}
    found = {}
    for stmt in function.body:
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, (gast.List, gast.Tuple)) and stmt.value.elts):
            continue
        label = stmt.targets[0].id
        reads = loads.get(label, [])
        if label in params or len(stores.get(label, [])) != 1 or not reads:
            continue
        if any(id(r) not in switch_reads or position[id(r)] <= position[id(stmt)] for r in reads):
            continue
        if all(_fixed_function(e, resolver, local_functions, stores) for e in stmt.value.elts):
            found[label] = (stmt, stmt.value)
    return found


def _fixed_function(node, resolver, local_functions, stores):
    """Whether `node` names the same function wherever it is read: a lambda, a local function defined once,
    or a callable known at transform time and never assigned in the function."""
    if isinstance(node, gast.Lambda):
        return True
    if isinstance(node, gast.Name) and node.id in local_functions:
        return len(stores.get(node.id, [])) <= 1
    if isinstance(node, gast.Name) and node.id in stores:
        return False
    from ..resolve import NOT_STATIC
    value = resolver.static_value(node)
    return value is not NOT_STATIC and callable(value) and value is not lax.switch
