"""What a GPU launcher calls: launch configuration, device buffers, the reductions' second pass.

Imported only when `jit(f, backend="gpu")` compiles something (it imports numba.cuda). Under
Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, how the tests run without a GPU) blocks are
small, since the simulator runs every thread as a Python thread.
"""
import math

import numpy as np
import numba
from numba import cuda

__all__ = ["THREADS", "Launch", "scalar_arg", "kernel_namespace", "simulated", "finisher", "quiet_launches"]


def simulated():
    """Whether numba.cuda is Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)."""
    import os
    return bool(getattr(numba.config, "ENABLE_CUDASIM", 0)) or os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"


THREADS = 8 if simulated() else 256        # threads per block (a power of two: the block reduction halves it)


def _multiprocessors():
    if simulated():
        return 1
    try:
        return int(cuda.get_current_device().MULTIPROCESSOR_COUNT)
    except Exception:          # noqa: BLE001 -- an unknown device: a safe guess
        return 16


_SM = []


def max_blocks(reduction):
    """Blocks of a grid-stride launch: enough to fill the device; fewer for a reduction, whose
    partial results the second pass combines in one block."""
    if simulated():
        return 2
    if not _SM:
        _SM.append(_multiprocessors())
    return _SM[0] * (8 if reduction else 32)


def blocks_for(size, reduction=False):
    return max(1, min(-(-size // THREADS), max_blocks(reduction)))


def kernel_namespace():
    """The names kernel text reads."""
    return {"cuda": cuda, "math": math, "float32": numba.float32, "float64": numba.float64}


def scalar_arg(value, dtype):
    """A host value as the kernel parameter of a computation in `dtype` (np.float32 or np.float64):
    Python numbers take the arrays' dtype (JAX's weak typing, as the reference backend computes),
    booleans stay booleans, and a NumPy or 0-d value must have that dtype or widen to it exactly."""
    if isinstance(value, np.ndarray):
        if value.ndim:
            raise ValueError("a kernel parameter must be a scalar")
        value = value.reshape(()).view(np.ndarray)[()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, float)) and not isinstance(value, np.generic):
        return dtype(value)
    if isinstance(value, np.generic) and value.dtype.kind in "iu":
        return dtype(value)
    if isinstance(value, np.generic) and value.dtype == np.dtype(dtype):
        return value
    if isinstance(value, np.generic) and value.dtype.kind == "f" and np.can_cast(value.dtype, dtype, "safe"):
        return dtype(value)          # a float32 number meeting float64 arrays: widening is exact, as the reference's
    from ..backends.cuda import GpuError
    raise GpuError(f"jit(backend=\"gpu\") computes in {np.dtype(dtype).name} here, and a "
                   f"{type(value).__name__} value meets it",
                   hint=f"pass {np.dtype(dtype).name} values, or run the function with astjax.jit(f) (CPU)")


_FINISH = """@cuda.jit
def finish_{kind}_{dtype}(partials, count, result, start):
    cache = cuda.shared.array({threads}, {total})
    t = cuda.threadIdx.x
    acc = start
    j = t
    while j < count:
        other = partials[j]
        acc = {combine_acc}
        j += {threads}
    cache[t] = acc
    cuda.syncthreads()
    step = {half}
    while step > 0:
        if t < step:
            other = cache[t + step]
            cache[t] = {combine_cache}
        cuda.syncthreads()
        step //= 2
    if t == 0:
        result[0] = cache[0]
"""
_FINISHERS = {}


def finisher(kind, dtype):
    """The second pass of a reduction: one block combines the blocks' partial results."""
    key = (kind, np.dtype(dtype).name)
    if key not in _FINISHERS:
        from ..jit.lower.cuda_kernels import _combine
        text = _FINISH.format(kind=kind, dtype=key[1], threads=THREADS, half=THREADS // 2,
                              total="float64" if kind == "sum" else key[1],
                              combine_acc=_combine(kind, "acc", "other"),
                              combine_cache=_combine(kind, "cache[t]", "other"))
        namespace = kernel_namespace()
        exec(compile(text, f"<astjax:cuda finish_{kind}_{key[1]}>", "exec"), namespace)   # noqa: S102
        _FINISHERS[key] = namespace[f"finish_{kind}_{key[1]}"]
    return _FINISHERS[key]


_START = {"sum": None, "max": -np.inf, "min": np.inf}
_NAMES = {"max": "maximum", "min": "minimum"}


class Launch:
    """One call's launches: `size` elements, device buffers kept by the compiled entry between calls."""

    def __init__(self, entry, size):
        self.entry, self.size = entry, size

    def reduce(self, kind, kernel, args):
        """A one-element device array holding the reduction `kind` of the elements `kernel` computes."""
        dtype = self.entry.dtype
        if kind != "sum" and self.size == 0:
            raise ValueError(f"zero-size array to reduction operation {_NAMES[kind]} which has no identity")
        blocks = blocks_for(self.size, reduction=True)
        total = np.float64 if kind == "sum" else dtype
        start = np.float64(0.0) if kind == "sum" else dtype(_START[kind])
        partials = self.entry.buffer(("partials", kernel), blocks, total)
        kernel[blocks, THREADS](self.size, *args, partials, start)
        result = self.entry.buffer(("result", kernel), 1, dtype)
        finisher(kind, dtype)[1, THREADS](partials, blocks, result, start)
        return result

    def output(self, k, leaf):
        """The device buffer of output `k` (result leaf `leaf`), of the reference's dtype."""
        spec = self.entry.leaf_specs[leaf]
        count = self.size if spec[0] == "array" else 1
        return self.entry.buffer(("output", k), count, np.dtype(spec[1]))

    def launch(self, kernel, args):
        kernel[blocks_for(self.size), THREADS](self.size, *args)


def quiet_launches():
    """Numba's advice on small grids concerns the size of the user's arrays, not a fault: out of sight."""
    import warnings
    manager = warnings.catch_warnings()
    manager.__enter__()
    warnings.filterwarnings("ignore", message=".*(under-utilization|low occupancy|copy overhead)")
    return manager

