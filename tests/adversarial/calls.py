"""Calls: user functions in loops, helpers returning tuples, containers into helpers,
functions as arguments, partial objects, methods, recursion, closures, lambdas, *args."""
import functools

import numpy as np

import astjax.numpy as jnp

from .case import case, vec, mat, scalar


def _inner_fn(a, b):
    return jnp.sin(a) * b + 0.1 * a


def helper_in_loop_self_args(x):
    a = x
    for i in range(3):
        a = _inner_fn(a, a)
    return jnp.sum(a)


case(helper_in_loop_self_args, lambda r: (vec(r, 3),), "works")


def helper_in_loop_other_args(x, y):
    a = x
    for i in range(4):
        a = _inner_fn(a, y) + _inner_fn(y, a)
    return jnp.sum(a * a)


case(helper_in_loop_other_args, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def _pair(p):
    return p[0], p[1]


def helper_returning_tuple(x):
    a, b = _pair(x)
    return a * b + jnp.sin(a)


case(helper_returning_tuple, lambda r: (vec(r, 2),), "works")


def _split_stats(v):
    m = jnp.mean(v)
    return m, jnp.sum((v - m) ** 2)


def helper_tuple_in_loop(x):
    s = 0.0
    for i in range(3):
        m, ss = _split_stats(x * (i + 1.0))
        s = s + m * ss
    return s


case(helper_tuple_in_loop, lambda r: (vec(r, 4),), "works")


def _takes_tuple(pair):
    x, h = pair
    return jnp.sum(x * x) + h * jnp.sum(x)


def tuple_into_helper(x):
    h = 0.5
    return _takes_tuple((x, h))


case(tuple_into_helper, lambda r: (vec(r, 3),), "works")


def _takes_list(items):
    s = 0.0
    for it in items:
        s = s + jnp.sum(it ** 3)
    return s


def list_into_helper(x):
    return _takes_list([x, 2.0 * x, jnp.sin(x)])


case(list_into_helper, lambda r: (vec(r, 3),), "works")


def _takes_dict(d):
    return jnp.sum(d["w"] * d["b"]) + d["scale"] * jnp.sum(d["w"])


def dict_into_helper(w, b):
    return _takes_dict({"w": w, "b": b, "scale": 3.0})


case(dict_into_helper, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def _apply(f, x):
    return f(x) * 2.0


def function_as_argument(x):
    return jnp.sum(_apply(jnp.tanh, x))


case(function_as_argument, lambda r: (vec(r, 3),), "works")


def _layer(x, w, nonlinearity=np.tanh):
    return nonlinearity(x * w)


def nonlinearity_keyword(x, w):
    h = _layer(x, w, nonlinearity=np.sin)
    return np.sum(_layer(h, w))


case(nonlinearity_keyword, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def _user_square(v):
    return v * v + 1.0


def user_function_as_argument(x):
    return jnp.sum(_apply(_user_square, x))


case(user_function_as_argument, lambda r: (vec(r, 3),), "works")


def _scaled_power(x, k, scale):
    return scale * x ** k


def partial_object(x):
    cube = functools.partial(_scaled_power, k=3, scale=0.5)
    return jnp.sum(cube(x))


case(partial_object, lambda r: (vec(r, 3),), "works")


def partial_passed_as_argument(x):
    f = functools.partial(_scaled_power, k=2, scale=x[0])
    return jnp.sum(_apply(f, x))


case(partial_passed_as_argument, lambda r: (vec(r, 3),), "works")


class Affine:
    def __init__(self, w, b):
        self.w = w
        self.b = b

    def forward(self, h):
        return jnp.tanh(self.w * h + self.b)

    def twice(self, h):
        return self.forward(self.forward(h))


def method_on_loop_variable(x):
    layers = [Affine(0.5, 0.1), Affine(1.5, -0.2), Affine(0.8, 0.3)]
    h = x
    for layer in layers:
        h = layer.forward(h)
    return jnp.sum(h)


case(method_on_loop_variable, lambda r: (vec(r, 3),), "works")


def method_calling_other_method(x):
    layer = Affine(0.7, 0.2)
    return jnp.sum(layer.twice(x))


case(method_calling_other_method, lambda r: (vec(r, 3),), "works")


def method_with_traced_attribute(x, w):
    layer = Affine(w, 0.1)
    return jnp.sum(layer.forward(x))


case(method_with_traced_attribute, lambda r: (vec(r, 3), vec(r, 3)), "either", argnums=(0, 1))


def _power_rec(x, n):
    if n == 0:
        return 1.0
    return x * _power_rec(x, n - 1)


def recursion(x):
    return jnp.sum(_power_rec(x, 4))


case(recursion, lambda r: (vec(r, 3),), "works")


def _tree_sum(v, lo, hi):
    if hi - lo == 1:
        return v[lo] ** 2
    mid = (lo + hi) // 2
    return _tree_sum(v, lo, mid) * _tree_sum(v, mid, hi) + 1.0


def recursion_divide_and_conquer(x):
    return _tree_sum(x, 0, x.shape[0])


case(recursion_divide_and_conquer, lambda r: (vec(r, 5),), "works")


def _make_scaler(c):
    def scale(v):
        return v * c
    return scale


def closure_factory(x):
    f = _make_scaler(3.0)
    return jnp.sum(f(x) ** 2)


case(closure_factory, lambda r: (vec(r, 3),), "works")


def closure_over_traced(x):
    def g(v):
        return v * x[0]
    return jnp.sum(g(x))


case(closure_over_traced, lambda r: (vec(r, 3),), "works")


def closure_over_traced_factory(x):
    f = _make_scaler(x[1])
    return jnp.sum(f(x) ** 2)


case(closure_over_traced_factory, lambda r: (vec(r, 3),), "works")


def local_lambda(x):
    sq = lambda v: v * v + x[0]  # noqa: E731
    return jnp.sum(sq(x))


case(local_lambda, lambda r: (vec(r, 3),), "works")


def lambda_in_loop(x):
    s = 0.0
    for i in range(3):
        f = lambda v: v * (i + 1.0)  # noqa: E731
        s = s + jnp.sum(f(x) ** 2)
    return s


case(lambda_in_loop, lambda r: (vec(r, 3),), "works")


def _sum_all(*vals):
    s = 0.0
    for v in vals:
        s = s + jnp.sum(v * v)
    return s


def star_args_callee(x, y):
    return _sum_all(x, y, x * y)


case(star_args_callee, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def rnn(params, *inputs):
    h = 0.0
    for u in inputs:
        h = jnp.tanh(params[0] * h + params[1] * u)
    return jnp.sum(h)


case(rnn, lambda r: (vec(r, 2), vec(r, 3), vec(r, 3)), "works")


def star_args_unpacked_call(x):
    parts = [x, x + 1.0]
    return _sum_all(*parts)


case(star_args_unpacked_call, lambda r: (vec(r, 3),), "works")


def _kw_only(x, *, scale=2.0, shift=0.0):
    return scale * x + shift


def keyword_only_args(x):
    return jnp.sum(_kw_only(x, shift=1.0) ** 2)


case(keyword_only_args, lambda r: (vec(r, 3),), "works")


def _kwargs(x, **kw):
    return x * kw["a"] + kw["b"]


def double_star_kwargs(x):
    return jnp.sum(_kwargs(x, a=2.0, b=x[0]) ** 2)


case(double_star_kwargs, lambda r: (vec(r, 3),), "works")


def _mutual_a(x, n):
    if n <= 0:
        return x
    return _mutual_b(x * 1.1, n - 1)


def _mutual_b(x, n):
    return _mutual_a(jnp.sin(x), n - 1)


def mutual_recursion(x):
    return jnp.sum(_mutual_a(x, 4))


case(mutual_recursion, lambda r: (vec(r, 3),), "works")


def _inner_with_loop(v, n):
    for i in range(n):
        v = v * 0.5 + jnp.cos(v)
    return v


def helper_with_loop_called_in_loop(x):
    s = 0.0
    for i in range(3):
        s = s + jnp.sum(_inner_with_loop(x, i + 1))
    return s


case(helper_with_loop_called_in_loop, lambda r: (vec(r, 3),), "works")


def _early_return_helper(v):
    if jnp.sum(v) > 0:
        return v * 2.0
    return v * -3.0


def helper_with_branches_in_loop(x):
    s = 0.0
    for i in range(4):
        s = s + jnp.sum(_early_return_helper(x - 0.4 * i))
    return s


case(helper_with_branches_in_loop, lambda r: (np.array([0.31, 0.22, 0.13]),), "works")


def _mutates_list(lst, v):
    lst.append(v * 2.0)
    return None


def helper_mutating_list(x):
    acc = [x]
    _mutates_list(acc, x)
    _mutates_list(acc, acc[-1])
    return jnp.sum(acc[0] * acc[1] * acc[2])


case(helper_mutating_list, lambda r: (vec(r, 3),), "either")


def _default_from_call(x, c=np.sqrt(2.0)):
    return x * c


def helper_with_computed_default(x):
    return jnp.sum(_default_from_call(x) ** 2)


case(helper_with_computed_default, lambda r: (vec(r, 3),), "works")


def _returns_nested(x):
    return (x, (x * 2.0, [x * 3.0]))


def helper_returning_nested(x):
    a, (b, [c]) = _returns_nested(x)
    return jnp.sum(a * b * c)


case(helper_returning_nested, lambda r: (vec(r, 3),), "works")


def _inner_fn_unused_result(a):
    _ = jnp.exp(a)
    return a * 3.0


def call_result_discarded(x):
    _inner_fn_unused_result(x)
    return jnp.sum(_inner_fn_unused_result(x))


case(call_result_discarded, lambda r: (vec(r, 3),), "works")


def builtin_map_over_helper(x):
    vals = list(map(_user_square, [x[0], x[1], x[2]]))
    return vals[0] * vals[1] + vals[2]


case(builtin_map_over_helper, lambda r: (vec(r, 3),), "works")


def sorted_with_key(x):
    items = [x[0], x[1], x[2]]
    ordered = sorted(items, key=lambda v: -v)
    return ordered[0] * 2.0 + ordered[2]


case(sorted_with_key, lambda r: (np.array([0.3, 0.9, -0.4]),), "either")


def _inner_returns_early_in_loop(v):
    for i in range(4):
        if i == 2:
            return v * (i + 1.0)
        v = jnp.sin(v)
    return v


def helper_with_return_in_loop_called_in_loop(x):
    s = 0.0
    for k in range(3):
        s = s + jnp.sum(_inner_returns_early_in_loop(x * (k + 1.0)))
    return s


case(helper_with_return_in_loop_called_in_loop, lambda r: (vec(r, 3),), "works")


def _swap(a, b):
    return b, a


def helper_swaps_in_loop(x):
    a, b = x[0], x[1]
    for i in range(3):
        a, b = _swap(a * 1.5, b)
    return a * 2.0 + b


case(helper_swaps_in_loop, lambda r: (vec(r, 2),), "works")


def _uses_same_arg_twice(a, b):
    a = a * b
    return a + b


def helper_same_array_twice_in_loop(x):
    y = x
    for i in range(3):
        y = _uses_same_arg_twice(y, y)
    return jnp.sum(y)


case(helper_same_array_twice_in_loop, lambda r: (vec(r, 3) * 0.5,), "works")


def _rebinds_parameter(v):
    v = v * 2.0
    v = jnp.sin(v)
    return v


def helper_rebinding_parameter_in_loop(x):
    s = x
    for i in range(3):
        s = _rebinds_parameter(s) + s
    return jnp.sum(s)


case(helper_rebinding_parameter_in_loop, lambda r: (vec(r, 3),), "works")


def _helper_with_default_traced(v, scale=None):
    if scale is None:
        scale = 2.0
    return v * scale


def helper_none_default(x):
    return jnp.sum(_helper_with_default_traced(x) + _helper_with_default_traced(x, x[0]))


case(helper_none_default, lambda r: (vec(r, 3),), "works")


def _recursive_list_sum(items):
    if len(items) == 0:
        return 0.0
    return items[0] + _recursive_list_sum(items[1:])


def recursion_over_list(x):
    return _recursive_list_sum([x[0], x[1] * x[0], x[2] ** 2])


case(recursion_over_list, lambda r: (vec(r, 3),), "works")


class Scaler:
    def __init__(self, k):
        self.k = k

    def __call__(self, v):
        return v * self.k

    @property
    def double(self):
        return self.k * 2.0


def callable_object_inside_loss(x):
    s = Scaler(3.0)
    return jnp.sum(s(x) ** 2) + s.double * x[0]


case(callable_object_inside_loss, lambda r: (vec(r, 3),), "works")


class Vec2:
    def __init__(self, a, b):
        self.a = a
        self.b = b

    def __add__(self, other):
        return Vec2(self.a + other.a, self.b + other.b)

    def norm2(self):
        return self.a * self.a + self.b * self.b


def operator_overloading_class(x):
    v = Vec2(x[0], x[1]) + Vec2(x[2], x[0] * x[1])
    return v.norm2()


case(operator_overloading_class, lambda r: (vec(r, 3),), "either")


class Model:
    def __init__(self, weights):
        self.weights = weights

    def loss(self, x):
        h = x
        for w in self.weights:
            h = jnp.tanh(w * h)
        return jnp.sum(h ** 2)


def method_with_loop_over_attribute(w0, w1, x):
    return Model([w0, w1]).loss(x)


case(method_with_loop_over_attribute, lambda r: (vec(r, 3), vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


class Counter:
    def __init__(self):
        self.n = 0

    def bump(self, v):
        self.n = self.n + 1
        return v * self.n


def method_mutating_self_in_loop(x):
    c = Counter()
    s = 0.0
    for i in range(3):
        s = s + jnp.sum(c.bump(x))
    return s * c.n


case(method_mutating_self_in_loop, lambda r: (vec(r, 3),), "either",
     note="the method changes self: re-running it in the reverse sweep changes n")


class Table:
    def __init__(self, rows):
        self.rows = rows

    def __getitem__(self, i):
        return self.rows[i] * 2.0

    def __len__(self):
        return len(self.rows)


def custom_getitem_container(x):
    t = Table([x[0], x[1], x[2]])
    s = 0.0
    for i in range(len(t)):
        s = s + t[i] * x[i]
    return s


case(custom_getitem_container, lambda r: (vec(r, 3),), "either")


def _compose(f, g):
    return lambda v: f(g(v))


def composed_functions(x):
    h = _compose(jnp.sin, _user_square)
    return jnp.sum(h(x))


case(composed_functions, lambda r: (vec(r, 3),), "works")


def _apply_n_times(f, v, n):
    for _ in range(n):
        v = f(v)
    return v


def higher_order_helper_in_loop(x):
    return jnp.sum(_apply_n_times(jnp.tanh, x * 2.0, 3))


case(higher_order_helper_in_loop, lambda r: (vec(r, 3),), "works")
