"""`astjax.explain(grad(f), *args)`: the user's function beside the derivative written from it.

The generated source marks each block it writes for a user line with a
`# from line N: <that line>` comment. explain splits the derivative at those
comments and lays each block beside the line it came from: first the forward
sweep (the function run again, saving what the reverse sweep reads), then the
reverse sweep from the last line to the first. A save (`push(_tape, h)`,
`h_saved.append(h)`) is labelled with why it is there.

    stage="optimized"     the generated source as it runs for any shape (default without arguments)
    stage="specialized"   specialized to the example arguments (default with them)
    stage="normalized"    the user's function after normalization: one primitive per statement
    stage="numba"         what jit compiles for the example arguments
"""
import html
import linecache
import re

import gast

__all__ = ["explain", "Explanation"]

STAGES = ("optimized", "specialized", "normalized", "numba")
_FROM_LINE = re.compile(r"^\s*# from line (\d+): (.*)$")
_PUSH = re.compile(r"^(\s*)push\((\w+), (.*)\)$")
_APPEND = re.compile(r"^(\s*)(\w+)\.append\((\w+)\)$")        # `a_saved.append(a)` (saved_lists.py)


class Explanation:
    """Sections of (left lines, right lines): printed as two columns, or as an HTML table in Jupyter."""

    def __init__(self, title, sections, headers):
        self.title = title
        self.sections = sections          # [(caption, left lines, right lines)]
        self.headers = headers            # (left header, right header)

    def __str__(self):
        width = min(max([len(self.headers[0])] + [len(l) for _, left, _ in self.sections for l in left]), 56)
        out = [self.title, "", f"{self.headers[0]:<{width}} | {self.headers[1]}", "-" * (width + 3 + 40)]
        for caption, left, right in self.sections:
            if caption:
                out.append(f"{'':<{width}} | # {caption}")
            for i in range(max(len(left), len(right))):
                l = left[i] if i < len(left) else ""
                r = right[i] if i < len(right) else ""
                out.append(f"{_clip(l, width):<{width}} | {r}".rstrip())
            out.append(f"{'':<{width}} |")
        return "\n".join(out).rstrip(" |\n") + "\n"

    __repr__ = __str__

    def _repr_html_(self):
        rows = [f"<tr><th>{html.escape(self.headers[0])}</th><th>{html.escape(self.headers[1])}</th></tr>"]
        for caption, left, right in self.sections:
            if caption:
                rows.append(f"<tr><td></td><td><i>{html.escape(caption)}</i></td></tr>")
            rows.append(f"<tr><td style='vertical-align:top'>{_highlight(left)}</td>"
                        f"<td style='vertical-align:top'>{_highlight(right)}</td></tr>")
        return f"<p><b>{html.escape(self.title)}</b></p><table>{''.join(rows)}</table>"


def explain(fun, *example_args, stage=None, **example_kwargs):
    """The user's function beside the derivative astjax wrote for `fun` (a transformed function)."""
    from ..api import source
    from ..arguments import name_of
    transform = getattr(fun, "__astjax_transform__", None)
    user = getattr(transform, "fun", None)
    if transform is None or user is None:
        raise TypeError(f"explain needs a transformed function, e.g. astjax.explain(astjax.grad(f)); got {name_of(fun)}")
    stage = stage or ("specialized" if example_args or example_kwargs else "optimized")
    if stage not in STAGES:
        raise ValueError(f"stage must be one of {', '.join(map(repr, STAGES))}, got {stage!r}")
    if stage in ("specialized", "numba") and not (example_args or example_kwargs):
        raise TypeError(f"stage={stage!r} needs example arguments: astjax.explain(fun, *args, stage={stage!r})")
    left, where = _user_lines(_innermost(user))
    if stage == "normalized":
        text = _normalized(user)
    elif stage == "numba":
        from ..jit import jit
        text = jit(fun).lower(*example_args, **example_kwargs).source
    else:
        text = source(fun, *(example_args if stage == "specialized" else ()),
                      **(example_kwargs if stage == "specialized" else {}))
    main = _first_function(text)
    title = f"{main[0].strip() if main else name_of(fun)}   ({stage}; your function: {where})"
    if stage in ("normalized", "numba"):
        return Explanation(title, [(None, left, main)], ("your function", stage))
    return Explanation(title, _pair(left, main, user), ("your function", "its derivative"))


def _innermost(fn):
    """The user's own function under a transformation of a transformation: grad(grad(f)) differentiates
    the derivative astjax wrote for f, whose `# from line N` comments name f's lines."""
    for _ in range(16):
        inner = getattr(getattr(fn, "__astjax_transform__", None), "fun", None)
        if inner is None or inner is fn:
            return fn
        fn = inner
    return fn


def _user_lines(fn):
    from ..frontend.parse import function_source
    found = function_source(fn)
    node = found.node
    first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    lines = linecache.getlines(found.filename)[first - 1:node.end_lineno]
    numbered = [f"{first + i:>4}  {line.rstrip()}" for i, line in enumerate(lines)]
    return numbered, f"{found.filename}:{node.lineno}"


def _normalized(fn):
    from ..codegen.unparse import unparse
    from ..frontend.context import FunctionContext
    from ..frontend.normalize import normalize
    from ..frontend.parse import function_source
    found = function_source(fn)
    return unparse(normalize(found.node, FunctionContext(found)))


def _first_function(text):
    """The lines of the first function in `text` (the main generated function, without its header comments)."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("def ")), None)
    if start is None:
        return []
    end = next((i for i in range(start + 1, len(lines)) if lines[i] and not lines[i][0].isspace()), len(lines))
    return [line for line in lines[start:end] if line.strip()]


def _pair(left, main, user):
    """Sections: the forward sweep beside the whole function, then one per `# from line N` block."""
    by_number = {int(line.split()[0]): line for line in left}
    sections, caption, block, current = [], "forward sweep: your function runs, saving what the reverse sweep reads", [], left
    for line in main[1:]:
        match = _FROM_LINE.match(line)
        if match:
            headers = _opening_headers(block, len(line) - len(line.lstrip()))
            if block:
                sections.append((caption, current, block))
            number = int(match.group(1))
            current = [by_number.get(number, f"{number:>4}  {match.group(2)}")]
            caption, block = None, headers
            if not any(s[0] and s[0].startswith("reverse") for s in sections):
                caption = "reverse sweep: from your last line back to your first, each adjoint beside its line"
            continue
        block.append(_labelled(line))
    if block:
        sections.append((caption, current, block))
    return sections


def _opening_headers(block, indent):
    """Pop from `block` the `if ...:` / `elif ...:` / `else:` lines that open the block a comment at `indent` is in.

    A branch printed as one `if` holding its forward and reverse halves (fused_branches.py) opens in
    one section and continues in the next: its header goes with the lines it governs."""
    headers = []
    while block and _branch_header(block[-1]) and len(block[-1]) - len(block[-1].lstrip()) < indent:
        headers.insert(0, block.pop())
        indent = len(headers[0]) - len(headers[0].lstrip())
    return headers


def _branch_header(line):
    text = line.strip()
    return text.endswith(":") and (text.startswith(("if ", "elif ")) or text == "else:")


def _labelled(line):
    match = _PUSH.match(line)
    listed = _APPEND.match(line)
    if listed and listed.group(2).startswith(listed.group(3) + "_saved"):
        return f"{line}    # saved: the reverse sweep reads {listed.group(3)} after it is overwritten"
    if not match:
        return line
    shape_of = re.fullmatch(r"jnp\.shape\((\w+)\)", match.group(3))
    if shape_of:
        return f"{line}    # saved: {shape_of.group(1)}'s shape, for the reverse sweep, before it is overwritten"
    return f"{line}    # saved: the reverse sweep reads {match.group(3)} after it is overwritten"


def _clip(text, width):
    return text if len(text) <= width else text[:width - 1] + "…"


def _highlight(lines):
    code = "\n".join(lines)
    try:
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
    except ImportError:
        return f"<pre>{html.escape(code)}</pre>"
    return highlight(code, PythonLexer(), HtmlFormatter(noclasses=True, nowrap=False))
