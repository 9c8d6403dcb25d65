"""The documentation site builds with warnings as errors, the tutorial's code runs, the notebook executes."""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_docs_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extras are part of `pip install -e .[test]`")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                         cwd=ROOT, capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert (tmp_path / "site" / "tutorial" / "index.html").exists()
    assert "astjax.grad" in (tmp_path / "site" / "reference" / "index.html").read_text()


def test_tutorial_code_runs_in_order(capsys, tmp_path):
    text = (ROOT / "docs" / "tutorial.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 8
    module = tmp_path / "tutorial_cells.py"        # astjax reads the functions' source from a file
    module.write_text("\n\n".join(blocks))
    namespace = {"__name__": "tutorial"}
    exec(compile(module.read_text(), str(module), "exec"), namespace)
    assert "def grad_layer_loss" in capsys.readouterr().out


def test_classroom_notebook_executes():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.read(ROOT / "examples" / "classroom.ipynb", as_version=4)
    nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(ROOT / "examples")}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("text/html" in o.get("data", {}) for o in outputs)       # explain's table
