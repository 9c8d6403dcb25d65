"""User names that may clash with names astjax generates (tape push/pop, range, len,
unbroadcast, adjoint names like bx/dx/_t1, the jnp/np aliases themselves)."""
import numpy as np

import astjax.numpy as jnp

from .case import case, vec, scalar


def push(stack, v):
    stack.append(v)
    return stack


def pop(stack):
    return stack.pop()


def user_push_pop(x):
    s = []
    for i in range(3):
        push(s, x[i] * 2.0)
    total = 0.0
    for i in range(3):
        total = total * 0.5 + pop(s)
    return total


case(user_push_pop, lambda r: (vec(r, 3),), "works")


def local_names_push_pop(x):
    push = x[0] * 2.0
    pop = x[1] + push
    tape = pop * push
    stack = tape + x[2]
    for i in range(3):
        stack = stack * x[i]
    return stack + tape


case(local_names_push_pop, lambda r: (vec(r, 3),), "works")


def local_len_shadow(x):
    len = x[0] * 3.0  # noqa: F841
    s = 0.0
    for i in [0, 1, 2]:
        s = s + x[i] * len
    return s


case(local_len_shadow, lambda r: (vec(r, 3),), "works")


def unbroadcast(a, shape):
    return a * 2.0


def user_unbroadcast(x, c):
    y = unbroadcast(x, c.shape) + c
    return jnp.sum(y ** 2)


case(user_unbroadcast, lambda r: (vec(r, 3), vec(r, 1)), "works", argnums=(0, 1))


def local_unbroadcast_name(x, c):
    unbroadcast = x + c
    return jnp.sum(unbroadcast ** 2)


case(local_unbroadcast_name, lambda r: (vec(r, 3), vec(r, 1)), "works", argnums=(0, 1))


class Tape:
    def __init__(self):
        self.items = []


def user_tape_class(x):
    t = Tape()
    s = 0.0
    for i in range(3):
        s = s + x[i] * len(t.items)
        t.items.append(i)
    return s + jnp.sum(x ** 2)


case(user_tape_class, lambda r: (vec(r, 3),), "either")


def zeros_like(a):
    return a * 0.0 + 1.0


def zero_like(a):
    return a * 3.0


def user_zeros_like_shadow(x):
    return jnp.sum(zeros_like(x) * x ** 2 + zero_like(x))


case(user_zeros_like_shadow, lambda r: (vec(r, 3),), "works")


def params_named_like_adjoints(x, bx, dx):
    return jnp.sum(x * bx + dx * x ** 2)


case(params_named_like_adjoints, lambda r: (vec(r, 3), vec(r, 3), vec(r, 3)), "works", argnums=(0, 1, 2))


def locals_named_like_adjoints(x):
    bx = x * 2.0
    dx = jnp.sin(bx)
    by = dx * x
    bout = jnp.sum(by)
    return bout * 2.0


case(locals_named_like_adjoints, lambda r: (vec(r, 3),), "works")


def locals_named_like_temporaries(x):
    _t1 = x * 2.0
    _t2 = _t1 * _t1
    _t0 = jnp.sin(_t2)
    _ret = jnp.sum(_t0 + _t1)
    return _ret


case(locals_named_like_temporaries, lambda r: (vec(r, 3),), "works")


def local_named_jnp(x):
    jnp_ = x * 2.0
    np_ = jnp_ + 1.0
    return np.sum(np_ * jnp_)


case(local_named_jnp, lambda r: (vec(r, 3),), "works")


def shadows_np_module_locally(x):
    import math as np  # noqa: F811
    return x[0] * np.pi + x[1] * np.e


case(shadows_np_module_locally, lambda r: (vec(r, 2),), "either")


def local_named_astjax_and_grad(x):
    astjax = x * 2.0
    grad = astjax * x
    return jnp.sum(grad)


case(local_named_astjax_and_grad, lambda r: (vec(r, 3),), "works")


def local_sum_shadow(x):
    sum = 0.0  # noqa: A001
    for v in x:
        sum = sum + v * v
    return sum


case(local_sum_shadow, lambda r: (vec(r, 3),), "works")


def local_max_min_shadow(x):
    max = x[0] * 2.0  # noqa: A001
    min = x[1] - max  # noqa: A001
    return max * min


case(local_max_min_shadow, lambda r: (vec(r, 2),), "works")


def names_primal_tangent_cotangent(x):
    primal = x * 2.0
    tangent = jnp.cos(primal)
    cotangent = tangent * primal
    adjoint = jnp.sum(cotangent)
    return adjoint


case(names_primal_tangent_cotangent, lambda r: (vec(r, 3),), "works")


def names_with_suffixes(x):
    x_adj = x * 2.0
    x_bar = x_adj + x
    x_dot = x_bar * x
    b_x = jnp.sum(x_dot)
    return b_x


case(names_with_suffixes, lambda r: (vec(r, 3),), "works")


def unicode_names(x):
    λ = 0.5
    θ = x * λ
    return jnp.sum(jnp.sin(θ) ** 2)


case(unicode_names, lambda r: (vec(r, 3),), "works")


def dunder_like_names(x):
    __tmp = x * 3.0
    _ = __tmp + 1.0
    return jnp.sum(_ * __tmp)


case(dunder_like_names, lambda r: (vec(r, 3),), "works")


def same_name_in_nested_loops(x):
    s = 0.0
    for i in range(3):
        for i in range(i + 1):  # noqa: B020 -- the inner loop rebinds the outer variable
            s = s + x[i]
        s = s * x[i]
    return s


case(same_name_in_nested_loops, lambda r: (vec(r, 3),), "works")


def name_out_and_args(x, *args):
    out = x * 2.0
    for a in args:
        out = out * a
    return jnp.sum(out)


case(name_out_and_args, lambda r: (vec(r, 3), vec(r, 3)), "works")


def name_self_in_function(x):
    self = x * 2.0
    cls = self + 1.0
    return jnp.sum(self * cls)


case(name_self_in_function, lambda r: (vec(r, 3),), "works")


jnp_is_numpy = np


def module_alias_named_differently(x):
    return jnp_is_numpy.sum(jnp_is_numpy.sin(x) ** 2)


case(module_alias_named_differently, lambda r: (vec(r, 3),), "works")


def _helper_named_like_rule(x):
    return x * 2.0


vjp = _helper_named_like_rule


def user_global_named_vjp(x):
    return jnp.sum(vjp(x) ** 2)


case(user_global_named_vjp, lambda r: (vec(r, 3),), "works")


def stack_named_list(x):
    stack = [x[0]]
    stack.append(x[1] * stack[-1])
    tape = [stack[-1] * 2.0]
    return stack[0] + tape[0]


case(stack_named_list, lambda r: (vec(r, 2),), "works")


def shadow_builtin_float_int(x):
    float = 2.0  # noqa: A001
    int = x[0] * float  # noqa: A001
    return int * x[1]


case(shadow_builtin_float_int, lambda r: (vec(r, 2),), "works")


def shadow_enumerate_zip(x):
    enumerate = 3  # noqa: A001
    zip = x * enumerate  # noqa: A001
    return jnp.sum(zip)


case(shadow_enumerate_zip, lambda r: (vec(r, 3),), "works")


def tangent_like_names(x):
    """User names shaped like generated tangents and temporaries (`d_t1`, `dd_t2`, `_t3_`), read once and
    twice, in and out of a loop: forward substitution may inline only what is read once."""
    d_t1 = jnp.sin(x[0]) * x[1]
    dd_t2 = d_t1 * x[2]
    _t3_ = dd_t2 + d_t1
    for i in range(2):
        d_t4 = _t3_ * x[i]
        _t3_ = _t3_ + d_t4
    return _t3_ * dd_t2


case(tangent_like_names, lambda r: (vec(r, 3),), "works")
