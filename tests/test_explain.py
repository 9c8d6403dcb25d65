"""astjax.explain: the user's function beside its derivative, block by block."""
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

ROOT = pathlib.Path(__file__).resolve().parents[1]


def rnn(W, h, xs):
    for x in xs:
        h = jnp.tanh(W @ h + x)
    return jnp.sum(h)


def _args():
    W = 0.5 * np.eye(3, dtype=np.float32)
    h = np.linspace(-1, 1, 3).astype(np.float32)
    return W, h, [h, 2 * h]


def _row(text, left_fragment):
    return next(line for line in text.splitlines() if left_fragment in line.split(" | ")[0])


def test_each_adjoint_block_sits_beside_the_line_it_comes_from():
    text = str(astjax.explain(astjax.grad(rnn), *_args()))
    assert "(specialized;" in text.splitlines()[0]
    reverse = text.split("# reverse sweep")[1]
    row = _row(reverse, "h = jnp.tanh(W @ h + x)")
    assert row.split(" | ")[1].strip() == "bWh_plus_x = bh * (1.0 - h * h)"
    assert "bh = W.T @ bWh_plus_x" in reverse
    assert "push(_tape, h)    # saved: the reverse sweep reads h after it is overwritten" in text


def test_the_general_form_and_the_other_stages():
    general = str(astjax.explain(astjax.grad(rnn)))
    assert "(optimized;" in general and "matmul_lhs_adjoint" in general
    assert "saved: Wh's shape" in general
    normalized = str(astjax.explain(astjax.grad(rnn), stage="normalized"))
    assert "one primitive" not in normalized and "_t2 = W @ h" in normalized
    numba = str(astjax.explain(astjax.grad(rnn), *_args(), stage="numba"))
    assert "_tape_h.append(h)" in numba
    with pytest.raises(ValueError, match="stage must be one of"):
        astjax.explain(astjax.grad(rnn), stage="ad")
    with pytest.raises(TypeError, match="needs example arguments"):
        astjax.explain(astjax.grad(rnn), stage="specialized")


def test_html_for_jupyter():
    page = astjax.explain(astjax.grad(rnn), *_args())._repr_html_()
    assert page.startswith("<p><b>") and "<table>" in page and "tanh" in page


def test_command_line(tmp_path):
    script = tmp_path / "model.py"
    script.write_text("import astjax.numpy as jnp\n\n\ndef f(x):\n    return jnp.sum(jnp.sin(x) * x)\n")
    run = subprocess.run([sys.executable, "-m", "astjax", "explain", f"{script}:f"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "return jnp.sum(jnp.sin(x) * x)" in run.stdout and "jnp.cos(x)" in run.stdout
    bad = subprocess.run([sys.executable, "-m", "astjax", "explain", f"{script}:g"], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert bad.returncode == 2 and "has no function 'g'" in bad.stdout
