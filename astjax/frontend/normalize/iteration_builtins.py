"""Iterators consumed where they are made become the sequences astjax already iterates.

    for v in reversed(x * x)            ->   for v in (x * x)[::-1]
    for i, v in enumerate(x, start=1)   ->   for i, v in zip(range(1, 1 + len(x)), x)
    sum(a * b for a, b in itertools.pairwise(x))  ->  ... in zip(x, x[1:])
    sum(itertools.starmap(f, zip(a, b)))          ->  sum(f(_a, _b) for _a, _b in zip(a, b))
    list(zip(*M))                       ->   list([tuple([_r[_j] for _r in M]) for _j in range(zip_star_length(M))])

Only where the iterator is consumed at once, item by item, in order: the
iterable of a `for` or a comprehension, or the argument of a builtin that reads
its items (`sum`, `list`, `tuple`, `min`, `max`, `sorted`, `any`, `all`, `zip`,
`enumerate`), and not while the loop's own code mutates anything in place
(a container's method, an item or attribute written, `+=`: any name may hold
the object the iterator reads). There a list's or an array's slice gives the same
items as the iterator. The sequence must be a plain expression (names, constants,
arithmetic, items, slices: no calls), so reading it twice reads the same
values; a dict (read as one in the function) is left alone, as is
`reversed(range(...))`, which loops already handle. Anything else is left to
the later passes, which refuse it.
"""
import copy
import itertools

import gast

from .base import Pass, copy_location, name, store
from .container_idioms import dict_names
from ...codegen.node_walk import walk

__all__ = ["IterationBuiltins"]

_CONSUMERS = (sum, list, tuple, min, max, sorted, any, all, zip, enumerate)
_PLAIN = (gast.Name, gast.Constant, gast.BinOp, gast.UnaryOp, gast.Subscript, gast.Slice, gast.Attribute,
          gast.Tuple, gast.Load, gast.operator, gast.unaryop, gast.expr_context)


class IterationBuiltins(Pass):
    """Rewrite `reversed`, `enumerate(start=)`, `itertools.pairwise` and `itertools.starmap` where consumed."""

    def run(self, node):
        if not any(isinstance(n, (gast.Name, gast.Attribute)) and getattr(n, "id", getattr(n, "attr", None)) in (
                "reversed", "enumerate", "zip", "pairwise", "starmap") for n in walk(node)):
            return node                 # a quick look: this pass runs on every function
        self.dicts = dict_names(node)
        return self.visit(node)

    def is_builtin(self, func, builtin):
        return self.context.resolver.static_value(func) is builtin

    def visit_For(self, node):
        self.generic_visit(node)
        if not _mutates(node.body + node.orelse, node.iter):
            node.iter = self.consumed(node.iter)
        return node

    def visit_ListComp(self, node):
        return self.comprehension(node)

    visit_SetComp = visit_GeneratorExp = visit_DictComp = visit_ListComp

    def comprehension(self, node):
        self.generic_visit(node)
        for comp in node.generators:
            if not _mutates([node], comp.iter):
                comp.iter = self.consumed(comp.iter)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if any(self.is_builtin(node.func, b) for b in _CONSUMERS):
            node.args = [self.consumed(a) for a in node.args]
        return node

    def plain(self, expr):
        if not all(isinstance(n, _PLAIN) for n in walk(expr)):
            return False
        return not (isinstance(expr, gast.Name) and expr.id in self.dicts)

    def consumed(self, it):
        """The sequence an iterator consumed here may be replaced with, else `it` itself."""
        if not isinstance(it, gast.Call):
            return it
        if (self.is_builtin(it.func, zip) and len(it.args) == 1 and isinstance(it.args[0], gast.Starred)
                and not it.keywords and self.plain(it.args[0].value)):
            return copy_location(self.transposed(it.args[0].value), it)
        if any(isinstance(a, gast.Starred) for a in it.args):
            return it
        keywords = {k.arg: k.value for k in it.keywords}
        if None in keywords:
            return it
        if self.is_builtin(it.func, reversed) and len(it.args) == 1 and not keywords and self.plain(it.args[0]):
            return copy_location(_slice(it.args[0], None, -1), it)
        if self.is_builtin(it.func, enumerate) and (len(it.args) == 2 and not keywords or (
                len(it.args) == 1 and set(keywords) == {"start"})):
            sequence, start = it.args[0], it.args[1] if len(it.args) == 2 else keywords["start"]
            if not (self.plain(sequence) and self.plain(start)):
                return it
            stop = gast.BinOp(left=copy.deepcopy(start), op=gast.Add(), right=gast.Call(
                func=name("len"), args=[copy.deepcopy(sequence)], keywords=[]))
            counter = gast.Call(func=name("range"), args=[copy.deepcopy(start), stop], keywords=[])
            return copy_location(gast.Call(func=name("zip"), args=[counter, sequence], keywords=[]), it)
        if self.is_builtin(it.func, itertools.pairwise) and len(it.args) == 1 and not keywords \
                and self.plain(it.args[0]):
            sequence = it.args[0]
            return copy_location(gast.Call(func=name("zip"), args=[sequence, _slice(sequence, 1, None)],
                                           keywords=[]), it)
        if self.is_builtin(it.func, itertools.starmap) and len(it.args) == 2 and not keywords:
            fn, pairs = it.args
            if not (isinstance(fn, (gast.Name, gast.Attribute)) and isinstance(pairs, gast.Call)
                    and self.is_builtin(pairs.func, zip) and pairs.args and not pairs.keywords
                    and not any(isinstance(a, gast.Starred) for a in pairs.args)):
                return it
            items = [self.context.namer.fresh("_starmap") for _ in pairs.args]
            target = gast.Tuple(elts=[store(i) for i in items], ctx=gast.Store())
            element = gast.Call(func=copy.deepcopy(fn), args=[name(i) for i in items], keywords=[])
            loop = gast.comprehension(target=target, iter=pairs, ifs=[], is_async=0)
            return copy_location(gast.GeneratorExp(elt=element, generators=[loop]), it)
        return it


    def transposed(self, rows):
        """`zip(*rows)`: `[tuple([_row[_j] for _row in rows]) for _j in range(zip_star_length(rows))]`."""
        row, column = self.context.namer.fresh("_zip_row"), self.context.namer.fresh("_zip_column")
        item = gast.Subscript(value=name(row), slice=name(column), ctx=gast.Load())
        inner = gast.ListComp(elt=item, generators=[gast.comprehension(target=store(row), iter=copy.deepcopy(rows),
                                                                       ifs=[], is_async=0)])
        count = gast.Call(func=name("range"), args=[gast.Call(func=name("zip_star_length"),
                                                              args=[copy.deepcopy(rows)], keywords=[])], keywords=[])
        return gast.ListComp(elt=gast.Call(func=name("tuple"), args=[inner], keywords=[]),
                             generators=[gast.comprehension(target=store(column), iter=count, ifs=[], is_async=0)])


def _mutates(nodes, iterable):
    """Whether the code run while the loop iterates may change what it iterates: a mutating method call, an
    item or attribute written, or an augmented assignment (`y += 1` changes an array in place), to any name
    (another name may hold the same object); a lazy iterator would see the change, a list made first not."""
    from .eager_calls import _MUTATORS
    for node in nodes:
        for n in walk(node):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) and n.func.attr in _MUTATORS:
                return True
            if isinstance(n, (gast.Subscript, gast.Attribute)) and isinstance(n.ctx, (gast.Store, gast.Del)):
                return True
            if isinstance(n, gast.AugAssign):
                return True
    return False


def _slice(sequence, lower, step):
    def const(v):
        return None if v is None else gast.Constant(value=v, kind=None)
    return gast.Subscript(value=copy.deepcopy(sequence), slice=gast.Slice(lower=const(lower), upper=None,
                                                                          step=const(step)), ctx=gast.Load())
