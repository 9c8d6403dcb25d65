"""Import Numba for jit's first call without importing all of scipy.linalg.

Numba checks for BLAS when it loads its array functions (numba/np/arraymath.py runs
`import scipy.linalg.cython_blas`), and importing that submodule runs scipy.linalg's package
`__init__`, which imports most of SciPy's linear algebra and its array-API layer: about a third of
the Numba start-up that a new process's first jitted call pays, warm disk cache or not (0.1-0.3 s
measured), for code that may never call BLAS.

`load_numba()` gives the check what it looks for: the two extension modules `scipy.linalg.cython_blas`
and `cython_lapack` loaded from their files alone, placed in sys.modules while Numba imports its array
functions, then taken out again. Nothing else changes: code that calls BLAS imports the submodule
through the ordinary path when it runs (Numba's helpers do, at the first matrix product), scipy.linalg
then imports as usual, and the extension modules, which load once per process, are the same objects.
Where anything differs (no SciPy, the files not found, Numba's array functions or scipy.linalg already
imported) it does nothing and Numba imports as it always did.

The first matrix product of a process would import scipy.linalg all the same (0.15 s of CPU, more than a
warm first call's budget has to spare): Numba's C helper that finds BLAS's gemm (`numba_xxgemm`) looks it
up once per routine with `PyImport_ImportModule("scipy.linalg.cython_blas")`, which takes the module from
sys.modules when it is there. `blas_extensions_placed()` puts the same two extension modules back in
sys.modules around jit's first call of a signature (compiling it, and its first run, where the helper
looks gemm up) and takes them out after, so the package `__init__` runs only when something else imports
scipy.linalg. A routine first reached by a later call imports scipy.linalg then, as before.
"""
import importlib.machinery
import importlib.util
import os
import sys

__all__ = ["load_numba", "blas_extensions_placed"]

_DONE = []
_LOADED = {}        # the extension modules placed for Numba's import, to place again around first calls
_EXTENSIONS = ("cython_blas", "cython_lapack")


def load_numba():
    """Import Numba and its array functions (once per process), scipy.linalg left for when BLAS runs."""
    if _DONE:
        return
    placed = {}
    try:
        if "numba.np.arraymath" not in sys.modules and "scipy.linalg" not in sys.modules:
            placed = _place_extensions()
            _LOADED.update(placed)
        import numba.np.arraymath  # noqa: F401 -- its BLAS check finds the placed modules
    finally:
        for name, module in placed.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
    _DONE.append(True)


class blas_extensions_placed:
    """Within it, the BLAS and LAPACK extension modules loaded by load_numba are in sys.modules (where
    scipy.linalg is not imported yet), so Numba's gemm lookup does not import the package."""

    def __enter__(self):
        self.placed = {}
        if _LOADED and "scipy.linalg" not in sys.modules:
            for name, module in _LOADED.items():
                if name not in sys.modules:
                    sys.modules[name] = self.placed[name] = module
        return self

    def __exit__(self, *exc):
        if "scipy.linalg" in sys.modules:       # something imported the package meanwhile: it keeps them
            return False
        for name, module in self.placed.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
        return False


def _place_extensions():
    """{module name: module} of the BLAS and LAPACK extensions loaded alone into sys.modules, or {}."""
    placed = {}
    try:
        spec = importlib.util.find_spec("scipy")
        if spec is None or not spec.submodule_search_locations:
            return {}
        folder = os.path.join(list(spec.submodule_search_locations)[0], "linalg")
        suffixes = importlib.machinery.EXTENSION_SUFFIXES
        for short in _EXTENSIONS:
            name = f"scipy.linalg.{short}"
            if name in sys.modules:
                continue
            path = next((os.path.join(folder, short + s) for s in suffixes
                         if os.path.exists(os.path.join(folder, short + s))), None)
            if path is None:
                break
            module_spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            placed[name] = module
            module_spec.loader.exec_module(module)
    except Exception:        # noqa: BLE001 -- anything unexpected: Numba imports scipy.linalg as usual
        for name, module in placed.items():
            if sys.modules.get(name) is module:
                del sys.modules[name]
        return {}
    return placed
