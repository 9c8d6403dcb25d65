"""Programs that attack jit where Numba's semantics differ from Python's and NumPy's.

Each function is checked by tests/test_jit_attacks.py: jit(f)(*args) must give what f(*args) gives
(under astjax's result policy: Python floats come back float32, Python ints int32, as in JAX), or
jit must refuse with an astjax error. `ATTACKS` lists (function, argument tuples, what is allowed);
the argument tuples run in order through one jitted function, so the later ones take the compiled path.
"""
import math

import numpy as np

import astjax.numpy as jnp

# ---- Python ints are unbounded; Numba's int64 wraps


def factorial(n):
    r = 1
    for i in range(1, n + 1):
        r = r * i
    return r


def power_mod(n):
    return (3 ** n) % 7


def big_constant(n):
    return (2 ** 70) // (2 ** 60) + n


def sum_of_squares_mod(n):
    s = 0
    for i in range(n):
        s = s + i * i * i * i * i
    return s % 1000


def shift_left(n):
    return (1 << n) % 1000


def negate_add(n):
    return (n + 9223372036854775807) % 10


# ---- floor division and modulo with negative operands


def floordiv_ints(a, b):
    return a // b


def mod_ints(a, b):
    return a % b


def floordiv_floats(a, b):
    return a // b


def mod_floats(a, b):
    return a % b


def mod_arrays(x, y):
    return x % y


def floordiv_arrays(x, y):
    return x // y


def divmod_ints(a, b):
    q, r = divmod(a, b)
    return q * 10 + r


# ---- powers and division


def int_negative_power(n):
    return n ** -2


def int_power_int(a, b):
    return a ** b


def float_power_float(a, b):
    return a ** b


def true_division_ints(a, b):
    return a / b


def float_division(a, b):
    return a / b


def int_division_by_zero(a, b):
    return a // b


def int_mod_by_zero(a, b):
    return a % b


def array_divide_by_zero(x):
    return x / 0.0


# ---- promotion


def float32_times_python_float(x):
    return x * 0.1


def float32_plus_big_python_float(x):
    return x + 1e20


def int32_plus_python_int(x):
    return x + 1


def int32_plus_big_python_int(x):
    return x + 3000000000


def int_array_true_divide(x):
    return x / 2


def float32_scalar_arithmetic(x):
    y = np.float32(x)
    return y * np.float32(3.0) + 1.5


def uint_minus(x):
    return x - 1


def int8_sum(x):
    return jnp.sum(x)


# ---- bools


def bool_plus_bool(a, b):
    return a + b


def bool_invert(a):
    return ~a


def bool_negate(a):
    return -a


def bool_array_sum(x):
    return jnp.sum(x > 0)


def bool_times_float(a, x):
    return a * x


# ---- rounding and conversion


def round_half(x):
    return round(x)


def round_digits(x):
    return round(x, 1)


def int_of_negative(x):
    return int(x)


def floor_ceil(x):
    return math.floor(x) * 10 + math.ceil(x)


def floor_is_int(x):
    return math.floor(x) // 2


def float_of_int(n):
    return float(n) / 3


def abs_int(n):
    return abs(n)


def abs_int64_array(x):
    return jnp.abs(x)


def trunc_math(x):
    return math.trunc(x)


# ---- NaN


def python_max_nan(a, b):
    return max(a, b)


def python_min_nan(a, b):
    return min(a, b)


def max_of_three(a, b, c):
    return max(a, b, c)


def compare_nan(a, b):
    if a < b:
        return 1.0
    if a >= b:
        return 2.0
    return 3.0


def nan_not_equal(a):
    return a != a


def jnp_max_nan(x):
    return jnp.max(x)


def jnp_maximum_nan(x, y):
    return jnp.maximum(x, y)


def sorted_list(a, b, c):
    s = sorted([a, b, c])
    return s[0] * 100 + s[1] * 10 + s[2]


# ---- ranges, indexing, slicing


def range_negative_step(n):
    s = 0
    for i in range(n, 0, -2):
        s = s + i
    return s


def range_step(n, step):
    s = 0
    for i in range(0, n, step):
        s = s + i
    return s


def negative_index(x):
    return x[-1] + x[-2]


def slice_past_end(x):
    return jnp.sum(x[2:100])


def slice_negative(x):
    return jnp.sum(x[-3:])


def slice_reversed(x):
    return x[::-1]


def slice_empty(x):
    return jnp.sum(x[5:2])


def index_out_of_bounds(x, i):
    return x[i]


# ---- reductions of empty arrays


def sum_empty(x):
    return jnp.sum(x)


def max_empty(x):
    return jnp.max(x)


def mean_empty(x):
    return jnp.mean(x)


def prod_empty(x):
    return jnp.prod(x)


# ---- aliasing


def augmented_alias(x):
    y = x
    y += 1.0
    return y


def augmented_alias_returns_both(x):
    y = x
    y += 1.0
    return x, y


def returns_input(x):
    return x


def returns_input_twice(x):
    return x, x


def item_update(x):
    return x.at[0].set(5.0)


# ---- containers and odd results


def returns_tuple(x):
    return x, 2.0 * x, 3


def returns_list(x):
    return [x, x + 1.0]


def returns_dict(x):
    return {"a": x, "b": 2.0 * x}


def returns_none(x):
    return None


def returns_string(x):
    return "hello"


def returns_mixed(x):
    return (x, None)


def returns_bool(x):
    return x > 0


def returns_int_count(x):
    n = 0
    for v in x:
        if v > 0:
            n = n + 1
    return n


# ---- globals, defaults, closures

OFFSET = 1.0
TABLE = np.array([1.0, 2.0, 3.0])


def uses_offset(x):
    return x + OFFSET


def uses_table(x):
    return jnp.sum(TABLE * x)


def uses_default(x, k=3.0):
    return x * k


def uses_int_default(x, k=3):
    return x * k


def make_closure(a):
    def inner(x):
        return x * a
    return inner


# ---- signatures


def poly(x):
    return x * x + 2 * x + 1


def sum_all(x):
    return jnp.sum(x * 2)


# ---- complex


def complex_square(z):
    return z * z


def complex_abs(z):
    return jnp.abs(z)


# ---- random, recursion


def uses_np_random(x):
    return x + np.random.normal()


def recursive_power(x, n):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def recursive_fib(n):
    if n < 2:
        return n
    return recursive_fib(n - 1) + recursive_fib(n - 2)


# ---- differentiable programs for jit(grad)


def grad_mod(x):
    return (x % 1.5) * x


def grad_floor(x):
    return jnp.floor(x) * x


def grad_pow_int(x):
    return x ** 3 + x ** -1


def grad_max_python(x, y):
    return max(x, y) * x


def grad_where_nan(x):
    return jnp.sum(jnp.where(x > 0, jnp.sqrt(x), 0.0))


def grad_loop_int(x, n):
    y = x
    for i in range(n):
        y = y * 1.0001 + i
    return y


def grad_float32_mix(x):
    return jnp.sum(x * 0.1 + x * x)


def grad_round(x):
    return round(x) + x * x


def grad_abs(x):
    return jnp.sum(jnp.abs(x))


def int_of_float(x):
    return int(x)


def branch_local_overflow(n, big):
    if big:
        m = n * n
        return (m * m) % 1000
    return n


def negative_python_int(n):
    return -n


def int_shift_right(n, k):
    return n >> k


def math_sqrt(x):
    return math.sqrt(x)


def math_log(x):
    return math.log(x)


def math_exp(x):
    return math.exp(x)


def builtin_pow(a, b):
    return pow(a, b) % 1000


def tuple_product(t):
    return (t[0] * t[1]) % 1000


def python_sum(a, b):
    return sum([a, b]) % 1000


def loop_over_tuple(t):
    s = 1
    for v in t:
        s = s * v
    return s % 1000


def float_mul_overflow(a):
    return a * a


def exp_of_python_int(n):
    return jnp.exp(n)


def int_array_times_python_int(x, n):
    return x * n


def math_sqrt_minus_one(x):
    return (math.sqrt(x) - 1.0) * 1e8


def jnp_sqrt_minus_one(x):
    return (jnp.sqrt(x) - 1.0) * 1e8


def int_array_negative_power(x, n):
    return x ** n


def int32_sum_overflow(x):
    return jnp.sum(x)


def set_item(x):
    x[0] = 5.0
    return x


def while_counter(n):
    i = 0
    s = 0
    while i < n:
        s += i * i
        i += 1
    return s % 997


def shape_times(x, n):
    return (x.shape[0] * n) % 1000


def int32_array_true_divide_zero(x, y):
    return x / y


def float32_scalar_divide_zero(x):
    return np.float32(x) / np.float32(0.0)


def grad_reciprocal(x):
    return 1.0 / x


WEIGHTS = [1.0, 2.0]
SHAPES = {"scale": 3.0}


def return_global(x):
    return TABLE


def uses_global_list(x):
    return WEIGHTS[0] * x + WEIGHTS[1]


def uses_global_dict(x):
    return SHAPES["scale"] * x


def exp_fused(x):
    return jnp.exp(x) * 1.0


def exp_sum(x):
    return jnp.sum(jnp.exp(x))


def sigmoid_fused(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def plain_sum(x):
    return jnp.sum(x)


def mean_of(x):
    return jnp.mean(x)


def fused_sum(x):
    return jnp.sum(jnp.tanh(x) * x + 1.0)


def sum_sigmoid(x):
    return jnp.sum(1.0 / (1.0 + jnp.exp(-x)))


def fused_two(a, b):
    return jnp.exp(a) * b + a


def fused_two_sum(a, b):
    return jnp.sum(jnp.tanh(a) * b - a * a)


def fused_three(a, b, c):
    return jnp.sin(a) * b + c * a


def static_power(x, n):
    return x * ((2 ** n) % 1000)


def compare_big(n):
    if n < 2 ** 64:
        return 1.0
    return 2.0


def abs_float(x):
    return abs(x)


def int_true_divide_big(n):
    return n / 3


def arange_times(n):
    return jnp.sum(jnp.arange(n) * n)


def grad_int_power(x, n):
    return x * ((3 ** n) % 7)


def grad_divide_python(x, a, b):
    return x * (a / b)


def int_of_numpy_float(x):
    return int(x) % 7
