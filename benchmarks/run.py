"""Benchmarks: astjax against NumPy (and JAX when installed), in one process, as ratios.

    OPENBLAS_NUM_THREADS=1 python benchmarks/run.py [--quick]

Each row times its candidates interleaved (one call of each in turn, repeated)
after a warm-up call that compiles or generates, and reports medians. The ratio
columns are astjax / NumPy and astjax / JAX-jit: lower is better. The machines
here are shared and noisy: pin BLAS to one thread (as above) and compare ratios
within one run, never across runs. Compile times are reported separately.
"""
import argparse
import os
import time

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax import lax
from astjax.demo import power_loop, sum_logistic     # the demo's functions, timed here

try:                                  # an optional comparison only
    import jax
    import jax.numpy as jjnp
    jax.config.update("jax_platforms", "cpu")
except Exception:                     # noqa: BLE001 - any failure means "no JAX here"
    jax = None

ALPHA, SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _block(out):
    """Wait for JAX's asynchronous result, every leaf of it: a tuple of gradients has no
    `block_until_ready` of its own, and timing it unblocked measures only the dispatch."""
    if jax is not None:
        return jax.block_until_ready(out)
    return out


def interleaved_medians(candidates, args, repeat):
    """Median seconds of each candidate, calling them in turn `repeat` times (None stays None)."""
    live = [c for c in candidates if c is not None]
    times = {id(c): [] for c in live}
    for _ in range(repeat):
        for c in live:
            start = time.perf_counter()
            _block(c(*args))
            times[id(c)].append(time.perf_counter() - start)
    return [None if c is None else sorted(times[id(c)])[repeat // 2] for c in candidates]


def first_call(fn, args):
    start = time.perf_counter()
    _block(fn(*args))
    return time.perf_counter() - start


# ------------------------------------------------------------------ the workloads
def square(x):
    return x * x


def tiny(x):
    return x + 1.0


def selu(x):
    return SCALE * jnp.where(x > 0, x, ALPHA * jnp.exp(x) - ALPHA)


def selu_numpy(x):
    return SCALE * np.where(x > 0, x, ALPHA * np.exp(x) - ALPHA)


def mlp_loss(w1, w2, w3, x, y):
    h1 = jnp.tanh(jnp.dot(x, w1))
    h2 = jnp.tanh(jnp.dot(h1, w2))
    out = jnp.dot(h2, w3)
    return jnp.sum((out - y) ** 2) / x.shape[0]


def mlp_grad_numpy(w1, w2, w3, x, y):
    h1 = np.tanh(x @ w1)
    h2 = np.tanh(h1 @ w2)
    g_out = 2.0 * (h2 @ w3 - y) / x.shape[0]
    g_h2 = (g_out @ w3.T) * (1 - h2 * h2)
    g_h1 = (g_h2 @ w2.T) * (1 - h1 * h1)
    return x.T @ g_h1, h1.T @ g_h2, h2.T @ g_out


def blur(image, kernel):
    im_h, im_w = image.shape
    ker_h, ker_w = kernel.shape
    pad_h, pad_w = ker_h // 2, ker_w // 2
    padded = jnp.pad(image, ((pad_h, pad_h), (pad_w, pad_w)), mode="edge")
    output = jnp.zeros_like(image)
    for i in range(ker_h):
        for j in range(ker_w):
            window = lax.dynamic_slice(padded, (i, j), (im_h, im_w))
            output += kernel[i, j] * window
    return output


def blur_numpy(image, kernel):
    im_h, im_w = image.shape
    ker_h, ker_w = kernel.shape
    padded = np.pad(image, ((ker_h // 2,) * 2, (ker_w // 2,) * 2), mode="edge")
    output = np.zeros_like(image)
    for i in range(ker_h):
        for j in range(ker_w):
            output += kernel[i, j] * padded[i:i + im_h, j:j + im_w]
    return output


def blur_loss(kernel, image):
    return jnp.sum(blur(image, kernel) ** 2)


def blur_kernel_grad_numpy(kernel, image):
    im_h, im_w = image.shape
    ker_h, ker_w = kernel.shape
    padded = np.pad(image, ((ker_h // 2,) * 2, (ker_w // 2,) * 2), mode="edge")
    g = 2.0 * blur_numpy(image, kernel)
    out = np.empty_like(kernel)
    for i in range(ker_h):
        for j in range(ker_w):
            out[i, j] = np.vdot(g, padded[i:i + im_h, j:j + im_w])
    return out


def matmul(a, b):
    return jnp.dot(a, b)


def mat_vec(matrix, vector):
    return jnp.dot(matrix, vector)


def layer_loss(w, x, y):
    return jnp.sum((jnp.tanh(jnp.dot(x, w)) - y) ** 2)


def per_example_grads_numpy(w, xs, ys):
    h = np.tanh(xs @ w)
    g = 2.0 * (h - ys) * (1.0 - h * h)             # (batch, out)
    return np.einsum("bi,bo->bio", xs, g)


def mlp_example_loss(w1, w2, w3, x, y):
    """The MLP's loss on one example (vmap(grad) of it: issue 8's per-example gradients of the MLP loss)."""
    h1 = jnp.tanh(jnp.dot(x, w1))
    h2 = jnp.tanh(jnp.dot(h1, w2))
    return jnp.sum((jnp.dot(h2, w3) - y) ** 2)


def mlp_per_example_grads_numpy(w1, w2, w3, xs, ys):
    h1 = np.tanh(xs @ w1)
    h2 = np.tanh(h1 @ w2)
    g_out = 2.0 * (h2 @ w3 - ys)
    g_h2 = (g_out @ w3.T) * (1 - h2 * h2)
    g_h1 = (g_h2 @ w2.T) * (1 - h1 * h1)
    return (np.einsum("bi,bo->bio", xs, g_h1), np.einsum("bi,bo->bio", h1, g_h2),
            np.einsum("bi,bo->bio", h2, g_out))


def numpy_dsigmoid(x):
    s = 1.0 / (1.0 + np.exp(-x))
    return s * (1.0 - s)


def newton_sqrt(a):
    """sqrt(a) by Newton steps until converged: a data-dependent while loop per element."""
    x = a
    while jnp.abs(x * x - a) > 1e-5 * a:
        x = 0.5 * (x + a / x)
    return x


def newton_sqrt_numpy(a):
    x = a.copy()
    active = np.abs(x * x - a) > 1e-5 * a
    while active.any():
        x = np.where(active, 0.5 * (x + a / x), x)
        active = np.abs(x * x - a) > 1e-5 * a
    return x


def jax_versions():
    """The same workloads written for JAX (jitted), or {} without JAX."""
    if jax is None:
        return {}

    def mlp_loss_jax(w1, w2, w3, x, y):
        h1 = jjnp.tanh(jjnp.dot(x, w1))
        h2 = jjnp.tanh(jjnp.dot(h1, w2))
        return jjnp.sum((jjnp.dot(h2, w3) - y) ** 2) / x.shape[0]

    def layer_loss_jax(w, x, y):
        return jjnp.sum((jjnp.tanh(jjnp.dot(x, w)) - y) ** 2)

    def mlp_example_loss_jax(w1, w2, w3, x, y):
        h2 = jjnp.tanh(jjnp.dot(jjnp.tanh(jjnp.dot(x, w1)), w2))
        return jjnp.sum((jjnp.dot(h2, w3) - y) ** 2)

    def power_loop_jax(x, n):
        return jax.lax.fori_loop(0, n, lambda i, y: y * x, jjnp.ones_like(x))

    def newton_jax(a):
        return jax.lax.while_loop(lambda x: jjnp.abs(x * x - a) > 1e-5 * a, lambda x: 0.5 * (x + a / x), a)

    def blur_jax(image, kernel):
        im_h, im_w = image.shape
        ker_h, ker_w = kernel.shape
        padded = jjnp.pad(image, ((ker_h // 2,) * 2, (ker_w // 2,) * 2), mode="edge")
        output = jjnp.zeros_like(image)
        for i in range(ker_h):
            for j in range(ker_w):
                output += kernel[i, j] * jax.lax.dynamic_slice(padded, (i, j), (im_h, im_w))
        return output

    return {
        "blur_grad": jax.jit(jax.grad(lambda k, im: jjnp.sum(blur_jax(im, k) ** 2))),
        "matmul": jax.jit(jjnp.dot),
        "mlp": jax.jit(jax.grad(mlp_loss_jax, argnums=(0, 1, 2))),
        "mat_vec": jax.jit(jax.vmap(jjnp.dot, in_axes=(None, 0))),
        "per_example": jax.jit(jax.vmap(jax.grad(layer_loss_jax), in_axes=(None, 0, 0))),
        "mlp_per_example": jax.jit(jax.vmap(jax.grad(mlp_example_loss_jax, argnums=(0, 1, 2)),
                                            in_axes=(None, None, None, 0, 0))),
        "power_loop": jax.jit(jax.grad(power_loop_jax), static_argnums=1),
        "newton": jax.jit(jax.vmap(newton_jax)),
        "blur": jax.jit(blur_jax),
    }


def workloads(quick):
    """(label, astjax reference, astjax jit, NumPy, JAX-jit or None, arguments)."""
    rng = np.random.default_rng(0)
    n = 100_000 if quick else 1_000_000
    data = rng.normal(size=n).astype(np.float32)
    j = jax.jit if jax is not None else (lambda f: None)
    jx = jax_versions()
    rows = [
        ("dispatch: x + 1.0, 3 elements", tiny, astjax.jit(tiny), lambda x: x + np.float32(1.0),
         j(lambda x: x + 1.0) if jax else None, (np.ones(3, np.float32),)),
        (f"selu, n={n:,}", selu, astjax.jit(selu), selu_numpy,
         j(lambda x: SCALE * jjnp.where(x > 0, x, ALPHA * jjnp.exp(x) - ALPHA)) if jax else None, (data,)),
        (f"grad sum(sigmoid(x)), n={n:,}", astjax.grad(sum_logistic), astjax.jit(astjax.grad(sum_logistic)),
         numpy_dsigmoid, j(jax.grad(lambda x: jjnp.sum(1.0 / (1.0 + jjnp.exp(-x))))) if jax else None, (data,)),
        ("grad x*x, one scalar", astjax.grad(square), astjax.jit(astjax.grad(square)), lambda x: 2.0 * x,
         j(jax.grad(lambda x: x * x)) if jax else None, (np.float32(1.5),)),
        ("grad power_loop, 1000 iterations", astjax.grad(power_loop), astjax.jit(astjax.grad(power_loop)),
         lambda x, k: k * x ** (k - 1), jx.get("power_loop"), (np.float32(1.0001), 1000)),
    ]
    batch, sizes = (32, (196, 64, 64, 10)) if quick else (128, (784, 256, 256, 10))
    ws = [rng.normal(scale=0.1, size=(a, b)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
    x = rng.normal(size=(batch, sizes[0])).astype(np.float32)
    y = rng.normal(size=(batch, sizes[-1])).astype(np.float32)
    mlp_grad = astjax.grad(mlp_loss, argnums=(0, 1, 2))
    rows.append((f"MLP gradient {'-'.join(map(str, sizes))}, batch {batch}", mlp_grad, astjax.jit(mlp_grad),
                 mlp_grad_numpy, jx.get("mlp"), (*ws, x, y)))
    n_mv, batch_mv = (1000, 32) if quick else (10_000, 128)
    matrix = rng.normal(size=(n_mv, n_mv)).astype(np.float32)
    vectors = rng.normal(size=(batch_mv, n_mv)).astype(np.float32)
    batched = astjax.vmap(mat_vec, in_axes=(None, 0))
    rows.append((f"vmap mat-vec {n_mv}^2 x {batch_mv} vectors", batched, astjax.jit(batched),
                 lambda m, v: (m @ v.T).T, jx.get("mat_vec"), (matrix, vectors)))
    w_l = rng.normal(scale=0.1, size=(sizes[0], 64)).astype(np.float32)
    ys = rng.normal(size=(batch, 64)).astype(np.float32)
    per_example = astjax.vmap(astjax.grad(layer_loss), in_axes=(None, 0, 0))
    rows.append((f"vmap(grad) per-example, {sizes[0]}-64, batch {batch}", per_example, astjax.jit(per_example),
                 per_example_grads_numpy, jx.get("per_example"), (w_l, x, ys)))
    mlp_per_example = astjax.vmap(astjax.grad(mlp_example_loss, argnums=(0, 1, 2)), in_axes=(None, None, None, 0, 0))
    rows.append((f"vmap(grad) per-example MLP {'-'.join(map(str, sizes))}, batch {batch}", mlp_per_example,
                 astjax.jit(mlp_per_example), mlp_per_example_grads_numpy, jx.get("mlp_per_example"), (*ws, x, y)))
    h, w = (120, 180) if quick else (473, 716)
    image = rng.uniform(size=(h, w)).astype(np.float32)
    kernel = rng.uniform(size=(9, 9)).astype(np.float32)
    newton = astjax.vmap(newton_sqrt)
    squares = rng.uniform(0.5, 100.0, size=batch * 64).astype(np.float32)
    rows.append((f"vmap Newton sqrt (while loop), {squares.size} values", newton, astjax.jit(newton),
                 newton_sqrt_numpy, jx.get("newton"), (squares,)))
    rows.append((f"9x9 blur on {h}x{w}", blur, astjax.jit(blur), blur_numpy, jx.get("blur"), (image, kernel)))
    blur_grad = astjax.grad(blur_loss)
    rows.append((f"blur kernel gradient, {h}x{w}", blur_grad, astjax.jit(blur_grad), blur_kernel_grad_numpy,
                 jx.get("blur_grad"), (kernel, image)))
    n_mm = 500 if quick else 5000
    a, b = (rng.normal(size=(n_mm, n_mm)).astype(np.float32) for _ in range(2))
    rows.append((f"matmul {n_mm}^2", matmul, astjax.jit(matmul), np.dot, jx.get("matmul"), (a, b)))
    return rows


FIRST_CALL_WORKLOADS = ("grad_sigmoid", "mlp_grad", "blur")


def first_call_child(name, quick):
    """Import astjax, jit one workload and time its first call (run in a fresh process)."""
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    if name == "grad_sigmoid":
        fn, args = astjax.jit(astjax.grad(sum_logistic)), (rng.normal(size=1000).astype(np.float32),)
    elif name == "mlp_grad":
        sizes = (784, 256, 256, 10)
        fn = astjax.jit(astjax.grad(mlp_loss, argnums=(0, 1, 2)))
        args = (*[rng.normal(size=(a, b)).astype(np.float32) for a, b in zip(sizes, sizes[1:])],
                rng.normal(size=(128, 784)).astype(np.float32), rng.normal(size=(128, 10)).astype(np.float32))
    else:
        fn, args = astjax.jit(blur), (rng.uniform(size=(473, 716)).astype(np.float32),
                                      rng.uniform(size=(9, 9)).astype(np.float32))
    setup = time.perf_counter() - start
    print(f"{first_call(fn, args):.4f} {setup:.4f}")


def first_calls_in_new_processes(quick):
    """{workload: (cold first call, first call with a warm disk cache)}, each in a fresh process, sharing a
    fresh cache directory (ASTJAX_CACHE_DIR)."""
    import subprocess
    import sys
    import tempfile
    out = {}
    with tempfile.TemporaryDirectory() as cache_dir:
        env = dict(os.environ, ASTJAX_CACHE_DIR=cache_dir)
        for name in FIRST_CALL_WORKLOADS:
            times = []
            for _ in range(2):
                done = subprocess.run([sys.executable, __file__, "--first-call-child", name],
                                      capture_output=True, text=True, env=env, check=True)
                times.append(float(done.stdout.split()[-2]))
            out[name] = tuple(times)
    return out


def _ms(t):
    return f"{t * 1e3:9.3f}ms" if t is not None else f"{'refused':>11s}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for a smoke run")
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--only", help="run only the rows whose label contains this text, or one of several "
                                       "separated by `|` (no first-call table)")
    parser.add_argument("--first-call-child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.first_call_child:
        return first_call_child(args.first_call_child, args.quick)
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        print("note: set OPENBLAS_NUM_THREADS=1 for stable ratios on a shared machine\n")
    header = f"{'workload':42s} {'reference':>11s} {'jit':>11s} {'numpy':>11s} {'jit/np':>7s}"
    if jax is not None:
        header += f" {'jax-jit':>11s} {'jit/jax':>8s}"
    print(header + f" {'compile':>9s}")
    for label, reference, jitted, numpy_fn, jax_fn, inputs in workloads(args.quick):
        if args.only and not any(part in label for part in args.only.split("|")):
            continue
        try:
            compile_time = first_call(jitted, inputs)
        except astjax.errors.AstjaxError as exc:
            print(f"{label:42s} jit refused: {str(exc).splitlines()[-2 if len(str(exc).splitlines()) > 1 else -1]}")
            jitted, compile_time = None, None
        if jax_fn is not None:
            first_call(jax_fn, inputs)
        repeat = min(args.repeat, 3) if label.startswith("matmul") else args.repeat     # a second a call
        t_ref, t_jit, t_np, t_jax = interleaved_medians([reference, jitted, numpy_fn, jax_fn], inputs, repeat)
        line = f"{label:42s} {_ms(t_ref)} {_ms(t_jit)} {_ms(t_np)}"
        line += f" {t_jit / t_np:6.2f}x" if t_jit is not None else f" {'-':>7s}"
        if jax is not None:
            line += f" {_ms(t_jax)}" + (f" {t_jit / t_jax:7.2f}x" if t_jit and t_jax else f" {'-':>8s}")
        line += f" {compile_time:8.2f}s" if compile_time is not None else f" {'-':>9s}"
        print(line)
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.only:
        return None
    for name, (cold, warm) in first_calls_in_new_processes(args.quick).items():
        print(f"first call in a new process, {name}: cold cache {cold:.2f}s, warm disk cache {warm:.2f}s")
    print("\nreference: the generated Python over NumPy; jit: the same source lowered and compiled with Numba "
          "(fused elementwise loops, docs/jit.md).\ncompile: the jitted function's first call (Numba compile + one "
          "reference run that checks it).")


if __name__ == "__main__":
    main()
