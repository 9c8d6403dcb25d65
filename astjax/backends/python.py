"""The reference backend: generated source runs as plain Python over astjax.numpy.

The source is registered with `linecache` under a pseudo file name, so
tracebacks, `inspect.getsource` and pdb show the generated lines, and the
function remembers its parsed source so later transformations can read it.
"""
import linecache

import gast

from ..codegen.unparse import unparse
from ..frontend.parse import FunctionSource, generated_filename

__all__ = ["compile_function"]


def compile_function(function_node, namespace, label=None):
    """Execute the source of `function_node` in `namespace`; return (function, source text)."""
    text = unparse(function_node)
    filename = generated_filename(label or function_node.name)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), namespace)
    fn = namespace[function_node.name]
    node = gast.parse(text).body[0]
    source = FunctionSource(node, fn, filename, 1, generated=True)
    fn.__astjax_function_source__ = source
    fn.__astjax_source_text__ = text
    return fn, text
