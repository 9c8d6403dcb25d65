"""A transformed function shown in Jupyter is the source astjax wrote for it (teaching/display.py)."""
import astjax
import astjax.numpy as jnp


def sin_times(x):
    return jnp.sin(x) * x


def broken(x):
    return x.no_such_method()


def test_grad_displays_its_generated_source_as_markdown_and_html():
    g = astjax.grad(sin_times)
    markdown = g._repr_markdown_()
    assert markdown.startswith("```python\ndef grad_sin_times(x):") and "jnp.cos(x)" in markdown
    assert markdown.rstrip().endswith("```")
    html = g._repr_html_()
    assert "grad_sin_times" in html and "<pre" in html and "<script" not in html
    assert astjax.value_and_grad(sin_times)._repr_markdown_().startswith("```python\n")


def test_second_order_displays_its_own_source_not_the_inner_one():
    assert "def grad_grad_sin_times" in astjax.grad(astjax.grad(sin_times))._repr_markdown_()


def test_a_function_astjax_cannot_differentiate_displays_nothing_special():
    g = astjax.grad(broken)
    assert g._repr_html_() is None and g._repr_markdown_() is None
