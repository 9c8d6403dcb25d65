"""jit: compile generated source for the CPU with Numba (see api.py, compiled.py, lower/)."""
from .api import Jitted, Lowered, compiled_version, disable_jit, jit

__all__ = ["jit", "disable_jit", "Jitted", "Lowered", "compiled_version"]
