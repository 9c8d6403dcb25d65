"""jit's dispatch path (jit/fast_dispatch.py): a call whose arguments match a compiled signature runs it
without entering the compile path; anything else (a new rank, dtype, static value, container structure,
Python scalar kind, a rebound global, a compiled-in array written into) misses and compiles or finds the
right entry. No timings here: speed belongs to benchmarks/run.py."""
import numpy as np
import pytest

import astjax
from astjax.array import Array
from astjax.backends.numba_cpu import JitError
from astjax.jit import compiled as compiled_module


def affine(x, scale, n):
    return x * scale + n


def pair_sum(t):
    return t[0] + t[1]


OFFSET = 1.0
TABLE = np.array([1.0, 2.0, 3.0])


def shifted(x):
    return x + OFFSET


def table_lookup(x):
    return x * TABLE


def int_power(k, e):
    return k ** e


@pytest.fixture
def count_compiles(monkeypatch):
    """How many times the compile path (CompiledFunction._first_call) is entered."""
    calls = []
    original = compiled_module.CompiledFunction._first_call

    def counting(self, key, args):
        calls.append(key)
        return original(self, key, args)
    monkeypatch.setattr(compiled_module.CompiledFunction, "_first_call", counting)
    monkeypatch.setenv("ASTJAX_DISK_CACHE", "0")
    return calls


def test_hits_and_misses_by_shape_dtype_static_value_and_scalar_kind(count_compiles):
    f = astjax.jit(affine, static_argnums=2)
    x3 = np.arange(3, dtype=np.float32)
    out = f(x3, 2.0, 1)
    assert type(out) is Array and out.dtype == np.float32 and np.allclose(out, x3 * 2 + 1)
    assert len(count_compiles) == 1
    # the same signature: another shape of the same rank, another Python float, an astjax Array
    for x, scale in ((np.ones(5, np.float32), 3.0), (astjax.numpy.ones(4, dtype=np.float32), -1.5)):
        got = f(x, scale, 1)
        assert type(got) is Array and got.dtype == np.float32 and np.allclose(got, np.asarray(x) * scale + 1)
    assert len(count_compiles) == 1
    # misses, each compiled once and then a hit
    misses = [((np.ones((2, 2), np.float32), 2.0, 1), np.float32),     # rank
              ((np.ones(3, np.float64), 2.0, 1), np.float64),          # dtype
              ((x3, 2.0, 5), np.float32),                              # static value
              ((x3, np.float64(2.0), 1), np.float64),                  # a NumPy scalar is not weak
              ((x3, 2, 1), np.float32)]                                # a Python int is another signature
    for n, (args, dtype) in enumerate(misses, start=2):
        for _ in range(2):
            got = f(*args)
            assert got.dtype == dtype, args
            assert np.allclose(got, np.asarray(args[0]) * args[1] + args[2])
        assert len(count_compiles) == n, args
    # every signature still dispatches to its own entry
    assert np.allclose(f(x3, 2.0, 1), x3 * 2 + 1) and np.allclose(f(x3, 2.0, 5), x3 * 2 + 5)
    assert f(np.ones(3, np.float64), 2.0, 1).dtype == np.float64
    assert len(count_compiles) == 6
    assert "astjax_dispatch" in f.compiled().fast.__astjax_dispatch_source__


def test_a_new_pytree_structure_misses(count_compiles):
    f = astjax.jit(pair_sum)
    a, b = np.ones(3), np.full(3, 2.0)
    assert np.allclose(f((a, b)), 3.0) and np.allclose(f((b, b)), 4.0)
    assert len(count_compiles) == 1
    assert np.allclose(f([a, b]), 3.0)                 # a list is another structure
    assert np.allclose(f((a, b, a)), 3.0)              # so is a longer tuple
    assert np.allclose(f([b, a]), 3.0)
    assert len(count_compiles) == 3


def test_a_rebound_global_and_a_written_array_are_noticed_on_the_dispatch_path(count_compiles):
    global OFFSET
    f, g = astjax.jit(shifted), astjax.jit(table_lookup)
    x = np.ones(3)
    assert np.allclose(f(x), 2.0) and np.allclose(f(x), 2.0)
    assert np.allclose(g(x), TABLE) and np.allclose(g(x), TABLE)
    compiled_before = len(count_compiles)
    OFFSET = 10.0
    try:
        assert np.allclose(f(x), 11.0)
    finally:
        OFFSET = 1.0
    TABLE[0] = 7.0
    try:
        assert np.allclose(g(x), [7.0, 2.0, 3.0])
    finally:
        TABLE[0] = 1.0
    assert np.allclose(g(x), [1.0, 2.0, 3.0])
    assert len(count_compiles) > compiled_before


def test_a_python_number_refusal_still_names_the_line_on_a_dispatched_call(monkeypatch):
    monkeypatch.setenv("ASTJAX_DISK_CACHE", "0")
    f = astjax.jit(int_power)
    assert f(3, 2) == 9 and f(2, 10) == 1024        # compiled, then dispatched
    with pytest.raises(JitError) as info:
        f(10, 30)                                    # Python's int does not fit compiled code's int64
    assert "test_jit_dispatch.py" in str(info.value)


def squared_norm(x):
    return astjax.numpy.sum(x * x)


def test_a_jitted_gradient_compiles_once_and_then_dispatches(count_compiles):
    df = astjax.jit(astjax.grad(squared_norm))
    for n in (3, 4, 5):
        x = np.arange(n, dtype=np.float32)
        got = df(x)
        assert type(got) is Array and got.dtype == np.float32 and np.allclose(got, 2 * x)
    assert len(count_compiles) == 1


FRESH_PROCESS = """\
import sys, numpy as np, astjax
from astjax.demo import sum_logistic
from astjax.jit import compiled
lowered = []
lower = compiled.lower_function
compiled.lower_function = lambda context: (lowered.append(context.generated.__name__), lower(context))[1]
x = np.linspace(-2.0, 2.0, 5)
got = astjax.jit(astjax.grad(sum_logistic))(x)
assert np.allclose(got, astjax.grad(sum_logistic)(x))
print("scipy.linalg" in sys.modules, "scipy.linalg.cython_blas" in sys.modules, len(lowered))
import scipy.linalg
print(scipy.linalg.cython_blas.__name__, float(scipy.linalg.solve(np.eye(2), np.ones(2))[0]))
"""


def test_a_warm_first_call_replays_the_build_plan_and_leaves_scipy_linalg_unimported(tmp_path):
    """Two new processes on one cache directory. The second lowers nothing (jit/build_plan.py) and agrees;
    neither imports scipy.linalg for Numba's BLAS check (jit/numba_import.py), which imports normally
    afterwards."""
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path), NUMBA_OPT="0",
               PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    outputs = []
    for _ in range(2):
        done = subprocess.run([sys.executable, "-c", FRESH_PROCESS], env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        outputs.append(done.stdout.split())
    assert outputs[0][:2] == outputs[1][:2] == ["False", "False"]
    assert int(outputs[0][2]) >= 1 and outputs[1][2] == "0", outputs
    assert outputs[1][3:] == ["scipy.linalg.cython_blas", "1.0"]
    assert list((tmp_path / "plans").iterdir())


def test_a_plan_is_keyed_by_fast_math_and_a_foreign_or_corrupt_plan_is_not_read(tmp_path, monkeypatch):
    from astjax.jit import cache
    from astjax.jit.build_plan import plan_key
    monkeypatch.setenv("ASTJAX_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("ASTJAX_FAST_MATH", "1")
    fast = plan_key("k" * 40)
    monkeypatch.setenv("ASTJAX_FAST_MATH", "0")
    assert plan_key("k" * 40) != fast
    cache.store_plan(fast, {"format": 2, "text": "def f(x):\n    return x\n"})
    assert cache.load_plan(fast)["text"].startswith("def f")
    (tmp_path / "plans" / f"{fast}.json").write_text('{"key": "another", "plan": {}}')
    assert cache.load_plan(fast) is None
    (tmp_path / "plans" / f"{fast}.json").write_text("{not json")
    assert cache.load_plan(fast) is None
