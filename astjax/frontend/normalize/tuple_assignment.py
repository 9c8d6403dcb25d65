"""Tuple assignments become one assignment per name.

    a, b = b, a          ->   _t1 = b; _t2 = a; a = _t1; b = _t2
    h, w = x.shape       ->   _t1 = x.shape; assert len(_t1) == 2; h = _t1[0]; w = _t1[1]
    x, w = x             ->   _t1 = x; assert len(_t1) == 2; x = _t1[0]; w = _t1[1]

An array unpacks along its first axis, as in Python; the value is read once,
before any target is bound, and its length is checked.
"""
import copy

import gast

from .base import Pass, copy_location, name, store


class TupleAssignment(Pass):
    """Split `a, b = e` into single-name assignments."""

    @staticmethod
    def _length_check(value, count):
        """`assert len(v) == count`: Python refuses to unpack a value of another length, so do we."""
        test = gast.Compare(left=gast.Call(func=name("len"), args=[copy.deepcopy(value)], keywords=[]),
                            ops=[gast.Eq()], comparators=[gast.Constant(value=count, kind=None)])
        message = gast.Constant(value=f"cannot unpack a value of another length into {count} names", kind=None)
        return gast.Assert(test=test, msg=message)

    def visit_Assign(self, node):
        target = node.targets[0]
        if not isinstance(target, (gast.Tuple, gast.List)):
            return node
        if any(not isinstance(t, gast.Name) for t in target.elts):
            raise self.error("only names can be unpacked in a transformed function", node,
                             hint="unpack into names first (a, b = e), then use them.")
        value = node.value
        out = []
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts):
            read = {n.id for n in gast.walk(value) if isinstance(n, gast.Name)}
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
