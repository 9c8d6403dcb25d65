"""A tuple a derivative builds only to take its items apart is written as its items.

    _b1 = (c, c)                  ->      bc = c
    d_b1 = (dc, dc)                       dbc = dc
    bc = _b1[0]                           dbc = dbc + dc
    dbc = d_b1[0]                         bc = bc + c
    dbc = dbc + d_b1[1]
    bc = bc + _b1[1]

The derivative of a call `mul(c, c)` returns one adjoint per argument as a tuple, and a second
derivative a tuple of their tangents; a teacher names the adjoints. A name assigned once, from a tuple
display, and read only as `name[k]` for literal `k`, is split into one name per item (`_b1_0`,
`_b1_1`): each item is then an ordinary temporary that cleanup substitutes where it is read once. The
names hold the same values for as long as the tuple did, so what runs is what ran.
"""
import gast
from ..codegen.node_walk import walk, NodeTransformer, NodeVisitor

__all__ = ["split_tuple_items"]


def split_tuple_items(function_node):
    """Split such tuples in `function_node` (in place); return the set of new item names."""
    stores, loads = {}, {}
    for node in walk(function_node):
        if isinstance(node, gast.Name):
            (loads if isinstance(node.ctx, gast.Load) else stores).setdefault(node.id, []).append(node)
    taken = set(stores) | set(loads) | {a.id for a in function_node.args.args}
    items = {}
    for stmt in walk(function_node):
        if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Tuple)
                and not any(isinstance(e, gast.Starred) for e in stmt.value.elts)):
            continue
        name = stmt.targets[0].id
        if len(stores.get(name, ())) != 1 or name in {a.id for a in function_node.args.args}:
            continue
        names = []
        for k in range(len(stmt.value.elts)):
            fresh = f"{name}_{k}"
            while fresh in taken:
                fresh += "_"
            taken.add(fresh)
            names.append(fresh)
        items[name] = (stmt, names)
    if not items:
        return set()
    reads = _ItemReads(items)
    reads.visit(function_node)
    split = {name: v for name, v in items.items() if name not in reads.whole}
    if not split:
        return set()
    _Split(split).visit(function_node)
    return {n for _, names in split.values() for n in names}


class _ItemReads(NodeVisitor):
    """Which of the tuples are read otherwise than as `name[k]` with k a literal int in range."""

    def __init__(self, items):
        self.items, self.whole = items, set()

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.items:
            size = len(self.items[node.value.id][1])
            index = node.slice
            if not (isinstance(index, gast.Constant) and type(index.value) is int and 0 <= index.value < size
                    and isinstance(node.ctx, gast.Load)):
                self.whole.add(node.value.id)
            return
        self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.items and isinstance(node.ctx, gast.Load):
            self.whole.add(node.id)


class _Split(NodeTransformer):
    def __init__(self, split):
        self.split = split

    def visit_Assign(self, node):
        self.generic_visit(node)
        target = node.targets[0] if len(node.targets) == 1 else None
        if isinstance(target, gast.Name) and target.id in self.split and self.split[target.id][0] is node:
            names = self.split[target.id][1]
            return [gast.Assign(targets=[gast.Name(id=n, ctx=gast.Store(), annotation=None, type_comment=None)],
                                value=e, type_comment=None) for n, e in zip(names, node.value.elts)]
        return node

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.split:
            return gast.Name(id=self.split[node.value.id][1][node.slice.value], ctx=gast.Load(), annotation=None,
                             type_comment=None)
        return self.generic_visit(node)
