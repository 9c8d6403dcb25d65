"""How an adversarial case is judged: never accept a wrong number.

* Values are compared with running the original function (on fresh copies of
  the inputs: mutation cases write into them).
* Derivatives are compared with central finite differences in float64, and
  forward mode with reverse mode where both run.
* A refusal is clear when the exception is an `astjax.errors.AstjaxError`
  whose message names the corpus file and a line of a function defined in it,
  or one of the exception types the case declares (where JAX raises
  TypeError/ValueError) with a message matching the case's pattern.
* Anything else -- a wrong number, a crash with another exception, a hang
  (each case runs under a SIGALRM timeout) -- is a failure.
"""
import ast
import contextlib
import copy
import re
import signal
import sys
import traceback

import numpy as np

import astjax
from astjax.errors import AstjaxError
from closeness import assert_scaled_close

__all__ = ["run_case", "CaseTimeout", "TIMEOUT_S", "fresh", "leaves", "fd_grad", "fd_jacobian",
           "fd_directional", "fd_hessian", "names_a_line_of", "assert_close", "assert_clear_refusal"]

TIMEOUT_S = 20
ATOL = 1e-6

_FLOAT0 = np.dtype([("float0", np.void, 0)])


class CaseTimeout(BaseException):
    """Raised by SIGALRM; a BaseException so that no `except Exception` in astjax swallows it."""


@contextlib.contextmanager
def time_limit(seconds):
    def _on_alarm(signum, frame):
        raise CaseTimeout(f"case ran longer than {seconds} s (a hang?)")
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    # The alarm repeats every second after the first: a CaseTimeout swallowed where Python cannot
    # raise (a weakref callback, a finalizer) is raised again at the next tick.
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ----------------------------------------------------------------- pytrees of inputs
def fresh(tree):
    """A deep copy: arrays copied (dtype kept), containers rebuilt."""
    if isinstance(tree, np.ndarray):
        return tree.copy()
    if isinstance(tree, tuple):
        return type(tree)(*[fresh(t) for t in tree]) if hasattr(tree, "_fields") else tuple(fresh(t) for t in tree)
    if isinstance(tree, list):
        return [fresh(t) for t in tree]
    if isinstance(tree, dict):
        return {k: fresh(v) for k, v in tree.items()}
    return copy.copy(tree)


def leaves(tree):
    """The array leaves of a tuple/list/dict tree, in JAX's order (dict keys sorted)."""
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in leaves(t)]
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in leaves(tree[k])]
    return [tree]


def _rebuild(tree, it):
    if isinstance(tree, tuple):
        items = [_rebuild(t, it) for t in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else tuple(items)
    if isinstance(tree, list):
        return [_rebuild(t, it) for t in tree]
    if isinstance(tree, dict):
        rebuilt = {k: _rebuild(tree[k], it) for k in sorted(tree)}
        return {k: rebuilt[k] for k in tree}
    return next(it)


def replace_leaves(tree, new_leaves):
    return _rebuild(tree, iter(new_leaves))


def _is_float(x):
    return np.issubdtype(np.result_type(x), np.inexact)


# ----------------------------------------------------------------- finite differences
def _scalar_value(fn, args):
    out = fn(*fresh(args))
    if out is None:
        raise TypeError("the original function returned None")
    out = np.asarray(out)
    # A reference computed in float32 makes float64 finite differences meaningless: the case is invalid.
    assert out.dtype != np.float32, "the original function computes in float32: write the case in float64"
    return np.float64(out)


def fd_grad(fn, args, i, h=1e-6):
    """Central differences of scalar fn with respect to every element of every float leaf of args[i]."""
    tree = args[i]
    base = [np.array(leaf, dtype=np.float64) for leaf in leaves(tree)]
    grads = []
    for k, x in enumerate(base):
        g = np.zeros_like(x)
        for idx in np.ndindex(x.shape):
            step = h * max(1.0, abs(x[idx]))
            up, down = x.copy(), x.copy()
            up[idx] += step
            down[idx] -= step
            vals = []
            for moved in (up, down):
                new = [b.copy() for b in base]
                new[k] = moved
                a = list(args)
                a[i] = replace_leaves(tree, new)
                vals.append(_scalar_value(fn, a))
            g[idx] = (vals[0] - vals[1]) / (up[idx] - down[idx])
        grads.append(g)
    return grads


def fd_hessian(fn, args, i=0, h=1e-4):
    """Second central differences of scalar fn with respect to the array args[i]: shape x.shape * 2."""
    x = np.array(args[i], dtype=np.float64)
    n = x.size
    H = np.zeros((n, n))

    def at(v):
        a = list(args)
        a[i] = v.reshape(x.shape)
        return _scalar_value(fn, a)
    flat = x.ravel()
    for p in range(n):
        for q in range(n):
            vals = []
            for sp, sq in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
                v = flat.copy()
                v[p] += sp * h
                v[q] += sq * h
                vals.append(at(v))
            H[p, q] = (vals[0] - vals[1] - vals[2] + vals[3]) / (4 * h * h)
    return H.reshape(x.shape + x.shape)


def _outputs(out):
    return [np.asarray(o, dtype=np.float64) for o in leaves(out)]


def fd_jacobian(fn, args, i, h=1e-6):
    """Jacobians of every output leaf with respect to the (array) argument args[i]: out.shape + in.shape."""
    x = np.array(args[i], dtype=np.float64)
    outs = _outputs(fn(*fresh(args)))
    jacs = [np.zeros(o.shape + x.shape) for o in outs]
    for idx in np.ndindex(x.shape):
        step = h * max(1.0, abs(x[idx]))
        up, down = x.copy(), x.copy()
        up[idx] += step
        down[idx] -= step
        a_up, a_down = list(args), list(args)
        a_up[i], a_down[i] = up, down
        for j, (ou, od) in enumerate(zip(_outputs(fn(*fresh(a_up))), _outputs(fn(*fresh(a_down))))):
            jacs[j][(Ellipsis,) + idx] = (ou - od) / (up[idx] - down[idx])
    return jacs


def fd_directional(fn, args, tangents, argnums, h=1e-6):
    """Central difference of fn's output leaves along `tangents` (trees like args, for argnums)."""
    up, down = list(args), list(args)
    for i in argnums:
        xs = [np.asarray(leaf, dtype=np.float64) for leaf in leaves(args[i])]
        ts = [np.asarray(t, dtype=np.float64) for t in leaves(tangents[i])]
        up[i] = replace_leaves(args[i], [x + h * t for x, t in zip(xs, ts)])
        down[i] = replace_leaves(args[i], [x - h * t for x, t in zip(xs, ts)])
    return [(u - d) / (2 * h) for u, d in zip(_outputs(fn(*fresh(up))), _outputs(fn(*fresh(down))))]


def assert_close(actual, expected, what, rtol=1e-5):
    actual_arr = np.asarray(actual)
    expected_arr = np.asarray(expected, dtype=np.float64)
    assert actual_arr.shape == expected_arr.shape, \
        f"{what}: shape {actual_arr.shape}, expected {expected_arr.shape}"
    assert_scaled_close(actual_arr, expected_arr, rtol, ATOL, what)


# ----------------------------------------------------------------- refusals
# 'File "path", line N' (a traceback's form), 'path at line N', 'path, line N' or 'path:N'.
_LOCATION = re.compile(r'File "([^"]+)", line (\d+)|(/[^\s"\',:]+\.py)(?:,? (?:at )?line |:)(\d+)')
_FUNCTION_LINES = {}


def _function_lines(filename):
    """Line ranges of every function and class defined in a corpus file."""
    if filename not in _FUNCTION_LINES:
        with open(filename) as fh:
            tree = ast.parse(fh.read())
        _FUNCTION_LINES[filename] = [(n.lineno, n.end_lineno) for n in ast.walk(tree)
                                     if isinstance(n, (ast.FunctionDef, ast.Lambda, ast.ClassDef,
                                                       ast.AsyncFunctionDef))]
    return _FUNCTION_LINES[filename]


def names_a_line_of(exc, filename):
    """Whether an astjax error's message names `filename` and a line of a function defined there."""
    for quoted, line, bare, bare_line in _LOCATION.findall(str(exc)):
        f, n = (quoted, line) if quoted else (bare, bare_line)
        if f == filename and any(a <= int(n) <= b for a, b in _function_lines(f)):
            return True
    return False


def assert_clear_refusal(case, exc):
    """`exc` is a clear refusal for `case`, else an AssertionError carrying its traceback."""
    message = str(exc)
    if case.errors and isinstance(exc, case.errors) and re.search(case.error_match or "", message):
        return
    if isinstance(exc, AstjaxError):
        if names_a_line_of(exc, case.file):
            return
        raise AssertionError(f"{case.name}: astjax refused without naming a line of {case.file}:\n"
                             f"{type(exc).__name__}: {message}")
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    raise AssertionError(f"{case.name}: not a clear refusal ({type(exc).__name__}):\n{tb}")


_REFUSALS = []


def _attempt(case, thunk, primary):
    """Run one transformation: its result, or None when it refused clearly (where allowed)."""
    try:
        result = thunk()
    except CaseTimeout:
        raise
    except Exception as exc:  # noqa: BLE001 -- judged just below
        if case.outcome == "works":
            tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            raise AssertionError(f"{case.name}: ordinary code must work, raised {type(exc).__name__}:\n{tb}")
        assert_clear_refusal(case, exc)
        _REFUSALS.append(exc)
        return None
    if primary and case.outcome == "refuse":
        raise AssertionError(f"{case.name}: must be refused, returned {result!r}")
    return result


# ----------------------------------------------------------------- modes
def _zero_tangent(x):
    if _is_float(x):
        return np.zeros(np.shape(x), dtype=np.result_type(x))
    return np.zeros(np.shape(x), dtype=getattr(getattr(astjax, "dtypes", None), "float0", _FLOAT0))


def _tangents(case, args):
    rng = np.random.default_rng(7)
    tangents = []
    for i, a in enumerate(args):
        if i in case.argnums_tuple:
            tangents.append(replace_leaves(a, [rng.standard_normal(np.shape(leaf)) for leaf in leaves(a)]))
        else:
            tangents.append(replace_leaves(a, [_zero_tangent(leaf) for leaf in leaves(a)]) if
                            isinstance(a, (tuple, list, dict)) else _zero_tangent(a))
    return tangents


def _check_grad(case):
    fn, args = case.fn, case.args()
    ref = case.reference or fn
    got = _attempt(case, lambda: astjax.value_and_grad(fn, argnums=case.argnums)(*fresh(args)), primary=True)
    if case.outcome == "refuse":
        return
    expected_value = _scalar_value(ref, args)
    grads_by_arg = None
    if got is not None:
        value, grads = got
        assert_close(value, expected_value, f"{case.name}: value", case.rtol)
        grads = (grads,) if isinstance(case.argnums, int) else tuple(grads)
        assert len(grads) == len(case.argnums_tuple), f"{case.name}: one gradient per argnum"
        grads_by_arg = {}
        for g, i in zip(grads, case.argnums_tuple):
            expected = fd_grad(ref, args, i, case.fd_step)
            actual = leaves(g)
            assert len(actual) == len(expected), f"{case.name}: gradient of argument {i} has the wrong structure"
            for k, (a, e) in enumerate(zip(actual, expected)):
                assert_close(a, e, f"{case.name}: d/d(argument {i}, leaf {k}) vs finite differences", case.rtol)
            grads_by_arg[i] = actual
    if not case.jvp:
        return
    tangents = _tangents(case, args)
    got = _attempt(case, lambda: astjax.jvp(fn, tuple(fresh(args)), tuple(tangents)), primary=False)
    if got is None:
        return
    primal, tangent = got
    assert_close(primal, expected_value, f"{case.name}: primal output of jvp", case.rtol)
    [expected] = fd_directional(ref, args, tangents, case.argnums_tuple, case.fd_step)
    assert_close(tangent, expected, f"{case.name}: jvp vs finite differences", case.rtol)
    if grads_by_arg is not None:
        dot = sum(float(np.vdot(g, np.asarray(t, dtype=np.float64)))
                  for i in case.argnums_tuple for g, t in zip(grads_by_arg[i], leaves(tangents[i])))
        assert_close(tangent, dot, f"{case.name}: jvp vs grad . tangent", case.rtol)


def _check_jac(case):
    fn, args = case.fn, case.args()
    assert isinstance(case.argnums, int), "jac mode takes one argnum"
    expected = fd_jacobian(case.reference or fn, args, case.argnums, case.fd_step)
    primary = True
    for name, transform in (("jacrev", astjax.jacrev), ("jacfwd", astjax.jacfwd)):
        got = _attempt(case, lambda: transform(fn, argnums=case.argnums)(*fresh(args)), primary=primary)
        primary = False
        if got is None:
            continue
        actual = leaves(got)
        assert len(actual) == len(expected), f"{case.name}: {name} returned {len(actual)} Jacobians"
        for k, (a, e) in enumerate(zip(actual, expected)):
            assert_close(a, e, f"{case.name}: {name} output {k} vs finite differences", case.rtol)


def _check_custom(case):
    fn, args = case.fn, case.args()
    triples = _attempt(case, lambda: case.check(fn, args), primary=True)
    if triples is None:
        return
    assert triples, f"{case.name}: the check compared nothing"
    for actual, expected, label in triples:
        if isinstance(expected, np.dtype):
            assert np.result_type(actual) == expected, f"{case.name}: {label}: dtype {np.result_type(actual)}"
        else:
            assert_close(actual, expected, f"{case.name}: {label}", case.rtol)


_MODES = {"grad": _check_grad, "jac": _check_jac, "custom": _check_custom}


def run_case(case, timeout=TIMEOUT_S):
    """Judge one case: "checked" (numbers compared) or "refused" (some transformation refused clearly)."""
    del _REFUSALS[:]
    with time_limit(timeout):
        _MODES[case.mode](case)
    return "refused" if _REFUSALS else "checked"
