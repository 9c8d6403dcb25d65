"""Whether a module is Python's standard library: told by where its file lies, not by its name alone.

A user's module may share a standard module's name (`wave.py`, `queue.py`, `test.py` beside the script
that imports it): `sys.stdlib_module_names` lists the name, but the module loaded under it is the user's,
and its functions are the user's code to transform, not library calls to refuse.
"""
import functools
import os
import sys
import sysconfig

__all__ = ["is_standard_library"]


@functools.lru_cache(maxsize=None)
def _standard_directories():
    paths = sysconfig.get_paths()
    return tuple(os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib") if paths.get(key))


def is_standard_library(module_name):
    """Whether `module_name` (dotted) belongs to the standard library as loaded: its top-level name is a
    standard module's, and the module under that name is built in or has its file in the standard
    library's directories (outside site-packages)."""
    root = (module_name or "").partition(".")[0]
    if not root or root in ("__main__", "builtins") or root not in sys.stdlib_module_names:
        return False
    module = sys.modules.get(root)
    filename = getattr(module, "__file__", None) if module is not None else None
    if not filename:          # built in (sys, math), or not loaded yet: the standard one
        return True
    real = os.path.realpath(filename)
    return any(real.startswith(directory + os.sep) and "site-packages" not in real[len(directory):]
               for directory in _standard_directories())
