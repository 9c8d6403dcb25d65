"""The Numba CPU backend: compile lowered source with `numba.njit`.

Lowered source is registered like any generated source (its lines map back,
through the reference source, to the user's), executed into a namespace of
the lowerings it calls, and compiled with bounds checks on (an out-of-range
index raises as in NumPy instead of reading memory) and NumPy's error model
(x / 0.0 is inf, as in the reference backend). A Numba error while compiling
becomes an astjax error naming the user's line.
"""
import re

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


def compile_lowered(node, namespace, reference_filename):
    """(numba dispatcher, lowered source text) for the lowered function `node`."""
    import numba
    fn, text = compile_function(node, namespace, label=f"numba_{node.name}", origin=reference_filename)
    dispatcher = numba.njit(boundscheck=True, error_model="numpy", nogil=True)(fn)
    namespace[node.name] = dispatcher          # a recursive call compiles to a call of the dispatcher
    dispatcher.__astjax_lowered_text__ = text
    return dispatcher, text


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


def _summary(message):
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    for line in lines:
        if not line.startswith(("-", "During:", "File", "Failed in")) and "<astjax:" not in line:
            return line[:300]
    return lines[0][:300] if lines else "unknown error"
