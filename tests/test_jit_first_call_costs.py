"""What a cold first call of jit makes Numba compile, and what it imports (docs/performance.md, coldjit3).

Every function Numba compiles costs a typing pass, a lowering, an LLVM optimization and machine-code emission
(0.02-0.05 s even for a one-line helper), and scipy.linalg's package `__init__` costs 0.15 s. A cold
`jit(grad(f))` of a small network compiles none of the helpers that were replaced by inline code, and its
first matrix product does not import scipy.linalg; the gradient is still the reference backend's.
The fresh-process check (scipy.linalg, 3 CPU-s) runs with ASTJAX_LONG_PROPERTIES=1.
"""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from sampling import LONG

pytest.importorskip("numba")

REPLACED = ("_dummy_liveness_func", "ol_min", "ol_max", "<lambda>", "_ol_array_allocate", "_checked_shape",
            "zero_division")


def small_network_loss(w1, w2, x, y):
    h = jnp.tanh(jnp.dot(x, w1))
    return jnp.sum((jnp.dot(h, w2) - y) ** 2) / x.shape[0]


def test_jit_grad_of_a_small_network_compiles_no_replaced_helper_and_agrees():
    """In this process (helpers an earlier test compiled are not compiled again: the fresh-process test
    below sees all of them)."""
    from numba.core import event
    compiled = []

    class Names(event.Listener):
        def on_start(self, e):
            pass

        def on_end(self, e):
            compiled.append(e.data["dispatcher"].py_func.__qualname__)

    rng = np.random.default_rng(1)
    args = [rng.normal(size=s).astype(np.float32) for s in ((7, 5), (5, 2), (3, 7), (3, 2))]
    listener = Names()
    event.register("numba:compile", listener)
    try:
        grads = astjax.jit(astjax.grad(small_network_loss, argnums=(0, 1)))(*args)
    finally:
        event.unregister("numba:compile", listener)
    for g, r in zip(grads, astjax.grad(small_network_loss, argnums=(0, 1))(*args)):
        assert g.dtype == r.dtype == np.float32
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    assert any(n.startswith("value_and_grad_small_network_loss") for n in compiled), compiled
    for replaced in REPLACED:
        assert not any(replaced in n for n in compiled), (replaced, compiled)

SCRIPT = textwrap.dedent('''
    import sys
    import numpy as np
    from numba.core import event
    import astjax
    import astjax.numpy as jnp

    def loss(w1, w2, x, y):
        h = jnp.tanh(jnp.dot(x, w1))
        return jnp.sum((jnp.dot(h, w2) - y) ** 2) / x.shape[0]

    compiled = []

    class Names(event.Listener):
        def on_start(self, e):
            pass

        def on_end(self, e):
            compiled.append(e.data["dispatcher"].py_func.__qualname__)

    event.register("numba:compile", Names())
    rng = np.random.default_rng(0)
    args = [rng.normal(size=s).astype(np.float32) for s in ((6, 5), (5, 3), (4, 6), (4, 3))]
    grads = astjax.jit(astjax.grad(loss, argnums=(0, 1)))(*args)
    reference = astjax.grad(loss, argnums=(0, 1))(*args)
    for g, r in zip(grads, reference):
        assert g.dtype == r.dtype == np.float32
        np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6)
    print("scipy.linalg" in sys.modules, "scipy.linalg.cython_blas" in sys.modules)
    print(" ".join(compiled))
    import scipy.linalg
    import scipy.linalg.cython_blas
    print(scipy.linalg.cython_blas is sys.modules["scipy.linalg.cython_blas"])
''')


@pytest.mark.skipif(not LONG, reason="a fresh process (3 CPU-s): ASTJAX_LONG_PROPERTIES=1")
def test_a_cold_first_call_compiles_no_replaced_helper_and_imports_no_scipy_linalg(tmp_path):
    path = tmp_path / "first_call.py"
    path.write_text(SCRIPT)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, ASTJAX_CACHE_DIR=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, str(path)], env=env, cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
    imported, names, same = done.stdout.strip().splitlines()[-3:]
    assert imported == "False False", imported          # placed for the first call, taken out after
    assert same == "True"                               # a later import finds the one extension module
    names = names.split()
    assert "value_and_grad_loss" in names and any(n.startswith("_fused_") for n in names), names
    for replaced in REPLACED:
        assert not any(replaced in n for n in names), (replaced, names)


def test_an_array_too_big_to_allocate_raises_numpys_error():
    """runtime/numba_allocate.py allocates without Numba's `_allocate` classmethod: its checks stay."""
    import numba
    from astjax.runtime.numba_allocate import empty_array, zeros_array

    @numba.njit
    def make(n, m):
        return empty_array((n, m), np.float64), zeros_array(n, np.float32)

    a, b = make(2, 3)
    assert a.shape == (2, 3) and b.shape == (2,) and not b.any()
    with pytest.raises(ValueError, match="array is too big"):
        make(2 ** 32, 2 ** 32)
    with pytest.raises(ValueError, match="negative dimensions"):
        make(-1, 3)
