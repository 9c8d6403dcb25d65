"""What the helpers called from generated code received, per call site.

A profile hook sees every Python call; for a call made from a generated
function, the calling instruction's source position names the call
expression in the generated text, and the callee's frame holds its arguments.
Each site keeps the set of argument signatures it saw (shapes and dtypes of
arrays, the values of ints, tuples and None), so a fold can ask whether every
execution of the site agreed.
"""
import inspect
import sys
from typing import NamedTuple

import numpy as np

__all__ = ["Seen", "CallSites", "watch_calls"]


class Seen(NamedTuple):
    """One argument as a fold needs to know it."""
    kind: str          # "array" (ndarray, NumPy scalar), "float" (a Python float), "value", "other",
    #                    "ints" (merged_at: the int values several executions saw, in `value`),
    #                    "tuple" (of arrays and floats, a `*operands` argument: their Seens in `value`)
    shape: tuple = None
    dtype: str = None
    value: object = None

    @classmethod
    def of(cls, value):
        if isinstance(value, (np.ndarray, np.generic)):
            return cls("array", tuple(np.shape(value)), np.asarray(value).dtype.name)
        if isinstance(value, float):
            return cls("float", ())
        if value is None or isinstance(value, (bool, int, str)):
            return cls("value", value=value)
        if isinstance(value, tuple) and all(isinstance(v, (int, type(None))) for v in value):
            return cls("value", value=value)
        if isinstance(value, tuple) and value and all(
                isinstance(v, (np.ndarray, np.generic, float)) and not isinstance(v, bool) for v in value):
            return cls("tuple", value=tuple(cls.of(v) for v in value))
        return cls("other")

    def __str__(self):
        if self.kind == "array":
            return f"{self.dtype}[{', '.join(map(str, self.shape))}]"
        return {"float": "float", "value": repr(self.value)}.get(self.kind, "object")


class CallSites:
    """{(function name, line, column, end line, end column): set of argument signatures}, plus the
    arguments and result of the first call of each generated function."""

    def __init__(self):
        self.sites = {}
        self.files = {}          # generated function name -> the file its code came from (None if several)
        self.entries = {}        # generated function name -> (its arguments, its result) on the first call
        self.namespaces = {}     # generated function name -> the globals it ran with
        self.writable = {}       # call site -> names of arguments that were a writable NumPy array at least once

    def seen_at(self, function, position):
        """The one signature every execution of the call at `position` had, or None."""
        seen = self.sites.get((function,) + tuple(position))
        if not seen or len(seen) != 1:
            return None
        return dict(next(iter(seen)))

    def merged_at(self, function, position):
        """Like seen_at, where executions may differ in int arguments only (a loop index): each such
        argument is Seen("ints", value=the sorted ints). None where anything else differs."""
        seen = self.sites.get((function,) + tuple(position))
        if not seen:
            return None
        signatures = [dict(s) for s in seen]
        if len({s["__callee__"] for s in signatures}) != 1 or len({tuple(s) for s in signatures}) != 1:
            return None
        merged = {}
        for name in signatures[0]:
            values = {s[name] for s in signatures}
            if len(values) == 1:
                merged[name] = values.pop()
            elif all(v.kind == "value" and type(v.value) is int for v in values):
                merged[name] = Seen("ints", value=tuple(sorted(v.value for v in values)))
            else:
                return None
        return merged


def watch_calls(run, is_generated):
    """Call `run()` with a profile hook recording calls made from frames whose file `is_generated`.

    Returns (run's result, CallSites)."""
    observed = CallSites()
    pending = {}                 # frame id of a generated function's first call -> (name, arguments)

    def hook(frame, event, arg):
        code = frame.f_code
        if event == "call":
            caller = frame.f_back
            if is_generated(code.co_filename):
                name = code.co_name
                known = observed.files.setdefault(name, code.co_filename)
                observed.namespaces.setdefault(name, frame.f_globals)
                if known != code.co_filename:
                    observed.files[name] = None          # two functions of one name: fold neither
                if name not in observed.entries and id(frame) not in pending:
                    parameters = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
                    pending[id(frame)] = (name, {p: frame.f_locals[p] for p in parameters if p in frame.f_locals})
            if caller is not None and is_generated(caller.f_code.co_filename):
                _record(observed, caller, frame)
        elif event == "return" and id(frame) in pending:
            name, arguments = pending.pop(id(frame))
            observed.entries.setdefault(name, (arguments, arg))

    previous = sys.getprofile()
    sys.setprofile(hook)
    try:
        result = run()
    finally:
        sys.setprofile(previous)
    return result, observed


def _record(observed, caller, callee):
    positions = list(caller.f_code.co_positions())
    index = caller.f_lasti // 2
    if index >= len(positions) or None in positions[index]:
        return
    code = callee.f_code
    names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS)]
    arguments = frozenset((n, Seen.of(callee.f_locals.get(n))) for n in names)
    key = (caller.f_code.co_name,) + tuple(positions[index])
    writable = {n for n in names if isinstance(callee.f_locals.get(n), np.ndarray)
                and not isinstance(callee.f_locals.get(n), _immutable_array())}
    if writable:
        observed.writable.setdefault(key, set()).update(writable)
    observed.sites.setdefault(key, set()).add((("__callee__", code),) + tuple(sorted(arguments, key=lambda pair: pair[0])))


def _immutable_array():
    from ..array import Array
    return Array
