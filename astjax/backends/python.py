"""The reference backend: generated source runs as plain Python over astjax.numpy.

The source is registered with `linecache` under a pseudo file name, so
tracebacks, `inspect.getsource` and pdb show the generated lines, and the
function remembers its parsed source so later transformations can read it.
"""
import ast
import linecache

import gast

from ..codegen.unparse import unparse
from ..errors import register_generated
from ..frontend.parse import FunctionSource, generated_filename

__all__ = ["compile_function"]


def compile_function(function_node, namespace, label=None, origin=None, filename=None):
    """Execute the source of `function_node` in `namespace`; return (function, source text).

    `origin` is the file the generated `# from line N` comments refer to, so that an
    error raised inside the generated code can name the user's line it came from.
    `filename`, when given, is a real file already holding the text (jit's disk cache).
    """
    text = unparse(function_node)
    filename = filename(text) if callable(filename) else generated_filename(label or function_node.name)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    tree = ast.parse(text)
    register_generated(filename, origin, _line_map(function_node, tree.body[0]))
    exec(compile(tree, filename, "exec"), namespace)
    fn = namespace[function_node.name]
    # The gast tree a later transformation reads is made when it first asks: converting ast to gast
    # costs several times the parse, and most generated functions are never transformed again.
    source = FunctionSource(None, fn, filename, 1, generated=True, parse=lambda: gast.ast_to_gast(tree).body[0])
    fn.__astjax_function_source__ = source
    fn.__astjax_source_text__ = text
    return fn, text


def _statements(node, skip_comments):
    """The statements of a function in source order (nested blocks included)."""
    out = []
    for field in ("body", "orelse", "finalbody"):
        for stmt in getattr(node, field, None) or []:
            if skip_comments and _is_comment(stmt):
                continue
            out.append(stmt)
            out.extend(_statements(stmt, skip_comments))
    return out


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")


def _line_map(built, parsed):
    """{generated line: line of the statement it was made from} (built nodes keep their origin's line)."""
    before, after = _statements(built, True), _statements(parsed, False)
    if len(before) != len(after):
        return {}
    return {a.lineno: b.lineno for b, a in zip(before, after) if getattr(b, "lineno", None) is not None}
