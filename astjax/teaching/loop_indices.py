"""A reverse loop whose body names its counter after the user's index is written with that index.

    for _k2 in reversed(range(len(x))):         ->      for i in reversed(range(len(x))):
        i = _k2                                             bx_i = by[i]
        bx_i = by[_k2]                                      ...

The reverse sweep counts with a fresh name (`_k2`) and assigns the user's loop index from it; a
teacher writes `for i in reversed(range(n))`. Only where the body assigns the index once, from the
counter, with nothing before that in the body naming the index, neither name is assigned anywhere else in the
loop, and the counter is read nowhere outside it (the index holds the counter's value after every
assignment, so each read of either can read the index).
"""
import gast
from ..codegen.node_walk import walk

__all__ = ["name_loop_indices"]


def name_loop_indices(function_node):
    """Rename in place; return whether any loop was."""
    renamed = False
    for loop in [n for n in walk(function_node) if isinstance(n, gast.For)]:
        renamed = _rename(loop, function_node) or renamed
    return renamed


def _rename(loop, function_node):
    if not isinstance(loop.target, gast.Name) or loop.orelse:
        return False
    counter = loop.target.id
    for at, stmt in enumerate(loop.body):
        if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
                and isinstance(stmt.value, gast.Name) and stmt.value.id == counter):
            index = stmt.targets[0].id
            break
    else:
        return False
    if any(_names(s, index) for s in loop.body[:at]):
        return False
    inside = {id(n) for n in walk(loop)}
    stores = [n for n in walk(loop) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)
              and n.id in (index, counter)]
    if len(stores) != 2:                       # the loop target and `index = counter`, nothing else
        return False
    if any(isinstance(n, gast.Name) and n.id == counter and id(n) not in inside for n in walk(function_node)):
        return False
    del loop.body[at]
    if not loop.body:
        loop.body.append(gast.Pass())
    loop.target.id = index
    for n in walk(loop):
        if isinstance(n, gast.Name) and n.id == counter:
            n.id = index
    return True


def _names(stmt, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in walk(stmt))
