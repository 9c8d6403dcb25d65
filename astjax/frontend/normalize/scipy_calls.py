"""Calls of SciPy functions that astjax implements become calls of astjax's implementations.

    y = scipy.special.logsumexp(a, axis=0)   ->   y = jsp_special.logsumexp(a, axis=0)
    p = scipy.stats.norm.logpdf(x, m, s)     ->   p = jsp_stats.norm.logpdf(x, m, s)

`scipy.special.logsumexp` is an alias of the primitive `logsumexp` (it has its
rules), but SciPy's own Python code cannot run on astjax's immutable arrays,
which the generated code passes it; astjax's implementation computes the same
values with JAX's dtypes. A method of a scipy.stats distribution becomes the
function of the same name in astjax.scipy.stats (plain astjax code, transformed
like the user's). `jsp_special` and `jsp_stats` are astjax.scipy.special and
astjax.scipy.stats in generated code.
"""
import sys

import gast

from ...rules import lookup_callable
from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name

__all__ = ["ScipyCalls"]


class ScipyCalls(Pass):
    """Rewrite calls of SciPy functions that astjax.scipy implements into calls of its functions."""

    def visit_Call(self, node):
        self.generic_visit(node)
        target = self.context.resolver.static_value(node.func)
        if target is NOT_STATIC:
            return node
        path = _special_path(target) or _stats_path(target)
        if path is None:
            return node
        func = name(path[0])
        for attr in path[1:]:
            func = gast.Attribute(value=func, attr=attr, ctx=gast.Load())
        node.func = copy_location(func, node.func)
        return node


def _special_path(target):
    """("jsp_special", name) for a SciPy alias of an astjax.scipy.special primitive, else None."""
    if not _from_scipy(target):
        return None
    prim = lookup_callable(target)
    if prim is None or prim.impl is target or getattr(prim.impl, "__module__", None) != "astjax.scipy.special":
        return None
    return ("jsp_special", prim.impl.__name__)


def _stats_path(target):
    """("jsp_stats", distribution, method) for `scipy.stats.<distribution>.<method>` that astjax has, else None."""
    owner = getattr(target, "__self__", None)
    method = getattr(target, "__name__", None)
    if owner is None or method is None or not (type(owner).__module__ or "").startswith("scipy.stats"):
        return None
    import scipy.stats

    from ...scipy import stats
    for distribution in stats.__all__:
        if getattr(scipy.stats, distribution, None) is owner and hasattr(getattr(stats, distribution), method):
            return ("jsp_stats", distribution, method)
    return None


def _from_scipy(target):
    """A SciPy function, or one of SciPy's ufuncs (which have no __module__ of their own)."""
    if (getattr(target, "__module__", None) or "").startswith("scipy"):
        return True
    special = sys.modules.get("scipy.special")     # not imported: the target cannot be one of its ufuncs
    return (special is not None and getattr(target, "__name__", None) is not None
            and getattr(special, target.__name__, None) is target)
