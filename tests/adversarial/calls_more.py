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
