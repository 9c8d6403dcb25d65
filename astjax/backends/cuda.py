"""The CUDA backend: `jit(f, backend="gpu")` compiles elementwise programs and full reductions with
Numba CUDA, once per signature, and checks each signature's first result against the reference.

The first call of a signature (argument dtypes and ranks, Python-number kinds, static values)
runs the generated function on the reference backend while observing its variables' types (as
the CPU jit does), reads the specialized source as a GPU program (jit/lower/cuda_program.py),
writes its kernels and launcher (jit/lower/cuda_kernels.py), runs them, and compares the result
with the reference's: shapes, dtypes and values to rounding, or a JitError. Later calls of the
signature run the kernels directly. The compiled signatures are kept in memory only (no disk
cache yet).

Arguments: NumPy and astjax arrays are copied to the device on every call; Numba device arrays
(and other `__cuda_array_interface__` arrays) are read in place. Results come back to the host as
astjax Arrays, float32 staying float32.
"""
import copy
import threading

import numpy as np

from ..array import Array, Device, wrap
from ..jit.compiled import PerSignature
from .numba_cpu import JitError

__all__ = ["GpuError", "CudaFunction", "gpu_devices", "available", "is_device_array"]


class GpuError(JitError):
    """jit(backend="gpu") cannot compile or run this function on the GPU."""


def available():
    """Whether Numba sees a CUDA device (or runs its CUDA simulator)."""
    try:
        from numba import cuda
    except Exception:       # noqa: BLE001 -- Numba without its CUDA part: no GPU
        return False
    try:
        return bool(cuda.is_available())
    except Exception:       # noqa: BLE001 -- no driver
        return False


class GpuDevice(Device):
    """A CUDA device as `astjax.devices("gpu")` lists it."""

    def __init__(self, id, kind):
        super().__init__("gpu", id)
        self._kind = kind

    @property
    def device_kind(self):
        return self._kind

    def __repr__(self):
        return f"CudaDevice(id={self.id})"


def gpu_devices():
    """The CUDA devices Numba sees, or a RuntimeError as JAX raises when there are none."""
    if not available():
        raise RuntimeError("Unknown backend: 'gpu' requested, but no platforms that are instances of gpu are "
                           "present. Platforms present are: cpu (astjax found no CUDA device through "
                           "numba.cuda.is_available())")
    from numba import cuda
    out = []
    for k, gpu in enumerate(cuda.gpus):
        name = getattr(gpu, "name", None) or "CUDA device"
        out.append(GpuDevice(getattr(gpu, "id", k), name.decode() if isinstance(name, bytes) else str(name)))
    return out


def is_device_array(value):
    """A Numba device array, or any array with the CUDA array interface (CuPy's)."""
    return hasattr(value, "__cuda_array_interface__") or (hasattr(value, "copy_to_host") and hasattr(value, "shape"))


class CudaFunction(PerSignature):
    """`generated` (a function with generated source) compiled for the GPU per signature; called like it."""

    def __init__(self, generated, static=()):
        super().__init__(generated, static)
        self.lock = threading.Lock()     # an entry's device buffers serve one call at a time

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != len(self.parameters):
            args = self._positional(args, kwargs)
        key = self._key(args)
        with self.lock:
            entry = self.entries.get(key)
            if entry is None:
                return self._first_call(key, args)
            return entry.run(args)

    def _key(self, args):
        from ..jit.compiled import _signature, _static_key
        key = []
        for name, a in zip(self.parameters, args):
            if name in self.static:
                key.append(_static_key(a))
            elif is_device_array(a):
                key.append(("array", np.dtype(a.dtype).name, len(a.shape)))
            else:
                key.append(_signature(a))
        return tuple(key) + (len(args),)

    def _first_call(self, key, args):
        from ..jit.compiled import _check_agrees, _is_generated, _location
        from ..jit.observe import abstract, observe
        host_args = [_to_host(a) for a in args]
        expected, observed = observe(self.generated, host_args, {}, _is_generated)
        where = _location(self.generated)
        try:
            entry = _build(self.generated, observed, expected, where)
        except JitError as exc:
            if exc.filename is None and where is not None:
                raise GpuError(exc.reason, where, exc.hint) from None
            raise exc.with_traceback(None) from None
        entry.where = where
        try:
            got = entry.run(args)
        except JitError:
            raise
        except Exception as exc:
            if type(exc).__module__.startswith("numba"):
                raise GpuError(f"jit(backend=\"gpu\") could not compile the kernels with Numba CUDA: "
                               f"{_first_line(exc)}", where, "run it with astjax.jit(f) (CPU), and please "
                                                             "report it") from None
            raise
        _check_agrees(got, expected, self.generated)
        entry.out_spec = abstract(expected)
        self.entries[key] = entry
        return got


def _first_line(exc):
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0][:300] if lines else type(exc).__name__


def _to_host(value):
    if is_device_array(value):
        if hasattr(value, "copy_to_host"):
            return wrap(np.asarray(value.copy_to_host()))
        from numba import cuda
        return wrap(np.asarray(cuda.as_cuda_array(value).copy_to_host()))
    return value


def _build(generated, observed, expected, where):
    """The _Entry of `generated` for the observed signature."""
    from ..errors import trace_to_user
    from ..jit.lower import LoweringContext
    from ..jit.lower.cuda_kernels import write_kernels
    from ..jit.lower.cuda_program import SCOPE, HINT, read_program
    from ..jit.lower.inline_callees import inline_callees
    from ..jit.lower.typed_placeholders import type_placeholders
    from ..jit.lower.weak_scalars import cast_weak_scalars
    from ..jit.observe import abstract
    from ..runtime import cuda_launch

    filename = generated.__code__.co_filename

    def error(message, node, hint):
        line = getattr(node, "lineno", None)
        location = trace_to_user(filename, line) if line else None
        return GpuError(message, location or where, hint)

    context = LoweringContext(generated, observed.for_code(generated.__code__), error)
    array_types = {t for types in context.types.values() for t in types if t[0] == "array"}
    dtypes = {t[1] for t in array_types} - {"bool"}          # comparisons' masks are computed per element too
    if len(dtypes) != 1 or not dtypes <= {"float32", "float64"}:
        what = ", ".join(sorted(dtypes)) or "no arrays"
        raise GpuError(f"jit(backend=\"gpu\") cannot lower a function whose arrays are {what}: {SCOPE}", where, HINT)
    dtype = dtypes.pop()
    node = copy.deepcopy(context.source.node)
    inline_callees(node, context)
    type_placeholders(node, context)
    cast_weak_scalars(node, context)
    program = read_program(node, context, dtype)
    kernels = write_kernels(program, cuda_launch.THREADS)
    namespace = dict(generated.__globals__)          # the launcher's: host arithmetic as the reference's
    namespace.update(context.bindings)
    namespace.update({"np": np, "math": __import__("math"), "scalar_arg": cuda_launch.scalar_arg,
                      program.dtype: getattr(np, program.dtype)})
    texts = []
    for label, text in kernels.kernels:
        kernel_names = cuda_launch.kernel_namespace()       # the kernels': numba.float32, cuda, math
        exec(compile(text, f"<astjax:cuda {label}>", "exec"), kernel_names)       # noqa: S102
        namespace[label] = kernel_names[label]
        texts.append(text)
    exec(compile(kernels.launcher, f"<astjax:cuda {kernels.launcher_name}>", "exec"), namespace)  # noqa: S102
    launcher = namespace[kernels.launcher_name]
    text = "\n\n".join([kernels.launcher] + texts)
    leaves = _leaves(expected)
    return _Entry(launcher, text, program, [abstract(v) for v in leaves], abstract(expected))


def _leaves(tree):
    if isinstance(tree, tuple):
        return [leaf for item in tree for leaf in _leaves(item)]
    return [tree]


class _Entry:
    """One compiled signature: the launcher, its device buffers, and how results come back."""

    def __init__(self, launcher, text, program, leaf_specs, out_spec):
        self.launcher, self.text = launcher, text
        self.dtype = getattr(np, program.dtype)
        self.array_positions = [program.params.index(p) for p in program.array_params]
        self.leaf_specs, self.out_spec = leaf_specs, out_spec
        self.buffers = {}
        self.where = None             # the user's function, for errors raised while running

    def buffer(self, key, count, dtype):
        """A device buffer kept between calls (results are copied to the host before the next call)."""
        from numba import cuda
        held = self.buffers.get(key)
        if held is None or held.shape[0] != count or held.dtype != np.dtype(dtype):
            held = self.buffers[key] = cuda.device_array(count, dtype=dtype)
        return held

    def run(self, args):
        try:
            return self._run(args)
        except GpuError as exc:
            if exc.filename is None and self.where is not None:        # name the user's function
                raise GpuError(exc.reason, self.where, exc.hint) from None
            raise

    def _run(self, args):
        from ..runtime.cuda_launch import Launch, quiet_launches
        values = list(args)
        shape = None
        for position in self.array_positions:
            array, values[position] = self.to_device(position, args[position])
            if shape is None:
                shape = tuple(array.shape)
            elif tuple(array.shape) != shape:
                raise GpuError(f"jit(backend=\"gpu\") runs elementwise programs over arrays of one shape; the "
                               f"arguments have shapes {shape} and {tuple(array.shape)}",
                               hint="broadcast the arguments to one shape first (jnp.broadcast_to), or run it "
                                    "with astjax.jit(f) (CPU)")
        size = int(np.prod(shape, dtype=np.int64))
        quiet = quiet_launches()
        try:
            out = self.launcher(Launch(self, size), *values)
        finally:
            quiet.__exit__(None, None, None)
        leaves = iter(self.leaf_specs)
        return _from_device(out, leaves, shape)

    def to_device(self, position, value):
        """(the argument as given, its flat device array); a device array is read in place."""
        from numba import cuda
        if is_device_array(value):
            device = value if hasattr(value, "copy_to_host") else cuda.as_cuda_array(value)
            if np.dtype(device.dtype) != np.dtype(self.dtype):
                raise GpuError(f"a device array of {np.dtype(device.dtype).name} where this signature compiled "
                               f"{np.dtype(self.dtype).name}", hint="pass arrays of one dtype")
            if len(device.shape) > 1 and not _c_contiguous(device):
                raise GpuError("jit(backend=\"gpu\") reads device arrays in place, and this one is not "
                               "C-contiguous", hint="pass a contiguous array (a copy)")
            return device, device.reshape(int(np.prod(device.shape, dtype=np.int64)))
        host = np.ascontiguousarray(np.asarray(value).view(np.ndarray) if isinstance(value, Array)
                                    else np.asarray(value))
        flat = host.reshape(-1)
        buffer = self.buffer(("argument", position), flat.shape[0], host.dtype)
        if flat.shape[0]:
            buffer.copy_to_device(flat)
        return host, buffer


def _c_contiguous(device):
    flags = getattr(device, "flags", None)
    if flags is not None and "C_CONTIGUOUS" in flags:
        return bool(flags["C_CONTIGUOUS"])
    checker = getattr(device, "is_c_contiguous", None)
    return bool(checker()) if checker is not None else True


def _from_device(value, specs, shape):
    """The launcher's result as the reference gives it: host Arrays of the reference's dtypes."""
    if isinstance(value, tuple):
        return tuple(_from_device(v, specs, shape) for v in value)
    spec = next(specs)
    if is_device_array(value):
        host = value.copy_to_host()
        if spec[0] == "array":
            return wrap(host.reshape(shape))
        return wrap(np.asarray(host[0], dtype=spec[1]))
    if spec[0] in ("array", "scalar") and not isinstance(value, (bool, int, float)):
        return wrap(np.asarray(value, dtype=spec[1]))
    return value
