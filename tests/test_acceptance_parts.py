"""The grad parts of seed_grad.py and seed_control_flow.py, run before jit exists.

Each program is run up to its first section that needs `jit` (the comment
line that starts it), on the reference backend. When jit lands, the whole
programs pass in test_acceptance.py and this file can go.
"""
import pathlib
import runpy
import sys

import pytest

ACCEPTANCE = pathlib.Path(__file__).resolve().parents[2] / "shared" / "acceptance"
CUTS = {
    "seed_grad.py": "# grad composes with jit",
    "seed_control_flow.py": "# Loops stay loops under jit",
}


@pytest.mark.skipif(not ACCEPTANCE.is_dir(), reason="../shared/acceptance is not beside the checkout")
@pytest.mark.parametrize("name", sorted(CUTS))
def test_grad_part_runs(name, tmp_path, monkeypatch):
    text = (ACCEPTANCE / name).read_text()
    assert CUTS[name] in text, f"{name} changed: update the cut line"
    part = text.split(CUTS[name])[0].replace("from astjax import grad, jit", "from astjax import grad")
    script = tmp_path / name
    script.write_text(part)
    monkeypatch.syspath_prepend(str(ACCEPTANCE))
    monkeypatch.setattr(sys, "argv", [str(script)])
    runpy.run_path(str(script), run_name="__main__")
