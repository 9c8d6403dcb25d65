"""docs/coverage.md is what `python -m astjax.coverage` writes now, and its statuses come from the registry."""
import numpy as np
import pytest

from astjax import coverage


def test_the_coverage_page_is_up_to_date():
    page = coverage.PAGE.read_text()
    installed = f"NumPy {np.__version__}, SciPy {coverage._scipy_version()}."
    if installed not in page:       # the page lists the names of the versions it was written under
        pytest.skip(f"docs/coverage.md was written under other NumPy/SciPy versions than {installed}")
    assert page == coverage.render(), (
        "docs/coverage.md is stale: run `python -m astjax.coverage` and commit the page")


def test_statuses_follow_the_registry():
    table = {title: {name: (kind, detail) for name, kind, detail in entries}
             for title, entries in coverage.rows().items()}
    assert set(table) == set(coverage.SECTIONS)
    assert table["numpy"]["sin"] == ("rules", "primitive `sin`")
    assert table["numpy"]["floor"][0] == "non-differentiable" and "piecewise constant" in table["numpy"]["floor"][1]
    assert table["jax.lax"]["stop_gradient"] == ("rules", "primitive `lax_stop_gradient`")
    assert table["jax.lax"]["conv_general_dilated"][0] == "rules"
    assert table["jax.lax"]["scan"][0] == "rules"
    assert table["jax.lax"]["scatter"] == ("not supported", "absent from astjax")
    assert table["jax.lax"]["custom_root"][0] == "rules" and "implicit function theorem" in table["jax.lax"]["custom_root"][1]
    for title, names in (("numpy", coverage._public_callables(np)), ("jax.nn", coverage.JAX_NN),
                         ("jax.lax", coverage.JAX_LAX)):
        assert sorted(table[title]) == sorted(names)
        assert all(kind in ("rules", "non-differentiable", "not supported") for kind, _ in table[title].values())
