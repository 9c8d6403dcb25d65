"""astjax.scipy: SciPy's API with JAX's dtypes, each function a primitive with derivative rules."""
from . import linalg  # noqa: F401

__all__ = ["linalg"]
