"""Tuple assignments become one assignment per name.

    a, b = b, a          ->   _t1 = b; _t2 = a; a = _t1; b = _t2
    h, w = x.shape       ->   _t1 = x.shape; assert len(_t1) == 2; h = _t1[0]; w = _t1[1]
    x, w = x             ->   _t1 = x; assert len(_t1) == 2; x = _t1[0]; w = _t1[1]
    a, (b, [c]) = e      ->   _t1 = e; assert len(_t1) == 2; a = _t1[0]; _t2 = _t1[1]; (b, [c]) = _t2 ...
    y: float             ->   (nothing: a bare annotation of a local name evaluates nothing)

An array unpacks along its first axis, as in Python; the value is read once,
before any target is bound, and its length is checked. A nested target unpacks
its item the same way, after the names before it are bound (Python's order).
"""
import copy

import gast

from .base import Pass, copy_location, name, store
from ...codegen.node_walk import walk


class TupleAssignment(Pass):
    """Split `a, b = e` into single-name assignments."""

    @staticmethod
    def _length_check(value, count):
        """`assert len(v) == count`: Python refuses to unpack a value of another length, so do we."""
        test = gast.Compare(left=gast.Call(func=name("len"), args=[copy.deepcopy(value)], keywords=[]),
                            ops=[gast.Eq()], comparators=[gast.Constant(value=count, kind=None)])
        message = gast.Constant(value=f"cannot unpack a value of another length into {count} names", kind=None)
        return gast.Assert(test=test, msg=message)

    def run(self, function_node):
        self.function = function_node
        return self.visit(function_node)

    def visit_AnnAssign(self, node):
        """`y: float` without a value binds nothing and evaluates nothing (for a local name): drop it."""
        if node.value is not None:
            return node
        target = node.target
        assigned = any(isinstance(n, gast.Name) and n.id == getattr(target, "id", None)
                       and isinstance(n.ctx, gast.Store) and n is not target for n in walk(self.function))
        if not isinstance(target, gast.Name) or not assigned:
            raise self.error("an annotation without a value is dropped only for a local name assigned in the "
                             "function", node, hint="give the annotated name a value (`y: float = ...`), or "
                             "remove the annotation.")
        return []

    def visit_Assign(self, node):
        target = node.targets[0]
        if not isinstance(target, (gast.Tuple, gast.List)):
            return node
        if any(not isinstance(t, (gast.Name, gast.Tuple, gast.List)) for t in target.elts):
            raise self.error("only names can be unpacked in a transformed function", node,
                             hint="unpack into names first (a, b = e), then use them.")
        if any(isinstance(t, (gast.Tuple, gast.List)) for t in target.elts):
            return self._nested(node)
        value = node.value
        out = []
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts):
            read = {n.id for n in walk(value) if isinstance(n, gast.Name)}
            if not read & {t.id for t in target.elts}:
                return [copy_location(gast.Assign(targets=[store(t.id)], value=v, type_comment=None), node)
                        for t, v in zip(target.elts, value.elts)]
            temps = [self.context.namer.fresh() for _ in value.elts]
            out += [gast.Assign(targets=[store(t)], value=v, type_comment=None) for t, v in zip(temps, value.elts)]
            out += [gast.Assign(targets=[store(t.id)], value=name(tmp), type_comment=None)
                    for t, tmp in zip(target.elts, temps)]
        else:
            targets = {t.id for t in target.elts}
            whole = value if isinstance(value, gast.Name) and value.id not in targets else None
            if whole is None:       # `x, w = x` unpacks the old x: read it once, before any target is bound
                tmp = self.context.namer.fresh()
                out.append(gast.Assign(targets=[store(tmp)], value=value, type_comment=None))
                whole = name(tmp)
            out.append(self._length_check(whole, len(target.elts)))
            for i, t in enumerate(target.elts):
                item = gast.Subscript(value=copy.deepcopy(whole), slice=gast.Constant(value=i, kind=None),
                                      ctx=gast.Load())
                out.append(gast.Assign(targets=[store(t.id)], value=item, type_comment=None))
        return [copy_location(s, node) for s in out]

    def _nested(self, node):
        """`a, (b, c) = e`: read e once, check its length, bind each item in order; a nested target
        unpacks its item by the same rule."""
        target = node.targets[0]
        whole = self.context.namer.fresh()
        out = [gast.Assign(targets=[store(whole)], value=node.value, type_comment=None),
               self._length_check(name(whole), len(target.elts))]
        for i, t in enumerate(target.elts):
            item = gast.Subscript(value=name(whole), slice=gast.Constant(value=i, kind=None), ctx=gast.Load())
            if isinstance(t, gast.Name):
                out.append(gast.Assign(targets=[store(t.id)], value=item, type_comment=None))
                continue
            part = self.context.namer.fresh()
            out.append(gast.Assign(targets=[store(part)], value=item, type_comment=None))
            inner = copy_location(gast.Assign(targets=[t], value=name(part), type_comment=None), node)
            out.extend(self.visit_Assign(inner))
        return [copy_location(s, node) for s in out]
