"""An attacker's corpus, fifth round: where the corpus was thin. Python semantics that
change which value flows (try/finally overriding a return, generator helpers, user
classes with operators, properties and __call__, itertools pair loops, keyword-only
parameters, star-unpacking of arrays, closures built in loops), lax control flow with
pytree carries and unread ys (`c, _ = lax.scan(...)` over steps returning None) under
every transform, custom_vjp/custom_jvp with nondiff_argnums, pytrees in and out, used
twice and inside loops, random keys split and folded in loops (reparameterization),
pytrees of parameters (unsorted dict keys, NamedTuples, nested lists), and JAX's
conventions at kinks checked against numbers JAX gives (confirmed with JAX 0.10)."""
import functools
import itertools
import math
from typing import NamedTuple

import numpy as np

import astjax
import astjax.nn as nn
import astjax.numpy as jnp
from astjax import lax, random

from .case import case, vec, mat, pos, scalar
from .harness import fd_grad, fd_hessian


def _x(*values):
    return np.array(values, dtype=np.float64)


# ============================================================ Python semantics that change which value flows
def finally_overrides_return(x):
    try:
        return jnp.sum(x * 2.0)
    finally:
        y = jnp.sum(x ** 3)          # runs, result unused


case(finally_overrides_return, lambda r: (vec(r, 3),), "either")


def return_inside_with_in_loop(x):
    s = 0.0
    for i in range(3):
        with np.errstate(all="ignore"):
            s = s + x[i] * x[(i + 1) % 3]
            if i == 1:
                return s * 2.0
    return s


case(return_inside_with_in_loop, lambda r: (vec(r, 3),), "either")


def _gen_powers(x, n):
    for k in range(1, n + 1):
        yield x ** k


def generator_helper_summed(x):
    return sum(jnp.sum(p) for p in _gen_powers(x, 3))


case(generator_helper_summed, lambda r: (vec(r, 3),), "either")


def generator_helper_listed(x):
    ps = list(_gen_powers(x, 2))
    return jnp.sum(ps[0] * ps[1])


case(generator_helper_listed, lambda r: (vec(r, 3),), "either")


class _Dual:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __mul__(self, other):
        return _Dual(self.a * other.a, self.a * other.b + self.b * other.a)

    def __add__(self, other):
        return _Dual(self.a + other.a, self.b + other.b)

    @property
    def norm(self):
        return self.a * self.a + self.b * self.b


def user_class_operators(x):
    d = _Dual(x[0], x[1])
    e = d * d + _Dual(x[2], x[0])
    return e.norm


case(user_class_operators, lambda r: (vec(r, 3),), "either")


class _Affine:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def __call__(self, h):
        return jnp.tanh(h * self.w + self.b)


def callable_object_layers(x):
    layers = [_Affine(x[0], x[1]), _Affine(x[2], 0.5)]
    h = x[3]
    for layer in layers:
        h = layer(h)
    return h


case(callable_object_layers, lambda r: (vec(r, 4),), "either")


def itertools_combinations_energy(x):
    e = 0.0
    for i, j in itertools.combinations(range(4), 2):
        e = e + 1.0 / (1.0 + (x[i] - x[j]) ** 2)
    return e


case(itertools_combinations_energy, lambda r: (vec(r, 4),), "either")


def itertools_product_grid(x):
    e = 0.0
    for i, j in itertools.product(range(2), range(3)):
        e = e + x[i] * x[2 + j] * (i + 1)
    return e


case(itertools_product_grid, lambda r: (vec(r, 5),), "either")


def zip_shifted_pairs(x):
    return sum(a * b for a, b in zip(x[:-1], x[1:]))


case(zip_shifted_pairs, lambda r: (vec(r, 5),), "works")


def star_unpack_array(x):
    a, *middle, b = x
    return a * b + sum(m ** 2 for m in middle)


case(star_unpack_array, lambda r: (vec(r, 5),), "either")


def _three(a, b, c):
    return a * b - c


def star_call_of_array(x):
    return _three(*x[:3]) + _three(*x[1:4])


case(star_call_of_array, lambda r: (vec(r, 4),), "either")


def closures_built_in_loop(x):
    fs = []
    for k in range(3):
        fs.append(lambda v, k=k: v * (k + 1))
    return sum(f(x[0]) for f in fs) + fs[2](x[1])


case(closures_built_in_loop, lambda r: (vec(r, 2),), "either")


def late_binding_comprehension_lambdas(x):
    fs = [lambda v: v * k for k in range(3)]
    return fs[0](x[0]) + fs[1](x[1])         # both use k = 2


case(late_binding_comprehension_lambdas, lambda r: (vec(r, 2),), "either")


def dict_comprehension_then_sum(x):
    d = {f"w{i}": x[i] ** 2 for i in range(3)}
    return d["w0"] + 2.0 * d["w2"]


case(dict_comprehension_then_sum, lambda r: (vec(r, 3),), "either")


def sorted_by_key_on_data(x):
    rows = [x[0:2], x[2:4], x[4:6]]
    ordered = sorted(rows, key=lambda r: float(r[0]))
    return ordered[0][1] * 3.0 + ordered[2][1]


case(sorted_by_key_on_data, lambda r: (_x(0.3, 1.0, -0.5, 2.0, 0.9, -1.0),), "either")


def min_with_key(x):
    best = min([x[0:2], x[2:4]], key=lambda r: float(jnp.sum(r)))
    return jnp.sum(best ** 2)


case(min_with_key, lambda r: (_x(0.3, 1.0, -0.5, 0.2),), "either")


def functools_reduce_product(x):
    return functools.reduce(lambda a, b: a * b + 1.0, [x[0], x[1], x[2]])


case(functools_reduce_product, lambda r: (vec(r, 3),), "either")


def while_else_with_break_on_data(x):
    s = 0.0
    i = 0
    while i < 3:
        s = s + x[i]
        if s > 10.0:
            break
        i += 1
    else:
        s = s * 2.0
    return s


case(while_else_with_break_on_data, lambda r: (vec(r, 3),), "works")


def nonlocal_in_nested_loop_closure(x):
    total = 0.0

    def add(v):
        nonlocal total
        total = total + v * v

    for i in range(3):
        add(x[i])
    return total


case(nonlocal_in_nested_loop_closure, lambda r: (vec(r, 3),), "either")


def conditional_import_free_math(x):
    return math.fsum([1.0, 2.0]) * jnp.sum(x) + math.hypot(3.0, 4.0) * x[0]


case(conditional_import_free_math, lambda r: (vec(r, 2),), "works")


def augmented_on_list_item(x):
    acc = [x[0], x[1]]
    acc[0] += x[1] * 2.0
    acc[1] *= acc[0]
    return acc[0] + acc[1]


case(augmented_on_list_item, lambda r: (vec(r, 2),), "either")


def tuple_swap_in_loop(x):
    a, b = x[0], x[1]
    for _ in range(3):
        a, b = b, a * b + 0.5
    return a + 2.0 * b


case(tuple_swap_in_loop, lambda r: (vec(r, 2),), "works")


def keyword_only_helper(x):
    return _kw_helper(x, scale=2.0) + _kw_helper(x, scale=x[0])


def _kw_helper(v, *, scale):
    return jnp.sum(v ** 2) * scale


case(keyword_only_helper, lambda r: (vec(r, 3),), "either")


def default_array_argument(x, w=np.array([1.0, 2.0, 3.0])):
    return jnp.sum(x * w)


case(default_array_argument, lambda r: (vec(r, 3),), "works")


def negative_step_2d(x):
    m = x.reshape(3, 3)
    return jnp.sum(m[::-1, ::-2] * jnp.arange(6.0).reshape(3, 2))


case(negative_step_2d, lambda r: (vec(r, 9),), "works")


def ellipsis_none_index(x):
    m = x.reshape(2, 3)
    return jnp.sum(m[..., None, 1] * m[None, ..., 0])


case(ellipsis_none_index, lambda r: (vec(r, 6),), "works")


def argmax_index_reused(x):
    i = jnp.argmax(x)
    return x[i] ** 2 + x[(i + 1) % 4] * 3.0


case(argmax_index_reused, lambda r: (vec(r, 4),), "works")


def match_on_shape(x):
    match x.shape:
        case (n,) if n > 2:
            return jnp.sum(x[:2] ** 2)
        case _:
            return jnp.sum(x)


case(match_on_shape, lambda r: (vec(r, 3),), "either")


def assert_then_value(x):
    assert x.shape == (3,), "shape"
    y = x * 2.0
    assert jnp.all(jnp.isfinite(y))
    return jnp.sum(y ** 2)


case(assert_then_value, lambda r: (vec(r, 3),), "works")


def del_in_loop_then_rebind(x):
    s = 0.0
    for i in range(3):
        t = x[i] * 2.0
        s = s + t
        del t
    t = s * s
    return t


case(del_in_loop_then_rebind, lambda r: (vec(r, 3),), "either")


def itertools_permutations_listed(x):
    pairs = list(itertools.permutations(range(3), 2))
    return sum(x[i] * x[j] ** 2 for i, j in pairs)


case(itertools_permutations_listed, lambda r: (vec(r, 3),), "works")


def itertools_cycle_zip_refused(x):
    s = 0.0
    for a, w in zip(x, itertools.cycle([1.0, 2.0])):
        s = s + a * w
    return s


case(itertools_cycle_zip_refused, lambda r: (vec(r, 3),), "refuse")


def itertools_chain_loop_refused(x):
    s = 0.0
    for v in itertools.chain([x[0]], [x[1] ** 2]):
        s = s + v
    return s


case(itertools_chain_loop_refused, lambda r: (vec(r, 2),), "refuse")


# ============================================================ custom_vjp / custom_jvp with pytrees
@astjax.custom_vjp
def _dict_rule(d):
    return {"p": d["a"] * d["b"], "q": jnp.sin(d["a"])}


def _dict_rule_fwd(d):
    return _dict_rule(d), (d["a"], d["b"])


def _dict_rule_bwd(res, g):
    a, b = res
    return ({"a": g["p"] * b + g["q"] * jnp.cos(a), "b": g["p"] * a},)


_dict_rule.defvjp(_dict_rule_fwd, _dict_rule_bwd)


def custom_vjp_dict_argument(d):
    out = _dict_rule(d)
    return out["p"] * 2.0 + out["q"]


case(custom_vjp_dict_argument, lambda r: ({"b": scalar(r), "a": scalar(r)},), "works", jvp=False)


def custom_vjp_dict_built_inside(x):
    out = _dict_rule({"a": x[0], "b": x[1]})
    return out["p"] * 2.0 + out["q"] * x[2]


case(custom_vjp_dict_built_inside, lambda r: (vec(r, 3),), "works", jvp=False)


def custom_vjp_dict_argument_also_read(d):
    out = _dict_rule(d)
    return out["p"] * 2.0 + out["q"] + d["a"] ** 2 * d["b"]


case(custom_vjp_dict_argument_also_read, lambda r: ({"a": scalar(r), "b": scalar(r)},), "works", jvp=False)


def custom_vjp_dict_in_loop(x):
    d = {"a": x[0], "b": x[1]}
    for _ in range(2):
        out = _dict_rule(d)
        d = {"a": out["p"], "b": out["q"] + 0.5}
    return d["a"] + d["b"]


case(custom_vjp_dict_in_loop, lambda r: (vec(r, 2),), "either", jvp=False)


@astjax.custom_vjp
def _list_rule(xs):
    return xs[0] * xs[1] + xs[2]


def _list_rule_fwd(xs):
    return _list_rule(xs), (xs[0], xs[1])


def _list_rule_bwd(res, g):
    a, b = res
    return ([g * b, g * a, g],)


_list_rule.defvjp(_list_rule_fwd, _list_rule_bwd)


def custom_vjp_list_argument(x):
    return _list_rule([x[0], x[1], x[2] ** 2]) * 3.0


case(custom_vjp_list_argument, lambda r: (vec(r, 3),), "works", jvp=False)


class _Pair(NamedTuple):
    w: object
    b: object


@astjax.custom_vjp
def _nt_rule(p, x):
    return jnp.tanh(p.w * x + p.b)


def _nt_rule_fwd(p, x):
    y = _nt_rule(p, x)
    return y, (p, x, y)


def _nt_rule_bwd(res, g):
    p, x, y = res
    d = g * (1.0 - y ** 2)
    return (_Pair(d * x, d), d * p.w)


_nt_rule.defvjp(_nt_rule_fwd, _nt_rule_bwd)


def custom_vjp_namedtuple_argument(p, x):
    return jnp.sum(_nt_rule(p, x) ** 2)


case(custom_vjp_namedtuple_argument, lambda r: (_Pair(vec(r, 3), vec(r, 3)), vec(r, 3)), "works", jvp=False)


@astjax.custom_vjp
def _none_rule(x, y):
    return x * y


def _none_rule_fwd(x, y):
    return x * y, x


def _none_rule_bwd(x, g):
    return (None, g * x)


_none_rule.defvjp(_none_rule_fwd, _none_rule_bwd)


def custom_vjp_none_for_zero(x):
    return jnp.sum(_none_rule(x[:2], x[2:]) * _x(1.0, 2.0))


case(custom_vjp_none_for_zero, lambda r: (vec(r, 4),), "works", mode="custom",
     check=lambda fn, args: [(astjax.grad(fn)(args[0]), np.array([0.0, 0.0, args[0][0], 2.0 * args[0][1]]),
                              "bwd's None is a zero cotangent (JAX)")])


@functools.partial(astjax.custom_vjp, nondiff_argnums=(1,))
def _clip_grad(x, c):
    return x


def _clip_grad_fwd(x, c):
    return x, None


def _clip_grad_bwd(c, res, g):
    return (jnp.clip(g, -c, c),)


_clip_grad.defvjp(_clip_grad_fwd, _clip_grad_bwd)


def _clip_loss(x):
    y = _clip_grad(x * x, 0.5)
    return jnp.sum(y * _x(3.0, 0.1, -2.0)) + jnp.sum(y)


def custom_vjp_nondiff_used_twice(x):
    return _clip_loss(x)


case(custom_vjp_nondiff_used_twice, lambda r: (vec(r, 3),), "works", mode="custom",
     check=lambda fn, args: [(astjax.grad(fn)(args[0]), 2 * args[0] * np.clip(_x(4.0, 1.1, -1.0), -0.5, 0.5),
                              "the clipped cotangent of both uses (JAX)"),
                             (astjax.vmap(astjax.grad(fn))(np.stack([args[0], 2 * args[0]])),
                              np.stack([2 * a * np.clip(_x(4.0, 1.1, -1.0), -0.5, 0.5) for a in (args[0], 2 * args[0])]),
                              "vmap of it")])


@astjax.custom_jvp
def _st_round(x):
    return jnp.round(x)


@_st_round.defjvp
def _st_round_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _st_round(x), t * 0.5


def custom_jvp_straight_through_hessian(x):
    return jnp.sum(_st_round(x) ** 2 + x ** 3)


def _st_check(fn, args):
    x = _x(0.4, 1.7)
    r = np.round(x)
    g = r + 3 * x ** 2                       # 2 * round(x) * 0.5 + 3 x^2
    H = np.diag(0.5 * 0.5 * 2 / 2 * 0 + 6 * x) + np.diag([0.0, 0.0])   # d/dx (round(x)) = 0.5 inside the rule? no:
    # JAX: the Hessian differentiates the rule's output 2 * round(x) * (t * 0.5): d/dx of round(x) is the rule's 0.5
    H = np.diag(0.5 * 1.0 + 6 * x)
    return [(astjax.grad(fn)(x), g, "grad uses the rule (JAX)"),
            (astjax.hessian(fn)(x), H, "hessian differentiates through the rule (JAX: 0.5 + 6x)"),
            (astjax.jacfwd(astjax.grad(fn))(x), H, "jacfwd(grad)"),
            (astjax.vmap(astjax.grad(fn))(np.stack([x, x + 1])), np.stack([g, np.round(x + 1) + 3 * (x + 1) ** 2]), "vmap")]


case(custom_jvp_straight_through_hessian, lambda r: (vec(r, 2),), "works", mode="custom", check=_st_check)


@astjax.custom_jvp
def _cj_dict(d):
    return d["a"] * jnp.sin(d["b"])


@_cj_dict.defjvp
def _cj_dict_jvp(primals, tangents):
    d, = primals
    t, = tangents
    return _cj_dict(d), t["a"] * jnp.sin(d["b"]) + t["b"] * d["a"] * jnp.cos(d["b"])


def custom_jvp_dict_argument(d):
    return _cj_dict(d) ** 2


case(custom_jvp_dict_argument, lambda r: ({"b": scalar(r), "a": scalar(r)},), "works")


def custom_jvp_dict_built_inside(x):
    return _cj_dict({"a": x[0], "b": x[1]}) * x[2]


case(custom_jvp_dict_built_inside, lambda r: (vec(r, 3),), "works")


@astjax.custom_jvp
def _cj_list(xs):
    return xs[0] * xs[1]


@_cj_list.defjvp
def _cj_list_jvp(primals, tangents):
    xs, = primals
    t, = tangents
    return _cj_list(xs), t[0] * xs[1] + t[1] * xs[0]


def custom_jvp_list_argument(xs):
    return jnp.sum(_cj_list(xs) ** 2)


case(custom_jvp_list_argument, lambda r: ([vec(r, 2), vec(r, 2)],), "works")


def custom_jvp_dict_hessian(x):
    return _cj_dict({"a": x[0], "b": x[1]}) * x[2]


def _cj_hessian_check(fn, args):
    x = args[0]
    return [(astjax.hessian(fn)(x), fd_hessian(fn, (x,)), "hessian through a custom_jvp with a dict argument")]


case(custom_jvp_dict_hessian, lambda r: (vec(r, 3),), "either", mode="custom", check=_cj_hessian_check)


@astjax.custom_vjp
def _tuple_rule(xs):
    a, b = xs
    return a * b


def _tuple_rule_fwd(xs):
    return _tuple_rule(xs), xs


def _tuple_rule_bwd(xs, g):
    a, b = xs
    return ((g * b, g * a),)


_tuple_rule.defvjp(_tuple_rule_fwd, _tuple_rule_bwd)


def custom_vjp_tuple_argument_also_read(t):
    return jnp.sum(_tuple_rule(t)) + jnp.sum(t[0] ** 2)


case(custom_vjp_tuple_argument_also_read, lambda r: ((vec(r, 2), vec(r, 2)),), "works", jvp=False)


# ============================================================ keyword arguments through the API
def _kw_only_loss(x, *, scale):
    return jnp.sum(x ** 3) * scale


def api_keyword_only_argument(x):
    return _kw_only_loss(x, scale=2.0)


def _kw_check(fn, args):
    x = args[0]
    g = 6.0 * x ** 2
    return [(astjax.grad(_kw_only_loss)(x, scale=2.0), g, "grad(f)(x, scale=...) with scale keyword-only"),
            (astjax.value_and_grad(_kw_only_loss)(x, scale=2.0)[1], g, "value_and_grad"),
            (astjax.jacfwd(_kw_only_loss)(x, scale=2.0), g, "jacfwd"),
            (astjax.hessian(_kw_only_loss)(x, scale=2.0), np.diag(12.0 * x), "hessian"),
            (astjax.jacfwd(astjax.grad(_kw_only_loss))(x, scale=2.0), np.diag(12.0 * x), "jacfwd(grad)")]


case(api_keyword_only_argument, lambda r: (vec(r, 3),), "works", mode="custom", check=_kw_check)


def _kw_default_loss(x, scale=1.0):
    return jnp.sum(x ** 3) * scale


def api_keyword_argument_jacobians(x):
    return _kw_default_loss(x)


def _kw_default_check(fn, args):
    x = args[0]
    g = 6.0 * x ** 2
    return [(astjax.jacrev(_kw_default_loss)(x, scale=2.0), g, "jacrev(f)(x, scale=2.0) (JAX passes it through)"),
            (astjax.jacfwd(_kw_default_loss)(x, scale=2.0), g, "jacfwd"),
            (astjax.hessian(_kw_default_loss)(x, scale=2.0), np.diag(12.0 * x), "hessian"),
            (astjax.jacrev(astjax.grad(_kw_default_loss))(x, scale=2.0), np.diag(12.0 * x), "jacrev(grad)")]


case(api_keyword_argument_jacobians, lambda r: (vec(r, 3),), "works", mode="custom", check=_kw_default_check)


# ============================================================ lax control flow: unread ys, pytrees, transforms
def _dict_step(c, x):
    return {"w": c["w"] * x, "s": c["s"] + c["w"]}, None


def scan_dict_carry_none_ys(x):
    c, _ = lax.scan(_dict_step, {"w": x[0], "s": 0.0 * x[0]}, x[1:])
    return c["s"] + c["w"]


case(scan_dict_carry_none_ys, lambda r: (vec(r, 4),), "works")


def _inner_step(c, x):
    return c * x + 1.0, None


def _outer_step(c, row):
    c2, _ = lax.scan(_inner_step, c, row)
    return c2 * 0.5, c2


def scan_in_scan_unread_inner_ys(x):
    c, ys = lax.scan(_outer_step, 0.3, x.reshape(3, 2))
    return c + jnp.sum(ys ** 2)


case(scan_in_scan_unread_inner_ys, lambda r: (vec(r, 6),), "works")


def scan_unread_ys_pytree(x):
    c, _ = lax.scan(lambda c, v: (c * v + 0.1, {"a": c, "b": (v, None)}), 1.0, x)
    return c


case(scan_unread_ys_pytree, lambda r: (vec(r, 4),), "either")


def scan_read_ys_none_refused(x):
    c, ys = lax.scan(lambda c, v: (c * v, None), 1.0, x)
    return c + (0.0 if ys is None else 1.0)


case(scan_read_ys_none_refused, lambda r: (vec(r, 3),), "either")


def scan_length_only_tuple_carry(x):
    (a, b), ys = lax.scan(lambda c, _: ((c[0] * c[1], c[0] + 0.5 * c[1]), c[0]), (x[0], x[1]), None, length=4)
    return a + b + jnp.sum(ys)


case(scan_length_only_tuple_carry, lambda r: (vec(r, 2),), "works")


def _rev_step(c, xs):
    x1, x2 = xs
    c2 = c * x1 + x2
    return c2, (c2, c2 * x1)


def scan_reverse_tuple_xs_and_ys(x):
    c, (y1, y2) = lax.scan(_rev_step, x[0], (x[1:4], x[4:7]), reverse=True)
    return c + jnp.sum(y1 * _x(1., 2., 3.)) + jnp.sum(y2 * _x(3., 1., 2.))


case(scan_reverse_tuple_xs_and_ys, lambda r: (vec(r, 7),), "works")


def _hess_vmap_check(fn, args):
    x = args[0]
    xs = np.stack([x, 0.5 * x])
    return [(astjax.hessian(fn)(x), fd_hessian(fn, (x,)), "hessian"),
            (astjax.vmap(astjax.grad(fn))(xs), np.stack([fd_grad(fn, (v,), 0)[0] for v in xs]), "vmap(grad)"),
            (astjax.jacfwd(fn)(x), fd_grad(fn, (x,), 0)[0], "jacfwd")]


def scan_reverse_under_every_transform(x):
    return scan_reverse_tuple_xs_and_ys(x)


case(scan_reverse_under_every_transform, lambda r: (vec(r, 7),), "works", mode="custom", check=_hess_vmap_check)


def scan_dict_carry_under_every_transform(x):
    return scan_dict_carry_none_ys(x)


case(scan_dict_carry_under_every_transform, lambda r: (vec(r, 4),), "works", mode="custom", check=_hess_vmap_check)


def _cond_tree(x):
    return lax.cond(x[0] > 0, lambda d: {"a": d["a"] * 2.0, "b": jnp.sin(d["b"])},
                    lambda d: {"a": d["b"], "b": d["a"] ** 2}, {"a": x[1], "b": x[2]})


def cond_dict_operand(x):
    d = _cond_tree(x)
    return d["a"] * 3.0 + d["b"]


def _cond_check(fn, args):
    xs = np.array([[0.5, 0.3, 0.7], [-0.5, 0.3, 0.7]])
    return [(astjax.vmap(fn)(xs), np.array([fn(v) for v in xs]), "vmap with a batched predicate"),
            (astjax.vmap(astjax.grad(fn))(xs), np.stack([fd_grad(fn, (v,), 0)[0] for v in xs]), "vmap(grad)"),
            (astjax.hessian(fn)(xs[1]), fd_hessian(fn, (xs[1],)), "hessian")]


case(cond_dict_operand, lambda r: (vec(r, 3),), "works", mode="custom", check=_cond_check)


def _wl(x):
    return lax.while_loop(lambda c: c[0] < 10.0, lambda c: (c[0] * x + 1.0, c[1] + 1), (1.0, 0))


def while_loop_batched_predicate(x):
    return _wl(x)[0]


def _while_check(fn, args):
    xs = _x(1.5, 2.0, 3.0, 1.2)
    value, steps = astjax.vmap(_wl)(xs)
    want = [_wl(v) for v in xs]
    return [(value, np.array([w[0] for w in want]), "values: each lane stops at its own count"),
            (steps, np.array([w[1] for w in want]), "trip counts"),
            (astjax.vmap(astjax.jacfwd(fn))(xs), np.array([fd_grad(fn, (np.float64(v),), 0)[0] for v in xs]),
             "vmap(jacfwd)")]


case(while_loop_batched_predicate, lambda r: (np.float64(1.5),), "works", mode="custom", check=_while_check)


def switch_batched_index(x, i):
    return lax.switch(i, [lambda a, b: a * b, lambda a, b: a - b, lambda a, b: jnp.exp(a) + b], x[0], x[1])


def _switch_check(fn, args):
    x = args[0]
    idx = np.array([0, 1, 2, 5, -1])
    want = np.array([fn(x, int(i)) for i in idx])
    grads = np.stack([fd_grad(lambda v: fn(v, int(i)), (x,), 0)[0] for i in idx])
    return [(astjax.vmap(fn, in_axes=(None, 0))(x, idx), want, "vmap over the index (clamped as JAX)"),
            (astjax.vmap(astjax.grad(fn), in_axes=(None, 0))(x, idx), grads, "vmap(grad) over the index")]


case(switch_batched_index, lambda r: (vec(r, 2), 0), "works", mode="custom", check=_switch_check)


def _cis_step(c, x):
    return lax.cond(x > 0, lambda c: c * x, lambda c: c - x, c), c


def cond_inside_scan_every_transform(x):
    c, ys = lax.scan(_cis_step, 1.0, x)
    return c + jnp.sum(ys)


case(cond_inside_scan_every_transform, lambda r: (_x(0.5, -0.9, 1.1, -0.8),), "works", mode="custom",
     check=_hess_vmap_check)


def fori_loop_tuple_carry_hessian(x):
    return lax.fori_loop(1, 4, lambda i, c: (c[0] * x[i], c[1] + c[0]), (x[0], 0.0))[1]


case(fori_loop_tuple_carry_hessian, lambda r: (vec(r, 4),), "works", mode="custom", check=_hess_vmap_check)


def fori_loop_traced_bound_forward(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * x + i, 1.0)


case(fori_loop_traced_bound_forward, lambda r: (scalar(r), 4), "works")


def scan_closed_over_parameter(x):
    w = x[0]
    c, ys = lax.scan(lambda c, xi: (c * w + xi, c * w), 0.0, x[1:])
    return c + jnp.sum(ys)


case(scan_closed_over_parameter, lambda r: (vec(r, 4),), "works", mode="custom", check=_hess_vmap_check)


def scan_int_counter_in_carry(x):
    (i, s), ys = lax.scan(lambda c, v: ((c[0] + 1, c[1] + v * c[0]), c[1]), (0, 0.0), x)
    return s + jnp.sum(ys) + i


case(scan_int_counter_in_carry, lambda r: (vec(r, 3),), "works")


def lax_map_dict_output(x):
    return jnp.sum(lax.map(lambda r: {"s": jnp.sum(r ** 2), "p": r[0] * r[1]}, x.reshape(2, 2))["p"])


case(lax_map_dict_output, lambda r: (vec(r, 4),), "either")


def scan_dict_xs(x):
    c, ys = lax.scan(lambda c, d: (c + d["a"] * d["b"], c), 0.0, {"b": x[:3], "a": x[3:]})
    return c + jnp.sum(ys)


case(scan_dict_xs, lambda r: (vec(r, 6),), "either")


# ============================================================ pytrees of parameters
def _none_leaf_loss(p):
    return p["a"] * 2.0 + p["c"] * 3.0 + (0.0 if p["b"] is None else 1.0)


def none_leaf_between_parameters(p):
    return _none_leaf_loss(p)


def _none_leaf_check(fn, args):
    d = {"a": np.float64(1.0), "b": None, "c": np.float64(2.0)}
    out = []
    for label, transform in (("grad", astjax.grad), ("jacrev", astjax.jacrev), ("jacfwd", astjax.jacfwd)):
        g = transform(fn)(d)
        out += [(g["a"], 2.0, label + " a"), (g["c"], 3.0, label + " c (was 0: the None's float0 leaf shifted it)"),
                (float(g["b"] is None), 1.0, label + " b is None (JAX)")]
    return out


case(none_leaf_between_parameters, lambda r: ({"a": scalar(r), "b": None, "c": scalar(r)},), "works", mode="custom",
     check=_none_leaf_check)


def none_item_in_list_parameters(p):
    return p[0] * 2.0 + p[2] * 3.0


def _none_list_check(fn, args):
    ps = [np.float64(1.0), None, np.float64(2.0)]
    out = []
    for label, transform in (("grad", astjax.grad), ("jacrev", astjax.jacrev), ("jacfwd", astjax.jacfwd)):
        g = transform(fn)(ps)
        out += [(g[0], 2.0, label + " [0]"), (g[2], 3.0, label + " [2]"), (float(g[1] is None), 1.0, label + " [1]")]
    return out


case(none_item_in_list_parameters, lambda r: ([scalar(r), None, scalar(r)],), "works", mode="custom",
     check=_none_list_check)


def unsorted_dict_keys(d):
    return d["z"] * 2.0 + d["a"] ** 2 * 3.0 + jnp.sum(d["m"]["y"] * d["m"]["c"])


case(unsorted_dict_keys, lambda r: ({"z": scalar(r), "a": scalar(r), "m": {"y": vec(r, 2), "c": vec(r, 2)}},),
     "works")


def tree_leaves_order_in_loss(d):
    ls = astjax.tree_util.tree_leaves(d)
    return ls[0] * 1.0 + ls[1] * 10.0 + ls[2] * 100.0       # leaves in sorted-key order (a, m, z)


case(tree_leaves_order_in_loss, lambda r: ({"z": scalar(r), "a": scalar(r), "m": scalar(r)},), "works")


def int_keyed_dict_parameters(d):
    return d[2] * 2.0 + d[10] * 3.0 + d[1] * 5.0


case(int_keyed_dict_parameters, lambda r: ({10: scalar(r), 2: scalar(r), 1: scalar(r)},), "works")


class _Params(NamedTuple):
    w: object
    b: object


def namedtuple_nested_in_list(ps, x):
    h = x
    for p in ps:
        h = jnp.tanh(h @ p.w + p.b)
    return jnp.sum(h ** 2)


case(namedtuple_nested_in_list,
     lambda r: ([_Params(mat(r, 3, 2), vec(r, 2)), _Params(mat(r, 2, 2), vec(r, 2))], vec(r, 3)), "works")


def argnums_reversed_tuple(a, b, c):
    return jnp.sum(a * b) + jnp.sum(b * c ** 2)


case(argnums_reversed_tuple, lambda r: (vec(r, 2), vec(r, 2), vec(r, 2)), "works", argnums=(2, 0))


def has_aux_pytree(x):
    return jnp.sum(x ** 2), {"n": jnp.sum(x > 0), "m": (x * 2, [x[0]])}


def _aux_check(fn, args):
    x = args[0]
    (v, aux), g = astjax.value_and_grad(fn, has_aux=True)(x)
    g2, aux2 = astjax.grad(fn, has_aux=True)(x)
    j, aux3 = astjax.jacrev(fn, has_aux=True)(x)
    return [(v, np.sum(x ** 2), "value"), (g, 2 * x, "grad"), (g2, 2 * x, "grad has_aux"), (j, 2 * x, "jacrev has_aux"),
            (aux["m"][0], 2 * x, "aux array"), (aux["m"][1][0], x[0], "aux list item"),
            (aux2["n"], np.sum(x > 0), "aux count"), (aux3["n"], np.sum(x > 0), "jacrev aux")]


case(has_aux_pytree, lambda r: (vec(r, 3),), "works", mode="custom", check=_aux_check)


def grad_of_python_float_list(ps):
    h = 1.0
    for w in ps:
        h = jnp.tanh(h * w)
    return h


def _float_list_check(fn, args):
    g = astjax.grad(fn)([0.5, 1.5, -0.7])
    want = fd_grad(fn, ([np.float64(0.5), np.float64(1.5), np.float64(-0.7)],), 0)
    return [(float(isinstance(g, list)), 1.0, "a list of gradients")] + [
        (a, b, f"item {k} (float32, as JAX for Python floats)") for k, (a, b) in enumerate(zip(g, want))]


case(grad_of_python_float_list, lambda r: ([0.5, 1.5, -0.7],), "works", mode="custom", check=_float_list_check,
     rtol=1e-4)


def ordered_dict_params(d):
    return d["b"] * 2.0 + d["a"] ** 2 * 3.0


def _od_check(fn, args):
    import collections
    d = collections.OrderedDict([("b", np.float64(1.0)), ("a", np.float64(2.0))])
    g = astjax.grad(fn)(d)
    return [(g["a"], 12.0, "a"), (g["b"], 2.0, "b"), (float(type(g) is collections.OrderedDict), 1.0, "type kept")]


case(ordered_dict_params, lambda r: ({"b": scalar(r), "a": scalar(r)},), "works", mode="custom", check=_od_check)


def empty_containers_in_arguments(p, x):
    return jnp.sum(x ** 2) + len(p[0]) + len(p[1])


case(empty_containers_in_arguments, lambda r: (((), {}), vec(r, 2)), "works", argnums=1)


def tree_map_over_two_trees(p):
    sq = astjax.tree_util.tree_map(lambda a, b: a * b, p, {"x": _x(1., 2.), "y": np.float64(3.0)})
    return jnp.sum(sq["x"]) + sq["y"] * p["y"]


case(tree_map_over_two_trees, lambda r: ({"y": scalar(r), "x": vec(r, 2)},), "works")


def vmap_in_axes_dict_params(p, x):
    return jnp.sum(p["w"] * x) + p["b"]


def _vmap_dict_check(fn, args):
    p = {"w": np.arange(6.0).reshape(3, 2), "b": np.float64(1.0)}
    x = _x(1., 2.)
    return [(astjax.vmap(fn, in_axes=({"w": 0, "b": None}, None))(p, x), p["w"] @ x + 1.0, "vmap"),
            (astjax.vmap(astjax.grad(fn), in_axes=({"w": 0, "b": None}, None))(p, x)["w"], np.tile(x, (3, 1)),
             "vmap(grad) w")]


case(vmap_in_axes_dict_params, lambda r: ({"w": vec(r, 2), "b": scalar(r)}, vec(r, 2)), "works", mode="custom",
     check=_vmap_dict_check)


# ============================================================ JAX's conventions at kinks (numbers from JAX 0.10, x64)
def _at(point, expected, label, hessian=None):
    """A check: grad at `point` equals JAX's `expected`; jvp along ones equals grad . ones where that is finite;
    the Hessian equals JAX's `hessian` where given."""
    def check(fn, args):
        x = np.array(point, dtype=np.float64)
        want = np.array(expected, dtype=np.float64)
        got = np.asarray(astjax.grad(fn)(x), dtype=np.float64)
        infinite = np.isinf(want)
        # the harness scales its tolerance by the largest expected value: an infinite one is compared apart
        out = [(np.where(infinite, 0.0, got), np.where(infinite, 0.0, want), label),
               (float(np.array_equal(got[infinite], want[infinite])), 1.0, label + " (the infinite entries)")]
        if np.all(np.isfinite(want)):
            out.append((astjax.jvp(fn, (x,), (np.ones_like(x),))[1], float(np.sum(want)), label + " (jvp)"))
        if hessian is not None:
            out.append((astjax.hessian(fn)(x), np.array(hessian, dtype=np.float64), label + " (hessian)"))
        return out
    return check


def _kink(fn, point, expected, label, hessian=None, args=None):
    shape = np.shape(point)
    case(fn, args or (lambda r: (vec(r, shape[0]) if len(shape) == 1 else mat(r, *shape),)), "works", mode="custom",
         check=_at(point, expected, label, hessian))


def sinc_at_zero(x):
    return jnp.sum(jnp.sinc(x))


_kink(sinc_at_zero, [0.0, 0.5], [0.0, -1.2732395447351625], "sinc'(0) = 0 (JAX's Maclaurin rule)",
      hessian=[[-3.2898681336964524, 0.0], [0.0, -1.1902271282389347]])


def relu6_kinks(x):
    return jnp.sum(nn.relu6(x))


_kink(relu6_kinks, [0.0, 6.0, 3.0], [0.0, 0.0, 1.0], "relu6 at 0 and 6")


def hard_tanh_kinks(x):
    return jnp.sum(nn.hard_tanh(x))


_kink(hard_tanh_kinks, [-1.0, 1.0, 0.0], [1.0, 1.0, 1.0], "hard_tanh at -1 and 1")


def leaky_relu_at_zero(x):
    return jnp.sum(nn.leaky_relu(x, 0.1))


_kink(leaky_relu_at_zero, [0.0, -1.0], [1.0, 0.1], "leaky_relu'(0) = 1")


def elu_at_zero(x):
    return jnp.sum(nn.elu(x))


_kink(elu_at_zero, [0.0, -1.0], [1.0, 0.36787944117144233], "elu'(0) = 1",
      hessian=[[1.0, 0.0], [0.0, 0.36787944117144233]])


def celu_selu_at_zero(x):
    return jnp.sum(nn.celu(x)) + jnp.sum(nn.selu(x))


_kink(celu_selu_at_zero, [0.0, -1.0], [2.7580993408473766, 1.0146480442062562], "celu/selu at 0")


def max_min_axis_ties(x):
    return jnp.sum(jnp.max(x, axis=1)) + jnp.sum(jnp.min(x, axis=0) * 3)


_kink(max_min_axis_ties, [[1.0, 1.0, 0.0], [2.0, 2.0, 2.0]],
      [[3.5, 3.5, 3.0], [1 / 3, 1 / 3, 1 / 3]], "max/min along an axis with ties")


def amax_ptp_ties(x):
    return jnp.amax(x) + jnp.ptp(x)


_kink(amax_ptp_ties, [1.0, 1.0, 0.0, 0.0], [1.0, 1.0, -0.5, -0.5], "amax and ptp with ties")


def median_with_three_ties(x):
    return jnp.median(x)


_kink(median_with_three_ties, [1.0, 1.0, 1.0, 3.0], [0.0, 0.5, 0.5, 0.0], "median's middle pair among ties")


def nested_minimum_three_way_tie(x):
    return jnp.minimum(jnp.minimum(x[0], x[1]), x[2])


_kink(nested_minimum_three_way_tie, [1.0, 1.0, 1.0], [0.25, 0.25, 0.5], "minimum(minimum(a, b), c) at a = b = c")


def round_family_at_halves(x):
    return jnp.sum(jnp.round(x) * x + jnp.floor(x) + jnp.ceil(x) + jnp.trunc(x))


_kink(round_family_at_halves, [0.5, 1.5, -0.5], [0.0, 2.0, 0.0], "round half to even, zero derivatives")


def mod_family_at_multiples(x):
    return jnp.sum(jnp.mod(x, 1.0) + jnp.remainder(x, 0.3) + jnp.fmod(x, 0.3) + x // 0.3)


_kink(mod_family_at_multiples, [1.0, 0.0, -1.0], [3.0, 3.0, 3.0], "mod/remainder/fmod slope 1, floor_divide 0")


def cumprod_with_zeros(x):
    return jnp.sum(jnp.cumprod(x))


_kink(cumprod_with_zeros, [2.0, 0.0, 3.0, 0.0], [1.0, 8.0, 0.0, 0.0], "cumprod through zeros")


def det_at_singular_matrix(x):
    return jnp.linalg.det(x)


_kink(det_at_singular_matrix, [[1.0, 2.0], [2.0, 4.0]], [[4.0, -2.0], [-2.0, 1.0]], "det' = adjugate^T at rank 1")


def heaviside_times_x(x):
    return jnp.sum(jnp.heaviside(x, 0.5) * x)


_kink(heaviside_times_x, [0.0, 1.0, -1.0], [0.5, 1.0, 0.0], "heaviside(0, 0.5) * x")


def copysign_both_ways(x):
    return jnp.sum(jnp.copysign(x, -1.0) + jnp.copysign(2.0, x) * x)


_kink(copysign_both_ways, [0.0, 1.0, -1.0], [1.0, 1.0, -1.0], "copysign at +0")


def log_softmax_with_minus_inf(x):
    return jnp.sum(nn.log_softmax(x) * _x(1.0, 2.0, 3.0))


_kink(log_softmax_with_minus_inf, [-np.inf, 0.0, 1.0], [1.0, 0.3863514717800293, -1.3863514717800296],
      "log_softmax with a -inf logit")


def logsumexp_with_minus_inf(x):
    return nn.logsumexp(x)


_kink(logsumexp_with_minus_inf, [-np.inf, 0.0, 1.0], [0.0, 0.2689414213699951, 0.7310585786300049],
      "logsumexp with a -inf entry")


def cbrt_at_zero(x):
    return jnp.sum(jnp.cbrt(x))


_kink(cbrt_at_zero, [0.0, -8.0], [np.inf, 0.08333333333333333], "cbrt'(0) = inf")


def hypot_at_origin(x):
    return jnp.hypot(x[0], x[1])


_kink(hypot_at_origin, [0.0, 0.0], [0.5, 0.5], "hypot at (0, 0): JAX's 0.5 each")


def arctan2_on_negative_axis(x):
    return jnp.arctan2(x[0], x[1])


_kink(arctan2_on_negative_axis, [0.0, -1.0], [-1.0, 0.0], "arctan2 at (0, -1)")


def abs_cubed_at_zero(x):
    return jnp.sum(jnp.abs(x) ** 3)


_kink(abs_cubed_at_zero, [0.0, -1.0], [0.0, -3.0], "|x|^3 at 0", hessian=[[0.0, 0.0], [0.0, 6.0]])


def double_where_sqrt(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.sum(jnp.where(x > 0, jnp.sqrt(safe), 0.0))


_kink(double_where_sqrt, [-1.0, 0.0, 4.0], [0.0, 0.0, 0.25], "the double-where trick: no nan")


def where_sin_over_x(x):
    return jnp.sum(jnp.where(x == 0, 1.0, jnp.sin(x) / x))


_kink(where_sin_over_x, [0.0, 1.0], [np.nan, -0.30116867893975674], "where(x == 0, 1, sin(x)/x): nan as JAX")


def norm_of_zero_vector(x):
    return jnp.linalg.norm(x) + jnp.sqrt(jnp.sum(x * x))


_kink(norm_of_zero_vector, [0.0, 0.0], [np.nan, np.nan], "norm and sqrt(sum(x^2)) at 0: nan as JAX")


def logaddexp_tie(x):
    return jnp.logaddexp(x[0], x[1])


_kink(logaddexp_tie, [1.0, 1.0], [0.5, 0.5], "logaddexp(a, a)")


def power_negative_base_integer_exponent(x):
    return x[0] ** x[1]


_kink(power_negative_base_integer_exponent, [-2.0, 3.0], [12.0, np.nan], "(-2)^3: d/dbase 12, d/dexp nan (log(-2))")


def softplus_log_sigmoid_far_out(x):
    return jnp.sum(nn.softplus(x)) + jnp.sum(nn.log_sigmoid(x))


_kink(softplus_log_sigmoid_far_out, [0.0, 800.0, -800.0], [1.0, 1.0, 1.0], "softplus + log_sigmoid at +-800")


def gelu_silu_mix(x):
    return jnp.sum(nn.silu(x)) + jnp.sum(nn.gelu(x)) + jnp.sum(nn.gelu(x, approximate=False))


_kink(gelu_silu_mix, [0.0, -1.0, 2.0], [1.5, -0.09395006630495556, 3.262115306486711], "silu, gelu (both forms)")


def arccos_arcsin_at_one(x):
    return jnp.sum(jnp.arccos(x) + jnp.arcsin(x))


_kink(arccos_arcsin_at_one, [1.0, 0.0], [np.nan, 0.0], "arccos + arcsin at 1: -inf + inf = nan")


def nan_reductions_skip(x):
    return jnp.nanmean(x) + jnp.nansum(x)


_kink(nan_reductions_skip, [np.nan, 1.0, 2.0], [0.0, 1.5, 1.5], "nanmean/nansum: a nan entry gets 0")


def rsqrt_reciprocal_at_zero(x):
    return jnp.sum(lax.rsqrt(x)) + jnp.sum(jnp.reciprocal(x))


_kink(rsqrt_reciprocal_at_zero, [0.0, 4.0], [-np.inf, -0.125], "rsqrt and reciprocal at 0")


def prod_one_zero_hessian(x):
    return jnp.prod(x)


_kink(prod_one_zero_hessian, [0.0, 2.0, 3.0], [6.0, 0.0, 0.0], "prod with one zero",
      hessian=[[0.0, 3.0, 2.0], [3.0, 0.0, 0.0], [2.0, 0.0, 0.0]])


# ============================================================ containers rebuilt inside the function
def namedtuple_replace(p, x):
    p = p._replace(w=p.w * 2.0)
    return jnp.sum(jnp.tanh(x * p.w + p.b))


case(namedtuple_replace, lambda r: (_Params(vec(r, 3), vec(r, 3)), vec(r, 3)), "either")


def dict_merge_with_star_star(d):
    e = {**d, "a": d["a"] * 3.0}
    return e["a"] * e["b"] + e["c"] ** 2


case(dict_merge_with_star_star, lambda r: ({"a": scalar(r), "b": scalar(r), "c": scalar(r)},), "either")


def dict_union_operator(d):
    e = d | {"b": d["a"] ** 2}
    return e["a"] * e["b"]


case(dict_union_operator, lambda r: ({"a": scalar(r), "b": scalar(r)},), "either")


def dict_update_method(d):
    e = dict(d)
    e.update(b=d["a"] * 2.0)
    return e["a"] * e["b"] + d["b"]


case(dict_update_method, lambda r: ({"a": scalar(r), "b": scalar(r)},), "either")


def dict_pop_and_setdefault(d):
    e = dict(d)
    a = e.pop("a")
    c = e.setdefault("c", a * 2.0)
    return a * e["b"] + c


case(dict_pop_and_setdefault, lambda r: ({"a": scalar(r), "b": scalar(r)},), "either")


def dict_constructor_keywords(x):
    d = dict(a=x[0], b=x[1] ** 2)
    return d["a"] * d["b"]


case(dict_constructor_keywords, lambda r: (vec(r, 2),), "either")


def list_concat_and_repeat(x):
    xs = [x[0], x[1]] + [x[2] ** 2]
    ys = xs * 2
    return ys[0] * ys[4] + ys[5]


case(list_concat_and_repeat, lambda r: (vec(r, 3),), "either")


def list_slice_assignment(x):
    xs = [x[0], x[1], x[2], x[0]]
    xs[1:3] = [x[2] * 2.0, x[1] * 3.0]
    return xs[0] * xs[1] + xs[2] * xs[3]


case(list_slice_assignment, lambda r: (vec(r, 3),), "either")


def list_reverse_method(x):
    xs = [x[0], x[1] ** 2, x[2]]
    xs.reverse()
    return xs[0] * 1.0 + xs[1] * 2.0 + xs[2] * 3.0


case(list_reverse_method, lambda r: (vec(r, 3),), "either")


def nested_list_item_write(x):
    rows = [[x[0], x[1]], [x[2], x[0]]]
    rows[1][0] = rows[0][1] * 4.0
    return rows[0][0] * rows[1][0] + rows[1][1]


case(nested_list_item_write, lambda r: (vec(r, 3),), "either")


def list_copy_then_write(x):
    xs = [x[0], x[1]]
    ys = xs.copy()
    ys[0] = x[1] * 5.0
    return xs[0] * 2.0 + ys[0]


case(list_copy_then_write, lambda r: (vec(r, 2),), "either")


def list_alias_then_write(x):
    xs = [x[0], x[1]]
    ys = xs
    ys[0] = x[1] * 5.0
    return xs[0] * 2.0 + ys[1]


case(list_alias_then_write, lambda r: (vec(r, 2),), "either")


def tuple_concat_unpack(x):
    t = (x[0],) + (x[1] * 2.0, x[2])
    a, b, c = t
    return a * b - c


case(tuple_concat_unpack, lambda r: (vec(r, 3),), "either")


def dict_items_loop(d):
    s = 0.0
    for k, v in d.items():
        s = s + v * (2.0 if k == "a" else 3.0)
    return s


case(dict_items_loop, lambda r: ({"b": scalar(r), "a": scalar(r)},), "either")


def dict_argument_mutated_then_read(x, d):
    d["h"] = x * 2.0
    return jnp.sum(d["h"] * x)


case(dict_argument_mutated_then_read, lambda r: (vec(r, 3), {"h": np.float64(0.0)}), "either")


def list_built_by_comprehension_of_dicts(x):
    layers = [{"w": x[i], "b": x[i + 1]} for i in range(2)]
    h = 1.0
    for layer in layers:
        h = jnp.tanh(h * layer["w"] + layer["b"])
    return h


case(list_built_by_comprehension_of_dicts, lambda r: (vec(r, 3),), "either")


# ============================================================ NamedTuple carries in loops, under forward mode too
class _State(NamedTuple):
    a: object
    b: object


def namedtuple_carry_python_loop(x):
    c = _State(1.0, 0.0)
    for i in range(3):
        c = _State(c.a * x[i], c.b + c.a)
    return c.a + c.b


case(namedtuple_carry_python_loop, lambda r: (vec(r, 3),), "works", mode="custom", check=_hess_vmap_check)


def namedtuple_carry_scan(x):
    c, ys = lax.scan(lambda c, v: (_State(c.a * v, c.b + c.a), c.b), _State(1.0, 0.0), x)
    return c.a + c.b + jnp.sum(ys)


case(namedtuple_carry_scan, lambda r: (vec(r, 3),), "works", mode="custom", check=_hess_vmap_check)


def namedtuple_carry_fori(x):
    c = lax.fori_loop(0, 3, lambda i, c: _State(c.a * x[i], c.b + c.a), _State(1.0, 0.0))
    return c.a + c.b


case(namedtuple_carry_fori, lambda r: (vec(r, 3),), "works", mode="custom", check=_hess_vmap_check)


def dict_carry_python_loop(x):
    c = {"a": 1.0, "b": 0.0}
    for i in range(3):
        c = {"a": c["a"] * x[i], "b": c["b"] + c["a"]}
    return c["a"] + c["b"]


case(dict_carry_python_loop, lambda r: (vec(r, 3),), "works", mode="custom", check=_hess_vmap_check)


def tuple_carry_python_loop(x):
    c = (1.0, 0.0)
    for i in range(3):
        c = (c[0] * x[i], c[1] + c[0])
    return c[0] + c[1]


case(tuple_carry_python_loop, lambda r: (vec(r, 3),), "works", mode="custom", check=_hess_vmap_check)


def _while_state(x):
    s = lax.while_loop(lambda s: s.b < 3, lambda s: _State(s.a * x, s.b + 1), _State(1.0, 0))
    return s.a


def namedtuple_carry_while_forward(x):
    return _while_state(x)


case(namedtuple_carry_while_forward, lambda r: (np.float64(0.7),), "works", mode="custom",
     check=lambda fn, args: [(astjax.jacfwd(fn)(np.float64(0.7)), 3 * 0.7 ** 2, "jacfwd"),
                             (astjax.vmap(fn)(_x(0.5, 0.9)), _x(0.5, 0.9) ** 3, "vmap")])


# ============================================================ random keys in loops and transforms
def reparameterized_samples_split_in_loop(p, key):
    total = 0.0
    for _ in range(3):
        key, sub = random.split(key)
        eps = random.normal(sub, (4,))
        z = p[0] + jnp.exp(p[1]) * eps
        total = total + jnp.sum(z ** 2)
    return total


case(reparameterized_samples_split_in_loop, lambda r: (vec(r, 2), random.PRNGKey(0)), "works")


def fold_in_keys_in_loop(p, key):
    s = 0.0
    for i in range(3):
        s = s + jnp.sum(p * random.uniform(random.fold_in(key, i), (2,)))
    return s


case(fold_in_keys_in_loop, lambda r: (vec(r, 2), random.PRNGKey(1)), "works")


def _per_key(p, key):
    return jnp.sum(p * random.normal(key, (2,)))


def vmap_over_split_keys(p, key):
    return _per_key(p, key)


def _keys_check(fn, args):
    p = args[0]
    keys = random.split(random.PRNGKey(2), 3)
    return [(astjax.vmap(fn, in_axes=(None, 0))(p, keys), np.array([fn(p, keys[i]) for i in range(3)]), "vmap"),
            (astjax.vmap(astjax.grad(fn), in_axes=(None, 0))(p, keys),
             np.stack([np.asarray(random.normal(keys[i], (2,))) for i in range(3)]), "vmap(grad)")]


case(vmap_over_split_keys, lambda r: (vec(r, 2), random.PRNGKey(2)), "works", mode="custom", check=_keys_check)


def keys_scanned_unread_ys(p, key):
    c, _ = lax.scan(lambda c, k: (c + jnp.sum(p * random.normal(k, (2,))), None), 0.0, random.split(key, 3))
    return c


case(keys_scanned_unread_ys, lambda r: (vec(r, 2), random.PRNGKey(9)), "works")


def dropout_mask_from_key(p, key):
    keep = random.bernoulli(key, 0.5, (6,))
    return jnp.sum(jnp.where(keep, p / 0.5, 0.0) ** 2)


case(dropout_mask_from_key, lambda r: (vec(r, 6), random.PRNGKey(7)), "works")


def numpy_global_random_in_loss(x):
    noise = np.random.randn(3)
    return jnp.sum((x + noise) ** 2)


def _np_random_check(fn, args):
    x = args[0]
    np.random.seed(0)
    v, g = astjax.value_and_grad(fn)(x)
    np.random.seed(0)
    noise = np.random.randn(3)
    return [(v, np.sum((x + noise) ** 2), "value: drawn once"), (g, 2 * (x + noise), "grad of the same sample")]


case(numpy_global_random_in_loss, lambda r: (vec(r, 3),), "either", mode="custom", check=_np_random_check)


def _draw(n):
    return np.random.uniform(size=n)


def numpy_random_in_helper_twice(x):
    return jnp.sum(x * _draw(3)) + jnp.sum(x ** 2 * _draw(3))


def _np_helper_check(fn, args):
    x = args[0]
    np.random.seed(4)
    g = astjax.grad(fn)(x)
    np.random.seed(4)
    a, b = np.random.uniform(size=3), np.random.uniform(size=3)
    return [(g, a + 2 * x * b, "each helper call's draw kept for the reverse sweep")]


case(numpy_random_in_helper_twice, lambda r: (vec(r, 3),), "either", mode="custom", check=_np_helper_check)


def _constant_dict_output(x):
    d = {"a": 1.0, "b": np.ones(2)}
    return d


def constant_dict_output_forward(x):
    return _constant_dict_output(x)


case(constant_dict_output_forward, lambda r: (vec(r, 2),), "works", mode="custom",
     check=lambda fn, args: [(astjax.jacfwd(fn)(args[0])["b"], np.zeros((2, 2)), "jacfwd of an unreached dict"),
                             (astjax.jvp(fn, (args[0],), (np.ones(2),))[1]["a"], 0.0, "jvp")])



# ============================================================ truth values of arrays raise as in NumPy
def chained_comparison_of_array(x):
    return jnp.sum(jnp.where(0 < x < 1, x, 0.0))


case(chained_comparison_of_array, lambda r: (_x(0.5, 1.5, -0.7),), "refuse", errors=(ValueError, TypeError),
     error_match="ambiguous|truth value|[Cc]oncret")


def and_of_array_masks(x):
    m = (x > 0) and (x < 1)
    return jnp.sum(x * m)


case(and_of_array_masks, lambda r: (_x(0.5, 1.5, -0.7),), "refuse", errors=(ValueError, TypeError),
     error_match="ambiguous|truth value|[Cc]oncret")


def chained_comparison_of_scalars(x):
    return x[0] * 2.0 if 0 < x[1] < 1 else x[0] ** 2


case(chained_comparison_of_scalars, lambda r: (_x(0.5, 0.3, -0.7),), "works")


def builtin_any_gate(x):
    return jnp.sum(x) * (2.0 if any(x > 0.9) else 1.0)


case(builtin_any_gate, lambda r: (_x(0.5, 1.5, -0.7),), "works")


def random_permutation_of_values(x, key):
    return jnp.sum(random.permutation(key, x) * _x(1.0, 2.0, 3.0, 4.0))


case(random_permutation_of_values, lambda r: (vec(r, 4), random.PRNGKey(3)), "either")


def random_choice_of_values(x, key):
    return jnp.sum(random.choice(key, x, (3,), replace=False) * _x(1.0, 2.0, 3.0))


case(random_choice_of_values, lambda r: (vec(r, 4), random.PRNGKey(4)), "either")


def random_uniform_traced_bounds(p, key):
    return jnp.sum(random.uniform(key, (3,), dtype=jnp.float64, minval=p[0], maxval=p[0] + p[1] ** 2))


case(random_uniform_traced_bounds, lambda r: (vec(r, 2), random.PRNGKey(9)), "either")


def random_truncated_normal_times_params(p, key):
    return jnp.sum(random.truncated_normal(key, -1.0, 1.0, (3,)) * p)


case(random_truncated_normal_times_params, lambda r: (vec(r, 3), random.PRNGKey(7)), "works")

# Cases that run a battery of transformations (hessian, vmap(grad), jacfwd, ...) over a program another case
# of this module already checks under grad: the long profile's (ASTJAX_LONG_PROPERTIES=1) in
# tests/test_adversarial.py, to keep this category within its share of the default profile's time.
from .case import CASES as _CASES  # noqa: E402

# The default profile runs the cases of the mechanisms fixed with this module and every second other case.
_FIXED_HERE = {"itertools_combinations_energy", "itertools_cycle_zip_refused", "custom_vjp_dict_argument",
               "custom_vjp_dict_built_inside", "custom_vjp_none_for_zero", "custom_jvp_dict_argument",
               "custom_vjp_tuple_argument_also_read", "api_keyword_only_argument", "scan_dict_carry_none_ys",
               "none_leaf_between_parameters", "dict_merge_with_star_star", "dict_union_operator",
               "namedtuple_carry_python_loop", "namedtuple_carry_while_forward", "constant_dict_output_forward"}
_BATTERIES = (_hess_vmap_check, _cond_check, _switch_check, _while_check, _st_check)
_MINE = [c for c in _CASES if c.category == "attacks5"]
LONG_ONLY = {c.name for c in _MINE if c.check in _BATTERIES and c.name.split(".", 1)[1] not in _FIXED_HERE}
LONG_ONLY |= {c.name for k, c in enumerate(c for c in _MINE if c.name not in LONG_ONLY)
              if k % 2 and c.name.split(".", 1)[1] not in _FIXED_HERE}