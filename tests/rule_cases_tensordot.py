"""Rule cases for jnp.tensordot (astjax/rules/tensordot.py), einsum with a label repeated within one operand
(astjax/rules/linalg.py) and lax.internal.scan_step_output, in tests/rule_cases.py's format:
each case is `sum(w * <call>)`."""
from collections import namedtuple

import numpy as np

import astjax.numpy as jnp
from astjax.lax import internal

Case = namedtuple("Case", "primitive label fn args argnums")
CASES = []
_rng = np.random.default_rng(20261123 + 6)


def normal(*shape):
    return jnp.asarray(np.asarray(_rng.standard_normal(shape), dtype=np.float64))


def case(primitive, label, fn, *args):
    CASES.append(Case(primitive, label, fn, tuple(args), tuple(range(len(args)))))


# ------------------------------------------------------------------ tensordot
def tensordot_default(a, b, w):
    return jnp.sum(w * jnp.tensordot(a, b))


def tensordot_int_1(a, b, w):
    return jnp.sum(w * jnp.tensordot(a, b, 1))


def tensordot_int_0(a, b, w):
    return jnp.sum(w * jnp.tensordot(a, b, axes=0))


def tensordot_sequences(a, b, w):
    return jnp.sum(w * jnp.tensordot(a, b, axes=([1], [0])))


def tensordot_pair_of_ints(a, b, w):
    return jnp.sum(w * jnp.tensordot(a, b, axes=(0, 1)))


def tensordot_unordered_axes(a, b, w):
    return jnp.sum(w * jnp.tensordot(a, b, axes=([2, 0], [0, -1])))


case("tensordot", "default", tensordot_default, normal(2, 3, 4), normal(3, 4, 2))
case("tensordot", "int_1", tensordot_int_1, normal(2, 3), normal(3, 4))
case("tensordot", "int_0", tensordot_int_0, normal(2), normal(3))
case("tensordot", "sequences", tensordot_sequences, normal(2, 3), normal(3, 2))
case("tensordot", "pair_of_ints", tensordot_pair_of_ints, normal(3, 2), normal(4, 3))
case("tensordot", "unordered_axes", tensordot_unordered_axes, normal(4, 3, 2), normal(2, 5, 4))


# ------------------------------------------------------ einsum, repeated labels
def einsum_trace(a, w):
    return w * jnp.einsum("ii->", a)


def einsum_diagonal(a, w):
    return jnp.sum(w * jnp.einsum("ii->i", a))


def einsum_diagonal_summed_axis(a, w):
    return jnp.sum(w * jnp.einsum("iij->j", a))


def einsum_implicit_trace_times_vector(a, b, w):
    return jnp.sum(w * jnp.einsum("ii,j", a, b))


def einsum_diagonal_with_other_operand(a, b, w):
    return jnp.sum(w * jnp.einsum("jij,ik->k", a, b))


case("einsum", "trace", einsum_trace, normal(3, 3))
case("einsum", "diagonal", einsum_diagonal, normal(3, 3))
case("einsum", "diagonal_summed_axis", einsum_diagonal_summed_axis, normal(3, 3, 2))
case("einsum", "implicit_trace_times_vector", einsum_implicit_trace_times_vector, normal(3, 3), normal(2))
case("einsum", "diagonal_with_other_operand", einsum_diagonal_with_other_operand, normal(2, 3, 2), normal(3, 4))


# --------------------------------- the identity check normalization puts on lax.scan's ys (lax_control_flow.py)
def scan_step_output_identity(x, w):
    return jnp.sum(w * internal.scan_step_output(x))


case("lax_scan_step_output", "identity", scan_step_output_identity, normal(3))


# ------------------------------------------- NumPy's scalar types called on values (astjax/rules/casts.py)
def cast_to_float64(x, w):
    return jnp.sum(w * np.float64(x) * x)


case("cast_float64", "array", cast_to_float64, normal(3))
