"""An error at the return line of the user's function, for what is found wrong with its output only when the
generated code runs (grad's seed meeting a returned list, a gradient tree returned out of vmap)."""
import gast

from ..errors import TransformError

__all__ = ["error_at_return"]

_CONTAINER_LITERALS = (gast.List, gast.Dict, gast.ListComp, gast.DictComp, gast.Tuple)


def error_at_return(fun, message, hint, error=TransformError):
    """`error(message)` located at `fun`'s return statement (one returning a literal container, else its last),
    or None when `fun` has no source astjax can read."""
    from ..arguments import split_callable
    from .parse import function_source
    try:
        source = function_source(split_callable(fun)[0])
    except Exception:        # no Python source of its own (a library function, a partial of one)
        return None
    returns = []

    def visit(node):
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.Return):
                returns.append(child)
            if not isinstance(child, (gast.FunctionDef, gast.AsyncFunctionDef, gast.Lambda, gast.ClassDef)):
                visit(child)
    visit(source.node)
    literal = [r for r in returns if isinstance(r.value, _CONTAINER_LITERALS)]
    return error(message, node=(literal or returns or [None])[-1], origin=source, hint=hint)
