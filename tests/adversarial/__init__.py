"""The adversarial corpus: programs written as an attacker would, one module per category.

Each module defines its functions at module level (astjax reads their source)
and registers them with `case.case`; `CASES` lists them all. How a case is
judged lives in `harness.py`; the cases that fail today are listed in
`known_failures.KNOWN_FAILURES`.
"""
import importlib

from .case import CASES, Case  # noqa: F401

CATEGORIES = ("loops", "calls", "containers", "library", "identity", "scoping", "mutation", "impure",
              "rules", "api", "names", "names_range", "syntax", "control", "dtypes", "misc", "hidden",
              "realistic", "sweep", "semantics", "calls_more",
              "attacks", "spectral", "api_coverage", "vmap_collectives", "api_fill", "compositions", "edges",
              "lifted", "programs", "higher_order", "implicit", "vmap_axis_rules", "windows", "attacks5", "attacks6", "attacks7", "attacks8",
              "attacks9", "attacks10", "attacks12", "attacks14", "attacks16", "attacks18",
              "scilinalg")

for _name in CATEGORIES:
    try:
        importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as _exc:
        if _exc.name != f"{__name__}.{_name}":
            raise

__all__ = ["CASES", "Case", "CATEGORIES"]
