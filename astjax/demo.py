"""The tour behind `python -m astjax demo`: derivatives as readable source, checked and timed."""
import time

import numpy as np

import astjax
import astjax.numpy as jnp


def sigmoid(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def sum_logistic(x):
    return jnp.sum(sigmoid(x))


def power_loop(x, n):
    y = 1.0
    for _ in range(n):
        y = y * x
    return y


def relu_branch(x):
    if x > 0:
        return x * x
    else:
        return -x


def _median_time(fn, *args, repeat=7):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def _section(title):
    print()
    print(title)
    print("-" * len(title))


def run():
    print(f"astjax {astjax.__version__}: JAX's transformations by rewriting Python source.")

    _section("1. grad of a NumPy-style function, and the source astjax wrote for it")
    grad_fn = astjax.grad(sum_logistic)
    x = jnp.arange(3.0)
    print("grad(sum_logistic)(arange(3.0)) =", grad_fn(x))
    print(astjax.source(grad_fn))

    _section("2. Python control flow stays Python control flow")
    print("grad(power_loop)(1.5, 4) =", float(astjax.grad(power_loop)(1.5, 4)), " (4 * 1.5**3 = 13.5)")
    print("grad(relu_branch)(3.0), (-2.0) =", float(astjax.grad(relu_branch)(3.0)),
          float(astjax.grad(relu_branch)(-2.0)))
    print(astjax.source(astjax.grad(power_loop)))

    _section("3. forward mode, and derivatives of derivatives")
    value, slope = astjax.jvp(power_loop, (1.5, 4), (1.0, 0))
    print("jvp(power_loop, (1.5, 4), (1.0, 0)) =", (float(value), float(slope)), " (5.0625, 13.5)")
    fourth = astjax.grad(astjax.grad(astjax.grad(lambda t: t ** 4)))
    print("grad(grad(grad(x**4)))(2.0) =", float(fourth(2.0)), " (24 * 2 = 48)")
    print("hessian(sum_logistic)(arange(3.0)) diagonal =", np.diag(np.asarray(astjax.hessian(sum_logistic)(x))))

    _section("4. vmap: per-example gradients, batched by source transformation")
    per_example = astjax.vmap(astjax.grad(sum_logistic))
    batch = jnp.arange(6.0).reshape(2, 3)
    print("vmap(grad(sum_logistic))(2 x 3 batch) =\n", per_example(batch))

    _section("5. jit: the generated source lowered for Numba (first call compiles and checks it)")
    fast = astjax.jit(astjax.grad(power_loop))
    print("jit(grad(power_loop))(1.0001, 1000) =", float(fast(1.0001, 1000)))
    print(fast.lower(1.0001, 1000).source)

    _section("6. time against NumPy (float32, median of 7)")
    rows = []
    fast_grad = astjax.jit(grad_fn)
    for n in (1_000, 1_000_000):
        data = np.random.default_rng(0).normal(size=n).astype(np.float32)

        def analytic(v):
            s = 1.0 / (1.0 + np.exp(-v))
            return s * (1.0 - s)

        ours = _median_time(grad_fn, data)
        compiled = _median_time(fast_grad, data)
        theirs = _median_time(analytic, data)
        np.testing.assert_allclose(np.asarray(grad_fn(data)), analytic(data), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(np.asarray(fast_grad(data)), analytic(data), rtol=1e-4, atol=1e-6)
        rows.append((f"grad sum(sigmoid(x)), n={n:,}", ours, compiled, theirs))
    print(f"{'workload':36s} {'reference':>10s} {'jit':>10s} {'numpy':>10s} {'jit/numpy':>9s}")
    for label, ours, compiled, theirs in rows:
        print(f"{label:36s} {ours * 1e3:8.3f}ms {compiled * 1e3:8.3f}ms {theirs * 1e3:8.3f}ms {compiled / theirs:8.2f}x")
    print("\nreference: the generated source run with NumPy; jit: the same source lowered and compiled with\n"
          "Numba (fused loops, a vectorized exp). benchmarks/run.py has more workloads, and JAX when installed.")
