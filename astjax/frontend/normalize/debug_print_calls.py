"""`debug.print(fmt, *args, **kwargs)` becomes the `print` of the f-string it formats.

    debug.print("loss {} at {step}", loss, step=i)    ->   print(f'loss {loss} at {i}')

astjax runs the function as Python, so jax.debug.print's spelling means what `print` means: kept
wherever primal values are computed (the cleanup passes never drop a `print`), refused under jit as
`print` is. The generated source shows the `print` a reader would write.
"""
import string

import gast

from ... import debug
from .base import Pass, copy_location, name

__all__ = ["DebugPrintCalls"]

_CONVERSIONS = {None: -1, "s": ord("s"), "r": ord("r"), "a": ord("a")}


class DebugPrintCalls(Pass):
    """Rewrite calls of astjax.debug.print into `print(f"...")` (`ordered=` is dropped)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.context.resolver.static_value(node.func) is not debug.print:
            return node
        fmt = node.args[0] if node.args else None
        if not (isinstance(fmt, gast.Constant) and isinstance(fmt.value, str)) or any(
                isinstance(a, gast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise self.error("`debug.print` is rewritten into `print` of an f-string: it needs a literal format "
                             "string first and its values as plain positional or keyword arguments", node,
                             'write `debug.print("x = {}", x)`, or `print(f"x = {x}")`')
        keywords = {k.arg: k.value for k in node.keywords if k.arg != "ordered"}
        pieces = self._pieces(fmt.value, node.args[1:], keywords, node)
        return copy_location(gast.Call(func=name("print"), args=[gast.JoinedStr(values=pieces)], keywords=[]), node)

    def _pieces(self, text, positional, keywords, node):
        pieces, automatic = [], 0
        for literal, field, spec, conversion in string.Formatter().parse(text):
            if literal:
                pieces.append(gast.Constant(value=literal, kind=None))
            if field is None:
                continue
            if field == "":
                index, automatic = automatic, automatic + 1
                value = positional[index] if index < len(positional) else None
            elif field.isdigit():
                value = positional[int(field)] if int(field) < len(positional) else None
            else:
                value = keywords.get(field)
            if value is None or "{" in (spec or ""):
                raise self.error(f"`debug.print`'s field `{{{field}}}` names no argument given, or nests a field "
                                 f"in its format spec", node, "give each field a value; write the spec out")
            spec_node = gast.JoinedStr(values=[gast.Constant(value=spec, kind=None)]) if spec else None
            pieces.append(gast.FormattedValue(value=value, conversion=_CONVERSIONS[conversion], format_spec=spec_node))
        return pieces
