"""How a lowering is declared: a stub function Numba knows, and a typing function that picks its code.

`lowers("exp", ("x",))` makes a stub `exp(x)` and registers the decorated
function as its Numba overload: at compile time it receives the Numba types
of the arguments and returns an implementation (a plain Python function with
the stub's parameters, compiled by Numba), or None to decline those types.
Called from Python, a stub runs the primitive's reference implementation.
"""
import types

from numba.extending import overload

# error_model="numpy": 1.0 / 0.0 is inf (as NumPy gives), not a ZeroDivisionError;
# boundscheck: an index out of range is an IndexError, as NumPy raises, never a read past the end.
# Every implementation here is called from compiled code only, never from Python: Numba builds it no
# CPython or C wrapper (each was typed, lowered and optimized in every process's cold compile).
WITHOUT_WRAPPERS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
JIT_OPTIONS = {"error_model": "numpy", "boundscheck": True, **WITHOUT_WRAPPERS}

STUBS = {}
# The stubs as a module's attributes: an implementation that calls another lowering writes `L.sum(...)`
# (bare names such as `max` and `sum` stay Python's builtins there).
L = types.ModuleType("astjax.runtime.lowered")


def lowers(name, params, *, prefer_literal=False, reference=None):
    """Register the decorated typing function as the Numba overload of a new stub `name(*params)`."""
    def decorate(typer):
        signature = ", ".join(params)
        namespace = {"_reference": reference}
        exec(compile(f"def {name}({signature}):\n"
                     f"    if _reference is None:\n"
                     f"        raise NotImplementedError('{name} runs inside Numba-compiled code only')\n"
                     f"    return _reference({signature})\n", f"<lowering {name}>", "exec"), namespace)
        stub = namespace[name]
        stub.__doc__ = typer.__doc__
        stub.__module__ = "astjax.runtime.numba_cpu"
        exec(compile(f"def typing({signature}):\n    return _typer({signature})\n", f"<typing {name}>", "exec"),
             namespace | {"_typer": typer}, namespace)
        overload(stub, jit_options=JIT_OPTIONS, prefer_literal=prefer_literal)(namespace["typing"])
        STUBS[name] = stub
        setattr(L, name, stub)
        return stub
    return decorate


def build(source, env, name="impl"):
    """Compile the Python `source` of an implementation in the names `env`; return the function `name`."""
    namespace = dict(env)
    exec(compile(source, f"<lowering {name}>", "exec"), namespace)
    return namespace[name]


def is_value(t):
    """A Numba type standing for a number or an array of a supported dtype."""
    from .numba_typing import dtype_of, is_array, is_scalar
    return (is_array(t) or is_scalar(t)) and dtype_of(t) is not None


def ndim_of(t):
    from .numba_typing import is_array
    return t.ndim if is_array(t) else 0


def implementation(params, body, **env):
    """The function `impl(*params)` whose body is the lines `body`, compiled with NumPy, the lowerings
    (`L`) and `env` in scope."""
    import numpy as np
    source = f"def impl({', '.join(params)}):\n" + "\n".join("    " + line for line in body) + "\n"
    return build(source, {"np": np, "L": L} | env)
