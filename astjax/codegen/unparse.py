"""Print gast as Python source, turning comment markers into real comments."""
import ast
import re

import gast

__all__ = ["unparse", "parse_printed"]

_COMMENT = re.compile(r"^(\s*)__comment__\((.*)\)\s*$")


def unparse(node):
    """Python source for a gast node, with `__comment__('x')` lines printed as `# x`."""
    text = ast.unparse(ast.fix_missing_locations(gast.gast_to_ast(node)))
    lines = []
    for line in text.splitlines():
        match = _COMMENT.match(line)
        if match:
            lines.append(f"{match.group(1)}# {ast.literal_eval(match.group(2))}")
        else:
            lines.append(line)
    return "\n".join(lines) + "\n"


_COMMENT_LINE = re.compile(r"^(\s*)# (.*)$")


def parse_printed(text):
    """The inverse of `unparse`: a module parsed from printed source, its `# x` lines as comment markers
    (one line each, so every other node keeps its line and column)."""
    lines = []
    for line in text.splitlines():
        match = _COMMENT_LINE.match(line)
        lines.append(f"{match.group(1)}__comment__({match.group(2)!r})" if match else line)
    return gast.parse("\n".join(lines) + "\n")
