"""Higher-order derivatives: build and evaluate orders 1 to 6 of tanh written with exp.

    python benchmarks/higher_order.py [--repeat 5] [--jax-python PATH]

Each measurement is a fresh Python process that imports the library, then
builds and evaluates grad, grad(grad), ... up to the 6th order at x = 0.3 and
reports the seconds each order took (generation and evaluation together, the
import excluded) and the size of each order's program: lines of generated
source for astjax, equations of the jaxpr for JAX. astjax and JAX processes
alternate; the table shows medians. JAX is timed jitted (each order compiled
and run once) and eagerly. `--jax-python` names an interpreter that has JAX
installed when this one has not.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ORDERS = 6

ASTJAX = r"""
import json, time, astjax, astjax.numpy as jnp
def tanh_by_exp(x):
    return (1 - jnp.exp(-2 * x)) / (1 + jnp.exp(-2 * x))
g, seconds, sizes = tanh_by_exp, [], []
for _ in range(ORDERS):
    g = astjax.grad(g)
    start = time.perf_counter()
    g(jnp.array(0.3))
    seconds.append(time.perf_counter() - start)
    sizes.append(len(astjax.source(g).splitlines()))
print(json.dumps({"seconds": seconds, "sizes": sizes}))
"""

JAX = r"""
import json, time, jax, jax.numpy as jnp
jax.config.update("jax_platforms", "cpu")
def tanh_by_exp(x):
    return (1 - jnp.exp(-2 * x)) / (1 + jnp.exp(-2 * x))
g, seconds, sizes = tanh_by_exp, [], []
for _ in range(ORDERS):
    g = jax.grad(g)
    run = jax.jit(g) if JIT else g
    start = time.perf_counter()
    run(0.3).block_until_ready()
    seconds.append(time.perf_counter() - start)
    sizes.append(len(jax.make_jaxpr(g)(0.3).eqns))
print(json.dumps({"seconds": seconds, "sizes": sizes}))
"""


def measure(python, program, **constants):
    """Run `program` in a fresh `python` (from a file: astjax reads the source of what it differentiates)."""
    header = "".join(f"{k} = {v!r}\n" for k, v in constants.items())
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as file:
        file.write(header + program)
    try:
        out = subprocess.run([python, file.name], capture_output=True, text=True, env=env, check=True)
    finally:
        os.unlink(file.name)
    return json.loads(out.stdout.strip().splitlines()[-1])


def has_jax(python):
    return subprocess.run([python, "-c", "import jax"], capture_output=True).returncode == 0


def median(values):
    return sorted(values)[len(values) // 2]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--jax-python", default=sys.executable)
    options = parser.parse_args()
    candidates = {"astjax": (sys.executable, ASTJAX, {})}
    if has_jax(options.jax_python):
        candidates["JAX jit"] = (options.jax_python, JAX, {"JIT": True})
        candidates["JAX eager"] = (options.jax_python, JAX, {"JIT": False})
    runs = {name: [] for name in candidates}
    for _ in range(options.repeat):
        for name, (python, program, constants) in candidates.items():
            runs[name].append(measure(python, program, ORDERS=ORDERS, **constants))
    print(f"orders 1..{ORDERS} of tanh written with exp, median of {options.repeat} fresh processes "
          f"(seconds to build and evaluate each order; program size)")
    print(f"{'':10}" + "".join(f"{'order ' + str(k + 1):>14}" for k in range(ORDERS)) + f"{'total s':>10}")
    for name, results in runs.items():
        seconds = [median([r["seconds"][k] for r in results]) for k in range(ORDERS)]
        sizes = results[0]["sizes"]
        total = median([sum(r["seconds"]) for r in results])
        print(f"{name:10}" + "".join(f"{s:8.3f}s{n:5d}" for s, n in zip(seconds, sizes)) + f"{total:10.2f}")
    if "JAX jit" not in runs:
        print("(JAX not installed: pass --jax-python with an interpreter that has it)")


if __name__ == "__main__":
    main()
