"""`del name` of a local that is assigned again before any read is dropped: deleting it changes nothing.

    y = x * 2.0                 y = x * 2.0
    z = y + 1.0          ->     z = y + 1.0
    del y                       y = z * x
    y = z * x

Only a `del` in the function's own block (not in a loop or a branch) is dropped, and only when the next
statement that mentions the name assigns it without reading it (or none mentions it again). Any other
`del` stays, and is refused later with a clear error: in Python the name is unbound afterwards, so a
later read raises, and running on with the old value would hide that.
"""
import gast

from .base import Pass
from ...codegen.node_walk import walk

__all__ = ["LocalDeletes"]


class LocalDeletes(Pass):
    """Drop `del name` statements of the function body that nothing after them can observe."""

    def run(self, function_node):
        body = function_node.body
        kept = []
        for index, stmt in enumerate(body):
            if isinstance(stmt, gast.Delete) and all(isinstance(t, gast.Name) for t in stmt.targets) and \
                    all(_assigned_before_read(t.id, body[index + 1:]) for t in stmt.targets):
                continue
            kept.append(stmt)
        function_node.body = kept
        return function_node


def _assigned_before_read(identifier, rest):
    """Whether the first statement of `rest` that mentions `identifier` is a plain assignment of it that
    does not read it (or no statement mentions it)."""
    for stmt in rest:
        names = [n for n in walk(stmt) if isinstance(n, gast.Name) and n.id == identifier]
        if not names:
            continue
        return (isinstance(stmt, gast.Assign) and all(isinstance(n.ctx, gast.Store) for n in names)
                and any(isinstance(t, gast.Name) and t.id == identifier for t in stmt.targets))
    return True
