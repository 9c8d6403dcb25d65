"""A module imported on first attribute access, so that `import astjax` does not import SciPy.

    _sc = lazy_module("scipy.special")      # nothing imported yet
    _sc.gammaln(x)                          # imports scipy.special now, once

SciPy's special, linalg and stats modules take ~0.5 s to import; astjax's
implementations call them only when they run.
"""
import importlib

__all__ = ["lazy_module"]


class _LazyModule:
    """Stands for the module `name`; the first attribute read imports it."""

    __slots__ = ("_name", "_module")

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attribute):
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attribute)

    def __repr__(self):
        return f"<lazy module {self._name!r}{' (imported)' if self._module is not None else ''}>"


def lazy_module(name):
    """A stand-in for `importlib.import_module(name)` that imports it when an attribute is first read."""
    return _LazyModule(name)
