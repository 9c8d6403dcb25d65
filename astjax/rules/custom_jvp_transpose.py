"""Reverse mode of a custom_jvp function: the transpose of its jvp rule, as one primitive.

    y = f(x)   (f a custom_jvp)   ->   adjoint sweep:  _b = custom_jvp_transpose(f, by, (x,)); bx += _b[0]

`custom_jvp_transpose` (custom_derivatives.custom_jvp.transposed_jvp) runs the rule
once per input entry: it is J(x)^T g, where J(x) t = rule((x,), (t,))[1].

Second derivatives (hessian of a function calling f) differentiate the rule itself, as JAX does:

    d(J^T g)/dg . dg   = J^T dg                                    (the same transpose)
    adjoint of g       = J(x) by = rule(x, by)[1]                  (custom_jvp_apply)
    adjoint of x       = grad_x <g, rule(x, by)[1]>                (custom_jvp_rule_gradient)
    tangent from dx    = d/de [J(x + e dx)^T g]                    (custom_jvp_rule_curvature)

the last two by astjax's own grad and jvp of a one-line function pairing g with the rule's tangent
output, so the rule must be differentiable Python. Those helpers have no rules of their own: a third
derivative through a custom_jvp function is refused where it is reached.
"""
import numpy as np

from .registry import defjvp, defvjp, primitive

__all__ = ["custom_jvp_transpose", "custom_jvp_apply", "custom_jvp_rule_gradient", "custom_jvp_rule_curvature"]


def custom_jvp_transpose(custom, g, primals):
    """The cotangents of `custom`'s arguments `primals` for its output's cotangent `g`."""
    return custom.transposed_jvp(g, *primals)


def _tangents(t, primals):
    """An adjoint or tangent of the tuple of cotangents (a TreeAdjoint, a tuple, a bare zero) as one tangent
    per primal, zeros where nothing reached it."""
    from .helpers import materialize
    if isinstance(t, (tuple, list)):         # a tuple of tangents: each filled out to its primal's shape
        return tuple(materialize(item, p) for item, p in zip(t, primals))
    return tuple(materialize(t, tuple(primals)))


def custom_jvp_apply(custom, primals, t):
    """J(primals) t: the rule's tangent output for the tangents `t` (the transpose of custom_jvp_transpose in g)."""
    return custom.jvp(tuple(primals), _tangents(t, primals))[1]


_PAIRINGS = {}


def _pairing(custom):
    """`pair(primals, tangents, g) = sum(g * rule(primals, tangents)[1])`, as a generated function with source
    (so astjax's grad and jvp read it), one per custom_jvp function."""
    if custom not in _PAIRINGS:
        import gast

        from .. import numpy as jnp
        from ..backends.python import compile_function
        node = gast.parse("def pair(primals, tangents, g):\n"
                          "    return jnp.sum(g * rule(primals, tangents)[1])\n").body[0]
        fn, _ = compile_function(node, {"jnp": jnp, "rule": custom.jvp}, label=f"{custom.__name__}_rule_pairing")
        _PAIRINGS[custom] = fn
    return _PAIRINGS[custom]


def _check_float(custom, primals):
    from ..errors import RuntimeRefusal
    if any(isinstance(p, (dict, list, tuple)) for p in primals):
        raise RuntimeRefusal(f"a second derivative through custom_jvp function `{custom.__name__}` with a dict, list "
                             "or tuple argument is not supported; pass its arrays as separate arguments")
    if not all(np.issubdtype(np.asarray(p).dtype, np.inexact) for p in primals):
        raise RuntimeRefusal(f"a second derivative through custom_jvp function `{custom.__name__}` with an integer "
                             "argument is not supported; pass float arguments")


def custom_jvp_rule_gradient(custom, g, primals, by):
    """grad over the primals of <g, rule(primals, by)[1]>: the adjoint of the primals of custom_jvp_transpose."""
    from ..api import grad
    from .helpers import TreeAdjoint
    _check_float(custom, primals)
    gradient = grad(_pairing(custom))(tuple(primals), _tangents(by, primals), g)
    return TreeAdjoint(dict(enumerate(gradient)))


def custom_jvp_rule_curvature(custom, g, primals, dprimals):
    """d/de [J(primals + e dprimals)^T g]: the tangent of custom_jvp_transpose from its primals, entry by entry
    (the rule's tangent output paired with g, differentiated along dprimals at each unit tangent)."""
    _check_float(custom, primals)
    pair = _pairing(custom)
    primals = tuple(np.asarray(p) for p in primals)
    directions = _tangents(dprimals, primals)
    g = np.asarray(g, dtype=np.result_type(np.asarray(g), np.float32))
    zeros = tuple(np.zeros(p.shape, dtype=p.dtype) for p in primals)
    out = []
    with custom.repeated_calls():
        for i, p in enumerate(primals):
            out.append(_curvature_part(custom, pair, primals, directions, zeros, g, i, p))
    from .decompositions import TangentTuple
    return TangentTuple(out)       # added to the other tangent term item by item, not concatenated


def _curvature_part(custom, pair, primals, directions, zeros, g, i, p):
    """Primal i's part of custom_jvp_rule_curvature."""
    from ..forward import jvp
    part = np.zeros(p.shape, dtype=np.result_type(p, g))
    for j in np.ndindex(p.shape):
        unit = list(zeros)
        unit[i] = np.zeros(p.shape, dtype=p.dtype)
        unit[i][j] = 1
        # along dprimals only: the unit tangent and g are held (zero tangents)
        part[j] = jvp(pair, (primals, tuple(unit), g), (directions, zeros, np.zeros_like(g)))[1]
    return part


_prim = primitive("custom_jvp_transpose", custom_jvp_transpose, operands=("g", "primals"))
defvjp(_prim, "bg += custom_jvp_apply(custom, primals, by)",
       "bprimals += custom_jvp_rule_gradient(custom, g, primals, by)")
defjvp(_prim, "dy = custom_jvp_transpose(custom, dg, primals) + custom_jvp_rule_curvature(custom, g, primals, dprimals)")
_prim.accepts_scalar_zero = True

# J t is linear in t: its transpose is custom_jvp_transpose again. The gradient and curvature of the rule
# have no derivative of their own (a third derivative through a custom_jvp function is refused when reached).
_apply = primitive("custom_jvp_apply", custom_jvp_apply, operands=("t",))
defvjp(_apply, "bt += custom_jvp_transpose(custom, by, primals)")
defjvp(_apply, "dy = custom_jvp_apply(custom, primals, dt)")
_THIRD = "'a third derivative through a custom_jvp function'"
for _fn, _operands in ((custom_jvp_rule_gradient, ("g", "primals", "by")),
                       (custom_jvp_rule_curvature, ("g", "primals", "dprimals"))):
    _p = primitive(_fn.__name__, _fn, operands=_operands)
    defvjp(_p, *[f"b{o} += no_higher_derivative(by, {_THIRD})" for o in _operands])
    defjvp(_p, *[f"d{o} -> no_higher_derivative(d{o}, {_THIRD})" for o in _operands])

NAMES = {f.__name__: f for f in (custom_jvp_transpose, custom_jvp_apply, custom_jvp_rule_gradient,
                                 custom_jvp_rule_curvature)}
