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
from .base import BlockPass

__all__ = ["WarningContexts"]

_ONLY_WARNINGS = (np.errstate, np.printoptions, warnings.catch_warnings)


class WarningContexts(BlockPass):
    """Replace `with np.errstate(...)` (and the other managers in _ONLY_WARNINGS) by its body."""

    def rewrite(self, stmt):
        if isinstance(stmt, gast.With) and all(self.only_warns(item) for item in stmt.items):
            return stmt.body
        return [stmt]

    def only_warns(self, item):
        call = item.context_expr
        if item.optional_vars is not None or not isinstance(call, gast.Call):
            return False
        target = self.context.resolver.static_value(call.func)
        return target is not NOT_STATIC and any(target is manager for manager in _ONLY_WARNINGS)
