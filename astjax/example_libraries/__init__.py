"""Small libraries built on astjax, as jax.example_libraries has them: `optimizers`."""
from . import optimizers  # noqa: F401

__all__ = ["optimizers"]
