"""Property tests: random programs over elementwise primitives, checked against finite differences.

Hypothesis draws a small program `f(x, y, n)` -- straight-line statements over
`jnp` or plain `np`, and, by family (see FAMILIES), overwrites that discard a
value, `if`/`else` and `if`/`elif`/`else` blocks and conditional expressions on
array-valued conditions, `for` loops over `range(n)` with a runtime `n`,
branches inside loops -- renders it as Python source, writes it to a module
under `tmp_path` (astjax reads source from files) and imports it. Then:

* reverse mode: `astjax.grad` with respect to both inputs against central
  finite differences (float64);
* forward mode (when `astjax.jvp` exists): the JVP along a random tangent
  against the directional derivative of the reverse-mode gradient and FD.

The programs use smooth primitives whose values stay bounded, and every branch
condition is checked to be far from its threshold before comparing, so the
finite differences are accurate. Runs are deterministic (derandomize=True);
families that fail today because of astjax are listed in XFAIL (strict).
"""
import importlib.util
import itertools
import os
import textwrap

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, Phase, assume, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import astjax  # noqa: E402
from closeness import assert_scaled_close  # noqa: E402
import astjax.numpy as jnp  # noqa: E402

# Shrinking a failing program takes about a minute; it is off unless ASTJAX_SHRINK=1 (use that
# to get a minimal failing program when debugging).
_PHASES = [Phase.explicit, Phase.generate] + ([Phase.shrink] if os.environ.get("ASTJAX_SHRINK") else [])
# 10 random programs per property in the suite; ASTJAX_LONG_PROPERTIES=1 runs the long profile (200).
_EXAMPLES = 200 if os.environ.get("ASTJAX_LONG_PROPERTIES") else 10
SETTINGS = settings(max_examples=_EXAMPLES, deadline=None, derandomize=True, database=None, phases=_PHASES,
                    print_blob=False,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                           HealthCheck.filter_too_much])

# Templates over the `ns` namespace (`jnp` or plain `np`); `{a}`, `{b}` are variables.
UNARY = [
    "{ns}.sin({a})",
    "{ns}.cos({a})",
    "{ns}.tanh({a})",
    "{ns}.exp(0.5 * {ns}.sin({a}))",
    "{ns}.log(1.0 + {a} * {a})",
    "{ns}.sqrt(1.0 + {a} * {a})",
    "{a} * {a}",
    "-{a}",
    "0.5 * {a} + 0.25",
    "{a} / (1.0 + {a} * {a})",
    "{ns}.arctan({a})",
]
BINARY = [
    "{a} + {b}",
    "{a} - {b}",
    "{a} * {b}",
    "{a} * {ns}.cos({b})",
    "{a} / (2.0 + {ns}.sin({b}))",
    "{ns}.sin({a} + 0.5 * {b})",
    "{ns}.tanh({a} * {b})",
]
REDUCTIONS = ["{ns}.sum({a})", "{ns}.mean({a})", "{ns}.sum({a} * {a})"]

_counter = itertools.count()


# ----------------------------------------------------------------- program generation
@st.composite
def expressions(draw, names, ns):
    a = draw(st.sampled_from(names))
    if draw(st.booleans()):
        return draw(st.sampled_from(UNARY)).format(ns=ns, a=a)
    b = draw(st.sampled_from(names))
    return draw(st.sampled_from(BINARY)).format(ns=ns, a=a, b=b)


@st.composite
def conditions(draw, names, ns):
    """An array-valued condition `reduce(v) > c`, and its margin `reduce(v) - c`."""
    reduction = draw(st.sampled_from(REDUCTIONS)).format(ns=ns, a=draw(st.sampled_from(names)))
    threshold = draw(st.sampled_from(["0.0", "0.3", "-0.2", "1.0"]))
    return f"{reduction} > {threshold}", f"{reduction} - {threshold}"


@st.composite
def programs(draw, branching, conditional_expressions=False, dead_stores=False, elif_chains=False,
             loop_branches=False):
    """(namespace, body lines, condition margins) of a program `f(x, y, n)`.

    branching: `if`/`else` blocks on array-valued conditions and a `for` loop over range(n).
    conditional_expressions: also `a if cond else b`.
    dead_stores: an overwrite may discard the old value (`v = g(x)` after `v = h(x)`);
        without it every overwrite reads the variable it replaces (`v = g(v, x)`).
    elif_chains: `if`/`elif`/`else` chains that define a new variable in every branch.
    loop_branches: `for` loops whose body branches on the loop-carried value.
    """
    ns = draw(st.sampled_from(["jnp", "np"]))
    lines, margins = [], []
    fresh = itertools.count()
    kinds = ["assign", "overwrite", "overwrite"] if dead_stores else ["assign", "assign", "overwrite"]
    if branching:
        kinds += ["if", "loop"]
    if conditional_expressions:
        kinds += ["ifexp"]
    if elif_chains:
        kinds += ["elif", "elif"]
    if loop_branches:
        kinds += ["loop_if", "loop_if"]

    def overwrite(scope, target):
        """An expression for a new value of `target`."""
        if dead_stores:
            return draw(expressions(scope, ns))
        other = draw(st.sampled_from(scope))
        if draw(st.booleans()):
            return draw(st.sampled_from(UNARY)).format(ns=ns, a=target)
        return draw(st.sampled_from(BINARY)).format(ns=ns, a=target, b=other)

    scope = ["x", "y"]
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(kinds))
        if kind == "if":
            cond, margin = draw(conditions(scope, ns))
            margins.append(margin)
            lines.append(f"    if {cond}:")
            # Both branches assign variables that already exist, so every name stays defined.
            for branch in range(2):
                if branch:
                    lines.append("    else:")
                for _ in range(draw(st.integers(1, 2))):
                    target = draw(st.sampled_from(scope))
                    lines.append(f"        {target} = {overwrite(scope, target)}")
        elif kind == "ifexp":
            cond, margin = draw(conditions(scope, ns))
            margins.append(margin)
            target = f"v{next(fresh)}"
            lines.append(f"    {target} = {draw(expressions(scope, ns))} if {cond} else {draw(expressions(scope, ns))}")
            scope.append(target)
        elif kind == "elif":
            target = f"v{next(fresh)}"
            first, first_margin = draw(conditions(scope, ns))
            second, second_margin = draw(conditions(scope, ns))
            margins.extend([first_margin, second_margin])
            lines.append(f"    if {first}:")
            lines.append(f"        {target} = {draw(expressions(scope, ns))}")
            lines.append(f"    elif {second}:")
            lines.append(f"        {target} = {draw(expressions(scope, ns))}")
            lines.append("    else:")
            lines.append(f"        {target} = {draw(expressions(scope, ns))}")
            scope.append(target)
        elif kind == "loop_if":
            # A loop whose body branches on the value it carries.
            target = f"v{next(fresh)}"
            lines.append(f"    {target} = {draw(st.sampled_from(scope))}")
            scope.append(target)
            cond, margin = draw(conditions([target], ns))
            margins.append(margin)
            lines.append("    for i in range(n):")
            lines.append(f"        if {cond}:")
            lines.append(f"            {target} = 0.5 * {target} + 0.5 * {draw(expressions([target] + scope[:2], ns))}")
            lines.append("        else:")
            lines.append(f"            {target} = 0.5 * {target} + 0.5 * {draw(expressions([target] + scope[:2], ns))}")
        elif kind == "loop":
            # A loop over range(n), n a runtime argument, carrying one variable.
            target = f"v{next(fresh)}"
            lines.append(f"    {target} = {draw(st.sampled_from(scope))}")
            scope.append(target)
            lines.append("    for i in range(n):")
            body = draw(expressions([target] + scope[:2], ns))
            lines.append(f"        {target} = 0.5 * {target} + 0.5 * {body}")
        elif kind == "overwrite" and len(scope) > 2:
            target = draw(st.sampled_from(scope[2:]))
            lines.append(f"    {target} = {overwrite(scope, target)}")
        else:
            target = f"v{next(fresh)}"
            lines.append(f"    {target} = {draw(expressions(scope, ns))}")
            scope.append(target)
    # Every variable feeds the output, so no computed value is dead at the end.
    terms = " + ".join(f"{ns}.sum({v})" for v in scope[2:]) or f"{ns}.sum(x)"
    weight = draw(st.sampled_from(["", " * x", " * y"]))
    lines.append(f"    out = {terms}")
    lines.append(f"    return {ns}.sum(out{weight}) + 0.1 * {ns}.sum(x * y)")
    return ns, lines, margins


def render(ns, lines, margins):
    """Module source: the program `f(x, y, n)` and `margins(x, y, n)` returning each condition's margin."""
    header = "import numpy as np\nimport astjax.numpy as jnp\n\n\n"
    f = "def f(x, y, n):\n" + "\n".join(lines) + "\n"
    # The margins function runs the same statements, recording each condition's margin as it is met.
    # An elif's margin is recorded just before its chain, whether or not it is tested (stricter).
    margin_lines, k, last_if = [], 0, 0
    for line in lines:
        stripped = line.lstrip()
        pad = line[: len(line) - len(stripped)]
        if stripped.startswith("if ") and stripped.endswith(":"):
            margin_lines.append(f"{pad}_margins.append(float({margins[k]}))")
            last_if = len(margin_lines)
            k += 1
        elif stripped.startswith("elif ") and stripped.endswith(":"):
            margin_lines.insert(last_if, f"{pad}_margins.append(float({margins[k]}))")
            k += 1
        elif " if " in stripped and " else " in stripped:
            margin_lines.append(f"{pad}_margins.append(float({margins[k]}))")
            k += 1
        if stripped.startswith("return "):
            margin_lines.append(f"{pad}return _margins")
            continue
        margin_lines.append(line)
    g = "def margins(x, y, n):\n    _margins = []\n" + "\n".join(margin_lines) + "\n"
    return header + f + "\n\n" + g


def load(tmp_path, source):
    path = tmp_path / f"generated_program_{next(_counter)}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ----------------------------------------------------------------- checking
def _inputs(seed, scalar_y):
    rng = np.random.default_rng(seed)
    x = jnp.asarray(rng.uniform(-1.0, 1.0, size=3))
    y = jnp.asarray(np.float64(rng.uniform(-1.0, 1.0))) if scalar_y else jnp.asarray(rng.uniform(-1, 1, size=3))
    return x, y


def _value(f, x, y, n):
    return float(np.asarray(f(x, y, n)))


def _fd(f, args, i, h=1e-6):
    base = np.array(args[i], dtype=np.float64)
    out = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        up, down = base.copy(), base.copy()
        up[idx] += h
        down[idx] -= h
        a_up, a_down = list(args), list(args)
        a_up[i], a_down[i] = jnp.asarray(up), jnp.asarray(down)
        out[idx] = (_value(f, *a_up) - _value(f, *a_down)) / (2 * h)
    return out


def _close(actual, expected, what, source):
    assert_scaled_close(actual, expected, 1e-5, 1e-6, f"{what}\n{source}")


def _prepare(tmp_path, program, seed, scalar_y, n):
    ns, lines, margins = program
    source = render(ns, lines, margins)
    module = load(tmp_path, source)
    x, y = _inputs(seed, scalar_y)
    value = _value(module.f, x, y, n)
    assume(np.isfinite(value) and abs(value) < 1e6)
    # Every condition met must be clearly on one side of its threshold.
    assume(all(abs(m) > 1e-3 for m in module.margins(x, y, n)))
    return source, module, x, y


# Program families, from plain to everything at once.
FAMILIES = {
    "straight_line": dict(branching=False),
    "straight_line_dead_stores": dict(branching=False, dead_stores=True),
    "branching": dict(branching=True),
    "branching_conditional_expressions": dict(branching=True, conditional_expressions=True),
    "elif_chains": dict(branching=True, elif_chains=True),
    "loops_with_branches": dict(branching=True, loop_branches=True),
    "branching_all": dict(branching=True, conditional_expressions=True, dead_stores=True, elif_chains=True,
                          loop_branches=True),
}

# (mode, family) -> reason: families that fail today because of astjax (see tests/corpus/known_failures.py).
XFAIL = {}


def _families(mode):
    params = []
    for family in FAMILIES:
        reason = XFAIL.get((mode, family))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        params.append(pytest.param(family, id=family, marks=marks))
    return params


@pytest.mark.parametrize("family", _families("grad"))
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2 ** 16), scalar_y=st.booleans(), n=st.integers(0, 3))
def test_grad_matches_finite_differences(tmp_path, family, data, seed, scalar_y, n):
    program = data.draw(programs(**FAMILIES[family]), label="program")
    source, module, x, y = _prepare(tmp_path, program, seed, scalar_y, n)
    gx, gy = astjax.grad(module.f, argnums=(0, 1))(x, y, n)
    _close(gx, _fd(module.f, (x, y, n), 0), "d/dx", source)
    _close(gy, _fd(module.f, (x, y, n), 1), "d/dy", source)


@pytest.mark.parametrize("family", _families("jvp"))
@SETTINGS
@given(data=st.data(), seed=st.integers(0, 2 ** 16), scalar_y=st.booleans(), n=st.integers(0, 3))
def test_jvp_matches_reverse_mode_and_finite_differences(tmp_path, family, data, seed, scalar_y, n):
    if not hasattr(astjax, "jvp"):
        pytest.skip("astjax.jvp is not implemented yet")
    program = data.draw(programs(**FAMILIES[family]), label="program")
    source, module, x, y = _prepare(tmp_path, program, seed, scalar_y, n)
    rng = np.random.default_rng(seed + 1)
    tx = jnp.asarray(rng.standard_normal(np.shape(x)))
    ty = jnp.asarray(rng.standard_normal(np.shape(y)))
    out, tangent = astjax.jvp(module.f, (x, y, n), (tx, ty, np.zeros((), dtype=_float0())))
    _close(out, _value(module.f, x, y, n), "jvp primal output", source)
    h = 1e-6
    fd = (_value(module.f, jnp.asarray(x + h * tx), jnp.asarray(y + h * ty), n)
          - _value(module.f, jnp.asarray(x - h * tx), jnp.asarray(y - h * ty), n)) / (2 * h)
    _close(tangent, fd, "jvp vs finite differences", source)
    if XFAIL.get(("grad", family)) is None:
        gx, gy = astjax.grad(module.f, argnums=(0, 1))(x, y, n)
        _close(tangent, float(np.vdot(gx, tx) + np.vdot(gy, ty)), "jvp vs grad . tangent", source)


def _float0():
    return getattr(getattr(astjax, "dtypes", None), "float0", np.dtype([("float0", np.void, 0)]))


def test_render_example():
    """The renderer's output for a hand-written program (documents the generated shape)."""
    lines = ["    v0 = jnp.sin(x)", "    if jnp.sum(v0) > 0.0:", "        v0 = v0 * y", "    else:",
             "        v0 = -v0", "    return jnp.sum(v0) + 0.1 * jnp.sum(x * y)"]
    source = render("jnp", lines, ["jnp.sum(v0) - 0.0"])
    assert "def f(x, y, n):" in source
    assert "_margins.append(float(jnp.sum(v0) - 0.0))" in textwrap.dedent(source)
