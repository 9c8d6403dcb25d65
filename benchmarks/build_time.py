"""Build time: where the first call of a transformed function spends its time, stage by stage.

    python benchmarks/build_time.py [rk4_grad rk4_hessian tanh_orders ...]

Each stage function of the pipeline (parse, normalize, the transformation, each cleanup pass, naming,
unparse and compile; for jit: the reference run that observes types, lowering, Numba) is wrapped with
a timer that excludes the stages it calls, so the rows add up to the first call. Run it from a fresh
process: a second call of the same workload is cached. docs/performance.md ("Build time") has the
figures and what they say.
"""
import collections
import functools
import importlib
import sys
import time

import numpy as np

import astjax
import astjax.numpy as jnp

TOTALS, COUNTS, _STACK = collections.Counter(), collections.Counter(), []


def _timed(label, fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        _STACK.append(0.0)
        try:
            return fn(*args, **kwargs)
        finally:
            inner = _STACK.pop()
            spent = time.perf_counter() - start
            TOTALS[label] += spent - inner
            COUNTS[label] += 1
            if _STACK:
                _STACK[-1] += spent
    return wrapper


def _wrap(owner, attribute, label):
    setattr(owner, attribute, _timed(label, getattr(owner, attribute)))


def install_timers():
    derivation = importlib.import_module("astjax.transforms.derivation")
    for attribute, label in (("function_source", "frontend: parse"), ("normalize", "frontend: normalize"),
                             ("name_temporaries", "codegen: name temporaries"),
                             ("compile_function", "codegen: unparse + compile")):
        _wrap(derivation, attribute, label)
    from astjax.transforms.jvp import ForwardMode
    from astjax.transforms.reverse import ReverseMode
    from astjax.transforms.vmap import BatchMode
    for cls, label in ((ReverseMode, "transform: reverse"), (ForwardMode, "transform: forward"),
                       (BatchMode, "transform: vmap")):
        _wrap(cls, "transform", label)
    optimize = importlib.import_module("astjax.optimize")
    for attribute in ("fold_constants", "fold_adjacent_push_pop", "fold_zero_accumulation", "fold_loop_accumulators",
                      "share_common_subexpressions", "substitute_temporaries", "remove_dead_code", "_fingerprint"):
        _wrap(optimize, attribute, f"cleanup: {attribute.lstrip('_')}")
    compiled = importlib.import_module("astjax.jit.compiled")
    for attribute, label in (("observe", "jit: reference run (observe types)"), ("lower_function", "jit: lower"),
                             ("compile_lowered", "jit: exec lowered source")):
        _wrap(compiled, attribute, label)
    from numba.core import dispatcher
    _wrap(dispatcher.Dispatcher, "compile", "numba: compile")


def rk4(p):
    def f(y):
        return jnp.stack([y[1], -p[0] * jnp.sin(y[0]) - p[1] * y[1]])
    y = jnp.array([0.5, 0.0])
    h = 0.1
    for _ in range(10):
        k1 = f(y)
        k2 = f(y + h / 2 * k1)
        k3 = f(y + h / 2 * k2)
        k4 = f(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0]


def tanh_by_exp(x):
    return (1 - jnp.exp(-2 * x)) / (1 + jnp.exp(-2 * x))


def _tanh_orders():
    g, sizes = tanh_by_exp, []
    for _ in range(6):
        g = astjax.grad(g)
        g(jnp.array(0.3))
        sizes.append(len(astjax.source(g).splitlines()))
    return f"lines per order {sizes}"


WORKLOADS = {
    "rk4_grad": lambda: astjax.grad(rk4)(np.array([1.3, 0.4])),
    "rk4_hessian": lambda: astjax.hessian(rk4)(np.array([1.3, 0.4])),
    "rk4_jit_value_and_grad": lambda: astjax.jit(astjax.value_and_grad(rk4))(np.array([1.3, 0.4])),
    "tanh_orders": _tanh_orders,
}


def main(names):
    install_timers()
    for name in names or ("rk4_grad", "rk4_hessian", "tanh_orders"):
        start = time.perf_counter()
        note = WORKLOADS[name]()
        total = time.perf_counter() - start
        print(f"{name}: {total:.2f} s" + (f" ({note})" if isinstance(note, str) else ""))
        for label, seconds in sorted(TOTALS.items(), key=lambda item: -item[1]):
            print(f"  {label:36s} {seconds:7.3f} s  {COUNTS[label]:5d} calls")
        print(f"  {'(the rest: evaluation, API)':36s} {total - sum(TOTALS.values()):7.3f} s")
        TOTALS.clear()
        COUNTS.clear()


if __name__ == "__main__":
    main(sys.argv[1:])
