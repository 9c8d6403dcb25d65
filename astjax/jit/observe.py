"""What each variable of generated code holds, seen by running the reference backend once.

jit specializes generated source to one signature (argument shapes and
dtypes). Numba types every variable statically, and generated code is
written for any type: a saved variable starts as `None`, an adjoint starts as
`0.0` and becomes an array, a Python float stays weakly typed until it meets
an array. The first call of each signature runs the reference backend anyway
(its result checks the compiled one), so a line tracer records the abstract
type of every local of every generated function as it runs; the lowering
passes read those types. Tracing stops after `LIMIT` lines: loops repeat
their types, and a long loop must not make the first call slow.

Beside the types, the tracer keeps the shape of each array and the value of each int a variable held
(`facts`, at most two per variable: a variable that held two is not known). The lowering reads them
only to guess which branch of a run-time shape test a signature takes (lower/observed_shapes.py),
behind a guard that compiles the other branch when a call needs it: a guess, never a fact compiled in.
"""
import sys

import numpy as np

__all__ = ["Observed", "observe", "abstract", "WEAK_FLOAT", "WEAK_INT", "NONE"]

LIMIT = 20000

WEAK_FLOAT = ("weak", "float")      # a Python float: weakly typed, as in JAX
WEAK_INT = ("weak", "int")          # a Python int (loop counters, lengths, shapes)
NONE = ("none",)


def abstract(value):
    """The abstract type of a value: what Numba's type of it will be, plus weakness.

    ("array", dtype, ndim) for arrays of 1 or more dimensions; ("scalar", dtype) for NumPy
    scalars and 0-d arrays (Numba computes 0-d results as scalars); WEAK_FLOAT / WEAK_INT
    for Python numbers; ("bool",) for Python bools; ("tuple", (items...)); ("list", items).
    """
    if value is None:
        return NONE
    if isinstance(value, np.generic):       # before float: np.float64 subclasses float, but has a dtype
        return ("scalar", value.dtype.name)
    if isinstance(value, bool):
        return ("scalar", "bool")
    if isinstance(value, int):
        return WEAK_INT
    if isinstance(value, float):
        return WEAK_FLOAT
    if isinstance(value, np.ndarray):
        return ("scalar", value.dtype.name) if value.ndim == 0 else ("array", value.dtype.name, value.ndim)
    if isinstance(value, tuple):
        return ("tuple", tuple(abstract(v) for v in value))
    if isinstance(value, list):        # the ends of a long list (a tape) tell its item types
        items = value if len(value) <= 16 else value[:8] + value[-8:]
        return ("list", frozenset(abstract(v) for v in items))
    return ("object", type(value).__name__)


class TypesOf(dict):
    """One function's {name: set of abstract types}, with `.observed`, the Observed it came from."""
    observed = None


class Observed:
    """Abstract types seen per generated function (by code object) and variable name."""

    def __init__(self):
        self.types = {}          # code object -> {name: set of abstract types}
        self.complete = True     # False when tracing stopped before the function returned
        self.user_calls = {}     # code of a user function generated code called -> its first arguments
        self.facts = {}          # code object -> {name: set of shapes / ints it held} (see the module doc)

    def of(self, code, name):
        return self.types.get(code, {}).get(name, set())

    def for_code(self, code):
        """{name: types} of one function; `.observed` leads back here (lowering reads its callees' types)."""
        table = TypesOf(self.types.get(code, {}))
        table.observed = self
        return table

    def facts_for(self, code):
        return self.facts.get(code, {})

    @classmethod
    def by_name(cls, functions, types, facts=None):
        """Types (and facts) read back from the disk cache ({function name: {variable: types}}) for these
        functions."""
        seen = cls()
        for fn in functions:
            seen.types[fn.__code__] = types.get(fn.__name__, {})
            seen.facts[fn.__code__] = (facts or {}).get(fn.__name__, {})
        return seen


def fact(value):
    """What the lowering may read of a value besides its type: an array's shape, an int's value; else None."""
    kind = type(value)
    if kind is int:
        return ("int", value)
    if isinstance(value, np.ndarray) and value.ndim:
        return ("shape", value.shape)
    return None


def observe(fn, args, kwargs, watched):
    """Call `fn(*args, **kwargs)`, recording the locals of frames whose file `watched(filename)` accepts.

    Returns (result, Observed).
    """
    seen = Observed()
    budget = [LIMIT]

    def local_tracer(frame, event, arg):
        if budget[0] <= 0:
            seen.complete = False
            frame.f_trace = None
            return None
        budget[0] -= 1
        table = seen.types.setdefault(frame.f_code, {})
        facts = seen.facts.setdefault(frame.f_code, {})
        for name, value in frame.f_locals.items():
            table.setdefault(name, set()).add(abstract(value))
            held = facts.get(name)
            if held is None or len(held) < 2:
                facts.setdefault(name, set()).add(fact(value))
        if event == "return":
            table.setdefault("<return>", set()).add(abstract(arg))
        return local_tracer

    def global_tracer(frame, event, arg):
        if budget[0] > 0 and watched(frame.f_code.co_filename):
            return local_tracer
        caller = frame.f_back
        if caller is not None and watched(caller.f_code.co_filename) and frame.f_code not in seen.user_calls:
            code = frame.f_code          # a user function a derivative calls: jit compiles its primal too
            names = code.co_varnames[:code.co_argcount]
            seen.user_calls[code] = tuple(frame.f_locals.get(n) for n in names)
        return None

    previous = sys.gettrace()
    sys.settrace(global_tracer)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.settrace(previous)
    return result, seen
