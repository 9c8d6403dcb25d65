"""Errors that point at the user's code: file, line, the line itself with a caret, and a fix."""
import linecache

__all__ = ["AstjaxError", "TransformError", "SourceUnavailableError", "location_of"]


class AstjaxError(Exception):
    """Base class of astjax's own errors."""


class TransformError(AstjaxError):
    """A function cannot be transformed: unsupported syntax, a missing rule, bad input.

    The message names the user's file and line, shows the offending line with a
    caret under the expression, and says what to do instead.
    """

    def __init__(self, message, node=None, origin=None, hint=None):
        self.reason = message
        self.hint = hint
        self.filename, self.lineno, self.col = location_of(node, origin)
        super().__init__(self._format())

    def _format(self):
        parts = []
        if self.filename is not None and self.lineno is not None:
            parts.append(f'File "{self.filename}", line {self.lineno}')
            line = linecache.getline(self.filename, self.lineno).rstrip("\n")
            if line:
                stripped = line.lstrip()
                indent = len(line) - len(stripped)
                parts.append("    " + stripped)
                if self.col is not None and self.col >= indent:
                    parts.append("    " + " " * (self.col - indent) + "^")
        parts.append(self.reason)
        if self.hint:
            parts.append("Instead: " + self.hint)
        return "\n".join(parts)


class SourceUnavailableError(TransformError):
    """The function has no Python source astjax can read (REPL, C function, exec)."""


def location_of(node, origin):
    """(filename, line, column) of a gast node of the user's function, where known.

    `origin` is the FunctionSource the node was parsed from; it maps the
    parsed line numbers back to lines of the user's file.
    """
    if origin is None:
        return None, None, None
    lineno = getattr(node, "lineno", None) if node is not None else None
    col = getattr(node, "col_offset", None) if node is not None else None
    if lineno is None:
        return origin.filename, origin.first_line, None
    return origin.filename, origin.file_line(lineno), origin.file_col(lineno, col)
