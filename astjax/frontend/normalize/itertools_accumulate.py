"""`itertools.accumulate(xs, f)` consumed where it is made becomes the loop it runs.

    s = sum(itertools.accumulate(x, operator.mul))   ->   _accumulate_source1 = x
                                                          iterated(_accumulate_source1)
                                                          _accumulated1 = []
                                                          for _accumulate_index1 in range(len(_accumulate_source1)):
                                                              _accumulate_item1 = _accumulate_source1[_accumulate_index1]
                                                              if _accumulate_index1 == 0:
                                                                  _accumulate_total1 = _accumulate_item1
                                                              else:
                                                                  _accumulate_total1 = operator.mul(_accumulate_total1, _accumulate_item1)
                                                              _accumulated1.append(_accumulate_total1)
                                                          s = sum(_accumulated1)

Only where the iterator is consumed at once (the argument of `sum`, `list`,
`tuple`, `min`, `max`, `sorted`, `any`, `all`, `zip`, `enumerate`, or a `for`
loop's iterable whose body mutates nothing), so computing the running values
first gives what the lazy iterator gives. Without `f` the step is `+`; `f` may
be a name, an attribute (`operator.mul`) or a lambda; `initial=` is left alone
(refused later), as are other uses.
"""
import itertools

import gast

from .base import name, store
from .eager_calls import EagerCalls
from .iteration_builtins import _CONSUMERS, _mutates
from ...codegen.node_walk import walk

__all__ = ["ItertoolsAccumulate"]


class ItertoolsAccumulate(EagerCalls):
    """Compute `itertools.accumulate(...)` consumed at once into a list, before its statement."""

    def run(self, node):
        if not any(isinstance(n, (gast.Name, gast.Attribute)) and getattr(n, "id", getattr(n, "attr", None))
                   == "accumulate" for n in walk(node)):
            return node
        return super().run(node)

    def statement(self, stmt):
        if isinstance(stmt, gast.For) and self.accumulation(stmt.iter) and not _mutates(stmt.body + stmt.orelse,
                                                                                       stmt.iter):
            stmt.iter = self.accumulated(stmt.iter)
            return self.emitted + [stmt]
        return None

    def call(self, node):
        if any(self.is_builtin(node.func, b) for b in _CONSUMERS):
            node.args = [self.accumulated(a) if self.accumulation(a) else a for a in node.args]
        return node

    def accumulation(self, node):
        if not (isinstance(node, gast.Call) and self.is_builtin(node.func, itertools.accumulate)):
            return False
        if node.keywords or not 1 <= len(node.args) <= 2 or any(isinstance(a, gast.Starred) for a in node.args):
            return False
        return len(node.args) == 1 or isinstance(node.args[1], (gast.Name, gast.Attribute, gast.Lambda))

    def accumulated(self, node):
        namer = self.context.namer
        source = node.args[0]
        if isinstance(source, gast.GeneratorExp):
            source = gast.ListComp(elt=source.elt, generators=source.generators)
        step = node.args[1] if len(node.args) == 2 else None
        if isinstance(step, gast.Constant) and step.value is None:
            step = None
        held, result = namer.fresh("_accumulate_source"), namer.fresh("_accumulated")
        index, item, total = (namer.fresh("_accumulate_index"), namer.fresh("_accumulate_item"),
                              namer.fresh("_accumulate_total"))
        self.emit(gast.Assign(targets=[store(held)], value=source, type_comment=None))
        self.emit(gast.Expr(value=gast.Call(func=name("iterated"), args=[name(held)], keywords=[])))  # not a dict
        if isinstance(step, gast.Lambda):
            label = namer.fresh("_accumulate_step")
            self.emit(gast.Assign(targets=[store(label)], value=step, type_comment=None))
            step = name(label)
        self.emit(gast.Assign(targets=[store(result)], value=gast.List(elts=[], ctx=gast.Load()), type_comment=None))
        combined = (gast.BinOp(left=name(total), op=gast.Add(), right=name(item)) if step is None else
                    gast.Call(func=step, args=[name(total), name(item)], keywords=[]))
        body = [
            gast.Assign(targets=[store(item)], value=gast.Subscript(value=name(held), slice=name(index),
                                                                   ctx=gast.Load()), type_comment=None),
            gast.If(test=gast.Compare(left=name(index), ops=[gast.Eq()], comparators=[gast.Constant(value=0,
                                                                                                     kind=None)]),
                    body=[gast.Assign(targets=[store(total)], value=name(item), type_comment=None)],
                    orelse=[gast.Assign(targets=[store(total)], value=combined, type_comment=None)]),
            gast.Expr(value=gast.Call(func=gast.Attribute(value=name(result), attr="append", ctx=gast.Load()),
                                      args=[name(total)], keywords=[])),
        ]
        length = gast.Call(func=name("len"), args=[name(held)], keywords=[])
        self.emit(gast.For(target=store(index), iter=gast.Call(func=name("range"), args=[length], keywords=[]),
                           body=body, orelse=[], type_comment=None))
        return name(result)
