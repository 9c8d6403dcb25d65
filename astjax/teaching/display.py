"""Transformed functions shown in a notebook as the source astjax wrote for them.

`astjax.grad(f)` as the last expression of a Jupyter cell shows the generated derivative (highlighted
with Pygments where it is installed), in the general form `astjax.source(grad(f))` prints. IPython
looks up `_repr_html_` / `_repr_markdown_` on the object itself, so a plain function carries them as
attributes. A function whose source cannot be generated shows nothing special (IPython falls back to
its repr): displaying must never raise.
"""
import html

__all__ = ["add_notebook_display"]


def add_notebook_display(fn):
    """Give the transformed function `fn` `_repr_html_` and `_repr_markdown_`; return it."""
    fn._repr_html_ = lambda: _html(_source_or_none(fn))
    fn._repr_markdown_ = lambda: _markdown(_source_or_none(fn))
    return fn


def _source_or_none(fn):
    from ..api import source
    try:
        return source(fn)
    except Exception:        # noqa: BLE001 -- a display falls back to repr rather than raising
        return None


def _html(text):
    if text is None:
        return None
    from .explain import _highlight
    return _highlight(text.splitlines())


def _markdown(text):
    return None if text is None else f"```python\n{text.rstrip()}\n```\n"
