"""`tree_util.tree_map(f, tree, *rest)` becomes a map over the leaves, rebuilt into the tree's structure.

    grads = tree_map(lambda p, g: p - lr * g, params, grads)
        ->  grads = tree_rebuilt(params, list(map(lambda p, g: p - lr * g,
                                                  tree_util.tree_leaves(params), leaves_like(grads, params))))

MapCalls (the next pass) turns the `list(map(...))` into a comprehension, so `f`
is differentiated like any function called in a loop, and `tree_rebuilt` and
`leaves_like` carry their own derivative rules (rules/creation.py). The other
trees must have the first one's structure (JAX also accepts a tree whose
subtrees stand where the first has leaves: that is refused at run time with a
ValueError). A call with `is_leaf=`, or whose first tree is not a name, is
left as it is (and refused where a derivative reaches it).
"""
import gast

from .base import Pass, copy_location, name

__all__ = ["TreeMapCalls"]


class TreeMapCalls(Pass):
    """Rewrite `tree_map(f, tree, *rest)` calls (no keywords, no starred arguments)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        from ... import tree_util
        if (self.context.resolver.static_value(node.func) is not tree_util.tree_map or node.keywords
                or len(node.args) < 2 or any(isinstance(a, gast.Starred) for a in node.args)):
            return node
        func, first, rest = node.args[0], node.args[1], node.args[2:]
        resolver = self.context.resolver
        if not isinstance(first, gast.Name) or any(resolver.static_value(name(b)) is not v
                                                   for b, v in (("list", list), ("map", map))):
            return node      # the first tree is read three times; `list` and `map` must be the builtins
        leaves = [gast.Call(func=name("tree_leaves_of"), args=[name(first.id)], keywords=[])]
        leaves += [gast.Call(func=name("leaves_like"), args=[tree, name(first.id)], keywords=[]) for tree in rest]
        mapped = gast.Call(func=name("list"), args=[gast.Call(func=name("map"), args=[func] + leaves, keywords=[])],
                           keywords=[])
        return copy_location(gast.Call(func=name("tree_rebuilt"), args=[first, mapped], keywords=[]), node)
