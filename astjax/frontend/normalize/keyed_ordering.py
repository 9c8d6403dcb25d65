"""`sorted(xs, key=..., reverse=...)`, `min/max(xs, key=...)` and `xs.sort(key=...)` gather by an order.

    s = sorted(x, key=lambda v: -v)     ->   _order_source1 = x
                                             _order_key1 = lambda v: -v
                                             _order_keys1 = []
                                             for _order_item1 in _order_source1:
                                                 _order_keys1.append(_order_key1(_order_item1))
                                             _order1 = key_order(_order_source1, _order_keys1, False)
                                             _ordered1 = []
                                             for _order_index1 in _order1:
                                                 _ordered1.append(_order_source1[_order_index1])
                                             s = _ordered1
    m = min(x, key=abs)                 ->   ... _order1 = key_extremum(_order_source1, _order_keys1, False)
                                             m = _order_source1[_order1]

The order of a sort (and the position of a keyed extremum) is piecewise
constant in the keys, whatever they depend on: its derivative is zero almost
everywhere, and the derivative of the result flows through the gather of the
items, as for `jnp.sort`. `key_order` and `key_extremum` run Python's own
`sorted`/`min`/`max` on the keys (stable, first extremum kept on ties, the same
comparisons), so the items come out in exactly Python's order.

`xs.sort(key=...)` rebinds `xs` to the sorted list (and `xs.reverse()` to
`xs[::-1]`): only for a local name every binding of which is a list display or
comprehension and that is read only where a rebinding is the same as an
in-place sort (items, methods, iteration, `len`/`sum`/..., returned); any other
read may hold the old object and is left to the later passes, which refuse the
in-place sort. `sorted(xs)` without keywords is rewritten only where `xs` is
surely not a dict (an expression, or a name used in arithmetic or sliced). A
dict read as one in the function, or `d.keys()`, is ordered by its keys
(`sorted(d, key=lambda k: d[k])`, `max(d, key=d.get)`); any other dict or set
is refused by `key_order` when the function runs. Calls inside lambdas,
comprehensions (but their first iterable), conditional expressions, later
operands of `and`/`or` and `while` tests are not rewritten (their evaluation is
not once, before the statement), nor calls in a statement that also mutates a
list.
"""
import copy

import gast

from .base import copy_location, name, store
from .container_idioms import dict_names
from .eager_calls import EagerCalls
from ...codegen.node_walk import walk

__all__ = ["KeyedOrdering"]

# builtins that read a list's items at once (not zip/enumerate/reversed/iter: their lazy iterators keep the object)
_READS_AS_LIST = (len, sum, sorted, min, max, list, tuple, any, all)


class KeyedOrdering(EagerCalls):
    """Rewrite keyed sorts and extrema into a loop of keys, an order of them, and a gather."""

    def run(self, node):
        if not any(isinstance(n, gast.Call) and (isinstance(n.func, gast.Name) and n.func.id in ("sorted", "min", "max")
                                                 or isinstance(n.func, gast.Attribute)
                                                 and n.func.attr in ("sort", "reverse", "sorted", "min", "max"))
                   for n in walk(node)):
            return node                 # nothing to order (a quick look: this pass runs on every function)
        self.dicts = dict_names(node)
        self.sequences = _surely_sequences(node) - self.dicts
        self.function = node
        return super().run(node)

    def statement(self, stmt):
        if isinstance(stmt, gast.Expr) and _is_list_sort(stmt.value):
            return self.list_sort(stmt.value)
        if isinstance(stmt, gast.Expr) and _is_list_reverse(stmt.value):
            target = stmt.value.func.value.id
            if _rebinding_is_in_place(self.function, target, self.context.resolver):
                reversed_list = gast.Subscript(value=name(target), slice=gast.Slice(
                    lower=None, upper=None, step=gast.Constant(value=-1, kind=None)), ctx=gast.Load())
                return [gast.Assign(targets=[store(target)], value=reversed_list, type_comment=None)]
        return None

    def call(self, node):
        if any(isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return node
        keywords = {k.arg: k.value for k in node.keywords}
        key = keywords.get("key")
        if isinstance(key, gast.Constant) and key.value is None:
            key = None
        if key is not None and not isinstance(key, (gast.Lambda, gast.Name, gast.Attribute)):
            return node
        if self.is_builtin(node.func, sorted) and len(node.args) == 1 and set(keywords) <= {"key", "reverse"}:
            source = node.args[0]
            if not keywords and not self.surely_sequence(source):     # sorted(d) of a dict: container_idioms.py
                return node
            source = self.keys_if_dict(source)
            reverse = keywords.get("reverse", gast.Constant(value=False, kind=None))
            return self.sorted_items(source, key, reverse)
        for builtin, largest in ((min, False), (max, True)):
            if self.is_builtin(node.func, builtin) and len(node.args) == 1 and set(keywords) == {"key"} \
                    and key is not None:
                return self.extremum(self.keys_if_dict(node.args[0]), key, largest)
        return node

    def keys_if_dict(self, source):
        """A dict read as one in the function (`d["w"]`, `d.items()`), or `d.keys()`: its keys, which is what
        Python orders (`sorted(d, key=lambda k: d[k])`)."""
        if isinstance(source, gast.Name) and source.id in self.dicts:
            return gast.Call(func=name("dict_keys"), args=[source], keywords=[])
        if (isinstance(source, gast.Call) and isinstance(source.func, gast.Attribute) and source.func.attr == "keys"
                and not source.args and not source.keywords):
            return gast.Call(func=name("dict_keys"), args=[source.func.value], keywords=[])
        return source

    def surely_sequence(self, source):
        if isinstance(source, gast.Name):
            return source.id in self.sequences
        if isinstance(source, gast.Call) and isinstance(source.func, gast.Attribute) and source.func.attr in (
                "keys", "items", "values"):
            return False
        return not isinstance(source, (gast.Attribute, gast.Dict, gast.DictComp, gast.Set, gast.SetComp))

    # ------------------------------------------------------------------ the three rewrites
    def keys_of(self, source, key):
        """Emit the source (held once) and its keys; returns (source name, keys name or None)."""
        namer = self.context.namer
        if isinstance(source, gast.GeneratorExp):        # consumed once, here: its items as a list
            source = gast.ListComp(elt=source.elt, generators=source.generators)
        held = namer.fresh("_order_source")
        self.emit(gast.Assign(targets=[store(held)], value=source, type_comment=None))
        if key is None:
            return held, None
        if isinstance(key, gast.Lambda):
            label = namer.fresh("_order_key")
            self.emit(gast.Assign(targets=[store(label)], value=key, type_comment=None))
            key = name(label)
        keys, item = namer.fresh("_order_keys"), namer.fresh("_order_item")
        self.emit(gast.Assign(targets=[store(keys)], value=gast.List(elts=[], ctx=gast.Load()), type_comment=None))
        computed = gast.Call(func=copy.deepcopy(key), args=[name(item)], keywords=[])
        append = gast.Expr(value=gast.Call(func=gast.Attribute(value=name(keys), attr="append", ctx=gast.Load()),
                                           args=[computed], keywords=[]))
        self.emit(gast.For(target=store(item), iter=name(held), body=[append], orelse=[], type_comment=None))
        return held, keys

    def sorted_items(self, source, key, reverse):
        namer = self.context.namer
        held, keys = self.keys_of(source, key)
        order = namer.fresh("_order")
        self.emit(gast.Assign(targets=[store(order)], value=gast.Call(
            func=name("key_order"), args=[name(held), name(keys) if keys else gast.Constant(value=None, kind=None),
                                          reverse], keywords=[]), type_comment=None))
        result, index = namer.fresh("_ordered"), namer.fresh("_order_index")
        self.emit(gast.Assign(targets=[store(result)], value=gast.List(elts=[], ctx=gast.Load()),
                              type_comment=None))
        item = gast.Subscript(value=name(held), slice=name(index), ctx=gast.Load())
        append = gast.Expr(value=gast.Call(func=gast.Attribute(value=name(result), attr="append", ctx=gast.Load()),
                                           args=[item], keywords=[]))
        self.emit(gast.For(target=store(index), iter=name(order), body=[append], orelse=[], type_comment=None))
        return name(result)

    def extremum(self, source, key, largest):
        held, keys = self.keys_of(source, key)
        position = self.context.namer.fresh("_order")
        self.emit(gast.Assign(targets=[store(position)], value=gast.Call(
            func=name("key_extremum"), args=[name(held), name(keys), gast.Constant(value=largest, kind=None)],
            keywords=[]), type_comment=None))
        return gast.Subscript(value=name(held), slice=name(position), ctx=gast.Load())

    def list_sort(self, call):
        """`xs.sort(key=..., reverse=...)` on a local list read only where a rebinding is the same."""
        target = call.func.value
        if not (isinstance(target, gast.Name) and not call.args and all(k.arg in ("key", "reverse")
                                                                        for k in call.keywords)):
            return None
        if not _rebinding_is_in_place(self.function, target.id, self.context.resolver):
            return None
        keywords = {k.arg: k.value for k in call.keywords}
        key = keywords.get("key")
        if isinstance(key, gast.Constant) and key.value is None:
            key = None
        if key is not None and not isinstance(key, (gast.Lambda, gast.Name, gast.Attribute)):
            return None
        reverse = keywords.get("reverse", gast.Constant(value=False, kind=None))
        result = self.sorted_items(name(target.id), key, reverse)
        return self.emitted + [gast.Assign(targets=[store(target.id)], value=result, type_comment=None)]


def _is_list_sort(call):
    return (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "sort"
            and not call.args)


def _is_list_reverse(call):
    return (isinstance(call, gast.Call) and isinstance(call.func, gast.Attribute) and call.func.attr == "reverse"
            and isinstance(call.func.value, gast.Name) and not call.args and not call.keywords)


def _surely_sequences(function_node):
    """Names used where a dict would raise: arithmetic operands, sliced, `.shape`/`.T` read."""
    names = set()
    for node in walk(function_node):
        if isinstance(node, gast.BinOp):
            names.update(n.id for n in (node.left, node.right) if isinstance(n, gast.Name))
        elif isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) and isinstance(
                node.slice, gast.Slice):
            names.add(node.value.id)
        elif isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) and node.attr in (
                "shape", "T", "ndim", "dtype", "size"):
            names.add(node.value.id)
    return names


def _rebinding_is_in_place(function_node, target, resolver):
    """Whether every binding of `target` is a list display or comprehension and every read of it is an item
    or slice, a method call, an iterable, an argument of a builtin that only reads it, or returned."""
    parents = {}
    for n in walk(function_node):
        for child in gast.iter_child_nodes(n):
            parents[id(child)] = n
    for n in walk(function_node):
        if isinstance(n, (gast.Global, gast.Nonlocal)) and target in n.names:
            return False
        if isinstance(n, gast.arguments) and any(getattr(a, "id", None) == target for a in n.args + n.kwonlyargs):
            return False
        if not (isinstance(n, gast.Name) and n.id == target):
            continue
        parent = parents.get(id(n))
        if isinstance(n.ctx, gast.Store):
            if not (isinstance(parent, gast.Assign) and parent.targets == [n]
                    and isinstance(parent.value, (gast.List, gast.ListComp))):
                return False
            continue
        if isinstance(n.ctx, gast.Del):
            return False
        if isinstance(parent, (gast.Subscript, gast.Attribute)) and parent.value is n:
            continue
        if isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is n:
            continue
        if isinstance(parent, gast.Return):
            continue
        if isinstance(parent, gast.Call) and n in parent.args and any(
                resolver.static_value(parent.func) is b for b in _READS_AS_LIST):
            continue
        return False
    return True
