"""Errors that point at the user's code: file, line, the line itself with a caret, and a fix."""
import linecache

__all__ = ["AstjaxError", "TransformError", "OutputTypeError", "RuntimeRefusal", "SourceUnavailableError", "location_of"]


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
        parts += _user_line_behind(self.filename, self.lineno)
        parts.append(self.reason)
        if self.hint:
            parts.append("Instead: " + self.hint)
        return "\n".join(parts)


def _user_line_behind(filename, lineno):
    """For a line of generated code (a second derivative transforms the first's code): the user's line it
    came from, so the message names the user's own code as well."""
    if filename not in _GENERATED_ORIGINS or lineno is None:
        return []
    origin = trace_to_user(filename, lineno)
    if origin is None:
        return []
    user_file, user_line = origin
    return [f'derived from your line, File "{user_file}", line {user_line}:',
            "    " + linecache.getline(user_file, user_line).strip()]


class OutputTypeError(TransformError, TypeError):
    """The differentiated function's output is not what the transformation takes (grad of a function
    returning a list or a dict): a TypeError, as in JAX, that names the user's return line."""


class RuntimeRefusal(AstjaxError, ValueError):
    """A value the derivative cannot handle, found when the generated code runs (a repeated index in
    `.at[idx].multiply`, a float written into an integer array). At the API boundary its message gains
    the generated line and the user's line it came from."""


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


# ------------------------------------------------------------------ at the API boundary
import functools as _functools
import os as _os
import re as _re
import types as _types

_PACKAGE_DIR = _os.path.dirname(_os.path.abspath(__file__)) + _os.sep
_GENERATED_ORIGINS = {}          # generated file name -> the file its `# from line N` comments refer to
_FROM_LINE = _re.compile(r"#\s*from line (\d+):")


_LINE_MAPS = {}                  # generated file name -> {generated line: origin line}


def register_generated(filename, origin, line_map=None):
    """Remember which file generated `filename` came from: its `# from line N` comments and the
    statements in `line_map` point into `origin`."""
    _GENERATED_ORIGINS[filename] = origin
    _LINE_MAPS[filename] = line_map or {}


def is_generated_file(filename):
    """Whether `filename` names generated source (compiled by backends/python.py)."""
    return filename in _GENERATED_ORIGINS


def api_boundary(fn):
    """Wrap a public transformation so that errors read from the user's side.

    An AstjaxError loses astjax's own frames from its traceback (as JAX filters
    its frames): the user sees their call, then the message that names their
    line. Any other error raised while running generated code gets a note with
    the generated line that raised and the user's line it was derived from.
    """
    @_functools.wraps(fn)
    def boundary(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except AstjaxError as exc:
            if not isinstance(exc, TransformError):
                _locate_in_message(exc)
            give_every_frame_a_line(exc.__cause__)
            raise exc.with_traceback(_without_internal_frames(exc.__traceback__)) from exc.__cause__
        except Exception as exc:
            _note_generated_origin(exc)
            give_every_frame_a_line(exc)
            raise
    return boundary


def _is_internal(filename):
    return _os.path.abspath(filename).startswith(_PACKAGE_DIR) if not filename.startswith("<") else False


def _without_internal_frames(tb):
    frames = []
    while tb is not None:
        if not _is_internal(tb.tb_frame.f_code.co_filename):
            frames.append(tb)
        tb = tb.tb_next
    return _rebuilt(frames)


def _rebuilt(frames):
    """A traceback of these entries. An entry Python 3.11 gives no line (its frame stopped on an instruction
    the compiler marks as lineless, such as a `with` block's cleanup) gets its function's first line, and no
    instruction (whose position tools would look up and not find)."""
    rebuilt = None
    for frame in reversed(frames):
        if frame.tb_lineno is None:
            lasti, lineno = -1, frame.tb_frame.f_code.co_firstlineno
        else:
            lasti, lineno = frame.tb_lasti, frame.tb_lineno
        rebuilt = _types.TracebackType(rebuilt, frame.tb_frame, lasti, lineno)
    return rebuilt


def give_every_frame_a_line(exc):
    """Give each traceback entry of `exc` and of the exceptions chained to it a line number: tools that print
    tracebacks (pytest among them) fail on an entry whose line is None."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        frames, tb = [], exc.__traceback__
        while tb is not None:
            frames.append(tb)
            tb = tb.tb_next
        if any(frame.tb_lineno is None for frame in frames):
            exc.__traceback__ = _rebuilt(frames)
        exc = exc.__cause__ or exc.__context__


def _locate_in_message(exc):
    """An astjax error raised while generated code ran: its message names the user's line (once)."""
    lines = _generated_origin(exc)
    if lines and exc.args and not getattr(exc, "_astjax_noted", False):
        exc.args = (f"{exc.args[0]}\n" + "\n".join(lines),) + exc.args[1:]
        exc._astjax_noted = True


def _note_generated_origin(exc):
    """Add to `exc` the generated line that raised and the user line it came from (once)."""
    if getattr(exc, "_astjax_noted", False) or not hasattr(exc, "add_note"):
        return
    lines = _generated_origin(exc)
    if not lines:
        return
    try:
        exc.add_note("\n".join(lines))
        exc._astjax_noted = True
    except (AttributeError, TypeError):
        pass


def _generated_origin(exc):
    """Lines naming the generated line that raised `exc` and the user's line it came from, or []."""
    deepest = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in _GENERATED_ORIGINS:
            deepest = tb
        tb = tb.tb_next
    if deepest is None:
        return []
    filename, lineno = deepest.tb_frame.f_code.co_filename, deepest.tb_lineno
    lines = [f"astjax: raised in generated code, File \"{filename}\", line {lineno}:",
             "    " + linecache.getline(filename, lineno).strip()]
    origin = trace_to_user(filename, lineno)
    if origin is not None:
        user_file, user_line = origin
        lines += [f"derived from your line, File \"{user_file}\", line {user_line}:",
                  "    " + linecache.getline(user_file, user_line).strip()]
    return lines


def trace_to_user(filename, lineno):
    """(file, line) of the user's line that generated `lineno` of `filename`, following the line maps
    through each generated layer (grad of grad), else the `# from line N` comment above it, which
    names the user's own line; None when it cannot be told."""
    for _ in range(16):
        if filename not in _GENERATED_ORIGINS:
            return filename, lineno
        line = _LINE_MAPS.get(filename, {}).get(lineno)
        if line is None:
            for k in range(lineno, 0, -1):
                match = _FROM_LINE.search(linecache.getline(filename, k))
                if match:
                    user_file = _user_file(filename)
                    return (user_file, int(match.group(1))) if user_file is not None else None
            return None
        filename, lineno = _GENERATED_ORIGINS[filename], line
        if filename is None:
            return None
    return None


def _user_file(filename):
    """The user's file at the root of a chain of generated files."""
    for _ in range(16):
        if filename not in _GENERATED_ORIGINS:
            return filename
        filename = _GENERATED_ORIGINS[filename]
        if filename is None:
            return None
    return None
