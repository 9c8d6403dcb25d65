"""Devices: where arrays live. Arrays live on the host CPU; `jit(f, backend="gpu")` runs on CUDA devices."""
import numpy as np

from .array import Array, cpu_device, wrap

__all__ = ["devices", "local_devices", "device_count", "local_device_count", "device_put", "device_get",
           "block_until_ready", "default_backend", "process_index"]


def devices(backend=None):
    """The devices of `backend`: "cpu" or None (the default, the CPU first), "gpu" or "cuda" (the CUDA
    devices numba.cuda sees: a RuntimeError, as JAX raises, when there are none)."""
    if backend in ("gpu", "cuda"):
        from .backends.cuda import gpu_devices
        return gpu_devices()
    if backend not in (None, "cpu"):
        raise RuntimeError(f"unknown backend {backend!r}: astjax has the 'cpu' backend and, with a CUDA "
                           f"device, 'gpu'")
    return [cpu_device]


def local_devices(process_index=None, backend=None):
    return devices(backend)


def device_count(backend=None):
    return len(devices(backend))


def device_put(x, device=None):
    """Place `x` (a pytree of arrays) on `device`: an astjax Array, keeping its dtype."""
    from .tree_util import tree_map
    if device is not None and device not in devices():
        raise ValueError(f"device_put: unknown device {device!r}; choose one of astjax.devices()")
    return tree_map(lambda leaf: leaf if isinstance(leaf, Array) else wrap(np.asarray(leaf)), x)


def local_device_count(backend=None):
    return len(local_devices(backend=backend))


def default_backend():
    """The platform name of the default backend: "cpu"."""
    return "cpu"


def process_index():
    """This process's index among the processes of a multi-host run: astjax runs one, index 0."""
    return 0


def device_get(x):
    """`x` (a pytree) with every array as a host NumPy array, as `jax.device_get`."""
    from .tree_util import tree_map
    return tree_map(lambda leaf: np.asarray(leaf) if isinstance(leaf, (Array, np.ndarray)) else leaf, x)


def block_until_ready(x):
    """`x`, once every array in it is computed (astjax computes eagerly, so at once), as
    `jax.block_until_ready`."""
    return x
