"""codegen/readable_names.py: names of temporaries, and the user's names they must leave alone."""
import gast

from astjax.codegen.readable_names import name_temporaries
from astjax.codegen.unparse import unparse


def _renamed(text, protected):
    node = gast.parse(text).body[0]
    name_temporaries(node, protected=set(protected))
    return unparse(node)


def test_the_saved_shape_of_a_users_name_shaped_like_a_tangent_keeps_its_name():
    text = ("def g(x):\n    _t4 = x[2]\n    d_t4 = x * 2.0\n    d_t4_shape = jnp.shape(d_t4)\n"
            "    return d_t4_shape, _t4\n")
    out = _renamed(text, {"x", "d_t4"})
    assert "x_2 = x[2]" in out                 # the temporary is named after what it holds
    assert "d_t4_shape = jnp.shape(d_t4)" in out and "dx_2_shape" not in out


def test_a_value_written_into_an_item_is_named_after_the_array():
    text = "def g(h, t, a, b):\n    _t1 = jnp.dot(a, b) + jnp.sin(h[t])\n    h = at_set(h, t, _t1)\n    return h\n"
    assert "h_item = " in _renamed(text, {"h", "t", "a", "b"})
