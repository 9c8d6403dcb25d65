"""What a derivation assumed about the names it resolved when it was built, checked cheaply per call.

A derivative is generated once and cached, but it was built from the values
the function's free names had then: which global is a user function, which a
primitive, which a constant the generated code reads. If a global or a closure
cell is rebound afterwards (`K = 3.0`, `nonlocal k; k = v`, a redefined
helper), the cached derivative would silently use the old value. `Bindings`
records each resolved name with the object it held, plus the function's own
`__code__` and `__defaults__`, and `current()` (one generated function of
`is` tests) says whether all still hold; if not, the derivative is rebuilt.

Names resolved to builtins (or not found) are recorded as absent from the
globals, so a global defined later that shadows them is noticed too; an
attribute of one of the user's modules (`helpers.loss`) is recorded like a
global of that module, and one of the user's classes (`Ops.fn`) in the class's
`__dict__`.
"""
import sys
import types

import gast

from .resolve import NOT_STATIC
from .standard_library import is_standard_library
from ..codegen.node_walk import walk

__all__ = ["Bindings"]


class _Absent:
    def __repr__(self):
        return "ABSENT"


ABSENT = _Absent()


class Bindings:
    """The (holder, key, value) facts a derivation was built on."""

    def __init__(self):
        self._entries = {}         # (kind, id(holder), key) -> (kind, holder, key, value)
        self._check = None

    def record_function(self, fn, node, resolver):
        """Record what the free names of `node` (the source of `fn`) and the attributes of the user's
        modules it reads (`helpers.loss`) resolve to now."""
        self._record_names(fn, resolver.free_name_nodes(node), resolver.is_local)
        for child in walk(node):
            if isinstance(child, gast.Attribute) and isinstance(child.ctx, gast.Load):
                base = resolver.static_value(child.value)
                if isinstance(base, types.ModuleType) and not _is_library(base):
                    self._add("attr", base, child.attr, getattr(base, child.attr, ABSENT))
                elif isinstance(base, type) and not _is_library_class(base):
                    self._record_class_attribute(base, child.attr)
                elif base is not NOT_STATIC and not isinstance(base, types.ModuleType) \
                        and not _is_library_class(type(base)) and isinstance(getattr(base, "__dict__", None), dict):
                    # `model.act` of one of the user's objects: its own __dict__ entry, else its class's
                    entry = base.__dict__.get(child.attr, ABSENT)
                    self._add("global", base.__dict__, child.attr, entry)
                    if entry is ABSENT:
                        self._record_class_attribute(type(base), child.attr)

    def _record_class_attribute(self, cls, attr):
        """`Ops.fn`, `Cfg.scale` on one of the user's classes: the derivation resolved it statically (a callee's
        rule, a constant), so a rebinding (`Ops.fn = staticmethod(jnp.cos)`) must rebuild it. Recorded in the
        __dict__ of each class of the MRO up to the one defining it (a later definition in an earlier class
        shadows it); the raw __dict__ entry, as a descriptor (staticmethod) is the same object on every read."""
        for klass in cls.__mro__:
            if klass is object:
                break
            entry = klass.__dict__.get(attr, ABSENT)
            self._add("global", klass.__dict__, attr, entry)
            if entry is not ABSENT:
                break

    def _record_names(self, fn, free_loads, is_local):
        code = getattr(fn, "__code__", None)
        if code is None:
            return
        self._add("function", fn, "__code__", code)
        self._add("function", fn, "__defaults__", getattr(fn, "__defaults__", None))
        cells = dict(zip(code.co_freevars, getattr(fn, "__closure__", None) or ()))
        globals_ = getattr(fn, "__globals__", None)
        seen = set()
        for child in free_loads:
            if child.id in seen or is_local(child.id):
                continue
            seen.add(child.id)
            if child.id in cells:
                cell = cells[child.id]
                try:
                    value = cell.cell_contents
                except ValueError:
                    value = ABSENT
                self._add("cell", cell, child.id, value)
            elif globals_ is not None:
                self._add("global", globals_, child.id, globals_.get(child.id, ABSENT))

    def extend(self, other):
        """Also depend on what another derivation (one this one reads) was built on."""
        if other is not None and other is not self:
            for key, entry in other._entries.items():
                self._entries.setdefault(key, entry)
            self._check = None

    def current(self):
        """Whether every recorded name still holds the object it held when the derivation was built."""
        if self._check is None:
            self._check = self._compile()
        return self._check()

    def _add(self, kind, holder, key, value):
        self._entries.setdefault((kind, id(holder), key), (kind, holder, key, value))
        self._check = None

    def _compile(self):
        """`def current(): return h0.get('K', ABSENT) is v0 and h1.cell_contents is v1 and ...`."""
        tests, namespace = [], {"ABSENT": ABSENT}
        for i, (kind, holder, key, value) in enumerate(self._entries.values()):
            namespace[f"h{i}"], namespace[f"v{i}"] = holder, value
            if kind == "global":
                tests.append(f"h{i}.get({key!r}, ABSENT) is v{i}")
            elif kind == "cell":
                tests.append(f"_cell(h{i}) is v{i}" if value is ABSENT else f"h{i}.cell_contents is v{i}")
            elif kind == "function":
                tests.append(f"h{i}.{key} is v{i}")
            else:
                tests.append(f"getattr(h{i}, {key!r}, ABSENT) is v{i}")
        namespace["_cell"] = _cell_value
        text = ("def current():\n    try:\n        return " + (" and ".join(tests) or "True")
                + "\n    except ValueError:\n        return False\n")
        exec(compile(text, "<astjax bindings>", "exec"), namespace)
        return namespace["current"]


def _is_library(module):
    """astjax, NumPy and the standard library: their attributes are not rebound under a derivative."""
    root = module.__name__.partition(".")[0]
    return root in ("astjax", "numpy", "math", "builtins", "functools", "operator") or is_standard_library(root)


def _is_library_class(cls):
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    return module is None or _is_library(module)


def _cell_value(cell):
    try:
        return cell.cell_contents
    except ValueError:
        return ABSENT
