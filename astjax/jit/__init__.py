"""jit: compile generated source for the CPU with Numba (see api.py, compiled.py, lower/)."""
from .api import Jitted, Lowered, compiled_version, jit

__all__ = ["jit", "Jitted", "Lowered", "compiled_version"]
