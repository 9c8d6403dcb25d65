"""jit's disk cache: what the first call of a signature learned, kept for the next process.

The first call of a signature runs the reference backend to observe types and
to check the compiled result. A later process with the same function source,
the same global values, the same signature and the same astjax, Numba and
Python versions reads those observed types from disk instead, lowers the same
source again (deterministic, milliseconds) and lets Numba load the machine code
it cached beside the lowered source file (`njit(cache=True)` needs a real
file). Where the build was one function whose bound names are importable,
the lowered texts themselves are kept too (a build plan, jit/build_plan.py),
and the later process compiles them without lowering again. Nothing is trusted blindly: a file that does not parse, or was written
for another key, is ignored and rebuilt; files are written to a temporary name
and renamed, so two processes writing at once leave one whole file.

`ASTJAX_CACHE_DIR` chooses the directory (default: ~/.cache/astjax);
`ASTJAX_DISK_CACHE=0` turns the disk cache off. Numba's own machine-code cache
keeps the compiled code too (`ASTJAX_NUMBA_CACHE=0` turns that part off), except
for a build in which a function calls itself: Numba compiles a recursive call to
a symbol that a process loading the cache does not resolve (the loaded code
jumps to address 0), so recursion is compiled afresh in each process.
"""
import hashlib
import json
import os
import sys
import tempfile
import types as pytypes

import numpy as np

__all__ = ["enabled", "directory", "entry_key", "load", "store", "load_plan", "store_plan", "source_file"]

FORMAT = 1


def enabled():
    return os.environ.get("ASTJAX_DISK_CACHE", "1") != "0"


def numba_machine_code():
    return os.environ.get("ASTJAX_NUMBA_CACHE", "1") != "0"


def directory():
    root = os.environ.get("ASTJAX_CACHE_DIR")
    if not root:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = os.path.join(base, "astjax")
    return root


def entry_key(generated, signature):
    """A digest of everything a compiled signature depends on, or None when something cannot be digested."""
    import numba

    from .. import __version__
    digest = hashlib.sha256()
    for part in (FORMAT, __version__, _package_stamp(), numba.__version__, _numba_optimization(), sys.version,
                 json.dumps(_encode(signature), default=repr)):
        digest.update(repr(part).encode())
    for fn in reachable_generated(generated):
        digest.update(fn.__astjax_source_text__.encode())
        for name in sorted(set(fn.__code__.co_names)):
            if name in fn.__globals__:
                part = _digest_value(fn.__globals__[name])
                if part is None:
                    return None
                digest.update(name.encode() + b"=" + part)
        # default values are compiled in as constants too, and a default array may be written into between
        # calls (`def f(x, w=W)`, then `W[0] = 7.0`): they are not among the code's names, so digest them here
        for k, value in enumerate(fn.__defaults__ or ()):
            part = _digest_value(value)
            if part is None:
                return None
            digest.update(f"default {k}=".encode() + part)
    return digest.hexdigest()[:40]


def _numba_optimization():
    """Numba's optimization level (NUMBA_OPT), read when compiling: machine code built at one level is not
    served to a process, or a test, compiling at another."""
    from numba.core import config
    return f"opt={int(config.OPT)} max={config.OPT.is_opt_max}"


_STAMP = []


def _package_stamp():
    """The path, size and modification time of every astjax source file: a change to a lowering or a
    pass (an edited checkout between two runs) must not load machine code compiled from the old one."""
    if not _STAMP:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        digest = hashlib.sha256()
        for folder, _, files in sorted(os.walk(root)):
            for name in sorted(f for f in files if f.endswith(".py")):
                info = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}:{info.st_size}:{info.st_mtime_ns}".encode())
        _STAMP.append(digest.hexdigest())
    return _STAMP[0]


def reachable_generated(generated):
    """`generated` and the generated functions it calls, directly or not, in a fixed order."""
    found, stack = [], [generated]
    while stack:
        fn = stack.pop()
        if fn in found:
            continue
        found.append(fn)
        for name in sorted(set(fn.__code__.co_names)):
            value = fn.__globals__.get(name)
            if getattr(value, "__astjax_function_source__", None) is not None and hasattr(value, "__code__"):
                stack.append(value)
            else:
                primal = _primal_of_user_function(value)
                if primal is not None:
                    stack.append(primal)
    return found


def _primal_of_user_function(value):
    """The normalized version jit compiles (or inlines) of a user function that generated code calls: its
    types go into the record too, so a later process inlines it as the first one did
    (jit/lower/inline_callees.py)."""
    from .lower.numba_calls import _is_user_function, primal_of
    if not callable(value) or not hasattr(value, "__code__") or not _is_user_function(value):
        return None
    try:
        return primal_of(value)
    except Exception:        # noqa: BLE001 -- not transformable: nothing of it to record
        return None


def _digest_value(value):
    """Bytes that change whenever `value` would compile differently; None when unknown."""
    if isinstance(value, (pytypes.ModuleType, type)) or callable(value):
        name = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', getattr(value, '__name__', ''))}"
        text = getattr(value, "__astjax_source_text__", None)
        return (name + (text or "")).encode()
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return repr((type(value).__name__, value)).encode()
    if isinstance(value, np.generic):
        return repr((value.dtype.str, value.item())).encode()
    if isinstance(value, np.ndarray):
        return repr((value.dtype.str, value.shape)).encode() + hashlib.sha1(np.ascontiguousarray(value).view(np.uint8)).digest()
    if isinstance(value, (tuple, list)):
        parts = [_digest_value(v) for v in value]
        return None if any(p is None for p in parts) else repr(type(value).__name__).encode() + b"(" + b",".join(parts) + b")"
    return None


def load(key):
    """The stored record for `key` ({function name: {variable: set of types}}, output type, {function name:
    {variable: facts}}), or None."""
    path = os.path.join(directory(), "entries", key + ".json")
    try:
        with open(path) as handle:
            record = json.load(handle)
        if record.get("key") != key or record.get("format") != FORMAT:
            return None
        types = {fn: {var: {_decode(t) for t in kinds} for var, kinds in table.items()}
                 for fn, table in record["types"].items()}
        facts = {fn: {var: {_decode(f) for f in held} for var, held in table.items()}
                 for fn, table in record.get("facts", {}).items()}
        return types, _decode(record["out_spec"]), facts
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def store(key, types, out_spec, facts=None):
    """Write the record for `key` (atomically; errors writing the cache are ignored). `facts`: the shapes
    and ints observed (jit/observe.py), of which the variables that held one are kept: the lowering reads
    them, and a later process must lower as this one did to find Numba's machine code."""
    record = {"format": FORMAT, "key": key, "out_spec": _encode(out_spec),
              "types": {fn: {var: [_encode(t) for t in kinds] for var, kinds in table.items()}
                        for fn, table in types.items()},
              "facts": {fn: {var: [_encode(f) for f in held] for var, held in table.items()
                             if len(held) == 1 and None not in held}
                        for fn, table in (facts or {}).items()}}
    _write(os.path.join(directory(), "entries", key + ".json"), json.dumps(record))


def load_plan(key):
    """The build plan stored for `key` (jit/build_plan.py), or None."""
    try:
        with open(os.path.join(directory(), "plans", key + ".json")) as handle:
            record = json.load(handle)
        return record["plan"] if record.get("key") == key and isinstance(record.get("plan"), dict) else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def store_plan(key, plan):
    """Write the build plan for `key` (atomically; errors writing the cache are ignored)."""
    _write(os.path.join(directory(), "plans", key + ".json"), json.dumps({"key": key, "plan": plan}))


def source_file(text):
    """A real file holding `text` (named by its digest, written once), for Numba's own cache."""
    name = "m_" + hashlib.sha256(text.encode()).hexdigest()[:32] + ".py"
    path = os.path.join(directory(), "lowered", name)
    if not os.path.exists(path):
        _write(path, text)
    return path


def _write(path, text):
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".tmp")
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.replace(temporary, path)
    except OSError:
        pass


def _encode(value):
    if isinstance(value, tuple):
        return {"t": [_encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {"s": sorted((_encode(v) for v in value), key=json.dumps)}
    return value


def _decode(value):
    if isinstance(value, dict):
        if "t" in value:
            return tuple(_decode(v) for v in value["t"])
        return frozenset(_decode(v) for v in value["s"])
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    return value
