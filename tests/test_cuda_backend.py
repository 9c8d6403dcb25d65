"""jit(f, backend="gpu"): elementwise programs and full reductions as Numba CUDA kernels.

The device tests run in one of two modes:

* under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1). The variable must be set before numba.cuda is
  imported, so in the default profile `test_device_checks_under_the_simulator` runs this file again
  in a subprocess with it set;
* on a real GPU: `ASTJAX_CUDA_REAL=1 python -m pytest tests/test_cuda_backend.py -n 0`.

Without either, only the checks that need no device run here (no GPU: a clear RuntimeError).
"""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np

try:
    import pytest
except ImportError:          # a GPU machine without pytest still runs `python tests/test_cuda_backend.py`
    pytest = None

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

if pytest is None:
    import re as _re
    import types as _types

    class _Mark:
        def __init__(self, name):
            self.name = name

        def __call__(self, *args, **kwargs):
            def mark(fn):
                fn.pytestmark = getattr(fn, "pytestmark", []) + [_types.SimpleNamespace(name=self.name, args=args)]
                return fn
            return mark

    class _Raises:
        def __init__(self, kind, match=None):
            self.kind, self.match, self.value = kind, match, None

        def __enter__(self):
            return self

        def __exit__(self, kind, value, tb):
            assert kind is not None and issubclass(kind, self.kind), f"did not raise {self.kind.__name__}"
            assert self.match is None or _re.search(self.match, str(value)), str(value)
            self.value = value
            return True

    pytest = _types.SimpleNamespace(
        mark=_types.SimpleNamespace(skipif=_Mark("skipif"), parametrize=_Mark("parametrize")),
        fixture=lambda *a, **k: (lambda fn: fn), raises=_Raises)

SIMULATED = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
REAL = os.environ.get("ASTJAX_CUDA_REAL") == "1"
DEVICE = SIMULATED or REAL
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

device = pytest.mark.skipif(not DEVICE, reason="runs under the CUDA simulator (in a subprocess) or with "
                                                "ASTJAX_CUDA_REAL=1 on a GPU")


@pytest.fixture(scope="module", autouse=True)
def _a_device_when_asked():
    if REAL:
        from numba import cuda
        if not cuda.is_available():
            pytest.skip("ASTJAX_CUDA_REAL=1 but numba.cuda.is_available() is False")


# ---------------------------------------------------------------- the default profile
@pytest.mark.skipif(DEVICE, reason="this process already runs the device checks")
def test_device_checks_under_the_simulator():
    """This file's device tests, in a process where NUMBA_ENABLE_CUDASIM=1 was set before Numba loaded (run
    by `_run_device_tests` below rather than by a second pytest: its start-up would double the cost)."""
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1", PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("ASTJAX_CUDA_REAL", None)
    run = subprocess.run([sys.executable, os.path.abspath(__file__)], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-6000:]
    assert "device tests passed" in run.stdout, run.stdout[-2000:]


def _run_device_tests():
    """Call every device test of this module (each parametrization), as pytest would; exit 1 on a failure."""
    import traceback
    if REAL:
        from numba import cuda
        if not cuda.is_available():
            print("ASTJAX_CUDA_REAL=1 but numba.cuda.is_available() is False: no GPU here")
            return 1
    failed, count = [], 0
    for name, fn in list(globals().items()):
        marks = getattr(fn, "pytestmark", [])
        skips = [m.args[0] for m in marks if m.name == "skipif"]
        if not (name.startswith("test_") and (not DEVICE) in skips) or any(skips):
            continue
        cases = [{}]
        for mark in (m for m in marks if m.name == "parametrize"):
            names = [n.strip() for n in mark.args[0].split(",")]
            cases = [dict(zip(names, values)) for values in mark.args[1]]
        for case in cases:
            count += 1
            try:
                fn(**case)
            except BaseException:          # noqa: BLE001 -- reported, and the run fails
                failed.append(name)
                print(f"FAILED {name} {case}\n{traceback.format_exc()}")
    print(f"{count - len(failed)} device tests passed, {len(failed)} failed")
    return 1 if failed or not count else 0


@pytest.mark.skipif(DEVICE, reason="a device is present here")
def test_without_a_gpu_devices_and_jit_say_so():
    from astjax.backends.cuda import available
    if available():
        pytest.skip("a CUDA device is present")
    assert astjax.devices()[0].platform == "cpu"
    with pytest.raises(RuntimeError, match="no platforms that are instances of gpu"):
        astjax.devices("gpu")
    f = astjax.jit(_programs().selu, backend="gpu")         # jit itself is lazy, as JAX's
    with pytest.raises(RuntimeError, match="gpu"):
        f(jnp.ones(3))
    with pytest.raises(ValueError, match="backend 'tpu'"):
        astjax.jit(_programs().selu, backend="tpu")


# ---------------------------------------------------------------- programs (in a file: astjax reads source)
PROGRAMS = '''
import astjax.numpy as jnp
from astjax import nn


def selu(x, alpha=1.6732632, scale=1.0507010):
    return scale * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)


def sum_sigmoid(x):
    return jnp.sum(nn.sigmoid(x))


def tanh_squared(x):
    return jnp.sum(jnp.tanh(x) ** 2)


def centered(x, y):
    d = x * y - jnp.mean(x * y)
    return jnp.sum(d * d), jnp.max(x), jnp.min(y)


def variance(x):
    return jnp.mean((x - jnp.mean(x)) ** 2)


def scaled(x, a):
    return jnp.sum(jnp.tanh(a * x)) ** 0.5


def activations(x):
    return jnp.sum(nn.relu(x) + nn.softplus(x) + nn.gelu(x, approximate=False) + nn.elu(x) + nn.log_sigmoid(x))


def uses_dot(x):
    return jnp.dot(x, x)


def uses_index(x):
    return jnp.sin(x[0]) * x


def uses_loop(x):
    total = x
    for k in range(3):
        total = total * x
    return total


def sums_rows(x):
    return jnp.sum(jnp.exp(x), axis=0)


def uses_cumsum(x):
    return jnp.cumsum(x) * 2.0
'''


def _module(name, text, tmp=None):
    """Import `text` as module `name` from a file of its own (astjax reads source from files); the
    folder is removed when the process ends, after the last kernel that reads it."""
    import atexit
    import shutil
    import tempfile
    folder = tmp
    if folder is None:
        folder = tempfile.mkdtemp(prefix="astjax_cuda_")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = os.path.join(folder, f"{name}.py")
    with open(path, "w") as f:
        f.write(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_CACHE = {}


def _programs():
    if "programs" not in _CACHE:
        _CACHE["programs"] = _module("cuda_programs", PROGRAMS)
    return _CACHE["programs"]


def _x(n=100, dtype=np.float32, low=-2.0, high=2.0, seed=0):
    return np.random.default_rng(seed).uniform(low, high, n).astype(dtype)


# ---------------------------------------------------------------- every primitive with a "cuda" lowering
# inputs where each primitive is defined (and smooth), by operand
DOMAINS = {"log": [(0.2, 3.0)], "log2": [(0.2, 3.0)], "log10": [(0.2, 3.0)], "sqrt": [(0.2, 3.0)],
           "reciprocal": [(0.5, 3.0)], "log1p": [(-0.5, 2.0)], "arcsin": [(-0.9, 0.9)], "arccos": [(-0.9, 0.9)],
           "arctanh": [(-0.9, 0.9)], "arccosh": [(1.1, 3.0)], "divide": [(-2.0, 2.0), (0.5, 2.0)],
           "power": [(0.2, 2.0), (-2.0, 2.0)], "abs": [(0.1, 2.0)], "fabs": [(0.1, 2.0)]}
BOOLEAN = ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal")


def _cuda_primitives():
    from astjax.rules import PRIMITIVES
    return sorted(name for name, prim in PRIMITIVES.items() if prim.lowerings.get("cuda") is not None)


def _table_module():
    """A file with one function returning every primitive's result and one summing them (for grad)."""
    from astjax.rules import PRIMITIVES
    names = _cuda_primitives()
    calls, args, operands = [], [], {}
    for name in names:
        prim = PRIMITIVES[name]
        arity = prim.lowerings["cuda"].arity
        mine = [f"a{len(args) + k}" for k in range(arity)]
        args.extend(mine)
        operands[name] = mine
        if name == "where":
            calls.append(f"p_where({mine[0]} > 0.0, {mine[1]}, {mine[2]})")
        else:
            calls.append(f"p_{name}({', '.join(mine)})")
    weighted = [f"{0.5 + 0.25 * (k % 5)} * {call}" for k, (name, call) in enumerate(zip(names, calls))
                if PRIMITIVES[name].differentiable and name not in BOOLEAN]
    text = (f"def every_primitive({', '.join(args)}):\n    return ({', '.join(calls)},)\n\n\n"
            f"def weighted_sum({', '.join(args)}):\n    return jnp.sum(" + "\n                   + ".join(weighted)
            + ")\n")
    module = _module("cuda_table", "import astjax.numpy as jnp\n\n\n" + text)
    for name in names:
        setattr(module, f"p_{name}", PRIMITIVES[name].impl)
    return module, names, args, operands


def _table_inputs(names, operands, dtype=np.float32):
    values = {}
    for k, name in enumerate(names):
        ranges = DOMAINS.get(name, [])
        for j, arg in enumerate(operands[name]):
            low, high = ranges[j] if j < len(ranges) else (-2.0, 2.0)
            values[arg] = _x(64, dtype, low, high, seed=10 * k + j)
    return values


@device
def test_every_cuda_lowering_against_its_numpy_meaning_and_its_gradient():
    from astjax.rules import PRIMITIVES
    module, names, args, operands = _table_module()
    assert {"exp", "tanh", "add", "where", "maximum", "expit", "greater"} <= set(names)
    inputs = _table_inputs(names, operands)
    values = [inputs[a] for a in args]
    got = astjax.jit(module.every_primitive, backend="gpu")(*values)
    for name, result in zip(names, got):
        prim, mine = PRIMITIVES[name], [inputs[a] for a in operands[name]]
        want = np.asarray(prim.impl(mine[0] > 0.0, *mine[1:]) if name == "where" else prim.impl(*mine))
        result = np.asarray(result)
        assert result.dtype == want.dtype, name
        np.testing.assert_allclose(result, want, rtol=2e-5, atol=1e-6, err_msg=name)
    differentiable = [a for n in names if PRIMITIVES[n].differentiable and n not in BOOLEAN for a in operands[n]]
    argnums = tuple(args.index(a) for a in differentiable if not (a == operands["where"][0]))
    gradient = astjax.jit(astjax.grad(module.weighted_sum, argnums=argnums), backend="gpu")(*values)
    reference = astjax.grad(module.weighted_sum, argnums=argnums)(*values)
    for k, g, r in zip(argnums, gradient, reference):
        assert np.asarray(g).dtype == np.float32
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-4, atol=1e-5, err_msg=args[k])


# ---------------------------------------------------------------- the founding programs
@device
def test_selu_float32_stays_float32_and_the_source_is_a_kernel():
    p = _programs()
    x = _x(200).reshape(20, 10)
    f = astjax.jit(p.selu, backend="gpu")
    got = f(x)
    assert isinstance(got, astjax.Array) and got.dtype == np.float32 and got.shape == (20, 10)
    np.testing.assert_allclose(np.asarray(got), np.asarray(p.selu(x)), rtol=1e-5, atol=1e-6)
    text = astjax.source(f, x)
    assert "@cuda.jit" in text and "i = cuda.grid(1)" in text and "math.exp(x[i])" in text
    assert "i += stride" in text
    np.testing.assert_allclose(np.asarray(f(x[:5])), np.asarray(p.selu(x[:5])), rtol=1e-5, atol=1e-6)
    assert len(f.compiled().entries) == 1          # one signature: dtype and rank, any shape
    f(x.astype(np.float64))
    assert len(f.compiled().entries) == 2


@device
def test_reductions_gradients_and_value_and_grad():
    p = _programs()
    x, y = _x(150), _x(150, seed=3)
    np.testing.assert_allclose(float(astjax.jit(p.sum_sigmoid, backend="gpu")(x)), float(p.sum_sigmoid(x)),
                               rtol=1e-5)
    jitted_grad = astjax.jit(astjax.grad(p.tanh_squared), backend="cuda")
    g = jitted_grad(x)
    text = astjax.source(jitted_grad, x)
    assert "run.reduce('sum'" in text and "math.tanh(x[i])" in text and "partials[cuda.blockIdx.x]" in text
    np.testing.assert_allclose(np.asarray(g), np.asarray(astjax.grad(p.tanh_squared)(x)), rtol=1e-5, atol=1e-6)
    value, grad = astjax.jit(astjax.value_and_grad(p.sum_sigmoid), backend="gpu")(x)
    assert value.dtype == grad.dtype == np.float32 and value.shape == ()
    np.testing.assert_allclose(float(value), float(p.sum_sigmoid(x)), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(grad), np.asarray(astjax.grad(p.sum_sigmoid)(x)), rtol=1e-5, atol=1e-6)
    got = astjax.jit(p.centered, backend="gpu")(x, y)
    for a, b in zip(got, p.centered(x, y)):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)
    inner = astjax.jit(p.tanh_squared, backend="gpu")            # grad(jit) runs on the GPU as jit(grad) does
    np.testing.assert_allclose(np.asarray(astjax.grad(inner)(x)), np.asarray(g), rtol=1e-5, atol=1e-6)
    assert any("@cuda.jit" in entry.text for compiled in inner._swaps.values() for entry in compiled.entries.values())


@device
def test_gradients_through_reductions_read_earlier_reductions():
    """The variance's gradient reads the mean in every element, and a scalar's adjoint is a sum."""
    p = _programs()
    x = _x(90, low=0.1)
    got = astjax.jit(astjax.grad(p.variance), backend="gpu")(x)
    np.testing.assert_allclose(np.asarray(got), np.asarray(astjax.grad(p.variance)(x)), rtol=1e-4, atol=1e-6)
    got = astjax.jit(astjax.grad(p.scaled, argnums=(0, 1)), backend="gpu")(x, 0.7)
    for g, r in zip(got, astjax.grad(p.scaled, argnums=(0, 1))(x, 0.7)):
        assert np.asarray(g).dtype == np.asarray(r).dtype == np.float32
        np.testing.assert_allclose(np.asarray(g), np.asarray(r), rtol=1e-4, atol=1e-6)


@device
def test_astjax_nn_activations_and_their_gradient():
    """Inlined library code: isnan in relu, log_expit in softplus, ndtr in gelu, a branch on a literal."""
    p = _programs()
    x = _x(80, low=-3.0, high=3.0)
    value, grad = astjax.jit(astjax.value_and_grad(p.activations), backend="gpu")(x)
    want_value, want_grad = astjax.value_and_grad(p.activations)(x)
    np.testing.assert_allclose(float(value), float(want_value), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(grad), np.asarray(want_grad), rtol=1e-4, atol=1e-6)


@device
def test_nan_propagates_through_max_and_an_empty_max_raises():
    p = _programs()
    x = _x(70)
    x[13] = np.nan
    got = astjax.jit(p.centered, backend="gpu")(x, _x(70, seed=1))
    assert np.isnan(float(got[1])) and np.isnan(float(got[0]))
    import warnings
    with pytest.raises(ValueError, match="zero-size array"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)       # the reference's mean of nothing
        astjax.jit(p.centered, backend="gpu")(x[:0], x[:0])


@device
def test_device_arrays_are_read_in_place():
    from numba import cuda
    p = _programs()
    x = _x(120)
    on_device = cuda.to_device(x)
    got = astjax.jit(p.selu, backend="gpu")(on_device)
    assert isinstance(got, astjax.Array)
    np.testing.assert_allclose(np.asarray(got), np.asarray(p.selu(x)), rtol=1e-5, atol=1e-6)


@device
def test_devices_lists_the_gpu():
    gpus = astjax.devices("gpu")
    assert gpus and gpus[0].platform == "gpu"
    assert astjax.devices("cuda") == gpus
    assert astjax.devices()[0].platform == "cpu"
    f = astjax.jit(_programs().tanh_squared, device=gpus[0])
    assert f.backend == "gpu"


# ---------------------------------------------------------------- refusals, at the user's line
@device
@pytest.mark.parametrize("name, line, what", [
    ("uses_dot", "return jnp.dot(x, x)", "`dot` has no CUDA lowering"),
    ("uses_index", "return jnp.sin(x[0]) * x", "the indexing `x[0]`"),
    ("uses_loop", "for k in range(3):", "a loop"),
    ("sums_rows", "return jnp.sum(jnp.exp(x), axis=0)", "reduction over an axis"),
    ("uses_cumsum", "return jnp.cumsum(x) * 2.0", "`cumsum` has no CUDA lowering"),
])
def test_what_the_gpu_backend_does_not_lower_is_refused_at_its_line(name, line, what):
    p = _programs()
    with pytest.raises(AstjaxError) as info:
        astjax.jit(getattr(p, name), backend="gpu")(_x(16).reshape(4, 4) if name == "sums_rows" else _x(16))
    message = str(info.value)
    assert "cuda_programs.py" in message and line in message, message
    assert what in message, message
    assert "elementwise programs" in message and "astjax.jit(f)" in message, message


@device
def test_arguments_of_different_shapes_are_refused():
    p = _programs()
    f = astjax.jit(p.centered, backend="gpu")
    f(_x(10), _x(10))
    with pytest.raises(AstjaxError, match="arrays of one shape"):
        f(_x(10), _x(11))



# ---------------------------------------------------------------- the adversarial corpus (long profile)
@device
@pytest.mark.skipif(not os.environ.get("ASTJAX_LONG_PROPERTIES"), reason="the long profile (ASTJAX_LONG_PROPERTIES=1)")
def test_the_adversarial_corpus_agrees_with_the_reference_or_is_refused_on_the_gpu():
    """Every corpus program's value_and_grad and primal under jit(backend="gpu"): the reference's numbers,
    the same on a second call, or an AstjaxError. Never a third outcome."""
    import warnings
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from adversarial import CASES
    from adversarial.harness import fresh, leaves
    from adversarial.known_failures import KNOWN_FAILURES
    wrong = []
    for case in [c for c in CASES if c.mode == "grad" and c.outcome in ("works", "either")
                 and c.name not in KNOWN_FAILURES]:
        for make in (lambda: astjax.value_and_grad(case.fn, argnums=case.argnums), lambda: case.fn):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    want = make()(*fresh(case.args()))
                except Exception:          # noqa: BLE001 -- the reference does not run it: nothing to compare
                    continue
                jitted = astjax.jit(make(), backend="gpu")
                try:
                    got, again = jitted(*fresh(case.args())), jitted(*fresh(case.args()))
                except AstjaxError as exc:
                    assert str(exc).strip(), f"an empty refusal of {case.name}"
                    continue
                except TypeError:          # a bound method's jit: the CPU jit raises the same (not the GPU's)
                    continue
            pairs = list(zip(leaves(got), leaves(again), leaves(want)))
            if len(pairs) != len(leaves(want)) or not all(
                    np.shape(g) == np.shape(w) and np.allclose(np.asarray(g, np.float64), np.asarray(w, np.float64),
                                                               rtol=1e-4, atol=1e-6, equal_nan=True)
                    and np.array_equal(np.asarray(g), np.asarray(a), equal_nan=True) for g, a, w in pairs):
                wrong.append(case.name)
    assert not wrong, wrong

if __name__ == "__main__":
    if not DEVICE:
        sys.exit("set NUMBA_ENABLE_CUDASIM=1 (or ASTJAX_CUDA_REAL=1 on a GPU)")
    sys.exit(_run_device_tests())
