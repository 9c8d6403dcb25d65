"""astjax.jit: compile a function, or a transformed one, for the CPU with Numba.

`jit(f)` compiles the normalized source of f; `jit(grad(f))` compiles the
generated derivative source and keeps grad's own handling of arguments and
results around it. Either way each signature compiles once, is checked once
against the reference backend, and later calls run the compiled code. What
jit cannot compile is refused at the user's line (see backends/numba_cpu.py),
never run slowly behind the user's back.
"""
import contextlib
import contextvars
import functools
import inspect
import numbers
import weakref

import numpy as np

from ..array import Array, wrap
from ..arguments import check_callable, name_of
from ..errors import api_boundary
from ..backends.numba_cpu import JitError
from .compiled import CompiledFunction
from .fast_dispatch import MISS

__all__ = ["jit", "Jitted", "compiled_version", "StaticArgumentError"]

_ACTIVE = contextvars.ContextVar("astjax_jit_swaps", default=None)


def jit(fun=None, *, static_argnums=None, static_argnames=None, donate_argnums=None, donate_argnames=None,
        keep_unused=False, device=None, backend=None, inline=False):
    """Compile `fun` with Numba, once per signature (argument dtypes, ranks and static values).

    `backend="gpu"` (or "cuda", or a GPU `device`) compiles elementwise programs and full reductions
    into CUDA kernels (astjax/backends/cuda.py, docs/gpu.md) and refuses anything else at its line.

    Like `jax.jit`: usable as `@jit`, `jit(f)` or `@jit(static_argnums=...)`; static arguments are
    compiled into the code (they must be hashable) and the others may change freely, shapes included.
    Python loops stay loops: the trip count is a runtime value. `donate_argnums` is accepted; the
    CPU backend does not reuse donated buffers.
    """
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                                 keep_unused=keep_unused, device=device, backend=backend, inline=inline)
    backend = _backend_of(backend, device)
    inner, leading, keywords = _bound_parts(fun)
    if leading or keywords:
        shifted = tuple(i + len(leading) if i >= 0 else i for i in _as_tuple(static_argnums))
        return BoundJitted(fun, Jitted(inner, shifted, static_argnames, donate_argnums, donate_argnames,
                                       backend=backend), leading, keywords)
    return Jitted(fun, static_argnums, static_argnames, donate_argnums, donate_argnames, backend=backend)


def _backend_of(backend, device):
    """"cpu" or "gpu" ("cuda" and a GPU device mean "gpu"): the GPU backend is astjax/backends/cuda.py."""
    if backend is None and device is not None:
        backend = getattr(device, "platform", None)
    if backend in (None, "cpu"):
        return "cpu"
    if backend in ("gpu", "cuda"):
        return "gpu"
    raise ValueError(f"jit: backend {backend!r} is not available; astjax compiles for 'cpu' and 'gpu' (CUDA)")


def _bound_parts(fun):
    """(function, leading arguments, keywords) of a bound method or `functools.partial` of a Python
    function (`jit(model.loss)`, `jit(partial(loss, a=2.0))`); else (fun, (), {})."""
    if isinstance(fun, BoundJitted):
        return fun._unbound, fun._leading, fun._keywords
    if not (inspect.ismethod(fun) or isinstance(fun, functools.partial)) or hasattr(fun, "__astjax_transform__"):
        return fun, (), {}
    from ..arguments import split_callable
    inner, leading, keywords = split_callable(fun, bind_objects=False)   # the object is an argument of the call
    if not inspect.isfunction(inner) or hasattr(inner, "__astjax_transform__"):
        return fun, (), {}
    return inner, tuple(leading), dict(keywords)


class BoundJitted:
    """jit of a bound method or a partial: the function jitted alone, called with what is bound first
    (as calling the method or partial does). The transformations see the same split
    (`__astjax_bound__`, read by arguments.split_callable): grad(jit(partial(f, a=2.0))) differentiates
    f with a=2.0, not f's default."""

    def __init__(self, original, unbound, leading, keywords):
        functools.update_wrapper(self, original)
        self._unbound, self._leading, self._keywords = unbound, tuple(leading), dict(keywords)

    @property
    def __astjax_bound__(self):
        """jit is transparent to the other transformations (grad(jit(f)) differentiates f's source): they see
        the plain function and what is bound to it, as they see the method or partial itself. A property,
        not an item of __dict__: functools.wraps copies __dict__ into the wrappers transformations return
        (jacrev(jit(p))), which must not pass for p."""
        return self._unbound.fun, self._leading, self._keywords

    def __call__(self, *args, **kwargs):
        return self._unbound(*self._leading, *args, **{**self._keywords, **kwargs})

    def lower(self, *args, **kwargs):
        return self._unbound.lower(*self._leading, *args, **{**self._keywords, **kwargs})

    def __repr__(self):
        return f"<astjax.jit of {name_of(self.__wrapped__)}>"


_DISABLED = []       # one entry per `disable_jit()` block entered and not left (a list: read without a lookup)


@contextlib.contextmanager
def disable_jit(disable=True):
    """Within the block, jitted functions run as their Python (or transformed) function, without compiling:
    for debugging with print and pdb, as `jax.disable_jit`. Values are the reference backend's."""
    if not disable:
        yield
        return
    _DISABLED.append(True)
    try:
        yield
    finally:
        _DISABLED.pop()


class Jitted:
    """A jitted function: call it like the original; `.lower(*args).source` shows the compiled source."""

    def __init__(self, fun, static_argnums=None, static_argnames=None, donate_argnums=None, donate_argnames=None,
                 backend="cpu"):
        check_callable(fun, "jit")
        self.backend = backend
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.static_argnums = _as_tuple(static_argnums)
        self.static_argnames = _as_tuple(static_argnames)
        self._donating = bool(_as_tuple(donate_argnums) or _as_tuple(donate_argnames))
        self.transformed = getattr(fun, "__astjax_transform__", None) is not None
        self._primal = None            # (Derivation, CompiledFunction) of a plain function
        self._swaps = weakref.WeakKeyDictionary()   # generated function -> its CompiledFunction
        self._swaps.factory = self._factory
        self.__astjax_transform__ = _JitTransform(self)
        self._call = api_boundary(self._run)

    def __call__(self, *args, **kwargs):
        if _DISABLED:
            return self.fun(*args, **kwargs)
        primal = self._primal
        if primal is not None and not kwargs and primal[0].current():     # the dispatch path
            try:
                out = primal[1].fast(args)       # a compiled signature's guard holds (jit/fast_dispatch.py)
                if out is MISS:
                    out = primal[1](*args)
            except Exception:          # noqa: BLE001 -- run again below, where errors name the user's line
                return self._call(*args, **kwargs)
            return out if type(out) is Array else _as_array(out, self.fun)
        return self._call(*args, **kwargs)

    def __get__(self, instance, owner):
        return self if instance is None else functools.partial(self, instance)

    def __repr__(self):
        return f"<astjax.jit of {name_of(self.fun)}>"

    def _run(self, *args, **kwargs):
        if self._donating:
            self._donating = False
            import warnings
            warnings.warn("Some donated buffers were not usable: astjax's CPU backend does not reuse donated "
                          "buffers (donate_argnums is accepted and ignored, as JAX does on CPU)", UserWarning,
                          stacklevel=3)
        if self.static_argnums or self.static_argnames:
            self._check_static_hashable(args, kwargs)
        if self.transformed:
            token = _ACTIVE.set(self._swaps)
            try:
                return self.fun(*args, **kwargs)
            finally:
                _ACTIVE.reset(token)
        compiled = self.compiled()
        return _as_array(compiled(*args, **kwargs), self.fun)

    def _check_static_hashable(self, args, kwargs):
        """Static arguments are compiled in and key the cache: each must be hashable (JAX's rule)."""
        chosen = [(f"argument {i}", args[i]) for i in self.static_argnums if -len(args) <= i < len(args)]
        chosen += [(f"argument `{k}`", kwargs[k]) for k in self.static_argnames if k in kwargs]
        for what, value in chosen:
            try:
                hash(value)
            except TypeError:
                raise StaticArgumentError(
                    f"jit: static {what} of `{name_of(self.fun)}` is a {type(value).__name__}, which is not "
                    "hashable; static arguments are compiled in and key the compile cache",
                    _where(self.fun), "pass a hashable value (a tuple instead of a list, say), or make the "
                                      "argument an ordinary (traced) one") from None

    def compiled(self):
        """The CompiledFunction of a plain (untransformed) function, built again if a global it read changed."""
        if self._primal is None or not self._primal[0].current():
            from ..transforms.derivation import Derivation
            derivation = Derivation()
            from ..arguments import wrapper_trampoline
            generated = derivation.primal(wrapper_trampoline(self.fun) or self.fun)    # a (*args, **kwargs) wrapper
            self._primal = (derivation, self._factory(generated, self._static_names(generated)))
        return self._primal[1]

    def _factory(self, generated, static=None):
        """The compiled form of a generated function on this jit's backend (one a transformation generated,
        `static` None: its parameters with string defaults are static, see `_string_defaults`)."""
        if static is None:
            static = _string_defaults(inspect.signature(generated).parameters)
        if self.backend == "gpu":
            from ..backends.cuda import CudaFunction, gpu_devices
            gpu_devices()            # no CUDA device: JAX's RuntimeError, never a silent run on the CPU
            return CudaFunction(generated, static)
        return CompiledFunction(generated, static)

    def _static_names(self, generated):
        parameters = inspect.signature(generated).parameters
        names = list(parameters)
        static = {names[i] for i in self.static_argnums if -len(names) <= i < len(names)}
        return static | set(self.static_argnames) | _string_defaults(parameters)

    def lower(self, *args, **kwargs):
        """A Lowered object whose `.source` is the source Numba compiles for these arguments."""
        if self.transformed:
            texts = []
            token = _ACTIVE.set(self._swaps)
            try:
                self.fun(*args, **kwargs)
            finally:
                _ACTIVE.reset(token)
            for compiled in list(self._swaps.values()):
                texts.extend(entry.text for entry in compiled.entries.values())
            return Lowered("\n\n".join(texts))
        return Lowered(self.compiled().lowered(*args, **kwargs))


class Lowered:
    """What jit compiled for one signature."""

    def __init__(self, source):
        self.source = source

    def as_text(self):
        return self.source


class _JitTransform:
    """jit is transparent to the other transformations: grad(jit(f)) differentiates f's source."""

    def __init__(self, jitted):
        self.jitted = jitted

    def composable_source(self):
        from ..frontend.parse import function_source
        return function_source(self.jitted.fun)

    def kernel_source(self, args, kwargs):
        """What the GPU backend compiled for these arguments (astjax.source(jit_f, *args)); None on the CPU."""
        return self.jitted.lower(*args, **kwargs).source if self.jitted.backend == "gpu" else None

    def printed_derivation(self):
        if self.jitted.transformed:
            return self.jitted.fun.__astjax_transform__.printed_derivation()
        self.jitted.compiled()
        return self.jitted._primal[0]

    def source_text(self):
        if self.jitted.transformed:
            from ..api import source
            return source(self.jitted.fun)
        return self.jitted.compiled().generated.__astjax_source_text__


def _string_defaults(parameters):
    """The parameters with a string default (`mode="train"`): static, as under JAX's jit, where a default
    is a Python constant (never traced); a string cannot enter compiled code. One compile per value passed."""
    return {name for name, p in parameters.items() if isinstance(p.default, (str, bytes))}


class StaticArgumentError(JitError, TypeError):
    """A static argument jit cannot key its cache on (it is not hashable)."""


def compiled_version(generated, transformed=None):
    """Inside a jitted call, the compiled stand-in for the generated function `generated`; else itself.
    `transformed` is the function the caller transformed: a GPU jit there (`grad(jit(f, backend="gpu"))`)
    runs the derivative on the GPU too, never silently on the CPU."""
    swaps = _ACTIVE.get()
    if swaps is None and isinstance(transformed, Jitted) and transformed.backend == "gpu":
        swaps = transformed._swaps
    if swaps is None or not hasattr(generated, "__astjax_function_source__"):
        return generated
    compiled = swaps.get(generated)
    if compiled is None:
        compiled = swaps[generated] = getattr(swaps, "factory", CompiledFunction)(generated)
    return compiled


def _as_array(value, fun):
    """A jitted function's result as JAX gives it: Python numbers become Arrays (float32 for floats, int32
    for ints: an int that int32 cannot hold is refused, not wrapped)."""
    if isinstance(value, tuple):
        items = [_as_array(v, fun) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    if isinstance(value, list):
        return [_as_array(v, fun) for v in value]
    if type(value) is dict:
        return {k: _as_array(v, fun) for k, v in value.items()}
    if isinstance(value, bool):
        return wrap(np.asarray(value))
    if isinstance(value, numbers.Integral):
        if not _INT32_MIN <= value <= _INT32_MAX:
            raise JitError(f"jit returns a Python int as an int32 Array (as JAX does), and {value} does not fit in one",
                           _where(fun), "return a float, or run this function without jit")
        return wrap(np.asarray(value, np.int32))
    if isinstance(value, numbers.Real):
        return wrap(np.asarray(value, np.float32))
    if isinstance(value, np.ndarray) and type(value) is not Array:
        return wrap(value)
    return value


_INT32_MIN, _INT32_MAX = -2 ** 31, 2 ** 31 - 1


def _where(fun):
    code = getattr(fun, "__code__", None)
    return (code.co_filename, code.co_firstlineno) if code is not None else None


def _as_tuple(value):
    if value is None:
        return ()
    return (value,) if isinstance(value, (int, str)) else tuple(value)
