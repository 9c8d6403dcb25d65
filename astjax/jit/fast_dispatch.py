"""The dispatch path of a compiled function: one generated Python function that tests the arguments
against the signatures already compiled and calls the matching Numba dispatcher.

Each compiled signature of plain arguments (arrays, NumPy and Python scalars, static values of simple
types) gets a guard written out as source: `type(a0) is ndarray and a0.dtype is d0 and a0.ndim == 1`,
the conversions its arguments need (an astjax Array as a plain ndarray view, a 0-d array as its NumPy
scalar) and its result conversion inline. What the guard decides is what jit/compiled.py's signature
key decides (the argument's exact type, dtype and rank; a static argument's type and value), so a
guard that holds picks the entry the full lookup would pick. Anything a guard does not cover (a new
shape family, a dtype object that is not the canonical one, containers, a compiled-in array that was
written into) returns MISS and the caller takes the full path, which compiles or finds the entry and
then adds it here. Why: a generic walk over the arguments (quick keys, per-argument conversions,
closures per result) cost about 2 microseconds per call; the guards cost a few hundred nanoseconds.
"""
import numpy as np

from ..array import Array
from .python_number_error import PythonNumberError

__all__ = ["MISS", "always_miss", "guard_pattern", "dispatch_function", "MAX_ENTRIES"]

MISS = object()                 # the dispatch function found no compiled signature for these arguments
MAX_ENTRIES = 8                 # guards tested in turn; later signatures take the full lookup
_SCALARS = (float, int, bool, type(None))
_STATIC_TYPES = (int, float, bool, str, type(None))


def always_miss(args):
    """The dispatch function of a compiled function with no signature compiled yet."""
    return MISS


def guard_pattern(args, static_flags):
    """A hashable description of what the guard of these arguments tests (and how each is passed in),
    or None where an argument is not plain (its signature needs the full lookup)."""
    pattern = []
    for value, static in zip(args, static_flags):
        kind = type(value)
        if static:
            if kind not in _STATIC_TYPES:
                return None
            pattern.append(("static", kind, value))
        elif kind is np.ndarray or kind is Array:
            pattern.append(("array", kind, value.dtype, value.ndim))
        elif kind in _SCALARS or issubclass(kind, np.generic):
            pattern.append(("type", kind))
        else:
            return None
    return tuple(pattern)


def dispatch_function(arity, guarded, refusal):
    """The generated dispatch function for `guarded`, a list of (pattern, entry): it takes the argument
    tuple and returns the converted result of the first entry whose guard holds, else MISS.
    `refusal(exc)` is the JitError for a PythonNumberError raised inside compiled code."""
    namespace = {"MISS": MISS, "ndarray": np.ndarray, "Array": Array, "PythonNumberError": PythonNumberError,
                 "refusal": refusal}
    names = [f"a{i}" for i in range(arity)]
    lines = ["def astjax_dispatch(args):", f"    if len(args) == {arity}:"]
    if arity:
        lines.append(f"        {', '.join(names)}{',' if arity == 1 else ''} = args")
    for n, (pattern, entry) in enumerate(guarded):
        tests, passed = [], []
        for i, item in enumerate(pattern):
            a = names[i]
            if item[0] == "static":
                namespace[f"t{n}_{i}"], namespace[f"v{n}_{i}"] = item[1], item[2]
                tests.append(f"type({a}) is t{n}_{i} and {a} == v{n}_{i}")
                continue
            namespace[f"t{n}_{i}"] = item[1]
            tests.append(f"type({a}) is t{n}_{i}")
            if item[0] == "array":
                namespace[f"d{n}_{i}"] = item[2]
                tests.append(f"{a}.dtype is d{n}_{i} and {a}.ndim == {item[3]}")
                if item[3] == 0:
                    passed.append(f"{a}.view(ndarray)[()]")
                elif item[1] is Array:
                    passed.append(f"{a}.view(ndarray)")
                else:
                    passed.append(a)
            else:
                passed.append(a)
        if entry.frozen is not None:          # arrays compiled in: written into, the entry is stale
            namespace[f"f{n}"] = entry.frozen
            tests.append(f"not f{n}.changed()")
        namespace[f"k{n}"], namespace[f"c{n}"] = entry.dispatcher, entry.convert_out
        lines += [f"        if {' and '.join(tests) or 'True'}:",
                  "            try:",
                  f"                out = k{n}({', '.join(passed)})",
                  "            except PythonNumberError as exc:",
                  "                raise refusal(exc) from None"]
        spec = entry.out_spec
        if entry.arg_layouts is None and spec and spec[0] == "array":   # the usual result, converted inline
            namespace[f"o{n}"] = np.dtype(spec[1])
            lines += [f"            if type(out) is ndarray and out.dtype is o{n}:",
                      "                return out.view(Array)"]
        lines.append(f"            return c{n}(out)")
    lines.append("    return MISS")
    text = "\n".join(lines) + "\n"
    exec(compile(text, "<astjax dispatch>", "exec"), namespace)
    function = namespace["astjax_dispatch"]
    function.__astjax_dispatch_source__ = text
    return function
