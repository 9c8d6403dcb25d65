"""Generated-source snapshots of the teaching examples: readability regressions show up in review.

To accept a deliberate change, run `ASTJAX_UPDATE_SNAPSHOTS=1 pytest tests/test_snapshots.py`
and review the diff of tests/snapshots/.
"""
import importlib.util
import os
import pathlib

import pytest

import astjax

ROOT = pathlib.Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "snapshots"


def _teaching():
    spec = importlib.util.spec_from_file_location("teaching", ROOT / "examples" / "teaching.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


TEACHING = _teaching()


@pytest.mark.parametrize("name", sorted(TEACHING.EXAMPLES))
def test_generated_source_matches_snapshot(name):
    fn, args = TEACHING.EXAMPLES[name]
    grad_fn = astjax.grad(fn)
    grad_fn(*args)
    text = astjax.source(grad_fn)
    path = SNAPSHOTS / f"grad_{name}.py.txt"
    if os.environ.get("ASTJAX_UPDATE_SNAPSHOTS"):
        path.write_text(text)
    assert path.exists(), f"no snapshot for {name}: run with ASTJAX_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text()


@pytest.mark.parametrize("name", sorted(TEACHING.SPECIALIZED))
def test_specialized_source_matches_snapshot(name):
    transform, fn, args = TEACHING.SPECIALIZED[name]
    text = astjax.source(transform(fn), *args)
    assert "(printed in its general form" not in text
    path = SNAPSHOTS / f"{name}_specialized.py.txt"
    if os.environ.get("ASTJAX_UPDATE_SNAPSHOTS"):
        path.write_text(text)
    assert path.exists(), f"no snapshot for {name}: run with ASTJAX_UPDATE_SNAPSHOTS=1"
    assert text == path.read_text()


def test_examples_run():
    import runpy
    for script in ("teaching.py", "readme_example.py", "forward_and_hessian.py"):
        runpy.run_path(str(ROOT / "examples" / script), run_name="__main__")


def test_readme_shows_the_source_astjax_writes():
    """The generated source printed in README.md is the one astjax writes for its example."""
    import runpy
    readme = (ROOT / "README.md").read_text()
    start = readme.index("```python\ndef grad_loss")
    shown = readme[start + len("```python\n"):readme.index("```", start + 3)]
    example = runpy.run_path(str(ROOT / "examples" / "readme_example.py"))
    assert astjax.source(astjax.grad(example["loss"])).strip() == shown.strip()
