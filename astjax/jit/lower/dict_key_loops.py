"""A loop over the keys of a dict argument runs once per key, written out: the keys are the signature's.

Normalization writes `for k in d.keys()`, `for k, v in d.items()` and `for v in d.values()` as a loop over
`dict_keys(d)` (frontend/normalize/container_idioms.py). Compiled code holds a dict argument as Numba's
literal-key dict (jit/boundary_trees.py), which it reads by constant keys only: `d[k]` with a key known at
run time does not compile, since the values may differ in type. A dict's keys, in their order, are part of
the signature jit compiles for, so for the function jit was called on the loop is unrolled, one copy of
its body per key with the key (and the loop's index) as constants:

    dict_keys_d = dict_keys(d)              dict_keys_d = ('a', 'b')
    _t1 = len(dict_keys_d)                  _t1 = len(dict_keys_d)
    for _i1 in range(_t1):          ->      k = 'a'
        k = dict_keys_d[_i1]                total = total + jnp.sum(d['a'] ** 2)
        total = total + ...d[k]...          k = 'b'
                                            total = total + jnp.sum(d['b'] ** 2)

Only a parameter the function never assigns, string keys, and a body without `break`, `continue` or
`return` (which the copies would not honour) are unrolled; any other loop stays as it is, and Numba's
refusal of `d[k]` names its line.
"""
import copy

import gast

from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["unroll_dict_key_loops"]


def unroll_dict_key_loops(node, context):
    keys_of = getattr(context, "argument_keys", None) or {}
    if not keys_of:
        return node
    from ...rules.helpers import dict_keys
    stored = {n.id for n in walk(node) if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del))}
    lists = {}                     # name holding dict_keys(d) -> d's keys
    for stmt in walk(node):
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Call) and context.static_object(stmt.value.func) is dict_keys
                and len(stmt.value.args) == 1 and isinstance(stmt.value.args[0], gast.Name)):
            param = stmt.value.args[0].id
            if param in keys_of and param not in stored:
                lists[stmt.targets[0].id] = keys_of[param]
                stmt.value = gast.Tuple(elts=[gast.Constant(value=k, kind=None) for k in keys_of[param]],
                                        ctx=gast.Load())
    lengths = {}                   # name assigned once, to len(K) of a key list K -> K
    for stmt in walk(node):
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and _length_of(stmt.value) in lists and _stores(node, stmt.targets[0].id) == 1):
            lengths[stmt.targets[0].id] = _length_of(stmt.value)
    if lists:
        _Unroll(lists, lengths, {v: _stores(node, v) for v in {n.id for n in walk(node) if isinstance(n, gast.Name)}},
                _placeholders(node)).visit(node)
    return node


def _placeholders(node):
    """The names the function's top level sets to None (a derivative's `k = None` before its loops)."""
    return {stmt.targets[0].id for stmt in node.body
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.Constant) and stmt.value.value is None}


def _length_of(expr):
    """K for `len(K)` of a name K, else None."""
    if (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == "len"
            and len(expr.args) == 1 and isinstance(expr.args[0], gast.Name) and not expr.keywords):
        return expr.args[0].id
    return None


def _stores(node, variable):
    return sum(1 for n in walk(node) if isinstance(n, gast.Name) and n.id == variable
               and isinstance(n.ctx, (gast.Store, gast.Del)))


class _Unroll(NodeTransformer):
    def __init__(self, lists, lengths, stores, placeholders):
        self.lists = lists
        self.lengths = lengths
        self.stores = stores                # name -> how many times the function sets it
        self.placeholders = placeholders
        self.unrolled = {}                  # key variable of a loop written out -> its key list

    def visit_For(self, node):
        self.generic_visit(node)
        found = self._loop(node)
        if found is None:
            return self._taped_keys(node) or node
        keys, order, at = found
        index, name = node.target.id, node.body[at].targets[0].id
        self.unrolled[name] = node.body[at].value.value.id
        out = []
        for position in order:
            for k, stmt in enumerate(node.body):
                if k == at:
                    stmt = gast.Assign(targets=[copy.deepcopy(stmt.targets[0])],
                                       value=gast.Constant(value=keys[position], kind=None), type_comment=None)
                    out.append(gast.copy_location(stmt, node.body[at]))
                elif k < at:         # the key variable still holds the previous key (a derivative saves it): read it
                    out.append(_Constants({index: position}).visit(copy.deepcopy(stmt)))
                else:
                    out.append(_Constants({name: keys[position], index: position}).visit(copy.deepcopy(stmt)))
        return out or [gast.Pass()]

    def _taped_keys(self, node):
        """A derivative's reverse sweep of a loop written out above, which restores its key from the tape:

            for _i1 in reversed(range(_t1)):            (the loop above saved k before setting it)
                ...d_k = pop(_tape)...
                bd += index_adjoint(d, k, bd_k)     ->  bd += index_adjoint(d, 'b', bd_k); ...
                k = pop(_tape)                          k = pop(_tape)      (the previous key, or None)

        In the copy for position p the key holds keys[p] until its pop (the forward copy p set it last, or
        the pop of copy p + 1 restored what forward copy p + 1 saved), and the pop's own value after it:
        exact when the function sets the key only in the loop above, in this pop and in a `k = None` placeholder."""
        if node.orelse or not isinstance(node.target, gast.Name) or not node.body:
            return None
        count, backwards = _range_count(node.iter)
        listed = _length_of(count) if count is not None else None
        if listed is None and isinstance(count, gast.Name):
            listed = self.lengths.get(count.id)
        if not backwards or listed not in self.lists:
            return None
        pops = [(j, stmt.targets[0].id) for j, stmt in enumerate(node.body)
                if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and self.unrolled.get(stmt.targets[0].id) == listed and _is_pop(stmt.value)]
        if len(pops) != 1:
            return None
        at, name = pops[0]
        index = node.target.id
        if self.stores.get(name, 0) != 2 + (name in self.placeholders):
            return None
        for inner in walk(gast.Module(body=node.body, type_ignores=[])):
            if isinstance(inner, (gast.Break, gast.Continue, gast.Return, gast.FunctionDef, gast.Lambda)):
                return None
            if isinstance(inner, gast.Name) and inner.id in (index, listed) and not isinstance(inner.ctx, gast.Load):
                return None
        keys = self.lists[listed]
        if not all(isinstance(k, str) for k in keys):
            return None
        out = []
        for position in reversed(range(len(keys))):
            for k, stmt in enumerate(node.body):
                values = {index: position} if k >= at else {name: keys[position], index: position}
                out.append(_Constants(values).visit(copy.deepcopy(stmt)))
        return out or [gast.Pass()]

    def _loop(self, node):
        """(keys, the positions in the loop's order, where the body reads the key) of
        `for i in range(n) (or reversed(range(n))): ...; k = K[i]; ...` over a key list K with n = len(K),
        or None."""
        if node.orelse or not isinstance(node.target, gast.Name) or not node.body:
            return None
        index = node.target.id
        at = next((j for j, stmt in enumerate(node.body) if self._reads_key(stmt, index)), None)
        if at is None:
            return None
        listed, name = node.body[at].value.value.id, node.body[at].targets[0].id
        keys = self.lists[listed]
        count, backwards = _range_count(node.iter)
        if count is None or not (_length_of(count) == listed or (isinstance(count, gast.Name)
                                                                  and self.lengths.get(count.id) == listed)):
            return None
        rest = node.body[:at] + node.body[at + 1:]
        for inner in walk(gast.Module(body=rest, type_ignores=[])):
            if isinstance(inner, (gast.Break, gast.Continue, gast.Return, gast.FunctionDef, gast.Lambda)):
                return None
            if isinstance(inner, gast.Name) and inner.id in (index, name, listed) and not isinstance(inner.ctx, gast.Load):
                return None
        if not all(isinstance(k, str) for k in keys):
            return None
        order = list(range(len(keys)))
        return keys, order[::-1] if backwards else order, at

    def _reads_key(self, stmt, index):
        return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Subscript) and isinstance(stmt.value.value, gast.Name)
                and stmt.value.value.id in self.lists and isinstance(stmt.value.slice, gast.Name)
                and stmt.value.slice.id == index)


def _is_pop(expr):
    return (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == "pop"
            and len(expr.args) == 1 and not expr.keywords)


def _range_count(iterator):
    """(n, backwards) of `range(n)` or `reversed(range(n))`; (None, False) otherwise."""
    backwards = False
    if (isinstance(iterator, gast.Call) and isinstance(iterator.func, gast.Name) and iterator.func.id == "reversed"
            and len(iterator.args) == 1 and not iterator.keywords):
        iterator, backwards = iterator.args[0], True
    if (isinstance(iterator, gast.Call) and isinstance(iterator.func, gast.Name) and iterator.func.id == "range"
            and len(iterator.args) == 1 and not iterator.keywords):
        return iterator.args[0], backwards
    return None, False


class _Constants(NodeTransformer):
    """Reads of the loop's key and index become the copy's constants."""

    def __init__(self, values):
        self.values = values

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.values:
            return gast.copy_location(gast.Constant(value=self.values[node.id], kind=None), node)
        return node

