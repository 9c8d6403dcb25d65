"""The coverage page: how astjax treats every NumPy, SciPy, jax.nn and jax.lax name under a derivative.

    python -m astjax.coverage          # rewrites docs/coverage.md

Each name gets one of three statuses, read from the primitive registry
(astjax/rules/registry.py) and never typed by hand:

* **rules**: a primitive with VJP and JVP rules (or, for lax's control flow,
  a construct normalization turns into Python loops and branches; or a
  function written in Python from primitives, outside the library modules);
* **non-differentiable (reason)**: a primitive whose result carries no
  derivative, with the reason;
* **not supported**: no rule: a derivative that reaches it is an error (the
  function may still run outside derivatives).

For NumPy and SciPy names, astjax's own namespace (astjax.numpy, astjax.scipy)
is consulted first, then the plain NumPy/SciPy callable (user code calling
`np.sin` resolves to the same primitive). tests/test_coverage_page.py fails
when docs/coverage.md is stale.
"""
import importlib
import inspect
import warnings
from pathlib import Path

import numpy as np

from .analyses.classify import is_library
from .rules import classification, lookup_callable

__all__ = ["SECTIONS", "status", "rows", "render", "write", "PAGE"]

PAGE = Path(__file__).resolve().parent.parent / "docs" / "coverage.md"

# jax.nn's public functions (JAX is not installed: the list is written here; JAX 0.10).
JAX_NN = ["celu", "dot_product_attention", "elu", "gelu", "get_scaled_dot_general_config", "glu", "hard_sigmoid",
          "hard_silu", "hard_swish", "hard_tanh", "identity", "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax",
          "logmeanexp", "logsumexp", "mish", "one_hot", "relu", "relu6", "scaled_dot_general", "scaled_matmul", "selu",
          "sigmoid", "silu", "soft_sign", "softmax", "softplus", "sparse_plus", "sparse_sigmoid", "squareplus",
          "standardize", "swish", "tanh"]

# jax.lax's public functions.
JAX_LAX = [
    "abs", "acos", "acosh", "add", "approx_max_k", "approx_min_k", "argmax", "argmin", "asin", "asinh",
    "associative_scan", "atan", "atan2", "atanh", "batch_matmul", "bessel_i0e", "bessel_i1e", "betainc",
    "bitcast_convert_type", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "broadcast",
    "broadcast_in_dim", "broadcast_shapes", "broadcast_to_rank", "cbrt", "ceil", "clamp", "clz", "collapse",
    "complex", "concatenate", "cond", "conj", "conv", "conv_general_dilated", "conv_transpose",
    "conv_with_general_padding", "convert_element_type", "cos", "cosh", "cumlogsumexp", "cummax", "cummin",
    "cumprod", "cumsum", "custom_linear_solve", "custom_root", "digamma", "div", "dot", "dot_general",
    "dynamic_index_in_dim", "dynamic_slice", "dynamic_slice_in_dim", "dynamic_update_index_in_dim",
    "dynamic_update_slice", "dynamic_update_slice_in_dim", "eq", "erf", "erf_inv", "erfc", "exp", "exp2",
    "expand_dims", "expm1", "floor", "fori_loop", "full", "full_like", "gather", "ge", "gt", "igamma", "igammac",
    "imag", "index_in_dim", "index_take", "integer_pow", "iota", "is_finite", "le", "lgamma", "log", "log1p",
    "logistic", "lt", "map", "max", "min", "mul", "ne", "neg", "nextafter", "pad", "polygamma",
    "population_count", "pow", "real", "reduce", "reduce_and", "reduce_max", "reduce_min", "reduce_or",
    "reduce_precision", "reduce_prod", "reduce_sum", "reduce_window", "reduce_xor", "rem", "reshape", "rev",
    "rng_bit_generator", "rng_uniform", "round", "rsqrt", "scan", "scatter", "scatter_add", "scatter_max",
    "scatter_min", "scatter_mul", "select", "select_n", "shift_left", "shift_right_arithmetic",
    "shift_right_logical", "sign", "sin", "sinh", "slice", "slice_in_dim", "sort", "sort_key_val", "sqrt",
    "square", "squeeze", "stop_gradient", "sub", "switch", "tan", "tanh", "top_k", "transpose", "while_loop",
    "zeros_like_array", "zeta"]

# lax functions that normalization rewrites into Python control flow (frontend/normalize/lax_control_flow.py).
LAX_CONTROL_FLOW = {"fori_loop", "while_loop", "cond", "scan", "switch", "map", "associative_scan", "top_k"}

# jax.scipy.linalg's public functions (JAX 0.10).
JAX_SCIPY_LINALG = [
    "block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion", "convolution_matrix", "det", "dft",
    "eigh", "eigh_tridiagonal", "expm", "expm_frechet", "fiedler", "fiedler_companion", "funm", "hadamard", "hankel",
    "helmert", "hessenberg", "hilbert", "inv", "invhilbert", "invpascal", "leslie", "lu", "lu_factor", "lu_solve",
    "pascal", "polar", "qr", "qr_multiply", "rsf2csf", "schur", "solve", "solve_sylvester", "solve_triangular",
    "sqrtm", "svd", "toeplitz"]

# The distributions of jax.scipy.stats and the methods JAX gives them.
STATS = ["bernoulli", "beta", "betabinom", "binom", "cauchy", "chi2", "dirichlet", "expon", "gamma",
         "gennorm", "geom", "laplace", "logistic", "multinomial", "multivariate_normal", "nbinom", "norm",
         "pareto", "poisson", "t", "truncnorm", "uniform", "vonmises", "wrapcauchy"]
STATS_METHODS = ["logpdf", "pdf", "logpmf", "pmf", "cdf", "logcdf", "sf", "logsf", "ppf", "isf"]
# jax.scipy.stats's other names: functions, a method only some distributions have, gaussian_kde's methods.
STATS_FUNCTIONS = ["mode", "rankdata", "sem", "poisson.entropy", "gaussian_kde.evaluate", "gaussian_kde.__call__",
                   "gaussian_kde.pdf", "gaussian_kde.logpdf", "gaussian_kde.integrate_gaussian",
                   "gaussian_kde.integrate_box_1d", "gaussian_kde.integrate_kde", "gaussian_kde.resample"]

RULES, NONDIFF, UNSUPPORTED = "rules", "non-differentiable", "not supported"

# numpy names whose calls normalization rewrites into primitives (frontend/normalize/array_assembly.py).
NORMALIZED = {**importlib.import_module("astjax.frontend.normalize.array_assembly").REWRITTEN,
              **importlib.import_module("astjax.frontend.normalize.per_slice_calls").REWRITTEN}


def _module(name):
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _public_callables(module):
    """Sorted public names of `module` bound to functions or ufuncs (not classes, not submodules)."""
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in dir(module):
            if name.startswith("_"):
                continue
            try:
                value = getattr(module, name)
            except Exception:       # deprecated names that raise on access
                continue
            if inspect.isclass(value) or inspect.ismodule(value) or not callable(value):
                continue
            out.append(name)
    return sorted(out)


def status(*candidates):
    """(status, detail) of the first candidate astjax knows, trying astjax's object before NumPy/SciPy's."""
    for obj in candidates:
        if obj is None:
            continue
        if lookup_callable(obj) is not None:
            c = classification(obj)
            if c.kind == "rules":
                return RULES, f"primitive `{c.primitive}`"
            return NONDIFF, c.detail
    for obj in candidates:
        if inspect.isfunction(obj) and not is_library(obj):
            return RULES, "written in Python from primitives"
        rewritten = getattr(obj, "__astjax_normalized_as__", None)
        if rewritten is not None:
            return RULES, f"normalization writes it as {rewritten}"
    if any(obj is not None for obj in candidates[:1]):
        stated = getattr(candidates[0], "__astjax_no_derivative__", None)
        if stated is not None:
            return UNSUPPORTED, f"in astjax's namespace; refused under a derivative: {stated[0]}"
        return UNSUPPORTED, "in astjax's namespace; refused under a derivative"
    return UNSUPPORTED, "absent from astjax"


def _attr(obj, name):
    if obj is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return getattr(obj, name, None)
    except Exception:
        return None


def _namespace_rows(plain_module, ours_name, rewritten=None):
    ours = _module(ours_name)
    rewritten = rewritten or {}
    return [(name, RULES, f"normalization writes it as {rewritten[name]}") if name in rewritten and
            _attr(ours, name) is not None else (name, *status(_attr(ours, name), _attr(plain_module, name)))
            for name in _public_callables(plain_module)]


def _stats_rows():
    import scipy.stats
    ours = _module("astjax.scipy.stats")
    rows = []
    for dist in STATS:
        plain, mine = _attr(scipy.stats, dist), _attr(ours, dist)
        for method in STATS_METHODS:
            if _attr(plain, method) is None and _attr(mine, method) is None:
                continue
            rows.append((f"{dist}.{method}", *status(_attr(mine, method), _attr(plain, method))))
    for dotted in STATS_FUNCTIONS:
        found = ours
        for part in dotted.split("."):
            found = _attr(found, part)
        rows.append((dotted, *status(found)))
    return rows


def _named_rows(names, ours_name, control_flow=()):
    ours = _module(ours_name)
    rows = []
    for name in names:
        if name in control_flow and _attr(ours, name) is not None:
            rows.append((name, RULES, "control flow: becomes Python loops and branches under transformations"))
        else:
            rows.append((name, *status(_attr(ours, name))))
    return rows


def _sections():
    import scipy.special
    return [
        ("numpy", "astjax.numpy", lambda: _namespace_rows(np, "astjax.numpy", NORMALIZED)),
        ("numpy.linalg", "astjax.numpy.linalg", lambda: _namespace_rows(np.linalg, "astjax.numpy.linalg")),
        ("numpy.fft", "astjax.numpy.fft", lambda: _namespace_rows(np.fft, "astjax.numpy.fft")),
        ("scipy.special", "astjax.scipy.special", lambda: _namespace_rows(scipy.special, "astjax.scipy.special")),
        ("scipy.stats", "astjax.scipy.stats", _stats_rows),
        ("jax.scipy.linalg", "astjax.scipy.linalg", lambda: _named_rows(JAX_SCIPY_LINALG, "astjax.scipy.linalg")),
        ("jax.nn", "astjax.nn", lambda: _named_rows(JAX_NN, "astjax.nn")),
        ("jax.lax", "astjax.lax", lambda: _named_rows(JAX_LAX, "astjax.lax", LAX_CONTROL_FLOW)),
    ]


SECTIONS = ["numpy", "numpy.linalg", "numpy.fft", "scipy.special", "scipy.stats", "jax.scipy.linalg", "jax.nn",
            "jax.lax"]


def rows():
    """{section: [(name, status, detail), ...]} for every section."""
    return {title: build() for title, _, build in _sections()}


def _cell(text):
    return text.replace("|", "\\|")


def render():
    """The text of docs/coverage.md."""
    table = rows()
    lines = ["# Coverage: what astjax differentiates", "",
             "Generated by `python -m astjax.coverage` from the primitive registry; do not edit by hand",
             "(tests/test_coverage_page.py fails when this page is stale). Statuses:", "",
             f"* **{RULES}**: a primitive with VJP and JVP rules (or control flow / Python written from primitives);",
             f"* **{NONDIFF}**: its result carries no derivative (the reason is given);",
             f"* **{UNSUPPORTED}**: a derivative that reaches it is an error (it may still run outside derivatives).",
             "", f"NumPy {np.__version__}, SciPy {_scipy_version()}.", "", "| namespace | astjax module | rules | "
             "non-differentiable | not supported |", "|---|---|---|---|---|"]
    modules = {title: ours for title, ours, _ in _sections()}
    for title, entries in table.items():
        counts = [sum(1 for _, s, _ in entries if s == kind) for kind in (RULES, NONDIFF, UNSUPPORTED)]
        lines.append(f"| {title} | {modules[title]} | {counts[0]} | {counts[1]} | {counts[2]} |")
    for title, entries in table.items():
        lines += ["", f"## {title}", "", "| name | status | detail |", "|---|---|---|"]
        lines += [f"| `{_cell(name)}` | {kind} | {_cell(detail)} |" for name, kind, detail in entries]
    return "\n".join(lines) + "\n"


def _scipy_version():
    import scipy
    return scipy.__version__


def write(path=PAGE):
    """Rewrite the coverage page."""
    Path(path).write_text(render())
    return path


if __name__ == "__main__":
    print(f"wrote {write()}")
