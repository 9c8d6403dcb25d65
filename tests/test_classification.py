"""Refuse by default: every public NumPy function, ndarray method and astjax.numpy name has exactly one class.

`astjax.rules.classification(fn)` says how astjax treats a callable under a
derivative: a primitive with rules, a primitive declared non-differentiable
(with its reason), or refused. Each class is checked for what it promises:
rules exist for every operand in both modes; a declared zero derivative is
zero by finite differences where a sample input reaches it; and a refused
function, called on a value that carries a derivative, is an astjax error at
the user's line - never a silent zero.
"""
import importlib.util
import itertools
import textwrap

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax.analyses.classify import method_classification
from astjax.errors import AstjaxError
from astjax.rules import PRIMITIVES, classification
from astjax.rules.nondifferentiable import BOOLEAN, FUNCTION, INTEGER, KEYS, NOTHING, PIECEWISE, SHAPES, TEXT

KINDS = ("rules", "nondifferentiable", "refused")
REASONS = {BOOLEAN, INTEGER, PIECEWISE, SHAPES, NOTHING, KEYS, TEXT, FUNCTION, PRIMITIVES["Tape"].reason}


def _public_callables(module):
    names = []
    for name in sorted(dir(module)):
        if name.startswith("_"):
            continue
        value = getattr(module, name)
        if callable(value) and not isinstance(value, type(np)):
            names.append(name)
    return names


NUMPY = _public_callables(np)
ASTJAX_NUMPY = [n for n in jnp.__all__ if callable(getattr(jnp, n))] + [
    f"linalg.{n}" for n in _public_callables(jnp.linalg) if getattr(jnp.linalg, n).__module__.startswith("astjax")]
NDARRAY_METHODS = [n for n in dir(np.ndarray) if not n.startswith("_")]


def _resolve(module, dotted):
    value = module
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


def _check_class(c):
    assert c.kind in KINDS, c
    if c.kind == "nondifferentiable":
        assert c.detail in REASONS, f"{c.primitive} is non-differentiable without a stated reason: {c.detail!r}"
    if c.kind == "rules":
        prim = PRIMITIVES[c.primitive]
        for operand in prim.operands:
            assert (operand in prim.vjp or getattr(prim, "sequence_vjp", None) is not None
                    or getattr(prim, "sequence_rule_builders", None)), (prim, operand)
            assert operand in prim.jvp or prim.sequence_operand == operand, (prim, operand)


@pytest.mark.parametrize("name", NUMPY)
def test_numpy_function_has_one_class(name):
    _check_class(classification(getattr(np, name)))


@pytest.mark.parametrize("name", ASTJAX_NUMPY)
def test_astjax_numpy_name_has_one_class(name):
    _check_class(classification(_resolve(jnp, name)))


@pytest.mark.parametrize("name", NDARRAY_METHODS)
def test_ndarray_method_has_one_class(name):
    _check_class(method_classification(name))


def test_every_registered_nondifferentiable_primitive_states_why():
    missing = [p.name for p in PRIMITIVES.values() if not p.differentiable and p.reason not in REASONS]
    assert not missing, f"non-differentiable primitives without a reason: {missing}"


def test_the_listed_functions_now_have_rules():
    for fn in (jnp.cumprod, jnp.diagonal, jnp.trace, jnp.take, jnp.repeat, jnp.full, jnp.full_like,
               jnp.linspace, jnp.meshgrid, jnp.array, jnp.asarray, np.cumprod, np.diagonal, np.repeat, np.full,
               np.linspace, np.meshgrid, astjax.tree_util.tree_leaves):
        assert classification(fn).kind == "rules", fn
    for method in ("cumprod", "diagonal", "trace", "take", "repeat", "sum", "T"):
        assert method_classification(method).kind == "rules", method
    for method in ("sort", "fill", "resize", "put", "item", "tolist"):
        assert method_classification(method).kind == "refused", method


# --------------------------------------------------------- promises kept
def _module(tmp_path, name, body):
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(body))
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _refused_names(module, names, classify):
    return [n for n in names if classify(n).kind == "refused"]


@pytest.mark.parametrize("namespace, names, alias", [
    ("np", NUMPY, "numpy"),
    ("jnp", ASTJAX_NUMPY, "astjax.numpy"),
])
def test_a_refused_function_reached_by_a_derivative_is_an_error(tmp_path, namespace, names, alias):
    module_obj = np if namespace == "np" else jnp
    refused = _refused_names(module_obj, names, lambda n: classification(_resolve(module_obj, n)))
    lines = [f"import {alias} as {namespace}"]
    for i, name in enumerate(refused):
        lines.append(f"def f{i}(x):\n    return {namespace}.{name}(x * 2.0)\n")
    module = _module(tmp_path, f"refused_{namespace}", "\n".join(lines))
    silent = []
    for i, name in enumerate(refused):
        try:
            astjax.grad(getattr(module, f"f{i}"))(np.array([0.3, 0.7]))
        except AstjaxError as error:
            assert "no derivative rule" in str(error), (name, str(error))
            assert f"refused_{namespace}.py" in str(error), (name, str(error))
            continue
        silent.append(name)
    assert not silent, f"refused functions that gave a derivative instead of an error: {silent}"


def test_a_refused_method_reached_by_a_derivative_is_an_error(tmp_path):
    refused = [m for m in NDARRAY_METHODS if method_classification(m).kind == "refused"]
    lines = ["import numpy as np"]
    for i, name in enumerate(refused):
        lines.append(f"def f{i}(x):\n    y = x * 2.0\n    return y.{name}()\n")
    module = _module(tmp_path, "refused_methods", "\n".join(lines))
    silent = []
    for i, name in enumerate(refused):
        try:
            astjax.grad(getattr(module, f"f{i}"))(np.array([0.3, 0.7]))
        except AstjaxError as error:
            assert "refused_methods.py" in str(error), (name, str(error))
            continue
        silent.append(name)
    assert not silent, f"refused methods that gave a derivative instead of an error: {silent}"


_SAMPLES = [np.array([0.3, -1.7, 2.45]), np.array([[0.3, -1.2], [2.2, 0.6]]), 0.37, -2.6]
# Non-differentiable primitives no sample reaches: name -> why.
_UNSAMPLED = {"Tape": "builds an empty tape (no input)", "builtin_isinstance": "its second argument is a type",
              "checked_isinstance": "its second argument is a type",
              "checked_hasattr": "its second argument is an attribute's name",
              "select_mask": "its second argument is the position of a condition in a list",
              "clip_upper_weight": "it needs clip's upper bound, its third argument (the lower bound's weight, "
                                   "clip_lower_weight, is sampled)",
              "checked_id": "its result tells which object its argument is: another one for each input",
              "checked_repr": "its result is text", "checked_callee": "its argument is a function"}


@pytest.mark.parametrize("prim", [p for p in PRIMITIVES.values() if not p.differentiable and p.name not in _UNSAMPLED],
                         ids=lambda p: p.name)
def test_a_declared_zero_derivative_is_zero(prim):
    """Where a sample input reaches a non-differentiable primitive, central differences of its result are 0."""
    checked = 0
    for x, arity in itertools.product(_SAMPLES, (1, 2)):
        try:
            base = np.asarray(prim.impl(*([x] * arity)), dtype=np.float64)
        except Exception:      # not callable on a plain array (shape helpers, the tape): nothing to check
            continue
        for i in range(np.size(x)):
            step = np.zeros(np.shape(x))
            step.flat[i] = 1e-7
            step = step if np.ndim(x) else float(step)
            up = np.asarray(prim.impl(*([x + step] * arity)), dtype=np.float64)
            down = np.asarray(prim.impl(*([x - step] * arity)), dtype=np.float64)
            if up.shape == base.shape and down.shape == base.shape:
                np.testing.assert_array_equal(up, down, err_msg=f"{prim.name} moves with its input")
                checked += 1
    if prim.reason in (BOOLEAN, PIECEWISE):
        assert checked, f"{prim.name} was never checked"


# ------------------------------------------ programs that used to give silent zeros
def sum_of_list_literal(x):
    return np.sum([x, 2 * x, x * x])


def sum_of_comprehension(a):
    return np.sum([i * 3 for i in a])


def rotation_of_scalars(x):
    c = jnp.cos(x[0])
    s = jnp.sin(x[0])
    r = jnp.array([[c, -s], [s, c]])
    return jnp.sum(r * jnp.array([[1.0, 2.0], [3.0, 5.0]]) * x[1])


def cumprod_method(x):
    return jnp.sum(x.cumprod() * jnp.array([1.0, -2.0, 0.5]))


def diagonal_method(x):
    a = jnp.outer(x, x) + jnp.diag(x)
    return jnp.sum(a.diagonal() ** 2) + a.trace() ** 2


def take_and_repeat_methods(x):
    return jnp.sum(x.take(jnp.array([0, 2, 2])) ** 2) + jnp.sum(x.repeat(2) * jnp.arange(6.0))


def full_and_linspace(x):
    return jnp.sum(jnp.full((3,), x[0]) ** 2) + jnp.sum(jnp.full_like(x, x[1]) * x) + jnp.sum(
        jnp.linspace(0.0, x[2], 5) ** 2)


def meshgrid_product(x):
    a, b = jnp.meshgrid(x, x[:2] * 3.0)
    return jnp.sum(a * b ** 2)


def l2_over_tree_leaves(x):
    params = [x, (2.0 * x, x[1:])]
    return sum(jnp.sum(w ** 2) for w in astjax.tree_util.tree_leaves(params))


_ORD = 2


def spectral_norms(x):
    a = jnp.reshape(jnp.concatenate([x, x ** 2]), (2, 3))
    return jnp.linalg.norm(a, 2) + jnp.linalg.norm(a, _ORD) * 0.5


def at_max_min(x):
    return jnp.sum(x.at[0].max(0.5) ** 2) + jnp.sum(x.at[2].min(x[1]) * x)


def det_of_singular(x):
    a = jnp.outer(x, x)          # rank one: singular
    return jnp.linalg.det(a + jnp.diag(jnp.array([0.0, 0.0, 1.0])) * x[0])


def at_set_out_of_bounds(x):
    return jnp.sum(x.at[5].set(3.0) ** 2)


def casts_to_int(x):
    return jnp.sum(x.astype(jnp.int32) * x) + jnp.sum(np.array(x * 3.0, dtype=int) * x)


def _pair_product(pair):
    a, b = pair
    return jnp.sum(a * b)


def tuple_to_helper(x):
    h = x * 2.0
    return _pair_product((x, h)) + _pair_product([x[0], x ** 2])


_RIGHT = [tuple_to_helper, casts_to_int, sum_of_list_literal, sum_of_comprehension, rotation_of_scalars, cumprod_method, diagonal_method,
          take_and_repeat_methods, full_and_linspace, meshgrid_product, l2_over_tree_leaves, spectral_norms,
          at_max_min, det_of_singular, at_set_out_of_bounds]


def _central_differences(fn, x, eps=1e-6):
    grad = np.zeros_like(x)
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        grad[i] = (float(fn(jnp.asarray(x + step))) - float(fn(jnp.asarray(x - step)))) / (2 * eps)
    return grad


@pytest.mark.parametrize("fn", _RIGHT, ids=lambda f: f.__name__)
def test_a_formerly_dropped_derivative_is_right(fn):
    x = np.array([0.7, -1.3, 0.4])
    expected = _central_differences(fn, x)
    np.testing.assert_allclose(np.asarray(astjax.grad(fn)(x)), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(np.asarray(astjax.jacfwd(fn)(x)), expected, rtol=1e-5, atol=1e-6)


# ------------------------------------------ programs that are refused, with the line named
def list_pop(x):
    xs = [x, 2 * x]
    v = xs.pop()
    return jnp.sum(v)


def list_extend(x):
    xs = [x]
    xs.extend([x * 2, x * 3])
    return jnp.sum(xs[2])


def list_insert(x):
    xs = [x]
    xs.insert(0, 2 * x)
    return jnp.sum(xs[0])


def list_remove(x):
    items = [x, 2 * x]
    items.remove(items[0])
    return jnp.sum(items[0])


def drain_with_pop(x):
    total = 0.0
    items = [x, 2 * x]
    while len(items) > 0:
        v = items.pop()
        total = total + jnp.sum(v)
    return total


def sort_in_place(x):
    y = x * 1.0
    y.sort()
    return jnp.sum(y * jnp.array([1.0, 2.0, 3.0]))


def fill_value_carries_derivative(x):
    return jnp.sum(jnp.nan_to_num(x / x, nan=x[0]))


def unknown_method(x):
    return jnp.sum(x.ptp())


def _append_double(xs, v):
    xs.append(v * 2.0)


def mutating_helper(x):
    xs = []
    _append_double(xs, x)
    return jnp.sum(xs[0])


# (xs.pop(), xs.extend(...), xs.insert(...) are differentiated since issue 6's containers work: see
# test_list_methods_are_differentiated below and tests/test_containers_more.py.)
_REFUSED = [(list_remove, "items.remove("),
            (fill_value_carries_derivative, "jnp.nan_to_num("), (unknown_method, "x.ptp()"),
            (mutating_helper, "_append_double(xs, x)")]


@pytest.mark.parametrize("fn, line", _REFUSED, ids=lambda f: getattr(f, "__name__", ""))
def test_an_uncovered_derivative_is_refused_at_its_line(fn, line):
    x = np.array([0.7, -1.3, 0.4])
    for transform in (astjax.grad, astjax.jacfwd):
        with pytest.raises(AstjaxError) as error:
            transform(fn)(x)
        assert "test_classification.py" in str(error.value) and line in str(error.value), str(error.value)


@pytest.mark.parametrize("fn", [list_pop, list_extend, list_insert, drain_with_pop], ids=lambda f: f.__name__)
def test_list_methods_are_differentiated(fn):
    """pop, extend and insert are rewritten into reads, slices and appends (normalize/container_idioms.py)."""
    test_a_formerly_dropped_derivative_is_right(fn)


def test_an_in_place_sort_is_differentiated_as_jnp_sort():
    """`y.sort()` on an array the function made is `y = jnp.sort(y)` (normalization), which now has rules."""
    test_a_formerly_dropped_derivative_is_right(sort_in_place)


def test_repeated_positions_in_at_multiply_are_an_error_not_a_wrong_value():
    with pytest.raises(ValueError, match="repeats a position"):
        astjax.grad(repeated_multiply)(np.array([0.7, -1.3, 0.4]))


def repeated_multiply(x):
    return jnp.sum(x.at[jnp.array([0, 0])].multiply(x[1]))


def test_out_of_bounds_updates_are_dropped_as_in_jax():
    x = jnp.asarray(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.at[5].set(9.0), [1.0, 2.0, 3.0])
    np.testing.assert_array_equal(x.at[jnp.array([0, 7, -1])].set(jnp.array([4.0, 5.0, 6.0])), [4.0, 2.0, 6.0])
    np.testing.assert_array_equal(x.at[jnp.array([0, 7])].add(1.0), [2.0, 2.0, 3.0])


# ------------------------------------------ mutations are effects: never deleted as dead code
def drain_constants(x):
    total = x * 0.0
    items = [1.0, 2.0, 3.0]
    while len(items) > 0:
        total = total + x * items[0]
        items.remove(items[0])
    return total


def grow_constants(x):
    weights = [1.0]
    weights.extend([2.0, 3.0])
    weights.insert(0, 4.0)
    weights.pop()
    total = x * 0.0
    for i in range(len(weights)):
        total = total + x * weights[i]
    return total


@pytest.mark.parametrize("fn, slope", [(drain_constants, 6.0), (grow_constants, 7.0)], ids=lambda f: getattr(
    f, "__name__", ""))
def test_list_mutations_survive_dead_code_elimination(fn, slope):
    x = np.float64(0.9)
    assert float(fn(x)) == pytest.approx(slope * 0.9)
    assert float(astjax.grad(fn)(x)) == pytest.approx(slope)
    assert float(astjax.jacfwd(fn)(x)) == pytest.approx(slope)
    text = astjax.source(astjax.grad(fn))
    # extend, insert and pop are normalized into appends and slices (normalize/container_idioms.py)
    for method in (".remove(",) if fn is drain_constants else (".append(",):
        assert method in text, text


def test_effects_are_read_from_the_tables():
    from astjax.optimize.effects import MUTATING_METHODS, call_effect
    import gast
    for method in ("append", "pop", "extend", "insert", "remove", "clear", "update", "sort", "fill", "resize"):
        assert method in MUTATING_METHODS
        assert call_effect(gast.parse(f"xs.{method}(v)").body[0].value)
    for generated in ("push(_tape, v)", "pop(_tape)", "print(v)"):
        assert call_effect(gast.parse(generated).body[0].value), generated
    assert PRIMITIVES["push"].effect and PRIMITIVES["pop"].effect
    for pure in ("jnp.sin(x)", "unreduce(g, x)", "x.at[0].add(v)"):
        assert not call_effect(gast.parse(pure).body[0].value), pure
