"""What a build lowered, kept on disk so that a later process skips the lowering passes.

A new process whose disk cache holds a signature's record (jit/cache.py: the observed types) still
lowered the generated source again before Numba loaded the machine code it cached: the passes are
deterministic, but they were the largest part of astjax's own work on a warm first call. A build
plan is the lowering's output for one generated function: its lowered text, the texts of the loops
it calls (fused element loops, stencils) with their Numba options, and the objects its lowered names
were bound to, each as (module, name) of a function in astjax's runtime or NumPy.

A plan is kept only when it can be replayed exactly: one generated function (no compiled callees),
every bound object importable by name, every text parsed and unparsed to itself (so the lowered
files, and the machine code Numba cached beside them, are the same ones). Its key is the record's
(function source, globals, signature, astjax/Numba/Python versions, astjax's source files) plus what
else the lowering reads (fast math on or off, rank pruning on or off). A plan that cannot be read or
resolved is ignored, and the caller lowers as before; a plan is stored only after the build it
describes agreed with the reference backend.
"""
import importlib
import sys

import gast

from ..codegen.unparse import unparse

__all__ = ["BuildRecorder", "plan_key", "replay"]

FORMAT = 2


def plan_key(disk_key):
    """The plan's key: the record's key and the switches the lowering reads."""
    from .fast_math import enabled as fast_math
    from .lower.known_ranks import pruning_disabled
    return f"{disk_key}-plan{FORMAT}-fm{int(bool(fast_math()))}-up{int(bool(pruning_disabled()))}"


class BuildRecorder:
    """Collects, during a build, what a plan needs; `plan()` is the plan or None."""

    def __init__(self):
        self.functions = []           # one dict per lowered generated function
        self.replayable = True

    def record(self, text, kernels, bindings, self_names, has_callees, dispatcher):
        """One lowered function: its text, its loops' (label, text, options, dispatcher), what its names
        were bound to, and its own dispatcher (their line maps go into the plan too)."""
        if has_callees:
            self.replayable = False
        refs = {}
        for label, obj in bindings.items():
            ref = _reference(obj)
            if ref is None:
                self.replayable = False
                return
            refs[label] = ref
        if any(not _round_trips(t) for t in [text] + [k[1] for k in kernels]):
            self.replayable = False
            return
        options = [_plain_options(k[2]) for k in kernels]
        if any(o is None for o in options):
            self.replayable = False
            return
        self.functions.append({"text": text, "self_names": list(self_names), "bindings": refs,
                               "lines": _line_map(dispatcher),
                               "kernels": [[k[0], k[1], o, _line_map(k[3])] for k, o in zip(kernels, options)]})

    def plan(self):
        if not self.replayable or len(self.functions) != 1:
            return None
        return {"format": FORMAT, **self.functions[0]}


def replay(plan, generated, state, static, compile_lowered):
    """Compile `plan` into `state` (jit/compiled.py's _Build) as _build would have; the dispatcher."""
    from ..runtime.numba_memory import keep_freed_buffers
    from .numba_support import SUPPORT
    if plan.get("format") != FORMAT:
        raise ValueError("another plan format")
    keep_freed_buffers()                          # what lower_function does first
    filename = generated.__code__.co_filename
    namespace = dict(generated.__globals__)
    namespace.update(SUPPORT)
    namespace.update({label: _resolve(ref) for label, ref in plan["bindings"].items()})
    namespace.update(static)
    kernel_namespace = dict(SUPPORT)
    for label, text, options, lines in plan["kernels"]:
        options = {k: set(v) if isinstance(v, list) else v for k, v in options.items()}
        kernel_namespace[label], kernel_text = compile_lowered(_parse(text), kernel_namespace, filename,
                                                               state.source_file, checked=False, **options)
        _restore_line_map(kernel_namespace[label], filename, lines)
        namespace[label] = kernel_namespace[label]
        state.dispatchers.append(kernel_namespace[label])
        state.texts.append(kernel_text)
    node = _parse(plan["text"])
    self_names = list(plan["self_names"])
    state.recursive = state.recursive or bool(self_names)
    state.built[generated] = None
    state.frozen.capture(node, namespace)
    dispatcher, text = compile_lowered(node, namespace, filename, state.source_file, self_names)
    _restore_line_map(dispatcher, filename, plan["lines"])
    state.built[generated] = dispatcher
    state.dispatchers.append(dispatcher)
    state.texts.insert(0, text)
    return dispatcher


def _line_map(dispatcher):
    """{lowered line: generated line} that compiling the lowered node registered (errors.py reads it to
    name the user's line of an error in lowered code); a text parsed back has only its own lines."""
    from ..errors import _LINE_MAPS
    return {str(k): v for k, v in _LINE_MAPS.get(dispatcher.py_func.__code__.co_filename, {}).items()}


def _restore_line_map(dispatcher, origin, lines):
    from ..errors import register_generated
    register_generated(dispatcher.py_func.__code__.co_filename, origin, {int(k): v for k, v in lines.items()})


def _parse(text):
    return gast.parse(text).body[0]


def _round_trips(text):
    try:
        return unparse(_parse(text)) == text
    except Exception:        # noqa: BLE001 -- not replayable
        return False


def _plain_options(options):
    out = {}
    for key, value in options.items():
        if isinstance(value, (set, frozenset)) and all(isinstance(v, str) for v in value):
            out[key] = sorted(value)
        elif value is None or isinstance(value, (bool, int, str)):
            out[key] = value
        else:
            return None
    return out


def _reference(obj):
    """["none"] or ["import", module, name] for an object a lowered name is bound to, or None."""
    if obj is None:
        return ["none"]
    module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(name, str) or "." in name or "<" in name:
        return None
    if not (module.startswith("astjax.") or module == "numpy" or module.startswith("numpy.")):
        return None
    if getattr(sys.modules.get(module), name, None) is not obj:
        return None
    return ["import", module, name]


def _resolve(ref):
    if ref[0] == "none":
        return None
    if ref[0] == "import":
        return getattr(importlib.import_module(ref[1]), ref[2])
    raise ValueError(f"unknown reference {ref!r}")
