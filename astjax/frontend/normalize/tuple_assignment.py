"""Tuple assignments become one assignment per name.

    a, b = b, a          ->   _t1 = b; _t2 = a; a = _t1; b = _t2
    h, w = x.shape       ->   h = x.shape[0]; w = x.shape[1]     (value evaluated once)
"""
import copy

import gast

from .base import Pass, copy_location, name, store


class TupleAssignment(Pass):
    """Split `a, b = e` into single-name assignments."""

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
            whole = value if isinstance(value, gast.Name) else None
            if whole is None:
                tmp = self.context.namer.fresh()
                out.append(gast.Assign(targets=[store(tmp)], value=value, type_comment=None))
                whole = name(tmp)
            for i, t in enumerate(target.elts):
                item = gast.Subscript(value=copy.deepcopy(whole), slice=gast.Constant(value=i, kind=None),
                                      ctx=gast.Load())
                out.append(gast.Assign(targets=[store(t.id)], value=item, type_comment=None))
        return [copy_location(s, node) for s in out]
