"""Benchmarks: astjax against NumPy (and JAX when installed), in one process, as ratios.

    python benchmarks/run.py [--quick]

Times are medians of repeated calls after a warm-up call (compile or
generation excluded); the ratio column is astjax / NumPy, lower is better.
Machines are noisy: compare ratios within one run, not across runs.
"""
import argparse
import time

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax.demo import power_loop, sum_logistic     # the demo's functions, timed here

try:                                  # an optional comparison only
    import jax
    import jax.numpy as jjnp
    jax.config.update("jax_platforms", "cpu")
except Exception:                     # noqa: BLE001 - any failure means "no JAX here"
    jax = None


def median_time(fn, *args, repeat=7):
    fn(*args)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn(*args)
        if hasattr(out, "block_until_ready"):
            out.block_until_ready()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def square(x):
    return x * x


def workloads(quick):
    n = 100_000 if quick else 1_000_000
    data = np.random.default_rng(0).normal(size=n).astype(np.float32)
    rows = []

    def numpy_dsigmoid(x):
        s = 1.0 / (1.0 + np.exp(-x))
        return s * (1.0 - s)

    jax_grad = None
    if jax is not None:
        jax_grad = jax.jit(jax.grad(lambda x: jjnp.sum(1.0 / (1.0 + jjnp.exp(-x)))))
    rows.append((f"grad sum(sigmoid(x)), n={n:,}", astjax.grad(sum_logistic), numpy_dsigmoid, jax_grad, (data,)))

    rows.append(("grad x*x, one scalar (call overhead)", astjax.grad(square), lambda x: 2.0 * x,
                 jax.jit(jax.grad(lambda x: x * x)) if jax else None, (np.float32(1.5),)))

    def numpy_power_grad(x, k):
        return k * x ** (k - 1)

    rows.append(("grad power_loop, 1000 iterations", astjax.grad(power_loop), numpy_power_grad, None,
                 (np.float32(1.0001), 1000)))

    matrix = np.random.default_rng(1).normal(size=(200, 200)).astype(np.float32)
    rows.append(("jnp.matmul 200x200", jnp.matmul, np.matmul, jax.jit(jjnp.matmul) if jax else None,
                 (matrix, matrix)))
    rows.append((f"jnp.sin, n={n:,}", jnp.sin, np.sin, jax.jit(jjnp.sin) if jax else None, (data,)))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    args = parser.parse_args(argv)
    header = f"{'workload':40s} {'astjax':>11s} {'numpy':>11s} {'ratio':>7s}"
    if jax is not None:
        header += f" {'jax':>11s} {'vs jax':>7s}"
    print(header)
    for label, ours, numpy_fn, jax_fn, inputs in workloads(args.quick):
        t_ours = median_time(ours, *inputs)
        t_np = median_time(numpy_fn, *inputs)
        line = f"{label:40s} {t_ours * 1e3:9.3f}ms {t_np * 1e3:9.3f}ms {t_ours / t_np:6.2f}x"
        if jax is not None:
            if jax_fn is not None:
                t_jax = median_time(jax_fn, *inputs)
                line += f" {t_jax * 1e3:9.3f}ms {t_ours / t_jax:6.2f}x"
            else:
                line += f" {'-':>11s} {'-':>7s}"
        print(line)
    print("\nastjax runs on its reference backend (generated Python over NumPy); jit is not built yet.")


if __name__ == "__main__":
    main()
