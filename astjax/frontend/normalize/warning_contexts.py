"""`with` blocks that only change how NumPy warns or prints run their body as it is.

    with np.errstate(divide="ignore"):       ->   y = np.log(x)
        y = np.log(x)

np.errstate, np.printoptions and warnings.catch_warnings change which warnings
appear and how arrays print, never a number, so the derivative of the body is
the derivative of the block. Any other `with` is still refused (its manager may
do anything on entry and exit).
"""
import warnings

import gast
import numpy as np

from ..resolve import NOT_STATIC
from .base import Pass, rewrite_inner_blocks

__all__ = ["WarningContexts"]

_ONLY_WARNINGS = (np.errstate, np.printoptions, warnings.catch_warnings)


class WarningContexts(Pass):
    """Replace `with np.errstate(...)` (and the other managers in _ONLY_WARNINGS) by its body."""

    def run(self, node):
        node.body = self.block(node.body)
        return node

    def block(self, stmts):
        out = []
        for stmt in stmts:
            rewrite_inner_blocks(stmt, self.block)
            if isinstance(stmt, gast.With) and all(self.only_warns(item) for item in stmt.items):
                out.extend(stmt.body)
            else:
                out.append(stmt)
        return out

    def only_warns(self, item):
        call = item.context_expr
        if item.optional_vars is not None or not isinstance(call, gast.Call):
            return False
        target = self.context.resolver.static_value(call.func)
        return target is not NOT_STATIC and any(target is manager for manager in _ONLY_WARNINGS)
