"""GPU benchmark: astjax.jit(backend="gpu") against CuPy (fused elementwise) and JAX's jit on the GPU.

    python benchmarks/gpu.py            (from the repository root; exits 0 with a line when there is no GPU)
    python benchmarks/gpu.py 1000       (other sizes: a quick run, or one under NUMBA_ENABLE_CUDASIM=1)

SELU and grad(sum(sigmoid)) on 1e6 and 1e8 float32 elements, medians, one table. astjax returns
host arrays, so every library is timed to a result on the host ("dev->host": the input already on
the device); "host->host" adds astjax's copy of a NumPy input to the device, and "dev only" is
CuPy's and JAX's time with the result left on the device, for scale. Each row also checks that
the three libraries agree.
"""
import os
import statistics
import sys
import time

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")     # JAX must leave memory for the others
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import numpy as np  # noqa: E402

import astjax.numpy as jnp  # noqa: E402

ALPHA, SCALE = 1.6732632, 1.0507010


def selu(x):
    return SCALE * jnp.where(x > 0, x, ALPHA * jnp.exp(x) - ALPHA)


def sum_sigmoid(x):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))


def median_ms(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e3


def main():
    try:
        from numba import cuda
        present = cuda.is_available()
    except Exception:          # noqa: BLE001
        present = False
    if not present:
        print("no GPU: numba.cuda.is_available() is False, nothing to measure (benchmarks/gpu.py needs a CUDA device)")
        return 0
    import astjax
    name = cuda.get_current_device().name if hasattr(cuda, "get_current_device") else "CUDA simulator"
    print(f"device: {name.decode() if isinstance(name, bytes) else name}")

    cp = _optional("cupy")
    jax = _optional("jax")
    workloads = {"selu": _selu_set(astjax, cp, jax), "grad(sum(sigmoid))": _grad_set(astjax, cp, jax)}
    rows = []
    sizes = [int(float(a)) for a in sys.argv[1:]] or [10 ** 6, 10 ** 8]
    for n in sizes:
        reps = 30 if n <= 10 ** 6 else 7
        x_host = np.random.default_rng(0).standard_normal(n).astype(np.float32)
        x_dev = cuda.to_device(x_host)
        x_cp = cp.asarray(x_host) if cp else None
        x_jax = jax.device_put(x_host, jax.devices("gpu")[0]) if jax and _jax_gpu(jax) else None
        for label, fns in workloads.items():
            astjax_fn = fns["astjax"]
            got = np.asarray(astjax_fn(x_dev))
            row = {"workload": label, "n": f"{n:.0e}".replace("+0", "").replace("+", ""),
                   "astjax dev->host": median_ms(lambda: astjax_fn(x_dev), reps),
                   "astjax host->host": median_ms(lambda: astjax_fn(x_host), reps)}
            agree = []
            if x_cp is not None:
                row["CuPy dev->host"] = median_ms(lambda: cp.asnumpy(fns["cupy"](x_cp)), reps)
                row["CuPy dev only"] = median_ms(lambda: (fns["cupy"](x_cp), cp.cuda.Device().synchronize()), reps)
                agree.append(np.allclose(got, cp.asnumpy(fns["cupy"](x_cp)), rtol=1e-4, atol=1e-5))
            if x_jax is not None:
                row["JAX dev->host"] = median_ms(lambda: np.asarray(fns["jax"](x_jax)), reps)
                row["JAX dev only"] = median_ms(lambda: fns["jax"](x_jax).block_until_ready(), reps)
                agree.append(np.allclose(got, np.asarray(fns["jax"](x_jax)), rtol=1e-4, atol=1e-5))
                row["astjax / JAX"] = row["astjax dev->host"] / row["JAX dev->host"]
            row["agree"] = "yes" if all(agree) else "NO"
            rows.append(row)
            del got
        del x_dev, x_cp, x_jax
    _print_table(rows)
    return 0


def _selu_set(astjax, cp, jax):
    fns = {"astjax": astjax.jit(selu, backend="gpu")}
    if cp:
        fns["cupy"] = _cupy(cp, lambda x: SCALE * cp.where(x > 0, x, ALPHA * cp.exp(x) - ALPHA))
    if jax and _jax_gpu(jax):
        import jax.numpy as jjnp
        fns["jax"] = jax.jit(lambda x: SCALE * jjnp.where(x > 0, x, ALPHA * jjnp.exp(x) - ALPHA))
    return fns


def _grad_set(astjax, cp, jax):
    fns = {"astjax": astjax.jit(astjax.grad(sum_sigmoid), backend="gpu")}
    if cp:
        def sigmoid_slope(x):
            s = 1.0 / (1.0 + cp.exp(-x))
            return s * (1.0 - s)
        fns["cupy"] = _cupy(cp, sigmoid_slope)
    if jax and _jax_gpu(jax):
        import jax.numpy as jjnp
        fns["jax"] = jax.jit(jax.grad(lambda x: jjnp.sum(1.0 / (1.0 + jjnp.exp(-x)))))
    return fns


def _cupy(cp, fn):
    """`fn` fused into one CuPy kernel (cupy.fuse), or as plain CuPy operations where fusing fails."""
    fused = cp.fuse()(fn)
    try:
        fused(cp.ones(4, dtype=cp.float32))
        return fused
    except Exception as exc:          # noqa: BLE001
        print(f"(cupy.fuse failed, {type(exc).__name__}: timing unfused CuPy)")
        return fn


def _optional(name):
    try:
        return __import__(name)
    except Exception as exc:          # noqa: BLE001 -- not installed, or no GPU support: its columns stay empty
        print(f"({name} not available: {type(exc).__name__})")
        return None


def _jax_gpu(jax):
    try:
        return bool(jax.devices("gpu"))
    except Exception:          # noqa: BLE001
        return False


def _print_table(rows):
    columns = ["workload", "n", "astjax dev->host", "astjax host->host", "CuPy dev->host", "JAX dev->host",
               "astjax / JAX", "CuPy dev only", "JAX dev only", "agree"]
    columns = [c for c in columns if any(c in r for r in rows)]
    print("\nmedians in ms (astjax / JAX: the ratio of the dev->host columns)\n")
    print("| " + " | ".join(columns) + " |")
    print("|" + "|".join("---" for _ in columns) + "|")
    for r in rows:
        cells = []
        for c in columns:
            v = r.get(c, "")
            cells.append(f"{v:.3f}" if isinstance(v, float) else str(v))
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    sys.exit(main())
