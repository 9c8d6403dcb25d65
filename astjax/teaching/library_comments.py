"""Comments of a derivative of astjax's own helpers name the helper's file, not a bare line number.

    # from line 26: return unbroadcast(jnp.matmul(...), x1)     (line 26 of which file?)
        ->
    # from astjax/rules/linalg.py line 26: return unbroadcast(jnp.matmul(...), x1)

A second derivative differentiates the helpers the first one calls (`matmul_lhs_adjoint`), and the
`# from line N` comments of those derivatives point into astjax's source, not the student's file. In
the printed view a bare `from line N` always means the student's own line: a comment from a file
inside the astjax package says which file it is, and when such a derivative is written out where it
is called (inline_callees.py) its comments stay behind, since the caller's own comment already names
the student's line the call came from.
"""
import os

import gast
from ..codegen.node_walk import walk

__all__ = ["label_library_comments", "is_library_comment"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_PREFIX = "from astjax/"


def label_library_comments(functions, namespaces):
    """Relabel (in place) the comments of each generated function made from a file of the astjax package."""
    for node in functions:
        path = _library_path(node.name, namespaces)
        if path is None:
            continue
        for comment in _comments(node):
            arg = comment.value.args[0]
            if isinstance(arg, gast.Constant) and str(arg.value).startswith("from line "):
                arg.value = f"from {path} line " + str(arg.value)[len("from line "):]
    return functions


def is_library_comment(comment):
    arg = comment.value.args[0]
    return isinstance(arg, gast.Constant) and str(arg.value).startswith(_PREFIX)


def _library_path(name, namespaces):
    """`astjax/rules/linalg.py` when the generated function `name` was made from that file, else None."""
    from ..errors import _user_file
    for namespace in namespaces.values():
        fn = (namespace or {}).get(name)
        source = getattr(fn, "__astjax_function_source__", None)
        if source is None:
            continue
        origin = _user_file(source.filename) if source.filename else None
        if origin and os.path.abspath(origin).startswith(_PACKAGE + os.sep):
            return "astjax/" + os.path.relpath(os.path.abspath(origin), _PACKAGE).replace(os.sep, "/")
        return None
    return None


def _comments(node):
    return [n for n in walk(node) if isinstance(n, gast.Expr) and isinstance(n.value, gast.Call)
            and isinstance(n.value.func, gast.Name) and n.value.func.id == "__comment__" and n.value.args]
