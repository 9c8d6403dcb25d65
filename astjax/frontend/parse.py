"""Find a function's source and parse it with gast.

The whole file is parsed and the function's node located by line (and, for
several lambdas on one line, by the columns of the code's instructions), so
decorated functions, nested functions and lambdas inside calls all work and
every node keeps its real line number in the user's file. The file's text is
also compiled and the function's own `__code__` must match what it gives
(bytecode, constants, names, nested code; line numbers aside): a file edited
after import or a notebook cell redefined under the same name is refused
rather than differentiated from text the function does not run. Functions that astjax generated carry
their own FunctionSource, so transformations compose.
"""
import ast
import inspect
import linecache
import os
import warnings

import gast

from ..errors import SourceUnavailableError
from ..codegen.node_walk import copy_tree, walk

__all__ = ["FunctionSource", "function_source", "generated_filename", "defaults_after"]


class FunctionSource:
    """A parsed function: its gast FunctionDef plus where it came from."""

    def __init__(self, node, fn, filename, first_line, generated=False, parse=None):
        self._node = node
        self._parse = parse          # makes `node` on first use (a generated function: see backends/python.py)
        self.fn = fn
        self.filename = filename
        self.first_line = first_line
        self.generated = generated

    @property
    def node(self):
        if self._parse is not None:
            self._node, self._parse = self._parse(), None
        return self._node

    @node.setter
    def node(self, value):
        self._node, self._parse = value, None

    @property
    def name(self):
        return self.node.name

    def file_line(self, lineno):
        return lineno

    def file_col(self, lineno, col):
        return col

    def user_line(self, lineno):
        """(file, line) of the user's line that `lineno` of this source came from (for a generated
        source, through every generated layer), or None when it cannot be told."""
        if not self.generated:
            return (self.filename, lineno) if self.filename else None
        from ..errors import trace_to_user
        return trace_to_user(self.filename, lineno)

    def line_text(self, lineno):
        """The stripped text of one line of the user's file ('' if unknown)."""
        return linecache.getline(self.filename, lineno).strip() if self.filename else ""

    def __repr__(self):
        return f"<FunctionSource {self.name} at {self.filename}:{self.first_line}>"


def function_source(fn):
    """The FunctionSource of a Python function, lambda, or generated function.

    A decorated function is read as what it is, the decorator's wrapper: its
    `__wrapped__` is not followed, since differentiating the undecorated
    source would drop what the wrapper does.
    """
    transform = getattr(fn, "__astjax_transform__", None)
    if transform is not None:
        # first: a transformation of a generated function carries that function's attributes (update_wrapper
        # copies its __dict__), and its source is not the transformation's
        return transform.composable_source()
    generated = getattr(fn, "__astjax_function_source__", None)
    if generated is not None:
        return generated
    specialized = getattr(fn, "__astjax_specialized_source__", None)     # frontend/specialize.py
    if specialized is not None:
        return specialized
    code = getattr(fn, "__code__", None)
    if code is None:
        wrapped = getattr(fn, "__wrapped__", None)
        raise SourceUnavailableError(
            f"{_describe(fn)} has no Python source: astjax transforms Python functions "
            "by reading their source code"
            + (f" (it wraps {_describe(wrapped)}, but differentiating that instead would drop what the "
               "wrapper does)." if wrapped is not None else "."),
            hint="wrap the call in a Python function (def f(x): return op(x)) and transform that.",
        )
    filename = code.co_filename
    parsed = _parse_file(filename, fn)
    node = _locate(parsed, code, fn)
    # a lambda's node is made anew by each _locate (_lambda_as_def): nothing to reuse
    tree = gast.ast_to_gast(node) if code.co_name == "<lambda>" else parsed.as_gast(node)
    return FunctionSource(tree, fn, filename, code.co_firstlineno)


def defaults_after(function, given):
    """The default values of `function`'s parameters after its first `given` ones.

    A forward-mode function takes its tangents after its primals, so it has no
    defaults of its own: whoever calls it passes these explicitly.
    """
    code = getattr(function, "__code__", None)
    if code is None or getattr(function, "__astjax_transform__", None) is not None:
        try:
            function = function_source(function).fn
        except SourceUnavailableError:
            return []
        code = getattr(function, "__code__", None)
        if code is None:
            return []
    defaults = getattr(function, "__defaults__", None) or ()
    count = code.co_argcount
    first_default = count - len(defaults)
    if given >= count or given < first_default:
        return []
    return list(defaults[given - first_default:])


def _describe(fn):
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"`{name}`"


class _ParsedFile:
    """One version of a source file: its functions and lambdas by first line, and its code objects."""

    def __init__(self, text, filename):
        self.text = text
        self.filename = filename
        self.by_line = _index_by_line(ast.parse(text, filename=filename))
        self._codes = None
        self._gast = {}           # id of an ast node -> (that node, its gast conversion)

    def as_gast(self, node):
        """A fresh gast tree of the ast `node` (a function of this file): the conversion is made once
        per node and copied for each caller (copying is twice as fast as converting), so no caller
        ever shares, or changes, another's tree. The entry holds `node`, so its id is not reused."""
        entry = self._gast.get(id(node))
        if entry is None or entry[0] is not node:
            entry = self._gast[id(node)] = (node, gast.ast_to_gast(node))
        return copy_tree(entry[1])

    def codes(self):
        """Every code object compiling this text gives, by (qualified name, first line)."""
        if self._codes is None:
            self._codes = {}
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")      # the file's own warnings were shown at import
                    module = compile(self.text, self.filename, "exec", dont_inherit=True)
            except (SyntaxError, ValueError):
                return self._codes
            stack = [module]
            while stack:
                code = stack.pop()
                self._codes.setdefault((_qualname(code), code.co_firstlineno), []).append(code)
                stack.extend(c for c in code.co_consts if inspect.iscode(c))
        return self._codes


_FILE_TREES = {}


def _parse_file(filename, fn):
    lines = linecache.getlines(filename, getattr(fn, "__globals__", None))
    if not lines:
        raise SourceUnavailableError(
            f"cannot read the source of {_describe(fn)} (defined in {filename}): "
            "functions typed at an interactive prompt or built with exec() have no source file.",
            hint="define the function in a .py file or a notebook cell, then transform it.",
        )
    text = "".join(lines)
    key = (filename, len(text), hash(text))
    parsed = _FILE_TREES.get(key)
    if parsed is None:
        try:
            parsed = _FILE_TREES[key] = _ParsedFile(text, filename)
        except SyntaxError as exc:
            raise _changed(fn, code_line=fn.__code__.co_firstlineno) from exc
    return parsed


def _index_by_line(tree):
    """Functions and lambdas of a parsed file by the line their code object starts on."""
    index = {}
    for node in walk(tree):
        if isinstance(node, ast.Lambda):
            index.setdefault(node.lineno, []).append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            index.setdefault(first, []).append(node)
    return index


def _changed(fn, code_line):
    code = fn.__code__
    return SourceUnavailableError(
        f"the source of {_describe(fn)} has changed since it was defined: {code.co_filename} at line "
        f"{code_line} no longer compiles to the function's code, so astjax would differentiate "
        "different code than the function runs.",
        hint="re-run its definition (re-import the module, re-run the notebook cell), then transform it.",
    )


def _locate(parsed, code, fn):
    """The FunctionDef or Lambda node of `code` in a parsed file, checked to compile to `code`."""
    line = code.co_firstlineno
    is_lambda = code.co_name == "<lambda>"
    candidates = [node for node in parsed.by_line.get(line, ())
                  if (isinstance(node, ast.Lambda) if is_lambda else getattr(node, "name", None) == code.co_name)]
    if len(candidates) > 1:
        candidates = _innermost_containing(candidates, _spans(code))
    if not candidates:
        raise _changed(fn, line)
    node = candidates[0]
    compiled = parsed.codes().get((_qualname(code), line), ())
    if is_lambda:       # the code compiled from this very lambda, not from another on its line
        compiled = [c for c in compiled if _innermost_containing([node], _spans(c))]
    if not any(same_code(c, code) for c in compiled):
        raise _changed(fn, line)
    if isinstance(node, ast.AsyncFunctionDef):
        raise SourceUnavailableError(f"{_describe(fn)} is an async function; astjax transforms plain functions.")
    if isinstance(node, ast.Lambda):
        node = _lambda_as_def(node)
    return node


def _qualname(code):
    return getattr(code, "co_qualname", code.co_name)


def _spans(code):
    """The (line, column) spans of `code`'s own instructions (the RESUME at column 0 left out)."""
    spans = []
    if not hasattr(code, "co_positions"):
        return spans
    for start_line, end_line, start_col, end_col in code.co_positions():
        if None in (start_line, end_line, start_col, end_col) or (start_col == end_col == 0):
            continue
        spans.append(((start_line, start_col), (end_line, end_col)))
    return spans


def _innermost_containing(nodes, spans):
    """The nodes whose source span holds every instruction of the code, smallest first."""
    def holds(node):
        start, end = (node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset)
        return all(start <= a and b <= end for a, b in spans)
    found = [n for n in nodes if holds(n)]
    return sorted(found, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))


def same_code(a, b):
    """Whether two code objects do the same thing: bytecode, constants, names and the code of
    nested functions, line numbers ignored."""
    if a is b:
        return True
    if (a.co_code != b.co_code or a.co_names != b.co_names or a.co_varnames != b.co_varnames
            or a.co_freevars != b.co_freevars or a.co_cellvars != b.co_cellvars or a.co_flags != b.co_flags
            or a.co_argcount != b.co_argcount or a.co_kwonlyargcount != b.co_kwonlyargcount
            or a.co_posonlyargcount != b.co_posonlyargcount or a.co_name != b.co_name
            or len(a.co_consts) != len(b.co_consts)):
        return False
    return all(_same_constant(x, y) for x, y in zip(a.co_consts, b.co_consts))


def _same_constant(x, y):
    if inspect.iscode(x) or inspect.iscode(y):
        return inspect.iscode(x) and inspect.iscode(y) and same_code(x, y)
    if type(x) is not type(y):
        return False
    if isinstance(x, tuple):
        return len(x) == len(y) and all(_same_constant(p, q) for p, q in zip(x, y))
    return repr(x) == repr(y) if isinstance(x, (float, complex)) else x == y


def _lambda_as_def(node):
    """`lambda x: e` as `def lambda_(x): return e`, keeping line numbers."""
    ret = ast.Return(value=node.body)
    ast.copy_location(ret, node.body)
    fdef = ast.FunctionDef(name="_lambda", args=node.args, body=[ret], decorator_list=[],
                           returns=None, type_comment=None, type_params=[])
    ast.copy_location(fdef, node)
    return fdef


def generated_filename(label):
    """A pseudo file name under which generated source is registered with linecache."""
    return f"<astjax:{label}:{os.urandom(3).hex()}>"
