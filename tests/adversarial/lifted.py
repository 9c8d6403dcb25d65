"""Refusals lifted (tests/test_refusals_lifted.py), attacked: for each construct that now works, programs
written to catch the rewrite out -- keys that read the traced value or a variable rebound after the key
was made, ties (stable order, first extremum), aliases of a list sorted in place, chained targets that
share one object, a finally block writing into the returned array, spread arguments with defaults,
iterators whose source changes while they are consumed, `nonlocal` names bound to shared objects.
Each must give the right numbers or a clear refusal."""
import itertools
import operator

import numpy as np

from .case import case, vec


def v3(r):
    return (vec(r, 3),)


def v4(r):
    return (vec(r, 4),)


# ---------------------------------------------------------------- keyed sorts and extrema
def sort_key_reads_rebound_variable(x):
    c = 1.0
    key = lambda v: v * c  # noqa: E731
    c = -1.0                                   # late binding: the key sorts by -v
    s = sorted(x, key=key)
    return s[0] * 3.0 + s[-1]


case(sort_key_reads_rebound_variable, v4, "works")


def sort_ties_stable_reverse(x):
    items = [(x[0], 1), (x[1], 0), (x[2], 1), (x[3], 0)]
    ordered = sorted(items, key=lambda t: t[1], reverse=True)   # ties keep their order, reversed or not
    return ordered[0][0] * 5.0 + ordered[1][0] * 3.0 + ordered[2][0]


case(sort_ties_stable_reverse, v4, "works")


def max_key_tie_keeps_first(x):
    return max([x[0], -x[0], x[1] * 0.0], key=abs) * 2.0 + min([-x[2], x[2]], key=abs)


case(max_key_tie_keeps_first, v3, "works")


def sort_in_place_through_alias(x):
    items = [x[0], x[1], x[2]]
    alias = items
    items.sort(key=lambda v: -v)
    return alias[0] * 2.0 + items[2]


case(sort_in_place_through_alias, v3, "either")


def sort_key_of_dict_by_value(x):
    d = {"a": x[0], "b": x[1], "c": x[2]}
    names = sorted(d, key=lambda k: d[k])
    return d[names[0]] * 2.0 + d[names[-1]]


case(sort_key_of_dict_by_value, v3, "either")


def sort_in_loop_key_from_loop(x):
    s = 0.0
    for sign in (1.0, -1.0):
        ordered = sorted(x, key=lambda v: sign * v)
        s = s + ordered[0] * sign + ordered[1]
    return s


case(sort_in_loop_key_from_loop, v4, "works")


# ---------------------------------------------------------------- chained assignment
def chained_names_share_one_array(x):
    a = b = np.zeros(3)
    a[0] = x[0]                                # b is the same array: it sees the write
    return np.sum(b * x) + a[0]


case(chained_names_share_one_array, v3, "either")


def chained_target_rebinds_value_name(x):
    t = (x[1], x[0])
    a, b = t = (t[1] * 2.0, t[0])              # t is bound after a, b: to the same new tuple
    return a * t[0] + b * 3.0


case(chained_target_rebinds_value_name, v3, "works")


# ---------------------------------------------------------------- try/finally
def finally_writes_into_returned_array(x):
    s = np.zeros(2)
    try:
        s[0] = x[0] * 2.0
        return s
    finally:
        s[1] = x[1]                            # the returned object is s: it holds this write too


case(finally_writes_into_returned_array, v3, "either", mode="jac")


def finally_in_loop_with_break(x):
    s = 0.0
    for v in x:
        try:
            if v > 0.5:
                break
            s = s + v * v
        finally:
            s = s * 1.5
    return s


case(finally_in_loop_with_break, lambda r: (np.array([0.2, 0.9, -0.3]),), "either")


# ---------------------------------------------------------------- f(*x[a:b])
def _with_default(a, b, c=2.0):
    return a * b + c * a


def star_slice_into_defaults(x):
    return _with_default(*x[:2]) + _with_default(*x[1:])


case(star_slice_into_defaults, v3, "either")


def _three(a, b, c):
    return a * 2.0 + b * c


def star_slice_of_local_list(x):
    xs = [x[2], x[1] * 3.0, x[0], x[1]]
    return _three(*xs[1:4]) + _three(x[0], *xs[:2])


case(star_slice_of_local_list, v3, "works")


# ---------------------------------------------------------------- reversed / enumerate(start=) / itertools
def reversed_source_rebound_in_loop(x):
    s = 0.0
    for v in reversed(x):
        s = s * 0.5 + v
        x = x * 2.0                            # Python iterates the original array
    return s + np.sum(x)


case(reversed_source_rebound_in_loop, v4, "works")


def reversed_list_appended_in_loop(x):
    xs = [x[0], x[1]]
    s = 0.0
    for v in reversed(xs):
        xs.append(v * 2.0)                     # the reversed iterator does not see the appends
        s = s + v * len(xs)
    return s + xs[-1]


case(reversed_list_appended_in_loop, v3, "either")


def enumerate_start_from_length(x):
    return sum(v * i for i, v in enumerate(x[1:], len(x))) + sum(i * v * v for i, v in enumerate(x, start=-2))


case(enumerate_start_from_length, v4, "works")


def accumulate_lambda_late_binding(x):
    c = 2.0
    step = lambda a, b: a * c + b  # noqa: E731
    c = 0.5
    return sum(itertools.accumulate(x, step)) + max(itertools.accumulate(x * x))


case(accumulate_lambda_late_binding, v4, "works")


def accumulate_consumed_twice(x):
    running = itertools.accumulate(x)
    first = sum(running)
    second = sum(running)                      # exhausted: 0
    return first * 2.0 + second


case(accumulate_consumed_twice, v3, "either")


def pairwise_of_list_and_starmap_lambda(x):
    xs = [x[0] * 2.0, x[1], x[2] - x[0]]
    return (sum(a / (1.0 + b * b) for a, b in itertools.pairwise(xs))
            + sum(itertools.starmap(operator.sub, zip(xs, reversed(xs)))))


case(pairwise_of_list_and_starmap_lambda, v3, "works")


def zip_star_ragged_rows(x):
    rows = [[x[0], x[1], x[2]], [x[3], x[0]]]              # zip stops at the shortest row
    return sum(a * b * (k + 1.0) for k, (a, b) in enumerate(zip(*rows)))


case(zip_star_ragged_rows, v4, "works")


def zip_star_of_vector_refused(x):
    return sum(a for a, in zip(*x))            # the numbers of a 1-D array are not iterables


case(zip_star_of_vector_refused, v3, "refuse", errors=(TypeError,), error_match="iter")


# ---------------------------------------------------------------- nonlocal
def nonlocal_rebound_to_parameter(x):
    acc = np.zeros(3)

    def point():
        nonlocal acc
        acc = x                                # acc now IS x: the in-place add below writes into x

    point()
    acc += 1.0
    return np.sum(acc * x)


case(nonlocal_rebound_to_parameter, v3, "either")


def nonlocal_counter_sets_loop_bound(x):
    n = 2

    def grow():
        nonlocal n
        n = n + 1

    s = 0.0
    for i in range(n):                          # range(n) is evaluated once, before grow runs
        grow()
        s = s + x[i] * x[i] * n
    return s + n * x[0]


case(nonlocal_counter_sets_loop_bound, v4, "works")


def nonlocal_in_place_add_refused(x):
    acc = np.zeros(3)
    snapshot = acc

    def add(v):
        nonlocal acc
        acc += v                                # in place: snapshot sees it

    add(x)
    return np.sum(snapshot * x)


case(nonlocal_in_place_add_refused, v3, "either")


# ---------------------------------------------------------------- lambdas with defaults (early binding)
def lambda_default_from_traced_rebound(x):
    k = x[0]
    f = lambda v, k=k: v * k  # noqa: E731
    k = x[1]
    return f(x[2]) + f(x[2], k) * 2.0 + k


case(lambda_default_from_traced_rebound, v3, "works")


def lambda_default_made_in_loop(x):
    s = 0.0
    for i in range(3):
        f = lambda v, i=i: v * (i + 1.0)  # noqa: E731
        s = s + f(x[i]) * x[0]
    return s


case(lambda_default_made_in_loop, v3, "works")


# ---------------------------------------------------------------- sorted(d.items())
def sorted_items_integer_keys(x):
    d = {2: x[0], 0: x[1] * 3.0, 1: x[2]}
    return sum(k * v + v * v for k, v in sorted(d.items())) + sorted(d.items())[0][1]


case(sorted_items_integer_keys, v3, "works")


def sorted_items_updated_in_loop(x):
    d = {"b": x[0], "a": x[1]}
    s = 0.0
    for k, v in sorted(d.items()):
        d[k] = v * 2.0                          # the items were listed before the loop
        s = s + d[k] * v
    return s + d["a"]


case(sorted_items_updated_in_loop, v3, "works")


# ---------------------------------------------------------------- user generators consumed whole
def _running_total(v, scale=1.0):
    total = 0.0
    for e in v:
        total = total + e * scale
        yield total


def generator_object_consumed_twice(x):
    g = _running_total(x)
    first = sum(g)
    second = sum(g)                            # exhausted: 0.0
    return first * 2.0 + second


case(generator_object_consumed_twice, v3, "either")


def _endless(v):
    k = 0
    while True:
        yield v[k % len(v)] * (k + 1.0)
        k = k + 1


def endless_generator_with_break(x):
    s = 0.0
    for t in _endless(x):                      # must not run the generator to its (missing) end
        s = s + t
        if s > 2.0 or abs(t) > 3.0:
            break
    return s


case(endless_generator_with_break, lambda r: (np.array([0.5, 0.8, 0.3]),), "either")


def generator_reads_what_the_loop_writes(x):
    y = x.copy()
    alias = y
    s = 0.0
    for t in _running_total(y):                # the lazy generator sees alias[k] written before it reads it
        alias[1] = t * 2.0
        s = s + t
    return s


case(generator_reads_what_the_loop_writes, v3, "either")


def _delegating(v):
    yield from v[::-1]                         # not a generator: its items
    yield from _running_total(v, 0.5)
    yield v[0] * v[1]


def generator_yield_from_sequence_and_default(x):
    return sum(t * t for t in _delegating(x)) + max(_delegating(x * 2.0)) + len(list(_delegating(x)))


case(generator_yield_from_sequence_and_default, v3, "works")


def _stops_early(v):
    for e in v:
        if e > 0.5:
            return
        yield e * e


def generator_with_return_refused_or_right(x):
    return sum(_stops_early(x)) + x[0]


case(generator_with_return_refused_or_right, lambda r: (np.array([0.2, 0.9, -0.3]),), "either")


# ---------------------------------------------------------------- closure factories: tuples and calls in place
def _power_of(k):
    def g(v):
        return v ** k
    return g


def _scaler(c):
    return lambda v: v * c


def factory_tuple_reads_its_own_target(x):
    k = 2
    f, k = _power_of(k), 3                     # f squares: k was 2 when the factory ran
    return np.sum(f(x)) * k


case(factory_tuple_reads_its_own_target, v3, "either")


def factory_in_place_over_traced_closure(x):
    return np.sum(_scaler(x[0])(x)) + _scaler(x[1] * 2.0)(x[2]) * _power_of(3)(x[0])


case(factory_in_place_over_traced_closure, v3, "works")


def factory_in_place_inside_comprehension(x):
    return sum(_power_of(i)(v) for i, v in enumerate(x))


case(factory_in_place_inside_comprehension, v3, "either")


def factory_rebinding_swaps_functions(x):
    f, g = _scaler(2.0), _power_of(2)
    f, g = g, f                                 # a swap of the two made functions
    return np.sum(f(x)) + np.sum(g(x))


case(factory_rebinding_swaps_functions, v3, "either")


# ---------------------------------------------------------------- list.reverse() / list.sort() in place, unpacked items
def reverse_after_lazy_zip(x):
    xs = [x[0], x[1], x[2]]
    pairs = zip(xs, [1.0, 2.0, 3.0])          # a lazy iterator holding the list object
    xs.reverse()                               # it sees the reversed list
    return sum(a * w for a, w in pairs)


case(reverse_after_lazy_zip, v3, "either")


def reverse_twice_and_sort(x):
    xs = [x[2], x[0] * 2.0, x[1]]
    xs.reverse()
    xs.sort()
    xs.reverse()
    return xs[0] * 3.0 + xs[1] * 2.0 + xs[2]


case(reverse_twice_and_sort, v3, "works")


def unpacked_rows_updated_in_place(x):
    M = x.reshape(2, 2).copy()
    a, b = M[0], M[1]                          # rows: `a += b` writes into M
    a += b
    return np.sum(M * M) + np.sum(a)


case(unpacked_rows_updated_in_place, v4, "either")


def unpacked_same_item_twice(x):
    a, b = x[0], x[0]                          # numbers: `a += b` leaves b alone
    a += b * 2.0
    b *= a
    return a * 3.0 + b


case(unpacked_same_item_twice, v3, "works")


# ---------------------------------------------------------------- walrus in comprehensions
def walrus_target_read_before_in_statement(x):
    y = 10.0
    s = y + sum([(y := v * 2.0) for v in x])    # the first `y` is 10.0, read before the comprehension runs
    return s * y


case(walrus_target_read_before_in_statement, v3, "either")


def walrus_in_short_circuit_any(x):
    last = 0.0
    if any((last := v) > 0.0 for v in x):       # stops at the first positive: last is that one
        return last * 2.0 + x[0]
    return last


case(walrus_in_short_circuit_any, lambda r: (np.array([-0.3, 0.6, 0.9]),), "either")


def walrus_nested_filter_last_value(x):
    pairs = [(a, b) for a in x for b in x if (m := a * b) > 0.0]   # m: the last product, kept or not
    return sum(a + b * 2.0 for a, b in pairs) + m * 3.0


case(walrus_nested_filter_last_value, lambda r: (np.array([0.4, -0.7, 0.5]),), "works")


# ---------------------------------------------------------------- lists of closures of one definition
def closures_in_loop_variable_rebound_between_calls(x):
    fs = []
    for i in range(3):
        def g(v, w=i):
            return v * i + w * x[1]
        fs.append(g)
    s1 = sum(f(x[0]) for f in fs)               # i is 2 here
    i = 5.0
    s2 = sum(f(x[2]) for f in fs[1:])           # and 5.0 here; each w is the i of its own iteration
    return s1 * 2.0 + s2


case(closures_in_loop_variable_rebound_between_calls, v3, "works")


def comprehension_lambdas_shadow_outer_name(x):
    k = 100.0
    fs = [lambda v: v * k for k in range(3)]    # the comprehension's k (last: 2), not the function's
    return sum(f(x[0]) for f in fs) + k * x[1] + len(fs) * x[2]


case(comprehension_lambdas_shadow_outer_name, v3, "works")


def closure_list_item_called_directly(x):
    fs = [lambda v, k=k: v ** k for k in range(1, 4)]
    return fs[2](x[0]) + fs[0](x[1])


case(closure_list_item_called_directly, v3, "either")


def closure_list_extended_by_other_function(x):
    fs = [lambda v, k=k: v * k for k in range(2)]
    fs.append(lambda v: v * v)
    return sum(f(x[0]) for f in fs)


case(closure_list_extended_by_other_function, v3, "either")


def closure_list_default_overridden_at_call(x):
    fs = [lambda v, k=k: v * (k + 1.0) for k in range(3)]
    return sum(f(x[0], x[1]) for f in fs) + sum(f(x[2]) for f in fs)


case(closure_list_default_overridden_at_call, v3, "works")


# ---------------------------------------------------------------- found while attacking: a loop variable read by a
# local function after the loop and rebound later (main gave [10, 0, 5], truth [4, 0, 5]: the loop variable was not
# taped because its only reads after the loop were inside the lambda, inlined after the loop pass looked)
def lambda_reads_loop_variable_rebound_later(x):
    fs = []
    for i in range(3):
        fs.append(i)
    g = lambda v: v * i  # noqa: E731
    s1 = g(x[0])
    i = 5.0
    s2 = g(x[2])
    return s1 * 2.0 + s2


case(lambda_reads_loop_variable_rebound_later, v3, "works")


def lambda_reads_dead_loop_variable(x):
    for i in range(3):
        x = x * 1.0
    g = lambda v: v * i  # noqa: E731
    s1 = sum(g(x[0]) for f in [1, 2, 3])
    i = 5.0
    return s1 * 2.0 + sum(g(x[2]) for f in [1, 2])


case(lambda_reads_dead_loop_variable, v3, "works")


# ---------------------------------------------------------------- local closure factories
def local_factory_reads_enclosing_at_two_times(x):
    c = 2.0

    def make(s):
        t = s * c                               # c when make runs: 2.0

        def h(v):
            return v * t + c * v                # c when h runs: 3.0
        return h

    h = make(x[0])
    c = 3.0
    return h(x[1]) + h(x[2]) * 0.5


case(local_factory_reads_enclosing_at_two_times, v3, "works")


def local_factory_parameter_shadows_argument(x):
    def make(x):
        return lambda v: v * x                  # the factory's x, not the function's
    double = make(2.0)
    scale = make(x[1])
    return double(x[0]) + scale(x[2])


case(local_factory_parameter_shadows_argument, v3, "works")


def local_factory_results_in_a_list(x):
    def make(k):
        return lambda v: v ** k
    fs = [make(1.0), make(2.0)]
    return sum(f(x[0]) for f in fs)


case(local_factory_results_in_a_list, v3, "either")


def local_factory_mutates_its_argument(x):
    def make(buf):
        buf[0] = 1.0                            # writes into the caller's array

        def h(v):
            return v * buf[0]
        return h

    y = x.copy()
    h = make(y)
    return h(x[1]) + y[0] * x[2]


case(local_factory_mutates_its_argument, v3, "either")


def local_factory_of_factories(x):
    def outer(a):
        def middle(b):
            return lambda c: a * b + c
        return middle
    m = outer(x[0])
    return m(x[1])(x[2]) * x[0] + m(2.0)(x[1])


case(local_factory_of_factories, v3, "either")


# ---------------------------------------------------------------- more keyed orders: rows, tuple keys, views
def sorted_rows_then_write_into_a_row(x):
    M = x.reshape(2, 2).copy()
    rows = sorted(M, key=lambda r: r[1])      # the rows are views of M: writing one writes M
    rows[0][0] = 5.0
    return np.sum(M * M) + rows[1][1]


case(sorted_rows_then_write_into_a_row, v4, "either")


def sorted_by_tuple_key(x):
    items = [(x[0], 1), (x[1], 0), (x[2], 1)]
    ordered = sorted(items, key=lambda t: (t[1], -t[0]))
    return ordered[0][0] * 4.0 + ordered[1][0] * 2.0 + ordered[2][0]


case(sorted_by_tuple_key, v3, "works")


def min_of_pairs_by_key_returns_pair(x):
    pairs = [(x[0], x[1]), (x[1], x[2]), (x[2], x[0])]
    a, b = min(pairs, key=lambda p: p[0] * p[1])
    return a * 3.0 + b


case(min_of_pairs_by_key_returns_pair, v3, "works")


def sorted_rows_of_matrix_by_norm(x):
    M = x.reshape(3, 2)
    rows = sorted(M, key=lambda r: np.sum(r * r), reverse=True)
    return np.sum(rows[0] * np.array([1.0, 2.0])) + np.sum(rows[2])


case(sorted_rows_of_matrix_by_norm, lambda r: (vec(r, 6),), "works")


def max_of_dict_by_get_and_keys_sorted(x):
    d = {"a": x[0], "b": x[1] * 2.0, "c": x[2] - 0.5}
    best = max(d, key=d.get)
    order = sorted(d.keys(), key=lambda k: -d[k])
    return d[best] * 3.0 + d[order[-1]] + d[order[1]] * 0.5


case(max_of_dict_by_get_and_keys_sorted, v3, "works")


def sorted_dict_parameter_by_value(params):
    names = sorted(params, key=lambda k: params[k] * params[k])   # params: a dict argument
    return params[names[0]] * 2.0 + params[names[-1]]


case(sorted_dict_parameter_by_value, lambda r: ({"u": np.float64(r.uniform(-1, 1)), "w": np.float64(r.uniform(-1, 1))},),
     "either")


def _signed_steps(v, gain=2.0):
    for k in range(len(v)):
        if v[k] > 0.0:
            yield v[k] * gain
        else:
            yield from (v[k] * w for w in (1.0, -3.0))


def generator_branches_and_default_gain(x):
    steps = list(_signed_steps(x))
    total = 0.0
    for s in _signed_steps(x * x, 0.5):
        total = total + s * s
    return sum(steps) + total + len(steps) * x[0]


case(generator_branches_and_default_gain, lambda r: (np.array([0.4, -0.6, 0.9]),), "works")
