"""astjax: JAX's transformations by source-to-source rewriting of Python.

`astjax.grad(f)` reads f's source, writes the source of its derivative, and
runs it; `astjax.source(astjax.grad(f))` shows that source.
"""
from . import numpy, random, tree, tree_util, lax, errors, rules  # noqa: F401 (the public submodules)
from . import debug, nn, scipy, flatten_util  # noqa: F401
from .array import Array, Device
from .custom_derivatives import custom_jvp, custom_vjp
from .api import grad, value_and_grad, vjp, source
from .jit import disable_jit, jit
from .parallel import pmap
from .forward import jvp, linearize, jacfwd, jacrev, jacobian, hessian
from .checkpoint import checkpoint, remat
from .vmap_api import vmap
from .devices import (devices, device_put, device_get, local_devices, device_count, local_device_count,
                      block_until_ready, default_backend, process_index)
from .errors import TransformError
from .teaching.explain import explain
from .config import config
from .callbacks import ShapeDtypeStruct, eval_shape, pure_callback

__version__ = "0.1.0"

__all__ = ["errors", "rules", "Array", "Device", "grad", "value_and_grad", "vjp", "jit", "disable_jit", "vmap", "pmap", "jvp", "linearize", "jacfwd", "jacrev", "jacobian", "hessian", "checkpoint", "remat", "source", "explain", "devices", "device_put", "device_get", "block_until_ready", "default_backend", "process_index",
           "local_device_count",
           "local_devices", "device_count", "custom_vjp", "custom_jvp", "numpy", "random", "tree", "tree_util", "lax", "TransformError",
           "nn", "scipy", "flatten_util", "config", "debug", "ShapeDtypeStruct", "eval_shape", "pure_callback"]
