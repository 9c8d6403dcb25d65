"""Find a function's source and parse it with gast.

The whole file is parsed and the function's node located by line (and, for
several lambdas on one line, by comparing bytecode), so decorated functions,
nested functions and lambdas inside calls all work and every node keeps its
real line number in the user's file. Functions that astjax generated carry
their own FunctionSource, so transformations compose.
"""
import ast
import inspect
import linecache
import os

import gast

from ..errors import SourceUnavailableError

__all__ = ["FunctionSource", "function_source", "generated_filename"]


class FunctionSource:
    """A parsed function: its gast FunctionDef plus where it came from."""

    def __init__(self, node, fn, filename, first_line, generated=False):
        self.node = node
        self.fn = fn
        self.filename = filename
        self.first_line = first_line
        self.generated = generated

    @property
    def name(self):
        return self.node.name

    def file_line(self, lineno):
        return lineno

    def file_col(self, lineno, col):
        return col

    def line_text(self, lineno):
        """The stripped text of one line of the user's file ('' if unknown)."""
        return linecache.getline(self.filename, lineno).strip() if self.filename else ""

    def __repr__(self):
        return f"<FunctionSource {self.name} at {self.filename}:{self.first_line}>"


def function_source(fn):
    """The FunctionSource of a Python function, lambda, or generated function."""
    fn = inspect.unwrap(fn, stop=lambda f: hasattr(f, "__astjax_transform__"))
    generated = getattr(fn, "__astjax_function_source__", None)
    if generated is not None:
        return generated
    transform = getattr(fn, "__astjax_transform__", None)
    if transform is not None:
        return transform.composable_source()
    code = getattr(fn, "__code__", None)
    if code is None:
        raise SourceUnavailableError(
            f"{_describe(fn)} has no Python source: astjax transforms Python functions "
            "by reading their source code.",
            hint="wrap the call in a Python function (def f(x): return op(x)) and transform that.",
        )
    filename = code.co_filename
    node = _locate(_parse_file(filename, fn), code, fn)
    return FunctionSource(gast.ast_to_gast(node), fn, filename, code.co_firstlineno)


def _describe(fn):
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"`{name}`"


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
    index = _FILE_TREES.get(key)
    if index is None:
        index = _FILE_TREES[key] = _index_by_line(ast.parse(text, filename=filename))
    return index


def _index_by_line(tree):
    """Functions and lambdas of a parsed file by the line their code object starts on."""
    index = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Lambda):
            index.setdefault(node.lineno, []).append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            index.setdefault(first, []).append(node)
    return index


def _locate(index, code, fn):
    """The FunctionDef or Lambda node of `code` in a parsed file."""
    line = code.co_firstlineno
    is_lambda = code.co_name == "<lambda>"
    candidates = [node for node in index.get(line, ())
                  if (isinstance(node, ast.Lambda) if is_lambda else getattr(node, "name", None) == code.co_name)]
    if len(candidates) > 1:
        candidates = [n for n in candidates if _same_code(n, code)] or candidates[:1]
    if not candidates:
        raise SourceUnavailableError(
            f"cannot find the source of {_describe(fn)} in {code.co_filename} at line {line}: "
            "the file may have changed since the function was defined.",
            hint="re-import the module (or restart the interpreter) so the file and the function agree.",
        )
    node = candidates[0]
    if isinstance(node, ast.AsyncFunctionDef):
        raise SourceUnavailableError(f"{_describe(fn)} is an async function; astjax transforms plain functions.")
    if isinstance(node, ast.Lambda):
        node = _lambda_as_def(node)
    return node


def _same_code(node, code):
    """Whether compiling `node` gives the same bytecode as `code` (to tell lambdas apart)."""
    try:
        expr = ast.Expression(body=node) if isinstance(node, ast.Lambda) else ast.Module(body=[node], type_ignores=[])
        compiled = compile(ast.fix_missing_locations(expr), code.co_filename, "eval" if isinstance(node, ast.Lambda) else "exec")
    except (SyntaxError, ValueError, TypeError):
        return False
    for const in compiled.co_consts:
        if inspect.iscode(const) and const.co_code == code.co_code and const.co_names == code.co_names:
            return True
    return False


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
