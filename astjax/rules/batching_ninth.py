"""Batching rules (vmap) of the ninth batch: scipy.linalg primitives that still looped over the batch.

- `expm_frechet` (`expm_frechet_pair`): its implementation is already the exponential of the block matrix
  [[A, E], [0, A]] read on its top blocks, written on the last two axes, so the same call on the batch (an
  unbatched operand repeated) gives every example's blocks; its derivative rules read the last two axes too;
- `solve_sylvester` of m x m A, n x n B and m x n C: A X + X B = C is one (m n) x (m n) linear system,
  K vec(X) = vec(C) with K[(i, j), (k, l)] = A[i, k] [j = l] + [i = k] B[l, j] (row-major vec), solved as a
  stack of matrices by `jnp.linalg.solve`; the system costs (m n)^3 per example, so it is used while m n is
  at most SYLVESTER_SYSTEM_LIMIT (decided when it runs) and the loop, SciPy's Bartels-Stewart, above it;
- `eigh_tridiagonal` with `eigvals_only=True`: `eigvalsh` of the stack of dense tridiagonal matrices
  (ascending, as SciPy's). Its eigenvectors keep the loop: each is defined up to its sign, and LAPACK's
  tridiagonal solver and the dense one pick different signs, so no stacked computation gives SciPy's.

Each rule writes primitives on the whole batch (so `grad(vmap(f))` and `vmap(vmap(f))` transform its output
again); where an operand's rank is not 2 (1 for eigh_tridiagonal's) when it runs, the loop over the batch,
which is always right, runs instead. tests/test_vmap_rules_batch9.py checks each against a Python loop.
"""
import gast

from ..analyses.batching import ARRAY
from .batching import _call, _const, _is_const, _name
from .batching_axes import _rebuilt, register_family
from .batching_fourth import _others_unbatched
from .batching_sixth import batch_float_dtype
from .registry import PRIMITIVES

__all__ = ["EDITS", "SYLVESTER_SYSTEM_LIMIT"]

# m n at most this: the (m n) x (m n) system of a Sylvester equation costs about (m n)^3 / 3 per example
# (5.6 million multiply-adds at 256), SciPy's Schur route about 10 (m^3 + n^3)
SYLVESTER_SYSTEM_LIMIT = 256


def _operands(bt, app, names):
    """The operands `names`, each a name or a literal, with the batch (an unbatched one repeated along it), and
    the statements that repeat them; None where one is not a name or constant or none is batched."""
    nodes = [app.bound.get(n) for n in names]
    if any(not isinstance(n, (gast.Name, gast.Constant)) for n in nodes) or not any(bt.is_batched(n) for n in nodes):
        return None, None
    if any(bt.is_batched(n) and bt.kind(n) != ARRAY for n in nodes):
        return None, None
    out = []
    return [bt.batched(n, out) for n in nodes], out


def _ranks_test(names, rank):
    """`jnp.ndim(a) == rank + 1 and ...` over the batched `names`."""
    tests = [gast.Compare(left=_call("jnp.ndim", _name(n.id)), ops=[gast.Eq()], comparators=[_const(rank + 1)])
             for n in names]
    return tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)


def _parsed(template, **names):
    """The statements of `template` with `{key}` replaced by the identifiers `names`."""
    return gast.parse(template.format(**names)).body


def _guarded(bt, target, app, test, body):
    """`if test: body else: the loop over the batch`."""
    return [gast.If(test=test, body=body, orelse=bt.loop_statement(None, target, app.node))]


# ---------------------------------------------------------------- expm_frechet
def _expm_frechet_rule(bt, target, app):
    """expm_frechet(A, E) with A or E batched (method and check_finite as given, compute_expm a literal): the
    same call on the batch, A and E matrices of every example (checked when it runs, else the loop)."""
    b = app.bound
    if not isinstance(b.get("compute_expm", _const(True)), gast.Constant) or not _others_unbatched(bt, app, "A", "E"):
        return None
    operands, out = _operands(bt, app, ("A", "E"))
    if operands is None:
        return None
    body = [bt.assign(target, _rebuilt(bt, app, {"A": operands[0], "E": operands[1]}))]
    return out + _guarded(bt, target, app, _ranks_test(operands, 2), body)


def _expm_frechet_result(batching, bound):
    both = bound.get("compute_expm", _const(True))
    if not isinstance(both, gast.Constant):
        return None, None
    return ((2, 2), None) if both.value else (ARRAY, 2)


# ---------------------------------------------------------------- solve_sylvester
_SYLVESTER = """
{m} = jnp.shape({A})[-1]
{n} = jnp.shape({B})[-1]
{terms} = (jnp.expand_dims({A}, (2, 4)) * jnp.expand_dims(jnp.eye({n}), (0, 1, 3))
       + jnp.expand_dims(jnp.eye({m}), (0, 2, 4)) * jnp.expand_dims(jnp.swapaxes({B}, -1, -2), (1, 3)))
{K} = jnp.reshape({terms}, ({size}, {m} * {n}, {m} * {n}))
{x} = jnp.linalg.solve({K}, jnp.reshape({C}, ({size}, {m} * {n}, 1)))
{target} = jnp.astype(jnp.reshape({x}, ({size}, {m}, {n})), {dtype}({A}, {B}, {C}))
"""


def _solve_sylvester_rule(bt, target, app):
    """solve_sylvester(A, B, C) with any of them batched: the stack of (m n) x (m n) systems (module docstring)
    solved by `jnp.linalg.solve`, cast to the float dtype of each example's result (float32 for float32 or
    integer operands), while every operand is a matrix and m n <= SYLVESTER_SYSTEM_LIMIT; else the loop."""
    if not _others_unbatched(bt, app, "A", "B", "C"):
        return None
    operands, out = _operands(bt, app, ("A", "B", "C"))
    if operands is None:
        return None
    dtype = bt.helper(batch_float_dtype).id
    a, b_, c = (n.id for n in operands)
    m, n = bt.fresh("_m"), bt.fresh("_n")
    body = _parsed(_SYLVESTER, A=a, B=b_, C=c, m=m, n=n, K=bt.fresh("_system"), terms=bt.fresh("_terms"), x=bt.fresh("_solution"),
                   size=bt.B.id, target=target, dtype=dtype)
    sizes = _parsed("jnp.shape({A})[-1] * jnp.shape({B})[-1] <= {limit}", A=a, B=b_, limit=SYLVESTER_SYSTEM_LIMIT)[0].value
    test = gast.BoolOp(op=gast.And(), values=[_ranks_test(operands, 2), sizes])
    return out + _guarded(bt, target, app, test, body)


# ---------------------------------------------------------------- eigh_tridiagonal, eigenvalues only
_TRIDIAGONAL_EIGENVALUES = """
{n} = jnp.shape({d})[-1]
{upper} = jnp.expand_dims(jnp.pad({e}, ((0, 0), (0, 1))), -1) * jnp.eye({n}, k=1)
{T} = jnp.expand_dims({d}, -1) * jnp.eye({n}) + {upper} + jnp.swapaxes({upper}, -1, -2)
{target} = jnp.astype(jnp.linalg.eigvalsh({T}), {dtype}({d}, {e}))
"""


def _eigh_tridiagonal_rule(bt, target, app):
    """eigh_tridiagonal(d, e, eigvals_only=True) with d or e batched, every other argument its default:
    eigvalsh of the stack of dense tridiagonal matrices, in the float dtype of each example's result, while d
    and e are vectors (checked when it runs, else the loop). Eigenvectors keep the loop (module docstring)."""
    b = app.bound
    if not _is_const(b.get("eigvals_only", _const(False)), True) or not _others_unbatched(bt, app, "d", "e"):
        return None
    for key, default in (("select", "a"), ("select_range", None), ("lapack_driver", "auto")):
        if not _is_const(b.get(key, _const(default)), default):
            return None
    if not _is_const(b.get("tol", _const(None)), None):
        return None
    operands, out = _operands(bt, app, ("d", "e"))
    if operands is None:
        return None
    dtype = bt.helper(batch_float_dtype).id
    d, e = (n.id for n in operands)
    body = _parsed(_TRIDIAGONAL_EIGENVALUES, d=d, e=e, n=bt.fresh("_n"), upper=bt.fresh("_upper"),
                   T=bt.fresh("_tridiagonal"), target=target, dtype=dtype)
    return out + _guarded(bt, target, app, _ranks_test(operands, 1), body)


# ---------------------------------------------------------------- custom_jvp_transpose
def _custom_jvp_transpose_rule(bt, target, app):
    """custom_jvp_transpose(f, g, primals) (reverse mode of a custom_jvp f, in vmap(grad(...))) with a batched
    tuple of arrays `primals` (a tuple vmap builds carries the batch in every item): the same call of the
    custom_jvp built for the batch (custom_jvp_batching.py), which transposes f's rule once per entry of one
    example, each rule call over the whole batch, g repeated along the batch where it is not batched."""
    from ..custom_derivatives import custom_jvp
    from ..custom_jvp_batching import batched_custom_jvp
    b = app.bound
    custom, primals = bt.static(b.get("custom")), b.get("primals")
    kind = bt.kind(primals) if isinstance(primals, gast.Name) else None
    if not isinstance(custom, custom_jvp) or custom.jvp is None or custom.nondiff_argnums or not isinstance(
            kind, tuple) or not kind or not all(k == ARRAY or isinstance(k, int) for k in kind) or \
            not bt.is_batched(primals) or bt.is_batched(b.get("custom")) or b.get("g") is None:
        return None
    out = []
    g = bt.batched(b["g"], out)
    label = bt.helper(batched_custom_jvp(custom, (0,) * len(kind)))
    return out + [bt.assign(target, _rebuilt(bt, app, {"custom": label, "g": g}))]


def _custom_jvp_transpose_result(batching, bound):
    """One cotangent per primal, of its rank."""
    kind = batching.kind(bound.get("primals"))
    return (kind, None) if isinstance(kind, tuple) else (None, None)


EDITS = {
    "expm_frechet_pair": (_expm_frechet_rule, _expm_frechet_result),
    "solve_sylvester": (_solve_sylvester_rule, lambda batching, bound: (ARRAY, 2)),
    "custom_jvp_transpose": (_custom_jvp_transpose_rule, _custom_jvp_transpose_result),
    "eigh_tridiagonal": (_eigh_tridiagonal_rule, lambda batching, bound: (
        (ARRAY, 1) if _is_const(bound.get("eigvals_only", _const(False)), True) else (None, None))),
}


def _register():
    register_family(EDITS)
    PRIMITIVES["custom_jvp_transpose"].batch.reads_tuples = ("primals",)     # read by the rule, item by item


_register()
