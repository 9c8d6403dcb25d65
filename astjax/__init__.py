"""astjax: JAX's transformations by source-to-source rewriting of Python."""
from .array import Array, Device
