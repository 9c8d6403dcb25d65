"""Print gast as Python source, turning comment markers into real comments."""
import ast
import math
import re

import gast
from .node_walk import NodeTransformer

__all__ = ["unparse", "parse_printed"]

_COMMENT = re.compile(r"^(\s*)__comment__\((.*)\)\s*$")


class _NegativeBases(NodeTransformer):
    """`(-1.0) ** n` whose -1.0 was folded into one constant: ast.unparse would print `-1.0 ** n`, which
    Python reads as -(1.0 ** n). The constant becomes `-(1.0)` again, which prints with parentheses."""

    def visit_BinOp(self, node):
        self.generic_visit(node)
        left = node.left
        if (isinstance(node.op, ast.Pow) and isinstance(left, ast.Constant) and isinstance(left.value, (int, float))
                and not isinstance(left.value, bool) and math.copysign(1, left.value) < 0):
            node.left = ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-left.value))
        return node


def unparse(node):
    """Python source for a gast node, with `__comment__('x')` lines printed as `# x`."""
    text = ast.unparse(ast.fix_missing_locations(_NegativeBases().visit(gast.gast_to_ast(node))))
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
