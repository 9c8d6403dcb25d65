"""A call of a SciPy function that an astjax.scipy.special primitive implements calls that implementation.

    y = scipy.special.logsumexp(a, axis=0)   ->   y = jsp_special.logsumexp(a, axis=0)

`scipy.special.logsumexp` is an alias of the primitive `logsumexp` (it has its
rules), but SciPy's own Python code cannot run on astjax's immutable arrays,
which the generated code passes it; astjax's implementation computes the same
values with JAX's dtypes. (`jsp_special` is astjax.scipy.special in generated code.)
"""
import gast

from ...rules import lookup_callable
from ..resolve import NOT_STATIC
from .base import Pass, copy_location, name

_MODULE = "astjax.scipy.special"


class ScipyCalls(Pass):
    """Rewrite calls of SciPy aliases of astjax.scipy.special primitives into calls of their implementations."""

    def visit_Call(self, node):
        self.generic_visit(node)
        target = self.context.resolver.static_value(node.func)
        if target is NOT_STATIC or not (getattr(target, "__module__", None) or "").startswith("scipy"):
            if not _is_scipy_ufunc(target):
                return node
        prim = lookup_callable(target)
        if prim is None or prim.impl is target or getattr(prim.impl, "__module__", None) != _MODULE:
            return node
        node.func = copy_location(gast.Attribute(value=name("jsp_special"), attr=prim.impl.__name__,
                                                 ctx=gast.Load()), node.func)
        return node


def _is_scipy_ufunc(target):
    """SciPy's ufuncs (`scipy.special.gammaln`) have no __module__ of their own."""
    import scipy.special
    return getattr(target, "__name__", None) is not None and getattr(scipy.special, target.__name__, None) is target
