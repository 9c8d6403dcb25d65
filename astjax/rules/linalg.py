"""Products (dot, matmul, outer, inner) and linear algebra (inv, det, solve, norm).

The adjoint of a product is a product with the other operand transposed:
for matrices `bA += bY @ B.T` and `bB += A.T @ bY`. The shape cases (vector
or matrix on either side) live in two small Python functions below; they are
plain astjax code, so a second derivative transforms them like user code.
"""
import gast
import numpy as np

from .. import numpy as jnp
from ..numpy import linalg as jnp_linalg
from . import helpers
from .helpers import unbroadcast, well_conditioned
from .registry import deflowering, defjvp, defvjp, primitive


def matmul_lhs_adjoint(g, x1, x2):
    """The adjoint of `x1` in `y = x1 @ x2`, given the adjoint `g` of `y`."""
    if jnp.ndim(x2) == 1:
        if jnp.ndim(x1) == 1:
            return g * x2
        return jnp.expand_dims(g, -1) * x2
    if jnp.ndim(x1) == 1:
        # x1 acts as a (1, n) matrix broadcast over x2's batch: give g that row back, then sum it out.
        return unbroadcast(jnp.matmul(jnp.expand_dims(g, -2), jnp.swapaxes(x2, -1, -2)), x1)
    return unbroadcast(jnp.matmul(g, jnp.swapaxes(x2, -1, -2)), x1)


def matmul_rhs_adjoint(g, x1, x2):
    """The adjoint of `x2` in `y = x1 @ x2`, given the adjoint `g` of `y`."""
    if jnp.ndim(x1) == 1:
        if jnp.ndim(x2) == 1:
            return g * x1
        return unbroadcast(jnp.expand_dims(x1, -1) * jnp.expand_dims(g, -2), x2)
    if jnp.ndim(x2) == 1:
        return unbroadcast(jnp.sum(x1 * jnp.expand_dims(g, -1), axis=-2), x2)
    return unbroadcast(jnp.matmul(jnp.swapaxes(x1, -1, -2), g), x2)


def dot_lhs_adjoint(g, a, b):
    """The adjoint of `a` in `y = dot(a, b)` (any ranks: dot contracts a's last axis with b's second-last)."""
    if jnp.ndim(a) == 0 or jnp.ndim(b) == 0:
        return unbroadcast(g * b, a)
    if jnp.ndim(b) <= 2:
        return matmul_lhs_adjoint(g, a, b)
    k = jnp.shape(a)[-1]
    b2 = jnp.reshape(jnp.moveaxis(b, -2, 0), (k, -1))
    g2 = jnp.reshape(g, (-1, jnp.shape(b2)[1]))
    return jnp.reshape(jnp.matmul(g2, jnp.transpose(b2)), jnp.shape(a))


def dot_rhs_adjoint(g, a, b):
    """The adjoint of `b` in `y = dot(a, b)` (any ranks)."""
    if jnp.ndim(a) == 0 or jnp.ndim(b) == 0:
        return unbroadcast(g * a, b)
    if jnp.ndim(b) <= 2:
        return matmul_rhs_adjoint(g, a, b)
    k = jnp.shape(a)[-1]
    a2 = jnp.reshape(a, (-1, k))
    g2 = jnp.reshape(g, (jnp.shape(a2)[0], -1))
    moved = jnp.reshape(jnp.matmul(jnp.transpose(a2), g2), (k,) + jnp.shape(b)[:-2] + jnp.shape(b)[-1:])
    return jnp.moveaxis(moved, 0, -2)


def inner_lhs_adjoint(g, a, b):
    """The adjoint of `a` in `y = inner(a, b)`: y[i..., j...] = sum_k a[i..., k] b[j..., k]."""
    if jnp.ndim(a) == 0 or jnp.ndim(b) == 0:
        return unbroadcast(g * b, a)
    b2 = jnp.reshape(b, (-1, jnp.shape(b)[-1]))
    g2 = jnp.reshape(g, (-1, jnp.shape(b2)[0]))
    return jnp.reshape(jnp.matmul(g2, b2), jnp.shape(a))


def inner_rhs_adjoint(g, a, b):
    """The adjoint of `b` in `y = inner(a, b)`."""
    if jnp.ndim(a) == 0 or jnp.ndim(b) == 0:
        return unbroadcast(g * a, b)
    a2 = jnp.reshape(a, (-1, jnp.shape(a)[-1]))
    g2 = jnp.reshape(g, (jnp.shape(a2)[0], -1))
    return jnp.reshape(jnp.matmul(jnp.transpose(g2), a2), jnp.shape(b))


def solve_lhs_adjoint(g, a, y):
    """The adjoint of `a` in `y = solve(a, b)`: -(solve(a.T, g)) y.T, for a vector or matrix b.

    b is a vector when y has one axis fewer than a (NumPy 2: b 1-D); a batch of them solves as columns."""
    if jnp.ndim(y) == jnp.ndim(a) - 1:
        if jnp.ndim(a) == 2:
            gb = jnp.linalg.solve(jnp.swapaxes(a, -1, -2), g)
        else:
            gb = jnp.squeeze(jnp.linalg.solve(jnp.swapaxes(a, -1, -2), jnp.expand_dims(g, -1)), -1)
        return -jnp.expand_dims(gb, -1) * jnp.expand_dims(y, -2)
    gb = jnp.linalg.solve(jnp.swapaxes(a, -1, -2), g)
    return -jnp.matmul(gb, jnp.swapaxes(y, -1, -2))


def solve_rhs_adjoint(g, a, b):
    """The adjoint of `b` in `y = solve(a, b)`: solve(a.T, g), summed over the batch axes b was broadcast along."""
    if jnp.ndim(b) == 1 and jnp.ndim(a) > 2:
        gb = jnp.squeeze(jnp.linalg.solve(jnp.swapaxes(a, -1, -2), jnp.expand_dims(g, -1)), -1)
        return unbroadcast(gb, b)
    return unbroadcast(jnp.linalg.solve(jnp.swapaxes(a, -1, -2), g), b)


def solve_lhs_tangent(t, a, y):
    """The tangent of `y = solve(a, b)` along a's tangent t: -solve(a, t y)."""
    if jnp.ndim(y) == jnp.ndim(a) - 1 and jnp.ndim(a) > 2:
        return -jnp.squeeze(jnp.linalg.solve(a, jnp.matmul(t, jnp.expand_dims(y, -1))), -1)
    return -jnp.linalg.solve(a, jnp.matmul(t, y))


COMPOSITES = {f.__name__: f for f in (matmul_lhs_adjoint, matmul_rhs_adjoint, dot_lhs_adjoint, dot_rhs_adjoint,
                                      inner_lhs_adjoint, inner_rhs_adjoint, solve_lhs_adjoint,
                                      solve_rhs_adjoint, solve_lhs_tangent)}

# The signature names the operands x1, x2 as the `@` operator binds them (jnp.matmul's own are a, b).
matmul = primitive("matmul", jnp.matmul, operands=("x1", "x2"), aliases=(np.matmul,),
                   operator=__import__("gast").MatMult,
                   signature=lambda x1, x2, *, precision=None, preferred_element_type=None: None)
defvjp(matmul, "bx1 += matmul_lhs_adjoint(by, x1, x2)", "bx2 += matmul_rhs_adjoint(by, x1, x2)")
defjvp(matmul, "dy = jnp.matmul(dx1, x2) + jnp.matmul(x1, dx2)")
deflowering(matmul, numba="astjax.runtime.numba_cpu:matmul")
matmul.identity = "d (A @ B) = dA @ B + A @ dB, so bA = by @ B.T and bB = A.T @ by"

dot = primitive("dot", jnp.dot, operands=("a", "b"), aliases=(np.dot,))
defvjp(dot, "ba += dot_lhs_adjoint(by, a, b)", "bb += dot_rhs_adjoint(by, a, b)")
defjvp(dot, "dy = jnp.dot(da, b) + jnp.dot(a, db)")
deflowering(dot, numba="astjax.runtime.numba_cpu:dot")
dot.identity = "d dot(a, b) = dot(da, b) + dot(a, db)"

outer = primitive("outer", jnp.outer, operands=("a", "b"), aliases=(np.outer,))
defvjp(outer, "ba += jnp.reshape(jnp.dot(by, jnp.ravel(b)), jnp.shape(a))",
       "bb += jnp.reshape(jnp.dot(jnp.ravel(a), by), jnp.shape(b))")
defjvp(outer, "dy = jnp.outer(da, b) + jnp.outer(a, db)")
deflowering(outer, numba="astjax.runtime.numba_cpu:outer")
outer.identity = "d outer(a, b) = outer(da, b) + outer(a, db), so ba = by @ b and bb = a @ by"

inner = primitive("inner", jnp.inner, operands=("a", "b"), aliases=(np.inner,))
defvjp(inner, "ba += inner_lhs_adjoint(by, a, b)", "bb += inner_rhs_adjoint(by, a, b)")
defjvp(inner, "dy = jnp.inner(da, b) + jnp.inner(a, db)")
deflowering(inner, numba="astjax.runtime.numba_cpu:inner")
inner.identity = "d inner(a, b) = inner(da, b) + inner(a, db)"

# vdot(a, b) = sum(conj(a).ravel() * b.ravel()): a and b need the same size, not the same shape.
vdot = primitive("vdot", jnp.vdot, operands=("a", "b"), aliases=(np.vdot,))
defvjp(vdot, "ba += real_input_adjoint(jnp.reshape(by * jnp.ravel(b), jnp.shape(a)), a)",
       "bb += real_input_adjoint(jnp.reshape(by * jnp.ravel(a), jnp.shape(b)), b)")
defjvp(vdot, "dy = jnp.vdot(da, b) + jnp.vdot(a, db)")
vdot.identity = "d vdot(a, b) = vdot(da, b) + vdot(a, db), so ba = by * b and bb = by * a (reshaped)"

# ------------------------------------------------------------- linear algebra
inv = primitive("inv", jnp_linalg.inv, operands=("a",), aliases=(np.linalg.inv,))
defvjp(inv, "ba += -(jnp.swapaxes(y, -1, -2) @ by @ jnp.swapaxes(y, -1, -2))")
defjvp(inv, "dy = -(y @ da @ y)")
deflowering(inv, numba="astjax.runtime.numba_cpu:inv")
inv.identity = "d inv(A) = -inv(A) dA inv(A), so bA = -inv(A).T @ by @ inv(A).T"

# d det(a) = <adj(a)^T, da>: the adjugate exists at singular matrices too (JAX's gradient there).
det = primitive("det", jnp_linalg.det, operands=("a",), aliases=(np.linalg.det,))
# jnp.multiply rather than `*`: the teaching view folds `jnp.multiply(jnp.expand_dims(by, ...), m)` of a 0-d by
# to `by * m`, which it can prove only for a call (it sees the shapes a call received).
defvjp(det, "ba += jnp.multiply(jnp.expand_dims(by, (-2, -1)), jnp.swapaxes(adjugate(a), -1, -2))")
defjvp(det, "dy = jnp.sum(jnp.swapaxes(adjugate(a), -1, -2) * da, axis=(-2, -1))")
deflowering(det, numba="astjax.runtime.numba_cpu:det")
det.identity = "d det(A) = tr(adj(A) dA), adj(A) = det(A) inv(A), so bA = by * adj(A).T"


def adjugate_adjoint(g, a):
    """The adjoint of `a` from `y = adjugate(a)` = det(a) inv(a), for invertible a."""
    a = well_conditioned(a, "det")
    d = jnp.expand_dims(jnp.expand_dims(jnp_linalg.det(a), -1), -1)
    z = jnp_linalg.inv(a)
    zt = jnp.swapaxes(z, -1, -2)
    inner = jnp.expand_dims(jnp.expand_dims(jnp.sum(g * z, axis=(-2, -1)), -1), -1)
    return d * (inner * zt - jnp.matmul(jnp.matmul(zt, g), zt))


def adjugate_tangent(t, a):
    """The tangent of `y = adjugate(a)` for a tangent `t` of a (invertible)."""
    a = well_conditioned(a, "det")
    d = jnp.expand_dims(jnp.expand_dims(jnp_linalg.det(a), -1), -1)
    z = jnp_linalg.inv(a)
    zt_dot = jnp.expand_dims(jnp.expand_dims(jnp.sum(jnp.swapaxes(z, -1, -2) * t, axis=(-2, -1)), -1), -1)
    return d * (zt_dot * z - jnp.matmul(jnp.matmul(z, t), z))


COMPOSITES.update({f.__name__: f for f in (adjugate_adjoint, adjugate_tangent)})
_square = primitive("square_unless_reduced", helpers.square_unless_reduced, operands=("a",))
defvjp(_square, "ba += by")
defjvp(_square, "dy = da")
_well_conditioned = primitive("well_conditioned", helpers.well_conditioned, operands=("a",))
defvjp(_well_conditioned, "ba += by")
defjvp(_well_conditioned, "dy = da")
adjugate = primitive("adjugate", helpers.adjugate, operands=("a",))
defvjp(adjugate, "ba += adjugate_adjoint(by, a)")
defjvp(adjugate, "dy = adjugate_tangent(da, a)")

solve = primitive("solve", jnp_linalg.solve, operands=("a", "b"), aliases=(np.linalg.solve,))
defvjp(solve, "ba += solve_lhs_adjoint(by, a, y)", "bb += solve_rhs_adjoint(by, a, b)")
defjvp(solve, "da -> solve_lhs_tangent(da, a, y)", "db -> jnp.linalg.solve(a, db)")
deflowering(solve, numba="astjax.runtime.numba_cpu:solve")
solve.identity = "y = solve(A, b): dy = solve(A, db - dA y), so bb = solve(A.T, by) and bA = -bb y.T"

# The spectral norm's old gradient helper (u v^T of the top singular pair), kept as a primitive whose own
# derivative is an error; norm's rules now live in rules/decompositions.py (norm_adjoint, for every ord).
spectral = primitive("spectral_direction", helpers.spectral_direction, operands=("x",))
defvjp(spectral, "bx += no_higher_derivative(by, 'the spectral norm')")
defjvp(spectral, "dy = no_higher_derivative(dx, 'the spectral norm')")
refused_here = primitive("no_higher_derivative", helpers.no_higher_derivative, operands=("t",))
defvjp(refused_here, "bt += no_higher_derivative(by, what)")
defjvp(refused_here, "dy = no_higher_derivative(dt, what)")

# norm_adjoint / norm_tangent: composites of rules/decompositions.py (every ord, vector and matrix norms).
norm = primitive("norm", jnp_linalg.norm, operands=("x",), aliases=(np.linalg.norm,))
defvjp(norm, "bx += norm_adjoint(by, x, y, ord, axis, keepdims)")
defjvp(norm, "dy = norm_tangent(dx, x, y, ord, axis, keepdims)")
norm.identity = "d norm(x) = <x, dx> / norm(x) for the 2-norm (norm_adjoint: every ord)"
deflowering(norm, numba="astjax.runtime.numba_cpu:norm")     # astjax/runtime/numba_norms.py


# ------------------------------------------------------------------ einsum
# einsum's rules depend on its subscripts: for a literal subscripts string they are
# written at transformation time, one einsum per operand (operands are named o0, o1, ...).
def _einsum_parts(subscripts, count):
    """(input subscripts, output subscripts), or None for forms the rules do not cover."""
    if not isinstance(subscripts, str) or "." in subscripts:
        return None
    text = subscripts.replace(" ", "")
    if "->" in text:
        left, output = text.split("->")
    else:
        left = text
        letters = left.replace(",", "")
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    inputs = left.split(",")
    if len(inputs) != count or len(set(output)) != len(output) or not set(output) <= set(left):
        return None
    return inputs, output


def einsum_vjp_rule(subscripts, k, count):
    """`by`'s contribution to operand k: an einsum back to k's labels, broadcast where k had summed ones.
    With `...` the labels it stands for depend on the operands' ranks: a helper expands them when it runs."""
    if isinstance(subscripts, str) and "..." in subscripts and _einsum_parts(subscripts.replace("...", ""), count):
        operands = ", ".join(f"o{i}" for i in range(count))
        return f"einsum_ellipsis_adjoint(by, {k}, {subscripts!r}, {operands})"
    parts = _einsum_parts(subscripts, count)
    if parts is None:
        return None
    inputs, output = parts
    mine = inputs[k]
    others = [(i, s) for i, s in enumerate(inputs) if i != k]
    unique = "".join(dict.fromkeys(mine))
    kept = "".join(c for c in unique if c in output or any(c in s for _, s in others))
    spec = ",".join([output] + [s for _, s in others]) + "->" + kept
    names = ", ".join(["by"] + [f"o{i}" for i, _ in others])
    rule = f"jnp.einsum({spec!r}, {names})"
    if unique != mine:
        return _einsum_onto_diagonal(rule, subscripts, mine, kept, k)
    missing = tuple(p for p, c in enumerate(mine) if c not in kept)
    if missing:
        rule = f"jnp.broadcast_to(jnp.expand_dims({rule}, {missing!r}), jnp.shape(o{k}))"
    return rule


def _einsum_onto_diagonal(rule, subscripts, mine, kept, k):
    """Operand k has a repeated label (`'ii->'`, `'iij->j'`): y reads only its diagonal, so the adjoint
    `rule` (over the labels `kept`) is placed on that diagonal: each repeat of a label gets a fresh label
    tied to the first by an identity matrix, and a label summed only in k is spread by a vector of ones."""
    fresh = iter(c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in subscripts)
    labels, specs, factors, seen = [], [kept], [rule], set()
    for p, c in enumerate(mine):
        if c in seen:
            label = next(fresh)
            specs.append(c + label)
            factors.append(f"jnp.eye(jnp.shape(o{k})[{p}])")
            labels.append(label)
            continue
        seen.add(c)
        labels.append(c)
        if c not in kept:
            specs.append(c)
            factors.append(f"jnp.ones(jnp.shape(o{k})[{p}])")
    return f"jnp.einsum({','.join(specs) + '->' + ''.join(labels)!r}, {', '.join(factors)})"


def einsum_jvp_rule(subscripts, k, count):
    """Operand k's tangent term: the same einsum with that operand's tangent in its place (`...` included)."""
    if not isinstance(subscripts, str) or _einsum_parts(subscripts.replace("...", ""), count) is None:
        return None
    names = ", ".join(f"d{i}" if i == k else f"o{i}" for i in range(count))
    return f"jnp.einsum({subscripts!r}, {names})"


# Its adjoint with `...` subscripts: first-order only (no rules of its own, so a second derivative through it
# is refused where it is reached).
primitive("einsum_ellipsis_adjoint", helpers.einsum_ellipsis_adjoint, operands=("g", "operands"),
          sequence_operand="operands", signature=lambda g, k, subscripts, *operands: None)
einsum = primitive("einsum", jnp.einsum, operands=("operands",), sequence_operand="operands",
                   aliases=(np.einsum,), signature=lambda subscripts, *operands, optimize="auto": None)
einsum.sequence_rule_builders = {"vjp": einsum_vjp_rule, "jvp": einsum_jvp_rule,
                                 "static": "subscripts",
                                 "unsupported": ("astjax differentiates einsum for literal subscripts only",
                                                 "write the subscripts as a string literal in the call")}
