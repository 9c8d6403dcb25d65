"""lax.custom_root and lax.custom_linear_solve: a root found by any solver, differentiated by the implicit
function theorem.

    y = lax.custom_root(f, x0, solve, tangent_solve)      # y = solve(f, x0), with f(y) = 0

Run directly, `custom_root` calls `solve(f, x0)` (this file). Inside a transformed function the call is
rewritten by normalize/custom_roots.py into a call of a `custom_jvp` function made for that call site
(`root_function` below), whose arguments are the values f, solve and tangent_solve read from the
enclosing function. Its rule is JAX's: with y the root of f(y, theta) = 0 and J = df/dy at y,

    dy = -J^-1 (df/dtheta . dtheta),   J^-1 applied by tangent_solve(v -> J v, rhs)

written as generated Python that calls the custom function itself, so astjax differentiates the rule
again for higher orders, as JAX does. The solver's own steps are never differentiated; the initial guess
and the values solve and tangent_solve read get no derivative (as in JAX). custom_linear_solve is the
root of `x -> matvec(x) - b` with solve as its tangent_solve.
"""
import numbers

import numpy as np
from ..codegen.node_walk import walk

__all__ = ["custom_root", "custom_linear_solve"]


def custom_root(f, initial_guess, solve, tangent_solve, has_aux=False):
    """`solve(f, initial_guess)`: a root of f (with has_aux, solve returns (root, aux))."""
    out = solve(f, initial_guess)
    if has_aux:
        _check_aux_pair(out)
    return out


def custom_linear_solve(matvec, b, solve, transpose_solve=None, symmetric=False, has_aux=False):
    """`solve(matvec, b)`: x with matvec(x) = b (with has_aux, solve returns (x, aux)). Under a transformation
    it is `custom_root` of `x -> matvec(x) - b` whose tangent_solve is solve itself (normalize/custom_roots.py);
    transpose_solve and symmetric only make JAX's reverse mode cheaper and are not called."""
    out = solve(matvec, b)
    if has_aux:
        _check_aux_pair(out)
    return out


custom_root.__astjax_normalized_as__ = ("a custom_jvp function of the values it closes over, differentiated by the "
                                       "implicit function theorem (normalize/custom_roots.py)")


custom_linear_solve.__astjax_normalized_as__ = ("lax.custom_root of `x -> matvec(x) - b` with solve as its "
                                               "tangent_solve (normalize/custom_roots.py)")


def _check_aux_pair(out):
    if not (isinstance(out, (tuple, list)) and len(out) == 2):
        raise TypeError("lax.custom_root with has_aux=True: solve must return a pair (root, aux), "
                        f"got {type(out).__name__}")


def root_function(label, nodes, namespace, counts, has_aux, origin, line):
    """The custom_jvp function standing for one `lax.custom_root` call site, and with has_aux one giving
    its aux (a second custom_jvp function whose tangent is zero; solve runs once for each).

    Its arguments are (x0, *theta, *solve_values, *tsolve_values), `counts` = (len(theta),
    len(solve_values), len(tsolve_values)). `nodes` are the user's three functions as generated definitions
    with what they read from the enclosing function made parameters (normalize/custom_roots.py):
    `_custom_root_f(y, *theta)`, `_custom_root_solve(f, x0, *solve_values)` and
    `_custom_root_tsolve(v, *tsolve_values, y, *theta)`, which calls `_custom_root_map(y, *theta, u)` where
    the user's tangent_solve called its linear map. They are compiled into `namespace` (the user's names)
    next to the rule, so that each reads the others."""
    import gast

    from ..backends.python import compile_function
    from ..custom_derivatives import custom_jvp
    from ..forward import jvp
    from .. import numpy as jnp
    n_theta, n_solve, n_tsolve = counts

    def at_call(text):
        """A generated definition whose statements all stand for the user's custom_root call (errors name it)."""
        node = gast.parse(text).body[0]
        for child in walk(node):
            if hasattr(child, "lineno"):
                child.lineno, child.end_lineno = line, line
        return node
    theta = [f"_theta{i}" for i in range(n_theta)]
    svals = [f"_solve{i}" for i in range(n_solve)]
    tvals = [f"_tsolve{i}" for i in range(n_tsolve)]
    for node in nodes:
        fn, _ = compile_function(node, namespace, label=f"{label}{node.name[12:]}", origin=origin)
        fn.__astjax_function_source__.user_code = True    # the user's code: normalize/aliasing.py checks it
    solve_cc = namespace["_custom_root_solve"]
    # the f solve is given: a closure with source, so that a solver differentiating f (Newton) can
    binder = (f"def _custom_root_bind({''.join(t + ', ' for t in theta)}):\n"
              f"    def f(y):\n"
              f"        return _custom_root_f(y{''.join(', ' + t for t in theta)})\n"
              f"    return f\n")
    compile_function(at_call(binder), namespace, label=f"{label}_f_at", origin=origin)

    memo = {}              # the last root, kept only while custom.repeated_calls() is open (see below)

    def solved(x0, values):
        if memo.get("open"):
            key = _key((x0,) + tuple(values))
            if key is not None and memo.get("key") == key:
                return memo["out"]
            out = solve_once(x0, values)
            memo.update(key=key, out=out)
            return out
        return solve_once(x0, values)

    def solve_once(x0, values):
        _check_values(label, values)
        th, sv = values[:n_theta], values[n_theta:n_theta + n_solve]
        out = solve_cc(namespace["_custom_root_bind"](*th), x0, *sv)
        if has_aux:
            _check_aux_pair(out)
            _check_aux(label, out[1])
            out = (out[0], jnp.asarray(out[1]))
        _check_root(label, out[0] if has_aux else out)
        return out

    def fun(x0, *values):
        out = solved(x0, values)
        return jnp.asarray(out[0] if has_aux else out)

    def aux_fun(x0, *values):
        return solved(x0, values)[1]

    def aux_jvp(primals, tangents):
        aux = aux_fun(*primals)
        return aux, jnp.zeros_like(aux)

    fun.__name__, aux_fun.__name__ = label, f"{label}_aux"
    custom = custom_jvp(fun)
    custom.repeated_calls = lambda: _Memo(memo)    # transposed_jvp runs the rule per entry at the same point
    args = ", ".join(["_x0"] + theta + svals + tvals)
    tangents = ", ".join(["_dx0"] + ["_d" + t for t in theta] + ["_ds" for _ in svals] + ["_dt" for _ in tvals])
    at = ", ".join(["_y"] + theta)
    zero_theta = "".join(f", _custom_root_jnp.zeros_like({t})" for t in theta)
    dtheta = "".join(f", _d{t}" for t in theta)
    rule = (f"def {label}_jvp(primals, tangents):\n"
            f"    {args}, = primals\n"
            f"    {tangents}, = tangents\n"
            f"    _y = _custom_root({args})\n"
            f"    _rhs = _custom_root_jvp(_custom_root_f, ({at},), (_custom_root_jnp.zeros_like(_y){dtheta},))[1]\n"
            f"    _dy = -_custom_root_tsolve(_rhs, {''.join(t + ', ' for t in tvals)}{at})\n"
            f"    return _y, _dy\n")
    linear_map = (f"def _custom_root_map({at}, _v):\n"
                  f"    return _custom_root_jvp(_custom_root_f, ({at},), (_v{zero_theta},))[1]\n")
    namespace.update({"_custom_root": custom, "_custom_root_jvp": jvp, "_custom_root_jnp": jnp})
    compile_function(at_call(linear_map), namespace, label=f"{label}_linear_map", origin=origin)
    custom.defjvp(compile_function(at_call(rule), namespace, label=f"{label}_jvp", origin=origin)[0])
    if not has_aux:
        return custom, None
    aux = custom_jvp(aux_fun)
    aux.defjvp(aux_jvp)          # aux carries no derivative, as in JAX
    return custom, aux


class _Memo:
    """While open, a root solved at the same arguments (equal values, dtypes and shapes) is solved once:
    the reverse mode of a custom_jvp function runs its rule once per input entry at one point."""

    def __init__(self, memo):
        self.memo = memo

    def __enter__(self):
        self.outer = self.memo.get("open", False)
        self.memo["open"] = True

    def __exit__(self, *exc):
        if not self.outer:
            self.memo.clear()


def _key(values):
    key = []
    for v in values:
        a = np.asarray(v)
        if a.dtype == object:
            return None
        key.append((a.dtype.str, a.shape, a.tobytes()))
    return tuple(key)


def _check_values(label, values):
    from ..errors import RuntimeRefusal
    for v in values:
        if not (isinstance(v, numbers.Number) or hasattr(v, "dtype")):
            raise RuntimeRefusal(
                f"lax.custom_root ({label}): a function passed to it reads a {type(v).__name__} from the enclosing "
                "function; astjax supports arrays and numbers there (pass other values through module-level names)")


def _check_root(label, y):
    from ..errors import RuntimeRefusal
    if not (isinstance(y, numbers.Number) or hasattr(y, "dtype")):
        raise RuntimeRefusal(f"lax.custom_root ({label}): the root must be one array or number (astjax does not "
                             f"differentiate a pytree of roots), got {type(y).__name__}")
    if not np.issubdtype(np.asarray(y).dtype, np.floating):
        raise RuntimeRefusal(f"lax.custom_root ({label}): the root must be a float array, got {np.asarray(y).dtype}")


def _check_aux(label, aux):
    from ..errors import RuntimeRefusal
    if not (isinstance(aux, numbers.Number) or hasattr(aux, "dtype")):
        raise RuntimeRefusal(f"lax.custom_root ({label}): with has_aux, astjax supports one array or number as "
                             f"aux, got {type(aux).__name__}")
