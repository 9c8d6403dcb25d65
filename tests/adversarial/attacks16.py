"""An attacker's corpus, sixteenth round: the Python a scientist writes around NumPy that earlier rounds left out.

Records (dataclasses, NamedTuples and `_replace`), annotated functions, functions made in loops (late binding),
recursion ending on data and mutual recursion, generators and `itertools` (accumulate, product, chain),
`math`/`operator`/`functools.reduce` on traced scalars, NumPy's function wrappers (`np.vectorize`,
`np.frompyfunc`, `np.apply_along_axis`), `einsum` with a repeated index, `np.linalg` at its edges, complex
intermediates with real outputs, NumPy's writes spelled as functions (`np.copyto`, `np.put`, `np.place`, `out=`),
integer powers of negative numbers, `jnp.where` with one argument, an argnum at an integer parameter, and a mutable
default argument that a call changes.
"""
import dataclasses
import functools
import itertools
import math
import operator
import typing

import numpy as np

import astjax
import astjax.numpy as jnp

from .case import case, long_only, mat, pos, spd, vec


def _x(*values):
    return np.array(values, dtype=np.float64)


_X4 = lambda r: (_x(0.3, -0.7, 1.1, 0.5),)      # noqa: E731
_V4 = lambda r: (vec(r, 4),)                     # noqa: E731
_M3 = lambda r: (mat(r, 3),)                     # noqa: E731


# ============================================================ records
@dataclasses.dataclass
class _Layer:
    w: object
    b: object


class _Pair(typing.NamedTuple):
    a: object
    b: object


def dataclass_fields_read(x):
    layer = _Layer(x[:2] * 2.0, x[2])
    return jnp.sum(jnp.tanh(layer.w * x[3] + layer.b))


case(dataclass_fields_read, _X4, "either")


def namedtuple_replace(x):
    p = _Pair(x[0], x[1])
    q = p._replace(b=p.b * x[2])
    return q.a * q.b + p.b


case(namedtuple_replace, _X4, "either")


def namedtuple_unpacked(x):
    a, b = _Pair(x[0] ** 2, jnp.sin(x[1]))
    return a * b


case(namedtuple_unpacked, _X4, "either")


def annotated(x: np.ndarray, k: int = 2, scale: float = 1.5) -> float:
    y: np.ndarray = x ** k
    total: float = float(scale) * y.sum()
    return total


case(annotated, _X4, "works")


# ============================================================ functions made in loops (late binding)
def closures_made_in_a_loop(x):
    fs = []
    for i in range(3):
        def g(v):
            return v * i
        fs.append(g)
    return sum(f(x[0]) for f in fs) + x[1]          # every g reads the last i: 3 * 2 * x[0]


case(closures_made_in_a_loop, _X4, "either")


def lambdas_in_a_comprehension(x):
    fs = [lambda v: v ** 2 * i for i in range(1, 4)]
    return fs[0](x[0]) + fs[1](x[1])                 # i is 3 in both (late binding)


case(lambdas_in_a_comprehension, _X4, "either")


def lambdas_with_a_default_binding(x):
    fs = [lambda v, i=i: v ** 2 * i for i in range(1, 4)]
    return fs[0](x[0]) + fs[2](x[1])


case(lambdas_with_a_default_binding, _X4, "either")


# ============================================================ recursion
def _shrink(v, n):
    if n == 0:
        return v
    return _shrink(jnp.sin(v) * 1.5, n - 1)


def recursion_counted(x):
    return jnp.sum(_shrink(x, 3))


case(recursion_counted, _X4, "either")


def _until_small(v):
    if jnp.max(jnp.abs(v)) < 0.2:
        return v
    return _until_small(v * 0.5)


def recursion_ending_on_data(x):
    return jnp.sum(_until_small(x) ** 2)


case(recursion_ending_on_data, _X4, "either")


def _even_steps(v, n):
    return v if n == 0 else _odd_steps(v * 2.0, n - 1)


def _odd_steps(v, n):
    return v if n == 0 else _even_steps(jnp.cos(v), n - 1)


def mutual_recursion(x):
    return jnp.sum(_even_steps(x, 3))


case(mutual_recursion, _X4, "either")


# ============================================================ generators and itertools
def generator_into_sum(x):
    return sum(v * v for v in x if v > 0) + sum(x[i] * i for i in range(len(x)))


case(generator_into_sum, _X4, "works")


def generator_into_list(x):
    squares = list(v * w for v, w in zip(x, x[::-1]))
    return squares[0] + squares[3] * 2.0


case(generator_into_list, _X4, "either")


def itertools_accumulate(x):
    running = list(itertools.accumulate(x))
    return running[-1] * running[1]


case(itertools_accumulate, _X4, "either")


def itertools_accumulate_product(x):
    running = list(itertools.accumulate(x, operator.mul))
    return running[-1] + running[2]


case(itertools_accumulate_product, _X4, "either")


def itertools_product_pairs(x):
    total = 0.0
    for a, b in itertools.product(x[:2], x[2:]):
        total = total + a * b
    return total


case(itertools_product_pairs, _X4, "either")


def itertools_chain(x):
    total = 0.0
    for v in itertools.chain(x[:2], x[2:] * 3.0):
        total = total + v * v
    return total


case(itertools_chain, _X4, "either")


# ============================================================ math, operator, functools on traced scalars
def math_sin_of_an_item(x):
    return math.sin(x[0]) * math.exp(x[1]) + math.sqrt(x[2] ** 2 + 1.0)


case(math_sin_of_an_item, _X4, "either")


def math_fsum_and_prod(x):
    return math.fsum([x[0], x[1] * 2.0, x[2]]) * math.prod([x[1], x[3]])


case(math_fsum_and_prod, _X4, "either")


def math_hypot_atan2(x):
    return math.hypot(x[0], x[1]) + math.atan2(x[2], x[3])


case(math_hypot_atan2, _X4, "either")


def operator_functions(x):
    return operator.mul(x[0], x[1]) + operator.truediv(x[2], operator.add(x[3], 2.0)) - operator.neg(x[0])


case(operator_functions, _X4, "either")


def operator_itemgetter(x):
    first, third = operator.itemgetter(0, 2)(x)
    return first * third


case(operator_itemgetter, _X4, "either")


def reduce_multiply(x):
    return functools.reduce(operator.mul, x) + functools.reduce(lambda a, b: a + b * b, x, 0.0)


case(reduce_multiply, _X4, "either")


# ============================================================ NumPy's function wrappers
def np_vectorize(x):
    f = np.vectorize(lambda v: v * v if v > 0 else -v)
    return np.sum(f(x))


case(np_vectorize, _X4, "either")


def np_frompyfunc(x):
    f = np.frompyfunc(lambda a, b: a * b, 2, 1)
    return np.sum(f(x, x).astype(float))


case(np_frompyfunc, _X4, "either")


def np_apply_along_axis(a):
    return np.sum(np.apply_along_axis(lambda row: row[0] * row[1], 1, a))


case(np_apply_along_axis, _M3, "either")


# ============================================================ einsum with repeated indices
def einsum_diagonal(a):
    return jnp.sum(jnp.einsum("ii->i", a) ** 2)


case(einsum_diagonal, _M3, "works")


def einsum_trace(a):
    return np.einsum("ii", a) * np.einsum("ij,ij->", a, a)


case(einsum_trace, _M3, "works")


def einsum_repeated_in_two_operands(a):
    return np.einsum("ii,jj->", a, a @ a)


case(einsum_repeated_in_two_operands, _M3, "works")


# ============================================================ np.linalg at its edges
def matrix_power_zero_and_negative(a):
    b = a + 3.0 * np.eye(3)
    return np.sum(np.linalg.matrix_power(b, 0)) + np.sum(np.linalg.matrix_power(b, -2))


case(matrix_power_zero_and_negative, _M3, "works")


def slogdet_sign_and_log(a):
    sign, logdet = np.linalg.slogdet(a)
    return sign * logdet


case(slogdet_sign_and_log, _M3, "either")


def pinv_of_a_wide_matrix(x):
    a = np.stack([x[:3], x[1:] * 2.0])
    return np.sum(np.linalg.pinv(a) ** 2)


case(pinv_of_a_wide_matrix, _X4, "either")


def vector_norm_orders(x):
    return np.linalg.norm(x, 1) + np.linalg.norm(x, np.inf) + np.linalg.norm(x, -np.inf) + np.linalg.norm(x, 3)


case(vector_norm_orders, _X4, "either")


def eigh_of_a_symmetric(a):
    s = a + a.T
    w, v = np.linalg.eigh(s)
    return w[-1] + jnp.sum(v[:, 0] ** 4)


case(eigh_of_a_symmetric, _M3, "either")


# ============================================================ dtypes
def float16_roundtrip(x):
    h = x.astype(np.float16)
    return np.sum(h.astype(np.float64) ** 2)


def float32_accumulate(x):
    y = x.astype(np.float32)
    return float(np.sum(y * y))


def cumsum_with_dtype(x):
    return np.sum(np.cumsum(x, dtype=np.float32) * x)


def _narrow_floats(fn, args):
    """Rounded to float16/float32 on the way, the function's finite differences in float64 measure the rounding,
    not the slope: the closed forms (the cast's derivative is 1) are the oracle."""
    (x,) = args
    x16, x32 = x.astype(np.float16).astype(np.float64), x.astype(np.float32).astype(np.float64)
    cumsum_slope = np.cumsum(x32) + np.cumsum(x32[::-1])[::-1]
    return [(astjax.grad(float16_roundtrip)(x), 2.0 * x16, "grad through float16"),
            (astjax.grad(float32_accumulate)(x), 2.0 * x32, "grad through float32 and float()"),
            (astjax.grad(cumsum_with_dtype)(x), cumsum_slope, "grad of cumsum(dtype=float32)")]


case(float16_roundtrip, _X4, "works", mode="custom", check=_narrow_floats, name="narrow_float_casts")


# ============================================================ complex intermediates, real outputs
def abs_of_fft(x):
    return jnp.sum(jnp.abs(jnp.fft.fft(x)))


case(abs_of_fft, _X4, "either")


def real_of_ifft_of_scaled_fft(x):
    return np.sum(np.real(np.fft.ifft(np.fft.fft(x) * np.array([1.0, 2.0, 3.0, 4.0]))) ** 2)


case(real_of_ifft_of_scaled_fft, _X4, "either")


def real_imag_conj_attributes(x):
    z = x[:2] + 1j * x[2:]
    w = z * z.conj()
    return np.sum(w.real) + np.sum((z * z).imag)


case(real_imag_conj_attributes, _X4, "either")


def complex_exp_phase(x):
    z = np.exp(1j * x)
    return np.abs(np.sum(z)) ** 2


case(complex_exp_phase, _X4, "either")


# ============================================================ writes spelled as functions
def inplace_on_a_transpose_slice(x):
    a = x.reshape(2, 2).copy()
    t = a.T
    t[0] += x[::-1][:2] * 2.0
    return np.sum(a ** 2)


case(inplace_on_a_transpose_slice, _X4, "either")


def np_copyto(x):
    y = np.zeros(4)
    np.copyto(y, x * 2.0)
    return np.sum(y ** 2)


case(np_copyto, _X4, "either")


def np_put(x):
    y = x.copy()
    np.put(y, [0, 2], x[1:3] * 3.0)
    return np.sum(y ** 2)


case(np_put, _X4, "either")


def np_place(x):
    y = x.copy()
    np.place(y, y < 0, [5.0])
    return np.sum(y * x)


case(np_place, _X4, "either")


def ufunc_out_keyword(x):
    y = np.empty(4)
    np.multiply(x, x, out=y)
    return np.sum(y)


case(ufunc_out_keyword, _X4, "either")


def ufunc_out_into_input(x):
    y = x * 1.0
    np.exp(y, out=y)
    return np.sum(y * x)


case(ufunc_out_into_input, _X4, "either")


# ============================================================ powers of negative numbers
def integer_powers_of_negatives(x):
    return np.sum(x ** 3) + np.sum(x ** 2.0) + np.sum(np.power(x, 4)) + np.sum(x ** -2)


case(integer_powers_of_negatives, _X4, "works")


def negative_base_float_power(x):
    return np.sum((-2.0) ** np.arange(3.0) * x[:3]) + np.sum(np.float_power(x, 2)) + np.sum((-x) ** 3.0)


case(negative_base_float_power, _X4, "works")


def cube_root_of_negatives(x):
    return np.sum(np.cbrt(x) * x)


case(cube_root_of_negatives, _X4, "works")


# ============================================================ where with one argument
def where_one_argument(x):
    idx = jnp.where(x > 0)
    return jnp.sum(x[idx] ** 2)


case(where_one_argument, _X4, "either")


def nonzero_indexing(x):
    (idx,) = np.nonzero(x > 0)
    return np.sum(x[idx] * np.arange(len(idx)))


case(nonzero_indexing, _X4, "either")


# ============================================================ argnums and defaults
def scaled_by_count(x, n):
    return np.sum(x ** 2) * n


case(scaled_by_count, lambda r: (vec(r, 3), 3), "refuse", argnums=1, errors=(TypeError,),
     error_match="integer|int")


def mutable_default(x, seen=[]):          # noqa: B006
    seen.append(1.0)
    return np.sum(x ** 2) * len(seen)


def _mutable_default_battery(fn, args):
    """A default list that each call extends: astjax runs the function's own default object, as Python does, so
    each call sees one more item (the value and gradient of the n-th call are n times those of the first)."""
    (x,) = args
    mutable_default.__defaults__[0].clear()
    first = astjax.value_and_grad(mutable_default)(x)
    second = astjax.value_and_grad(mutable_default)(x)
    return [(first[0], np.sum(x ** 2), "first call's value"), (first[1], 2.0 * x, "first call's gradient"),
            (second[0], 2.0 * np.sum(x ** 2), "second call's value"), (second[1], 4.0 * x, "second call's gradient"),
            (len(mutable_default.__defaults__[0]), 2, "the default list grew as in Python")]


case(mutable_default, _X4, "works", mode="custom", check=_mutable_default_battery)


# ============================================================ late binding outside loops, lazy iterators
def closure_reads_a_name_rebound_later(x):
    s = 2.0

    def g(v):
        return v * s
    s = x[1] * 3.0                       # g reads the new s when called (late binding)
    return g(x[0])


case(closure_reads_a_name_rebound_later, _X4, "either")


def local_default_bound_at_definition(x):
    s = x[1]

    def g(v, k=s):
        return v * k
    s = x[2]
    return g(x[0]) + s


case(local_default_bound_at_definition, _X4, "either")


def _scaled(v):
    return v * 2.0


def map_is_lazy(x):
    m = map(_scaled, x)
    x = x * 10.0                         # map holds the original array
    return sum(m) + x[0]


case(map_is_lazy, _X4, "either")


def generator_reads_a_name_when_consumed(x):
    s = 1.0
    gen = (v * s for v in x)
    s = x[0]
    return sum(gen)


case(generator_reads_a_name_when_consumed, _X4, "either")


def zip_of_a_rebound_name(x):
    pairs = zip(x, x[1:])
    x = x * 0.0
    total = 0.0
    for a, b in pairs:
        total = total + a * b
    return total + jnp.sum(x)


case(zip_of_a_rebound_name, _X4, "either")


# ============================================================ keywords that change what a reduction reads
def sum_where(x):
    return np.sum(x * x, where=x > 0) + np.prod(x, where=x < 1.0)


case(sum_where, _X4, "either")


def mean_where(x):
    return np.mean(x ** 3, where=x > 0)


case(mean_where, _X4, "either")


def max_with_initial(x):
    return np.max(x, initial=0.9) + np.min(x * 2.0, initial=-0.5)


case(max_with_initial, _X4, "either")


def ufunc_where_keyword(x):
    y = np.zeros(4)
    np.multiply(x, 3.0, out=y, where=x > 0)
    return np.sum(y * x)


case(ufunc_where_keyword, _X4, "either")


def std_var_ddof(x):
    return np.std(x, ddof=1) + np.var(x * 2.0, ddof=2)


case(std_var_ddof, _X4, "works")


def average_weights(x):
    return np.average(x[:2], weights=x[2:] ** 2)


case(average_weights, _X4, "works")


def ufunc_reduce_accumulate(x):
    return np.maximum.reduce(x) + np.add.reduce(x * x) + np.multiply.accumulate(x)[-1]


case(ufunc_reduce_accumulate, _X4, "either")


# ============================================================ library functions with several differentiable arguments
def interp_in_the_table(x):
    return np.interp(0.25, np.array([0.0, 0.5, 1.0]), x[:3]) + np.interp(x[3], np.array([0.0, 1.0]),
                                                                         np.array([2.0, 5.0]))


case(interp_in_the_table, _X4, "either")


def polyval_coefficients_and_point(x):
    return np.polyval(x[:3], x[3])


case(polyval_coefficients_and_point, _X4, "works")


def convolve_and_correlate(x):
    return np.sum(np.convolve(x, x[:2]) ** 2) + np.sum(np.correlate(x, x[1:3], mode="valid"))


case(convolve_and_correlate, _X4, "works")


def diff_second_order_and_gradient(x):
    return np.sum(np.diff(x, n=2) ** 2) + np.sum(np.gradient(x) * x)


case(diff_second_order_and_gradient, _X4, "works")


def clip_with_a_traced_bound(x):
    return np.sum(np.clip(x, x[0], None) ** 2)


case(clip_with_a_traced_bound, _X4, "either")


def sort_partition_argsort(x):
    order = np.argsort(x)
    return np.sum(x[order] * np.arange(4.0)) + np.partition(x, 1)[1] + np.sort(x)[::-1][0]


case(sort_partition_argsort, _X4, "either")


def unique_values(x):
    y = np.concatenate([x, x[:2]])
    return np.sum(np.unique(y) ** 2)


case(unique_values, _X4, "either")


def special_points(x):
    return np.sinc(x[0] * 0.0) + np.sum(np.logaddexp(x, 0.0)) + np.sum(np.expm1(x) * np.log1p(x ** 2))


case(special_points, _X4, "either")


# ============================================================ Python numbers out of arrays
def float_of_an_item(x):
    return float(x[0]) * x[1] + int(x[2] * 10) * x[3]


case(float_of_an_item, _X4, "either")


def round_of_an_item(x):
    return round(x[0] * x[1], 2) + x[2]


case(round_of_an_item, _X4, "either")


# ============================================================ objects
class _Model:
    def __init__(self, w):
        self.w = w

    @property
    def scale(self):
        return jnp.sum(self.w ** 2)

    def __call__(self, v):
        return jnp.tanh(self.w * v) * self.scale


def callable_object_and_property(x):
    model = _Model(x[:2])
    return jnp.sum(model(x[2:]))


case(callable_object_and_property, _X4, "either")


def in_place_matmul(x):
    a = x.reshape(2, 2).copy()
    a @= np.array([[1.0, 2.0], [3.0, 4.0]])
    return np.sum(a ** 2)


case(in_place_matmul, _X4, "either")


def short_circuit_on_values(x):
    a = (x[0] > 0 and x[1]) or x[2]
    return a * x[3]


case(short_circuit_on_values, _X4, "either")


# ============================================================ the API's conventions (JAX's errors)
def _in_place_item(x):
    y = x.copy()
    y[1] = y[0] * y[2]
    y[0] += y[1] ** 2
    return np.sum(y ** 2)


def _hessian_of_in_place(x):
    y0 = x[0] + (x[0] * x[2]) ** 2
    return y0 ** 2 + (x[0] * x[2]) ** 2 + x[2] ** 2 + x[3] ** 2


def _api_battery(fn, args):
    """jacrev(jacrev(f)) of NumPy item assignment crashed ("astjax arrays are immutable": the outer jacrev ran f
    itself on Arrays for its output's shape); hessian's other spellings must agree with it."""
    (x,) = args
    h = astjax.hessian(_hessian_of_in_place)(x)
    out = [(astjax.jacrev(astjax.jacrev(_in_place_item))(x), h, "jacrev(jacrev) of item assignment"),
           (astjax.jacfwd(astjax.jacrev(_in_place_item))(x), h, "jacfwd(jacrev) of item assignment"),
           (astjax.hessian(_in_place_item)(x), h, "hessian of item assignment")]
    _, pullback = astjax.vjp(jnp.sin, x)
    try:
        pullback(np.ones(4, dtype=int))
        out.append(("accepted", "ValueError", "vjp with an integer cotangent"))
    except ValueError:
        pass
    return out


case(_in_place_item, _X4, "works", mode="custom", check=_api_battery, name="api_conventions")


# the cases of the mechanisms fixed with this round (tests/test_attacks16.py pins them as well)
_FIXED_HERE = ("narrow_float_casts", "mutable_default", "api_conventions", "matrix_power_zero_and_negative")
LONG_ONLY = long_only("attacks16", _FIXED_HERE)
