"""The Numba CPU backend: compile lowered source with `numba.njit`.

Lowered source is registered like any generated source (its lines map back,
through the reference source, to the user's), executed into a namespace of
the lowerings it calls, and compiled with bounds checks on (an out-of-range
index raises as in NumPy instead of reading memory) and NumPy's error model
(x / 0.0 is inf, as in the reference backend). A Numba error while compiling
becomes an astjax error naming the user's line.
"""
import re

from ..codegen.unparse import unparse
from ..errors import AstjaxError, trace_to_user
from .python import compile_function

__all__ = ["compile_lowered", "JitError", "numba_error"]


class JitError(AstjaxError):
    """jit cannot compile a function (a call without a Numba lowering, a type Numba cannot hold)."""

    def __init__(self, message, location=None, hint=None):
        self.reason, self.hint = message, hint
        self.filename, self.lineno = location if location else (None, None)
        parts = []
        if self.filename is not None and self.lineno is not None:
            import linecache
            parts.append(f'File "{self.filename}", line {self.lineno}')
            line = linecache.getline(self.filename, self.lineno).strip()
            if line:
                parts.append("    " + line)
        parts.append(message)
        if hint:
            parts.append("Instead: " + hint)
        super().__init__("\n".join(parts))


def compile_lowered(node, namespace, reference_filename, source_file=None, self_names=(), checked=True,
                    fastmath=False):
    """(numba dispatcher, lowered source text) for the lowered function `node`; `self_names` are the
    names under which the function calls itself. `checked=False` (for loops astjax generated, whose
    indices are in range by construction, called only from compiled code) drops the bounds checks and
    the wrappers that would let Python call it; `fastmath` passes Numba's flags
    (only the reassociation of a fused sum's partial sums uses it).

    With `source_file` (text -> path of a real file holding it), the function's code object names
    that file, so that `dispatcher.enable_caching()` can later let Numba cache the machine code beside
    it for the next process (the caller decides: see jit/compiled.py's `_build`).
    """
    import numba
    path = None
    if source_file is not None:
        path = source_file(unparse(node))
        namespace = _module_namespace(namespace, path)
    fn, text = compile_function(node, namespace, label=f"numba_{node.name}", origin=reference_filename,
                                filename=(lambda text: path) if path else None)
    # A loop astjax generated (`checked=False`) is called only from compiled code: no CPython or C
    # function wrapper (Numba would build and optimize both for each loop, ~0.05 s of every cold compile).
    wrappers = {} if checked else {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
    dispatcher = numba.njit(boundscheck=checked, error_model="numpy", nogil=True, fastmath=fastmath,
                            cache=False, **wrappers)(fn)
    for label in (node.name, *self_names):
        namespace[label] = dispatcher          # a recursive call compiles to a call of the dispatcher
    dispatcher.__astjax_lowered_text__ = text
    return dispatcher, text


def _module_namespace(namespace, path):
    """`namespace` as the dict of a module in sys.modules, named after the lowered source file: Numba's
    cache re-imports a function's module by name when it loads the function in another process."""
    import sys
    import types
    module_name = "astjax_lowered_" + path.rsplit("m_", 1)[-1][:-3]
    module = types.ModuleType(module_name)
    module.__dict__.update({k: v for k, v in namespace.items() if k not in ("__name__", "__builtins__")})
    sys.modules[module_name] = module
    return module.__dict__


_LOCATION = re.compile(r'File "(<astjax:[^"]+>)", line (\d+)')


def numba_error(exc, fallback_location=None):
    """A JitError for a Numba compile error, located at the user's line it came from."""
    message = str(exc)
    location = None
    for filename, line in _LOCATION.findall(message):
        traced = trace_to_user(filename, int(line))
        if traced is not None:
            location = traced
    location = location or fallback_location
    first = _summary(message)
    return JitError(f"jit cannot compile this line with Numba: {first}", location,
                    "run this function without jit, or rewrite the line with astjax.numpy functions on arrays "
                    "(the compiled code must give every variable one type)")


_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _summary(message):
    message = _ANSI.sub("", message)
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    for line in lines:
        if not line.startswith(("-", "During:", "File", "Failed in")) and "<astjax:" not in line:
            return line[:300]
    return lines[0][:300] if lines else "unknown error"
