"""Run every founding user program in ../shared/acceptance at ACCEPT_SCALE=0.1.

A program that needs a feature not built yet is a strict xfail naming that
feature, so the mark has to go the day the feature makes it pass.
"""
import os
import pathlib
import subprocess
import sys

import pytest

ACCEPTANCE = pathlib.Path(__file__).resolve().parents[2] / "shared" / "acceptance"
PROGRAMS = sorted(ACCEPTANCE.glob("seed_*.py")) if ACCEPTANCE.is_dir() else []

WAITING_FOR = {}


def _case(path):
    marks = []
    if path.name in WAITING_FOR:
        marks.append(pytest.mark.xfail(strict=True, reason=f"waits for {WAITING_FOR[path.name]}"))
    return pytest.param(path, id=path.stem, marks=marks)


@pytest.mark.skipif(not PROGRAMS, reason="../shared/acceptance is not beside the checkout")
@pytest.mark.parametrize("program", [_case(p) for p in PROGRAMS])
def test_acceptance_program(program):
    env = dict(os.environ, ACCEPT_SCALE="0.1", PYTHONPATH=str(pathlib.Path(__file__).resolve().parents[1]))
    result = subprocess.run([sys.executable, str(program)], cwd=program.parent, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{program.name} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
