"""More calls: *args / keyword-only / **kwargs callees and `f(*seq)`, `f(**opts)` (bound per call site),
where a binding off by one name or position would give a wrong number."""
import functools

import astjax.numpy as jnp

from .case import case, vec


# --- *args callees bound per call site: two sites with different lengths, the tuple's items in order

def _weighted(*vals):
    s = 0.0
    for i, v in enumerate(vals):
        s = s + (i + 1.0) * jnp.sum(v * v)
    return s


def star_args_two_lengths(x, y):
    return _weighted(x, y) + _weighted(y, x, x * y)


case(star_args_two_lengths, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def _first_minus_last(first, *rest):
    return jnp.sum(first) - jnp.sum(rest[-1]) * len(rest)


def star_args_after_positional(x):
    return _first_minus_last(x * 2.0, jnp.sin(x), x ** 3)


case(star_args_after_positional, lambda r: (vec(r, 3),), "works")


def star_args_empty_tuple(x):
    return _first_minus_last(x, x) + _weighted()


case(star_args_empty_tuple, lambda r: (vec(r, 3),), "works")


def _divide(a, b):
    return jnp.sum(a / b)


def star_unpack_order(x):
    parts = (x + 2.0, x * x + 1.0)
    return _divide(*parts) + 2.0 * _divide(parts[1], *parts[:1])


case(star_unpack_order, lambda r: (vec(r, 3),), "works")


def star_unpack_list_then_mutated(x):
    parts = [x + 2.0, x * x + 1.0]
    parts.append(x)          # the list's length is not what its literal says: not expanded
    return jnp.sum(parts[0]) + _divide(*parts[:2])


case(star_unpack_list_then_mutated, lambda r: (vec(r, 3),), "either")


def star_unpack_rebound(x):
    parts = (x + 2.0, x * x + 1.0)
    if jnp.sum(x) > 0.0:
        parts = (x * x + 1.0, x + 2.0)      # assigned twice: not expanded (the order depends on data)
    return _divide(*parts)


case(star_unpack_rebound, lambda r: (vec(r, 3),), "either")


def _pass_on(*args):
    return _divide(*args)


def star_args_forwarded(x):
    return _pass_on(x + 3.0, x * x + 1.0)


case(star_args_forwarded, lambda r: (vec(r, 3),), "works")


# --- keyword-only parameters and keyword arguments out of order

def _affine(x, *, scale=2.0, shift=0.0, power=1.0):
    return (scale * x + shift) ** power


def keywords_out_of_order(x):
    return jnp.sum(_affine(x, power=2.0, shift=x[0], scale=x[1]))


case(keywords_out_of_order, lambda r: (vec(r, 3),), "works")


_SCALE = 3.0


def _late_default(x, *, scale=_SCALE):
    return scale * x


_SCALE = 5.0          # the default stays the 3.0 bound when _late_default was defined


def keyword_only_default_frozen(x):
    return jnp.sum(_late_default(x) ** 2)


case(keyword_only_default_frozen, lambda r: (vec(r, 3),), "works")


def _sub(a, b):
    return a - b


def keywords_swap_plain_callee(x, y):
    return jnp.sum(_sub(b=x * 2.0, a=y) ** 2)


case(keywords_swap_plain_callee, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def _pop_pair(a, *, b):
    return a * 10.0 + b


def keywords_with_effects_out_of_order(x):
    xs = [x[0], x[1], x[2]]
    return _pop_pair(b=xs.pop(), a=xs.pop())


case(keywords_with_effects_out_of_order, lambda r: (vec(r, 3),), "either")


# --- **kwargs callees and f(**opts)

def _kw_mix(x, **kw):
    return x * kw["a"] - kw["b"]


def kwargs_two_key_orders(x):
    return jnp.sum(_kw_mix(x, b=x[0], a=2.0) ** 2) + jnp.sum(_kw_mix(x, a=x[1], b=0.5))


case(kwargs_two_key_orders, lambda r: (vec(r, 3),), "works")


def double_star_dict_literal(x):
    opts = {"shift": x[2], "scale": 0.5}
    return jnp.sum(_affine(x, **opts) ** 2)


case(double_star_dict_literal, lambda r: (vec(r, 3),), "works")


def double_star_dict_changed(x):
    opts = {"shift": x[2], "scale": 0.5}
    opts["scale"] = x[0]                   # the dict changes after the literal: not expanded by its literal
    return jnp.sum(_affine(x, **opts) ** 2)


case(double_star_dict_changed, lambda r: (vec(r, 3),), "either")


def _forward_kwargs(x, **kw):
    return _affine(x, **kw)


def kwargs_forwarded(x):
    return jnp.sum(_forward_kwargs(x, shift=1.0, scale=x[0]))


case(kwargs_forwarded, lambda r: (vec(r, 3),), "works")


# --- decorators whose wrapper takes (*args, **kwargs)

def _shifted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + jnp.sum(args[-1] ** 2)
    return wrapper


@_shifted
def decorated_two_arguments(x, y):
    return jnp.sum(x * jnp.sin(y))


case(decorated_two_arguments, lambda r: (vec(r, 3), vec(r, 3)), "works", argnums=(0, 1))


def zip_star_three(x):
    rows = [(x[0], x[1], x[2]), (x[3], x[4], x[5])]
    a, b, c = zip(*rows)
    return a[0] * b[1] - c[0] * a[1] + c[1]


case(zip_star_three, lambda r: (vec(r, 6),), "works")


# --- local functions defined in loops and branches: Python's late binding decides what they read

def closure_reads_rebound_in_loop(x):
    s = 0.0
    for i in range(3):
        c = x[i]
        f = lambda v: v * c                  # noqa: E731  reads c when called: after the doubling
        c = c * 2.0
        s = s + f(x[0])
    return s


case(closure_reads_rebound_in_loop, lambda r: (vec(r, 3),), "works")


def default_captures_loop_variable(x):
    s = 0.0
    for i in range(3):
        f = lambda v, k=x[i]: v * k          # noqa: E731  k is x[i] of this iteration
        s = s + f(x[0]) + f(x[1], x[2])
    return s


case(default_captures_loop_variable, lambda r: (vec(r, 3),), "works")


def previous_iterations_lambda(x):
    f = lambda v: v                          # noqa: E731
    s = 0.0
    for i in range(3):
        s = s + f(x[i])                      # the lambda made one iteration earlier, with its default
        f = lambda v, k=x[i]: v * k          # noqa: E731
    return s + f(x[0])


case(previous_iterations_lambda, lambda r: (vec(r, 3),), "works")


def def_in_branch_reads_later_value(x):
    a = x[0]
    if x[1] > 0.0:
        def g(v):
            return v * a
    else:
        def g(v):
            return v - a
    a = x[2]                                 # g reads a when called: x[2]
    return g(x[1])


case(def_in_branch_reads_later_value, lambda r: (r.uniform(0.5, 1.0, 3),), "works")
case(def_in_branch_reads_later_value, lambda r: (-r.uniform(0.5, 1.0, 3),), "works",
     name="def_in_branch_reads_later_value_else")


def lambda_param_shadows_argument(x):
    s = 0.0
    for i in range(2):
        f = lambda x: x * x + i              # noqa: E731  its own x, the loop's i
        s = s + jnp.sum(f(x * 2.0))
    return s


case(lambda_param_shadows_argument, lambda r: (vec(r, 3),), "works")


def lambda_defined_in_loop_called_after(x):
    for i in range(3):
        f = lambda v: v * x[i]               # noqa: E731  may be unbound after a loop of no trips
    return f(x[0])


case(lambda_defined_in_loop_called_after, lambda r: (vec(r, 3),), "either")


def three_way_conditional_lambda(x):
    f = (lambda v: v * 2.0) if x[0] > 0.5 else ((lambda v: v * v) if x[0] > 0.0 else (lambda v: -v))  # noqa
    return f(x[1]) + f(x[2])


case(three_way_conditional_lambda, lambda r: (r.uniform(0.6, 1.0, 3),), "works")
case(three_way_conditional_lambda, lambda r: (r.uniform(0.1, 0.4, 3),), "works",
     name="three_way_conditional_lambda_middle")
case(three_way_conditional_lambda, lambda r: (-r.uniform(0.1, 0.4, 3),), "works",
     name="three_way_conditional_lambda_last")


def immediate_lambda_reads_rebound(x):
    a = x[0]
    b = (lambda t: t * a)(x[1])
    a = x[2]
    return b + (lambda t: t * a)(x[1])


case(immediate_lambda_reads_rebound, lambda r: (vec(r, 3),), "works")


def rebound_lambda_in_comprehension(x):
    f = lambda v: v + 1.0                    # noqa: E731
    if x[0] > 0.0:
        f = lambda v: v * 3.0                # noqa: E731
    return jnp.sum(jnp.stack([f(x[i]) for i in range(3)]))


case(rebound_lambda_in_comprehension, lambda r: (vec(r, 3),), "either")


# --- closures returned by factories: the factory's variables as they were when it returned

def _make_late(c):
    def f(v):
        return v * k
    k = c * 2.0             # assigned after f is made: f reads the final k
    k = k + 1.0
    return f


def factory_local_assigned_after_def(x):
    f = _make_late(x[0])
    return f(x[1]) + f(x[2])


case(factory_local_assigned_after_def, lambda r: (vec(r, 3),), "works")


def _make_scale(c):
    return lambda v: v * c


def factory_closure_from_previous_iteration(x):
    g = _make_scale(x[0])
    s = 0.0
    for i in range(3):
        s = s + g(x[i])                      # made one iteration earlier, with that iteration's argument
        g = _make_scale(x[i] + 1.0)
    return s + g(x[0])


case(factory_closure_from_previous_iteration, lambda r: (vec(r, 3),), "works")


def two_closures_one_factory(x):
    a = _make_scale(x[0])
    b = _make_scale(x[1])
    c = x[2]
    return a(c) - b(c) * 2.0


case(two_closures_one_factory, lambda r: (vec(r, 3),), "works")


def factory_argument_read_once(x):
    c = x[0]
    f = _make_scale(c)
    c = x[1]                                 # f keeps the c it was made with
    return f(x[2]) + c


case(factory_argument_read_once, lambda r: (vec(r, 3),), "works")


_OFFSET = 0.5


def _make_offset(c):
    return lambda v: v * c + _OFFSET


def factory_global_shadowed_in_caller(x):
    _OFFSET = x[0] * 10.0                    # the caller's own _OFFSET, not the factory's global
    f = _make_offset(x[1])
    return f(x[2]) + _OFFSET


case(factory_global_shadowed_in_caller, lambda r: (vec(r, 3),), "works")


def _make_power(p=3.0, *, q=1.0):
    def power(v):
        return v ** p * q
    return power


def factory_with_defaults(x):
    f = _make_power()
    g = _make_power(2.0, q=x[0])
    return jnp.sum(f(x) + g(x))


case(factory_with_defaults, lambda r: (r.uniform(0.5, 1.5, 3),), "works")


def _apply_to(f, v):
    return f(v) * 2.0


def factory_closure_passed_on(x):
    f = _make_scale(x[0])
    return jnp.sum(_apply_to(f, x))


case(factory_closure_passed_on, lambda r: (vec(r, 3),), "either")


# --- objects of user classes made in the function (dicts of their attributes)

class _Layer:
    def __init__(self, w, b, scale=2.0):
        self.w = w
        self.b = b
        self.wb = self.w * self.b + scale      # reads an attribute set above

    def forward(self, h, gain=1.0):
        return jnp.tanh(self.w * h + self.b) * gain + self.wb

    def twice(self, h):
        return self.forward(self.forward(h), gain=0.5)

    @property
    def norm(self):
        return self.w * self.w + self.b * self.b


def objects_in_list_two_loops(x):
    layers = [_Layer(x[0], 0.1), _Layer(1.5, x[1], scale=x[2])]
    h = x
    for layer in layers:
        h = layer.forward(h)
    s = 0.0
    for other in layers:
        s = s + other.norm * jnp.sum(other.twice(h))
    return s


case(objects_in_list_two_loops, lambda r: (vec(r, 3),), "works")


def object_method_inside_lambda(x):
    layer = _Layer(x[0], x[1])
    f = lambda v: layer.forward(v) * layer.wb      # noqa: E731
    return jnp.sum(f(x))


case(object_method_inside_lambda, lambda r: (vec(r, 3),), "works")


def _uses_layer(layer, h):
    return layer.forward(h)


def object_passed_to_helper(x):
    layer = _Layer(x[0], 0.2)
    return jnp.sum(_uses_layer(layer, x))


case(object_passed_to_helper, lambda r: (vec(r, 3),), "either")


class _Counter:
    def __init__(self, k):
        self.k = k

    def bump(self, v):
        self.k = self.k + 1.0      # changes the object: not a dict of fixed attributes
        return v * self.k


def method_changing_the_object(x):
    c = _Counter(x[0])
    a = c.bump(x[1])
    return a + c.bump(x[2])


case(method_changing_the_object, lambda r: (vec(r, 3),), "either")


class _Scaled:
    factor = 3.0                    # a class attribute read through self

    def __init__(self, w):
        self.w = w

    def apply(self, v):
        return v * self.w * self.factor


def class_attribute_through_self(x):
    return jnp.sum(_Scaled(x[0]).apply(x))


case(class_attribute_through_self, lambda r: (vec(r, 3),), "either")


class _Other:
    def __init__(self, w):
        self.w = w

    def forward(self, h, gain=1.0):
        return h * self.w - gain


def two_classes_in_one_list(x):
    layers = [_Layer(x[0], 0.1), _Other(x[1])]
    h = x
    for layer in layers:
        h = layer.forward(h)
    return jnp.sum(h)


case(two_classes_in_one_list, lambda r: (vec(r, 3),), "either")


def object_alias_then_method(x):
    a = _Layer(x[0], x[1])
    b = a                            # an alias: left as an object
    return jnp.sum(b.forward(x)) + a.norm


case(object_alias_then_method, lambda r: (vec(r, 3),), "either")


class _Stack:
    def __init__(self, weights):
        self.weights = weights

    def loss(self, x):
        h = x
        for w in self.weights:
            h = jnp.tanh(w * h)
        return jnp.sum(h ** 2)


def object_list_attribute_grown_by_caller(w0, w1, x):
    m = _Stack([w0, w1])
    m.weights.append(w0 * 0.5)       # the list the object holds grows: loss sees three weights
    return m.loss(x)


case(object_list_attribute_grown_by_caller, lambda r: (vec(r, 3), vec(r, 3), vec(r, 3)), "either",
     argnums=(0, 1))


def _fold(*xs):
    if len(xs) == 1:
        return xs[0]
    return xs[0] * 0.5 + _fold(*xs[1:])


def star_args_recursion_shrinking(x):
    return jnp.sum(_fold(x, jnp.sin(x), x * x))


case(star_args_recursion_shrinking, lambda r: (vec(r, 3),), "either")


def nested_list_append_through_subscript(w0, w1, x):
    m = [[w0, w1]]
    m[0].append(w0 * 0.5)            # was a silently wrong gradient: the appended item got no derivative
    h = x
    for w in m[0]:
        h = jnp.tanh(w * h)
    return jnp.sum(h ** 2)


case(nested_list_append_through_subscript, lambda r: (vec(r, 3), vec(r, 3), vec(r, 3)), "either",
     argnums=(0, 1))


def _grow(*xs):
    if len(xs) > 3:
        return jnp.sum(xs[0] * xs[-1])
    return _grow(*xs, xs[0] * 2.0)


def star_args_recursion_growing(x):
    return _grow(x)


case(star_args_recursion_growing, lambda r: (vec(r, 3),), "either")


class _Holder:
    def __init__(self, w):
        self.w = w

    def dot(self, h):
        return jnp.sum(h * self.w)


def object_attribute_written_in_place(x):
    holder = _Holder(x * 1.0)
    holder.w[0] = x[1] * 3.0             # writes into the array the object holds
    return holder.dot(x)


case(object_attribute_written_in_place, lambda r: (vec(r, 3),), "works")


def object_argument_changed_after_construction(x):
    w = x * 1.0
    holder = _Holder(w)
    w[0] = 100.0                         # the object holds this same array: it sees the change
    return holder.dot(x)


case(object_argument_changed_after_construction, lambda r: (vec(r, 3),), "either")
