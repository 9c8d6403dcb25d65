"""Programs whose reverse sweep needs exactly what the primal saw (see test_reverse_sweep.py).

Loops: bounds set by outer loops, counts of loops that break or are `while` loops
nested in other loops, loop variables rebound in the body or read after the loop,
sequences rebound while iterated, returns from inside nested loops. Calls: a call
that overwrites its own argument, tuples built at a call. Carried values whose shape
changes from one iteration to the next (an MLP with layers 8-6-5-3).
"""
import numpy as np

import astjax.numpy as jnp


def inner_bound_from_outer(x):
    s = 0.0
    for i in range(4):
        for j in range(4 - i):
            s = s + x[j] * x[i]
    return s


def pairwise_upper_triangle(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            s = s + (x[i] - x[j]) ** 2 * x[j]
    return s


def inner_bound_may_be_empty(x):
    s = 0.0
    for i in range(4):
        for j in range(i - 1):
            s = s + x[j] * x[i]
    return s


def bound_from_data(x, counts):
    s = 0.0
    for i in range(3):
        for j in range(int(counts[i])):
            s = s + jnp.sin(x[j] * x[i])
    return s


def negative_step_inner(x):
    s = 0.0
    for i in range(1, 5):
        for j in range(i, 0, -2):
            s = s + x[j] * x[i - 1]
    return s


def loop_variable_rebound(x):
    s = 0.0
    for i in range(3):
        i = i * 2
        s = s + x[i] ** 2
    return s


def loop_variable_read_after(x):
    s = 0.0
    for k in range(2):
        for j in range(3):
            s = s + x[j] * x[k]
        s = s * x[j]
    return s


def iterated_name_rebound(x):
    s = 0.0
    for v in x:
        s = s + v * x[0]
        x = x * 2
    return s


def while_inside_for(x):
    s = 0.0
    for i in range(3):
        k = 0
        while k < i + 1:
            s = s + x[k] * x[i]
            k = k + 1
    return s


def break_inside_for(x):
    s = 0.0
    for i in range(4):
        for j in range(4):
            if j > i:
                break
            s = s + x[j] * x[i]
    return s


def break_in_backwards_loop(x):
    s = 1.0
    for i in reversed(range(5)):
        if i < 2:
            break
        s = s * x[i] + x[0]
    return s


def continue_in_nested_while(x):
    s = 0.0
    i = 0
    while i < 4:
        i = i + 1
        j = 0
        while j < i:
            j = j + 1
            if j == 2:
                continue
            s = s + x[j - 1] * x[i - 1]
    return s


def _inner_fn(a, b):
    return a * b + jnp.sin(a)


def call_overwrites_its_argument(x):
    a = x
    for i in range(3):
        a = _inner_fn(a, a)
    return jnp.sum(a)


def return_from_nested_loops(x):
    for i in range(3):
        for j in range(3):
            if x[i] * x[j] > 2.5:
                return x[i] * x[j]
    return jnp.sum(x)


def return_in_loop_in_branch(x):
    if x[0] > 0:
        for i in range(3):
            if x[i] > 1.5:
                return x[i] ** 2
        y = x[0] * 3
    else:
        y = x[1]
    return y * x[2]


def return_in_while_in_for(x):
    total = 0.0
    for i in range(3):
        k = 0
        while k < 3:
            total = total + x[k] * x[i]
            if total > 9.0:
                return total * x[3]
            k = k + 1
    return total


def shrinking_carry(x):
    h = x
    for k in range(3):
        h = jnp.tanh(h[:4 - k] * 2.0)
    return jnp.sum(h)


def triangular_while(x):
    s = 0.0
    i = 0
    while i < 4:
        j = i
        while j < 4:
            s = s + x[i] * jnp.cos(x[j])
            j = j + 1
        i = i + 1
    return s


def _sum_of_pair(pair):
    a, b = pair
    return jnp.sum(a * b)


def tuple_built_at_call(x):
    h = x * 2.0
    return _sum_of_pair((x, h))


_rng = np.random.default_rng(0)
_LAYERS = [(_rng.normal(size=(8, 6)), _rng.normal(size=6)), (_rng.normal(size=(6, 5)), _rng.normal(size=5)),
           (_rng.normal(size=(5, 3)), _rng.normal(size=3))]


def layers_of_changing_width(x):
    h = x
    for W, b in _LAYERS:
        h = jnp.tanh(h @ W + b)
    return jnp.sum(h)


def enumerate_with_tuple_target(x):
    h = x
    for i, (W, b) in enumerate(_LAYERS):
        h = jnp.tanh(h @ W + b * i)
    return jnp.sum(h ** 2)


def _noisy(x):
    return x * np.random.randn(x.shape[0])


def _indirectly_noisy(x):
    return _noisy(x) + 1.0


def callee_draws_random_numbers(x):
    return jnp.sum(_indirectly_noisy(x) ** 2)


def iterate_array_copy_while_changing_it(x):
    y = x * 1.0
    s = 0.0
    for v in y.copy():
        y[1] = 5.0
        s = s + v * x[0]
    return s + y[1] * x[2]


def append_to_another_list_while_iterating(x):
    xs = [x[0], x[1]]
    ys = []
    s = 0.0
    for v in xs:
        ys.append(v * 2.0)
        s = s + v
    return s + ys[1]


def iterate_array_while_changing_it(x):
    y = x * 1.0
    s = 0.0
    for v in y:
        y[1] = 5.0
        s = s + v * x[0]
    return s


def iterate_list_while_appending(x):
    xs = [x[0], x[1]]
    s = 0.0
    for v in xs:
        if len(xs) < 4:
            xs.append(v * 2.0)
        s = s + v
    return s


_CALLS = []


def _count_and_scale(v):
    _CALLS.append(1)
    return v * float(len(_CALLS) % 2 + 1)


def callee_changes_a_global_list(x):
    _CALLS.clear()
    return jnp.sum(_count_and_scale(x) * x)


_STATE = {"w": 1.0}


def _stateful(v):
    _STATE["w"] = _STATE["w"] * 2.0
    return v * _STATE["w"]


def callee_assigns_into_a_global(x):
    return jnp.sum(_stateful(x) ** 2)


def _append_to(xs, v):
    xs.append(v * 2.0)
    return v


def callee_appends_to_its_argument(x):
    xs = [x[0]]
    y = _append_to(xs, x[1])
    return y * xs[-1]


def _fresh_list(v):
    out = []
    out.append(v * 2.0)
    out.append(v * 3.0)
    return out[0] * out[1]


def callee_builds_its_own_list(x):
    return _fresh_list(x[0]) + x[1]


def tuple_concatenation(x):
    t = (x[0], x[1]) + (x[2],)
    return t[0] * t[2] + t[1]


def list_repetition(x):
    xs = [x[0]] * 3
    return xs[0] * xs[1]


def decorated_local_function(x):
    def twice(fn):
        def inner(v):
            return fn(fn(v))
        return inner

    @twice
    def step(v):
        return jnp.sin(v)
    return jnp.sum(step(x))


def falls_off_the_end(x):
    if x[0] > 100.0:
        return jnp.sum(x)


def complex_output(x):
    return jnp.sum(x * 1j)
