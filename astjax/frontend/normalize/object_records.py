"""Objects of plain user classes made in the function become dicts of their attributes (frontend/records.py).

    layers = [Affine(0.5, 0.1), Affine(1.5, -0.2)]      layers = [_Affine_init(0.5, 0.1), _Affine_init(1.5, -0.2)]
    for layer in layers:                          ->    for layer in layers:
        h = layer.forward(h)                                h = _Affine_forward(layer, h)
    s = Scaler(3.0); y = s(x) + s.double                s = _Scaler_init(3.0); y = _Scaler_call(s, x) + _Scaler_double(s)

A name is rewritten only when it is assigned once, from a construction (or as
the variable of a `for` over a list so built), and every read of it is an
attribute `__init__` sets, a property, a method call or a call of the object:
then nothing can tell the dict from the object. Anything else (passing the
object on, storing into it, `isinstance`) leaves the name alone, and the later
passes refuse what they do not know.
"""
import gast

from ..records import record_class
from .base import Pass, copy_location, name
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["ObjectRecords"]


class ObjectRecords(Pass):
    """Rewrite constructions, attribute reads and method calls of qualifying objects made in the function."""

    def run(self, node):
        resolver = self.context.resolver
        self.record_of = lambda call: (record_class(resolver.static_value(call.func))
                                       if isinstance(call, gast.Call) else None)
        body = gast.Module(body=node.body, type_ignores=[])
        if not any(isinstance(n, gast.Call) and self.record_of(n) is not None for n in walk(body)):
            return node             # no construction of a qualifying class: nothing to rewrite
        stores, parents = {}, {}
        for n in walk(body):
            for child in gast.iter_child_nodes(n):
                parents[id(child)] = n
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
            if isinstance(n, (gast.Global, gast.Nonlocal)):
                for label in n.names:
                    stores[label] = stores.get(label, 0) + 2
        objects, lists = {}, {}
        for n in walk(body):
            if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name) and \
                    stores.get(n.targets[0].id) == 1:
                record = self.record_of(n.value)
                if record is not None:
                    objects[n.targets[0].id] = record
                record = self._list_record(n.value)
                if record is not None:
                    lists[n.targets[0].id] = record
        for n in walk(body):
            if isinstance(n, gast.For) and isinstance(n.target, gast.Name) and stores.get(n.target.id) == 1:
                record = lists.get(n.iter.id) if isinstance(n.iter, gast.Name) else self._list_record(n.iter)
                if record is not None:
                    objects[n.target.id] = record
        loops = [n for n in walk(body) if isinstance(n, gast.For) and isinstance(n.target, gast.Name)
                 and isinstance(n.iter, gast.Name)]
        while True:            # a name read otherwise, or a list or loop linked to one, is left alone
            bad = self._misused(body, parents, objects, lists)
            for loop in loops:
                if loop.target.id in objects and loop.iter.id not in lists:
                    bad.add(loop.target.id)
                if loop.iter.id in lists and loop.target.id not in objects:
                    bad.add(loop.iter.id)
            bad &= set(objects) | set(lists)
            if not bad:
                break
            for label in bad:
                objects.pop(label, None)
                lists.pop(label, None)
        self.objects, self.lists = objects, lists
        self.constructions = set()       # the constructions made into dicts: only where nothing else sees them
        for n in walk(body):
            if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], gast.Name):
                if n.targets[0].id in objects:
                    self.constructions.add(id(n.value))
                if n.targets[0].id in lists:
                    self.constructions.update(id(e) for e in n.value.elts)
            if isinstance(n, gast.For) and isinstance(n.target, gast.Name) and n.target.id in objects and \
                    isinstance(n.iter, (gast.List, gast.Tuple)):
                self.constructions.update(id(e) for e in n.iter.elts)
            if isinstance(n, gast.Attribute):
                record = self.record_of(n.value)
                if record is not None and self.usable(n.value, n, parents, record):
                    self.constructions.add(id(n.value))
        if not self.constructions:
            return node
        used = getattr(self.context, "class_attributes", [])
        for record in {id(r): r for r in list(objects.values()) + [self.record_of(n) for n in walk(body)
                                                                     if id(n) in self.constructions]}.values():
            used.append(record)
        self.context.class_attributes = used
        node.body = _Rewrite(self).visit(body).body
        return node

    def _list_record(self, expr):
        if isinstance(expr, (gast.List, gast.Tuple)) and expr.elts:
            records = {self.record_of(e) for e in expr.elts}
            if len(records) == 1 and None not in records:
                return records.pop()
        return None

    def _misused(self, body, parents, objects, lists):
        bad = set()
        for n in walk(body):
            if not (isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)):
                continue
            parent = parents.get(id(n))
            if n.id in objects and not self.usable(n, parent, parents, objects[n.id]):
                bad.add(n.id)
            if n.id in lists and not (isinstance(parent, gast.For) and parent.iter is n
                                      and isinstance(parent.target, gast.Name) and parent.target.id in objects):
                bad.add(n.id)
        return bad

    @staticmethod
    def usable(n, parent, parents, record):
        """Whether `n` (an object's name or construction) is read as `n.attr`, `n.prop`, `n.m(...)` or `n(...)`."""
        if isinstance(parent, gast.Attribute) and parent.value is n and isinstance(parent.ctx, gast.Load):
            kind = record.kind(parent.attr)
            if kind in ("attribute", "property"):
                return kind == "attribute" or record.method(parent.attr) is not None
            call = parents.get(id(parent))
            return (kind == "method" and isinstance(call, gast.Call) and call.func is parent
                    and record.method(parent.attr) is not None)
        if isinstance(parent, gast.Call) and parent.func is n:
            return record.method("__call__") is not None
        return False


class _Rewrite(NodeTransformer):
    def __init__(self, owner):
        self.owner = owner
        self.context = owner.context

    def label(self, record, attr):
        fn = record.init if attr is None else record.method(attr)
        base = f"_{record.cls.__name__.lstrip('_')}_{'init' if attr is None else attr.strip('_')}"
        for label, value in self.context.resolver.introduced.items():
            if value is fn:
                return name(label)
        return name(self.context.resolver.introduce(base, fn, self.context.namer))

    def record(self, expr):
        if isinstance(expr, gast.Name) and isinstance(expr.ctx, gast.Load):
            return self.owner.objects.get(expr.id)
        return self.owner.record_of(expr)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, gast.Attribute) and isinstance(func.ctx, gast.Load):
            record = self.record(func.value)
            if record is not None and record.kind(func.attr) == "method" and record.method(func.attr) is not None:
                receiver = self.visit(func.value)
                args = [self.visit(a) for a in node.args]
                keywords = [self.visit(k) for k in node.keywords]
                return copy_location(gast.Call(func=self.label(record, func.attr), args=[receiver] + args,
                                               keywords=keywords), node)
        record = self.record(func) if isinstance(func, gast.Name) else None
        if record is not None and record.method("__call__") is not None:
            args = [self.visit(a) for a in node.args]
            keywords = [self.visit(k) for k in node.keywords]
            return copy_location(gast.Call(func=self.label(record, "__call__"), args=[func] + args,
                                           keywords=keywords), node)
        self.generic_visit(node)
        made = self.owner.record_of(node)
        if made is not None and self._construction_kept(node):
            return copy_location(gast.Call(func=self.label(made, None), args=node.args, keywords=node.keywords),
                                 node)
        return node

    def _construction_kept(self, node):
        return id(node) in self.owner.constructions

    def visit_Attribute(self, node):
        if isinstance(node.ctx, gast.Load):
            record = self.record(node.value)
            if record is not None:
                kind = record.kind(node.attr)
                receiver = self.visit(node.value)
                if kind == "attribute":
                    return copy_location(gast.Subscript(value=receiver, slice=gast.Constant(value=node.attr, kind=None),
                                                        ctx=gast.Load()), node)
                if kind == "property" and record.method(node.attr) is not None:
                    return copy_location(gast.Call(func=self.label(record, node.attr), args=[receiver], keywords=[]),
                                         node)
                node.value = receiver
                return node
        self.generic_visit(node)
        return node
