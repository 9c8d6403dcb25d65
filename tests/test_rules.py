"""Every differentiable primitive's VJP rule against central finite differences, in float64.

The cases live in tests/rule_cases.py (astjax reads their source, so they must
be functions in a file). Each is `sum(w * prim(...))` with a fixed random
weight `w` shaped like the primitive's result, so every output element is
tested; `astjax.grad` with respect to all differentiable operands must match
central differences. A coverage test fails when a differentiable primitive in
the registry has no case, so a new rule cannot land untested.
"""
import builtins
import zlib

import gast
import numpy as np
import pytest

import astjax
import astjax.numpy as jnp
from astjax import tree_util
from astjax.codegen.namespace import GENERATED_NAMESPACE
from astjax.codegen.templates import static_value
from astjax.rules import all_primitives, lookup_callable
from astjax.rules.linalg import COMPOSITES

import rule_cases
from rule_cases import CASES, UNARY_SECOND_ORDER, VJP_CASES
from sampling import LONG, assert_covers, covering_sample

EPS = 1e-6
RTOL, ATOL = 1e-5, 1e-7

# Differentiable primitives deliberately without a finite-difference case: name -> why.
SKIPPED = {
    "push": "tape operation of generated code (no user spelling, no rule: transforms/reverse/ and jvp.py "
            "differentiate it directly); exercised by test_second_derivative_through_the_tape",
    "pop": "tape operation of generated code (no user spelling, no rule: transforms/reverse/ and jvp.py "
           "differentiate it directly); exercised by test_second_derivative_through_the_tape",
}

SKIPPED.update({
    # vmap's loop over examples (rules/batching_examples.py): they take pytrees and vmap's loop index; grad,
    # jacrev, jacfwd and hessian through them are checked against finite differences in tests/test_compfix.py
    **{name: "vmap's loop over examples (pytrees, a loop index): checked through grad/hessian of vmap in "
             "tests/test_compfix.py" for name in (
        "example_of", "stack_examples", "example_part", "example_placed", "examples_split", "examples_joined",
        "stack_like_examples", "batch_getitem", "batch_getitem_adjoint", "batch_getitem_part")},
    "namedtuple_of": "a namedtuple class argument: checked through grad/jvp/hessian/vmap of NamedTuples built in "
                     "the function in tests/test_compfix.py",
    "record_items_adjoint": "namedtuple_of's adjoint of a list variable: tests/test_compfix.py",
    **{name: "second derivatives through a custom_jvp function (need a custom_jvp object): checked against "
             "central differences in tests/test_lax_nested.py" for name in (
        "custom_jvp_apply", "custom_jvp_rule_gradient", "custom_jvp_rule_curvature")},
    "custom_jvp_transpose": "reverse mode of a custom_jvp function (needs a custom_jvp object); its second "
                            "derivatives are checked against central differences in tests/test_lax_nested.py "
                            "and tests/test_compfix.py",
    "cast_float32": "np.float32(x): central differences in float64 cannot see through float32 rounding; its "
                    "rule is cast_float64's (checked here), its values in tests/test_lax_nested.py",
    "spectral_direction": "u v^T of the top singular pair: the spectral norm's gradient, tested through "
                          "norm-spectral; its own derivative is an error (no_higher_derivative)",
    "no_higher_derivative": "raises when reached: it marks a derivative astjax does not have",
    "refuse_derivative": "raises when reached: it marks a derivative astjax refuses (tests/test_linalg.py)",
    "multi_dot_items_adjoint": "multi_dot's adjoint of a list variable; its own derivative is refused "
                               "(tested in tests/test_linalg.py)",
    "well_conditioned": "the identity, after checking a matrix can be inverted safely (inside det's second "
                        "derivative): tests/test_linalg.py",
    "lone_zero": "the piecewise constant mask inside prod's rule (1 where a slice holds one zero): its derivative "
                 "is zero, and refused at two zeros; tests/test_higher_order.py checks prod's second derivatives",
    "einsum_ellipsis_adjoint": "einsum's adjoint for '...' subscripts (checked through the einsum ellipsis cases); "
                               "it has no rules, so a second derivative through it is refused where transformed "
                               "(tests/test_errors.py names the user's line)",
    "lax_stop_gradient": "its derivative is zero by definition while its value moves, so central differences "
                         "cannot check it: tests/test_lax.py checks grad, jvp and hessian against the definition",
})

_COLLECTIVE = ("a collective over a named vmap axis has no value outside vmap (it raises: unbound axis name), "
               "so a rule case cannot call it: tests/test_vmap_collectives.py checks its derivatives under vmap "
               "against JAX's and against differences")
SKIPPED.update({name: _COLLECTIVE for name in ("psum", "pmean", "all_gather", "psum_scatter")})
SKIPPED.update({name: "no derivative rule (JAX has none): grad refuses it, tests/test_vmap_collectives.py"
                for name in ("pmax", "pmin")})

# Cases that fail because of the transformation machinery (not the rule table): id -> reason.
# strict=True: when the machinery is fixed the xfail turns into a failure, so the entry gets removed.
MACHINERY_XFAILS = {}

# Second-order (Hessian-vector product) cases that fail: id -> reason.
SECOND_ORDER_XFAILS = {}


# ----------------------------------------------------------------- helpers
class _OutputShape(Exception):
    pass


class _Probe:
    """Stands in for the weight: `w * y` reports the shape of the primitive's result y."""

    def __mul__(self, other):
        raise _OutputShape(np.shape(other))

    __rmul__ = __mul__


def _weight(fn, args, key):
    try:
        fn(*args, _Probe())
    except _OutputShape as shape:
        rng = np.random.default_rng(zlib.crc32(key.encode()))
        return jnp.asarray(np.asarray(rng.standard_normal(shape.args[0]), dtype=np.float64))
    raise AssertionError(f"{fn.__name__} never multiplied its weight by the primitive's result")


def _value(fn, args):
    return float(np.asarray(fn(*args), dtype=np.float64))


def numerical_gradient(fn, args, argnum, eps=EPS):
    """Central differences of the scalar fn(*args) with respect to args[argnum] (a pytree of arrays)."""
    leaves, treedef = tree_util.tree_flatten(args[argnum])
    grads = []
    for n, leaf in enumerate(leaves):
        x = np.array(leaf, dtype=np.float64)
        grad = np.zeros_like(x)
        for j in range(x.size):
            values = []
            for step in (eps, -eps):
                shifted = x.copy()
                shifted.flat[j] += step
                moved = leaves[:n] + [jnp.asarray(shifted)] + leaves[n + 1:]
                values.append(_value(fn, args[:argnum] + (tree_util.tree_unflatten(treedef, moved),) + args[argnum + 1:]))
            grad.flat[j] = (values[0] - values[1]) / (2 * eps)
        grads.append(grad)
    return tree_util.tree_unflatten(treedef, grads)


def _check_gradient(got, x, expected, what, transformed):
    """`got` has x's structure and shapes, float64 leaves, and matches `expected`; on failure show the source."""
    try:
        got_leaves, got_def = tree_util.tree_flatten(got)
        x_leaves, x_def = tree_util.tree_flatten(x)
        assert got_def == x_def, f"gradient structure {got_def}, input structure {x_def}"
        for g, xl, e in zip(got_leaves, x_leaves, tree_util.tree_leaves(expected)):
            g = np.asarray(g)
            assert g.shape == np.shape(xl), f"gradient shape {g.shape}, input shape {np.shape(xl)}"
            assert g.dtype == np.float64, f"gradient dtype {g.dtype}, expected float64"
            np.testing.assert_allclose(g, e, rtol=RTOL, atol=ATOL)
    except AssertionError as failure:
        raise AssertionError(f"{what}: {failure}\n--- generated source ---\n{astjax.source(transformed)}") from None


def _case_id(c):
    return f"{c.primitive}-{c.label}"


def _params(items, ids, xfails):
    out = []
    for item, ident in zip(items, ids):
        marks = [pytest.mark.xfail(strict=True, reason=xfails[ident])] if ident in xfails else []
        out.append(pytest.param(item, id=ident, marks=marks))
    return out


def _differentiable_names():
    return {p.name for p in all_primitives() if p.differentiable}


# --------------------------------------------------------------- the table
@pytest.mark.parametrize("case", _params(CASES, [_case_id(c) for c in CASES], MACHINERY_XFAILS))
def test_vjp_matches_finite_differences(case):
    w = _weight(case.fn, case.args, _case_id(case))
    args = case.args + (w,)
    grad_fn = astjax.grad(case.fn, argnums=case.argnums)
    grads = grad_fn(*args)
    for i, got in zip(case.argnums, grads):
        expected = numerical_gradient(case.fn, args, i)
        _check_gradient(got, args[i], expected, f"{_case_id(case)}: d/d(argument {i})", grad_fn)


# The suite's time budget (tests/sampling.py, docs/testing.md): forward mode runs each primitive's first case
# and every second case by default (reverse mode above runs every case); every case under
# ASTJAX_LONG_PROPERTIES=1.
JVP_CASES = covering_sample(CASES, lambda c: c.primitive, 2, offset=1, keep=lambda c: _case_id(c) in MACHINERY_XFAILS)


def test_the_forward_mode_sample_covers_every_primitive():
    assert_covers(JVP_CASES, CASES, lambda c: c.primitive, "jvp against reverse mode")


@pytest.mark.parametrize("case", _params(JVP_CASES, [_case_id(c) for c in JVP_CASES], MACHINERY_XFAILS))
def test_jvp_matches_reverse_mode(case):
    """Forward mode against reverse mode: the tangent along t is the gradient dotted with t."""
    w = _weight(case.fn, case.args, _case_id(case))
    args = case.args + (w,)
    grads = astjax.grad(case.fn, argnums=case.argnums)(*args)
    rng = np.random.default_rng(len(_case_id(case)))
    tangents = [astjax.tree_util.tree_map(lambda a: np.zeros_like(np.asarray(a, dtype=np.float64)), a)
                if isinstance(a, (tuple, list, dict)) or np.issubdtype(np.result_type(a), np.inexact)
                else np.zeros(()) for a in args]
    expected = 0.0
    for i, g in zip(case.argnums, grads):
        t = astjax.tree_util.tree_map(lambda leaf: rng.standard_normal(np.shape(leaf)), args[i])
        tangents[i] = t
        expected += sum(float(np.sum(np.asarray(gl) * tl)) for gl, tl in
                        zip(astjax.tree_util.tree_leaves(g), astjax.tree_util.tree_leaves(t)))
    _, tangent = astjax.jvp(case.fn, tuple(args), tuple(tangents))
    np.testing.assert_allclose(float(tangent), expected, rtol=1e-6, atol=1e-9, err_msg=_case_id(case))


def test_every_differentiable_primitive_has_a_case():
    differentiable = _differentiable_names()
    tested = {c.primitive for c in CASES}
    missing = differentiable - tested - set(SKIPPED)
    assert not missing, f"differentiable primitives with no case in tests/rule_cases.py: {sorted(missing)}"
    unknown = tested - differentiable
    assert not unknown, f"cases for primitives that are not registered as differentiable: {sorted(unknown)}"
    stale = set(SKIPPED) - differentiable
    assert not stale, f"SKIPPED lists primitives that are gone or not differentiable: {sorted(stale)}"
    both = set(SKIPPED) & tested
    assert not both, f"primitives both skipped and tested: {sorted(both)}"


def test_every_differentiable_primitive_has_a_vjp_rule():
    """A differentiable primitive without a rule fails at transformation time; catch it here."""
    missing = [p.name for p in all_primitives() if p.differentiable and p.name not in SKIPPED
               and not (p.vjp or getattr(p, "sequence_vjp", None) is not None
                        or getattr(p, "sequence_rule_builders", None))]
    assert not missing, f"differentiable primitives without a vjp rule: {missing}"


def test_operands_are_parameters_of_the_signature():
    """A rule reads its operands by parameter name: an operand the signature does not bind gets no adjoint."""
    for p in all_primitives():
        if p.signature is None or not p.operands:
            continue
        params = set(p.signature.parameters)
        assert set(p.operands) <= params, f"{p.name}: operands {p.operands} not all in signature {p.signature}"


_AT_METHODS = {"set", "add", "multiply", "get"}


def _callee(node):
    """What a template's call calls: a primitive, a composite, an .at[] update; else None."""
    func = node.func
    if isinstance(func, gast.Name):
        value = GENERATED_NAMESPACE.get(func.id, getattr(builtins, func.id, None))
        if func.id in COMPOSITES:
            return "composite"
        return lookup_callable(value)
    if isinstance(func, gast.Attribute):
        if (func.attr in _AT_METHODS and isinstance(func.value, gast.Subscript)
                and isinstance(func.value.value, gast.Attribute) and func.value.value.attr == "at"):
            return "at"
        value = static_value(func)
        return lookup_callable(value) if value is not None else None
    return None


def test_rule_templates_use_only_parameters_and_primitives():
    """Rules may call only primitives (so they can be differentiated again) and name only their parameters."""
    known = set(GENERATED_NAMESPACE) | set(dir(builtins)) | {"y", "by", "k", "item"}
    calls_to_non_primitives = set()
    for p in all_primitives():
        templates = list(p.vjp.values())
        if getattr(p, "sequence_vjp", None) is not None:
            templates.append(p.sequence_vjp)
        params = set(p.signature.parameters) if p.signature else set(p.operands)
        for template in templates:
            for node in gast.walk(template):
                if isinstance(node, gast.Name):
                    assert node.id in params | known, f"{p.name}: a rule names unknown `{node.id}`"
                if isinstance(node, gast.Call) and _callee(node) is None:
                    func = node.func.id if isinstance(node.func, gast.Name) else gast.dump(node.func)
                    calls_to_non_primitives.add(func)
    assert not calls_to_non_primitives, f"rules call functions that are not primitives: {sorted(calls_to_non_primitives)}"


def test_binary_elementwise_primitives_cover_the_broadcast_shapes():
    binary = {p.name for p in all_primitives() if p.differentiable and p.elementwise and len(p.operands) == 2
              and p.name != "where"}
    labels = {label for label, _, _ in rule_cases.BROADCAST_SHAPES}
    for name in binary:
        have = {c.label for c in CASES if c.primitive == name}
        assert labels <= have, f"{name} lacks shape cases {sorted(labels - have)}"


# ------------------------------------------------------------ astjax.vjp
@pytest.mark.parametrize("family,raw,weighted,args", VJP_CASES, ids=[v[0] for v in VJP_CASES])
def test_vjp_agrees_with_grad(family, raw, weighted, args):
    w = _weight(weighted, args, f"vjp-{family}")
    output, pullback = astjax.vjp(raw, *args)
    np.testing.assert_allclose(np.asarray(output), np.asarray(raw(*args)), rtol=1e-12)
    cotangents = pullback(w)
    argnums = tuple(range(len(args)))
    grads = astjax.grad(weighted, argnums=argnums)(*args, w)
    assert len(cotangents) == len(args)
    for i, (ct, g) in enumerate(zip(cotangents, grads)):
        assert np.shape(ct) == np.shape(args[i])
        np.testing.assert_allclose(np.asarray(ct), np.asarray(g), rtol=1e-12, atol=1e-14,
                                   err_msg=f"{family}: argument {i}")
        np.testing.assert_allclose(np.asarray(ct), numerical_gradient(weighted, args + (w,), i),
                                   rtol=RTOL, atol=ATOL, err_msg=f"{family}: argument {i} vs finite differences")


# ------------------------------------------------------- second derivatives
@pytest.mark.parametrize("name,fn,x", UNARY_SECOND_ORDER, ids=[s[0] for s in UNARY_SECOND_ORDER])
def test_second_derivative_of_unary_primitive(name, fn, x):
    w = jnp.asarray(np.float64(1.0))
    first = astjax.grad(fn)
    second = astjax.grad(first)
    got = second(x, w)

    def first_value(xx):
        return float(np.asarray(first(np.asarray(xx, dtype=np.float64), w)))   # a float64 0-d array, not a float

    expected = (first_value(x + EPS) - first_value(x - EPS)) / (2 * EPS)
    _check_gradient(got, x, expected, f"{name}: second derivative", second)


# --------------------------------------- second derivatives, array inputs
def _second_order_cases():
    """The first case of each primitive, plus the container cases: their gradients get differentiated again."""
    seen = {}
    for c in CASES:
        seen.setdefault(c.primitive, c)
    extra = [c for c in CASES if _case_id(c) in SECOND_ORDER_EXTRA and c not in seen.values()]
    missing = SECOND_ORDER_EXTRA - {_case_id(c) for c in CASES}
    assert not missing, f"SECOND_ORDER_EXTRA names cases that do not exist: {sorted(missing)}"
    return list(seen.values()) + extra


# Beyond each primitive's first case: containers, the linalg composites' shape branches, and the
# rules with special cases (zeros, masks, orders). Not ties: there the gradient itself jumps. Not
# prod with two zeros in a slice: its first derivative is exact there but locally constant (0), so the
# second derivative is 0 where the true one is the product of the rest (JAX's product tree gets it).
SECOND_ORDER_EXTRA = {"stack-list_variable", "concatenate-list_variable", "array-list_variable",
                      "attribute-namedtuple", "attribute-one_field", "getitem-fancy_repeats",
                      "at_add-repeats", "pad-edge", "dynamic_slice-clamped_starts",
                      "matmul-vec_batch", "matmul-broadcast_batch", "dot-mat_mat", "dot-mat_rank3",
                      "inner-mat_mat", "prod-one_zero_all", "sum-where", "var-where", "std-where",
                      "transpose-negative_axes", "reshape-order_F"}
# The suite's time budget (docs/testing.md): by default the first case of half of the primitives (chosen by a
# hash of the name, so adding a primitive moves no other) and every extra case above; every primitive's under
# ASTJAX_LONG_PROPERTIES=1 (a reverse-over-reverse derivation each, 45 CPU-s for all of them).
SECOND_ORDER_ALL = _second_order_cases()
SECOND_ORDER_CASES = [c for c in SECOND_ORDER_ALL
                      if LONG or _case_id(c) in SECOND_ORDER_EXTRA or zlib.crc32(c.primitive.encode()) % 2 == 0]


@pytest.mark.parametrize("case", _params(SECOND_ORDER_CASES, [_case_id(c) for c in SECOND_ORDER_CASES],
                                         {**MACHINERY_XFAILS, **SECOND_ORDER_XFAILS}))
def test_hessian_vector_product_matches_finite_differences(case):
    """grad of `sum(v * grad(f, argnums=i)(...))`: the derivatives of the rules' own code."""
    w = _weight(case.fn, case.args, _case_id(case))
    args = case.args + (w,)
    for i in case.argnums:
        first = astjax.grad(case.fn, argnums=i)
        hvp = rule_cases.hvp_function(first, len(args), container=isinstance(args[i], (list, tuple)))
        rng = np.random.default_rng(zlib.crc32(f"v-{_case_id(case)}-{i}".encode()))
        v = tree_util.tree_map(lambda leaf: jnp.asarray(rng.standard_normal(np.shape(leaf))), args[i])
        second = astjax.grad(hvp, argnums=case.argnums)
        got = second(*args, v)
        for j, g in zip(case.argnums, got):
            expected = numerical_gradient(hvp, args + (v,), j)
            _check_gradient(g, args[j], expected, f"{_case_id(case)}: d/d(argument {j}) of v . d/d(argument {i})",
                            second)


# ------------------------------------------------------ through the tape


@pytest.mark.parametrize("fn", [
    rule_cases.tape_square,
    rule_cases.tape_sin_plus_square,
    rule_cases.tape_sin_of_product,
], ids=lambda fn: fn.__name__)
def test_second_derivative_through_the_tape(fn):
    """A loop that overwrites `x` pushes it on the tape; grad of grad differentiates push and pop."""
    w = jnp.asarray(np.float64(0.7))
    first = astjax.grad(fn)
    assert "push(" in astjax.source(first) and "pop(" in astjax.source(first)
    second = astjax.grad(first)
    for x0 in (0.3, -0.8):
        x = jnp.asarray(np.float64(x0))
        _check_gradient(first(x, w), x, numerical_gradient(fn, (x, w), 0), f"{fn.__name__}: first", first)
        expected = numerical_gradient(first, (x, w), 0)
        _check_gradient(second(x, w), x, expected, f"{fn.__name__}: second", second)


def test_overwriting_with_a_constant_stops_the_adjoint():
    """The first-order form of the tape bug: `y = 0.0` must cut y's adjoint (f = 6x, astjax says 8)."""
    x = jnp.asarray(np.float64(0.5))
    grad = astjax.grad(rule_cases.overwritten_by_constant)
    _check_gradient(grad(x), x, numerical_gradient(rule_cases.overwritten_by_constant, (x,), 0), "y = 0.0", grad)


def test_an_elementwise_operand_named_like_an_integer_parameter_batches():
    """vmap's elementwise rule and the batching analysis read an elementwise primitive's operands as arrays
    whatever their names: comb(N, k)'s `k` (a name `k`, `axis`, ... otherwise reads as an integer size) is
    lined up with N's rank, against a loop over the batch, for each operand batched and for both."""
    from astjax import vmap
    from astjax.scipy import special
    rng = np.random.default_rng(3)
    n = rng.uniform(4.0, 8.0, size=(3, 4))
    k = rng.uniform(0.5, 3.5, size=(3,))
    for in_axes, args, reference in [
            ((0, 0), (n, k), [special.comb(n[b], k[b]) for b in range(3)]),
            ((0, None), (n, k[0]), [special.comb(n[b], k[0]) for b in range(3)]),
            ((None, 0), (n[0], k), [special.comb(n[0], k[b]) for b in range(3)]),
            ((0, 0), (k, n), [special.comb(k[b], n[b]) for b in range(3)])]:
        got = vmap(special.comb, in_axes=in_axes)(*args)
        np.testing.assert_allclose(got, np.stack([np.asarray(r) for r in reference]), rtol=1e-12)
