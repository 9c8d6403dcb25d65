"""Complex flow: which names hold complex values, and where a derivative may carry one.

astjax's rules are written for real numbers. The FFTs make complex values (so
do a complex literal operand of + - * /, `roots`, `eig`, and a helper whose
source makes one), and a few rules are right for them too in JAX's convention
(the cotangent of z = u + iv is dL/du - i dL/dv): the transforms themselves,
`+ - * /`, negation, `sum`, indexing, reshape, transpose, the shifts, and
abs / real / imag / conj in their complex form (rules/complex_parts.py). This
analysis finds the names that may hold a complex value (a list holding one
too; by name, ignoring statement order: a name is complex if some
statement makes it so; the complex forms' rules stay right where such a name
holds a real value, taking real parts by the runtime dtype) and refuses, at
the user's line, a derivative that would carry a complex value anywhere else:
there the real-number rules would give a silently wrong number.
"""
import gast

from ..rules.fft import COMPLEX_RESULT, REAL_INPUT, TAKES_COMPLEX
from ..codegen.node_walk import walk

__all__ = ["complex_names", "complex_flow_refusal", "complex_twin", "may_make_complex", "is_complex_literal"]

# Primitives whose rules are right for complex operands and whose result is complex when an operand is.
COMPLEX_KEEPING = frozenset({"complex_add", "complex_subtract", "complex_multiply", "complex_divide", "negative",
                             "positive", "sum", "fftshift", "ifftshift", "complex_conjugate",
                             "getitem", "index_adjoint", "reshape", "transpose",
                             "unbroadcast", "unbroadcast_to", "unreduce"})     # the last three: adjoint code
# Primitives whose result is complex whatever their operands, or typed like their parameter `like`.
ALWAYS_COMPLEX = COMPLEX_RESULT | {"times_minus_i"}
TYPED_LIKE = frozenset({"fft_adjoint", "real_if_real"})
# Primitives that take a complex value to a real one, with rules right for that.
TO_REAL = frozenset({"complex_abs", "complex_real", "complex_imag"})
ALLOWED = COMPLEX_KEEPING | TO_REAL | TAKES_COMPLEX | ALWAYS_COMPLEX | TYPED_LIKE | {"fft_apply"}
_MESSAGE = ("a derivative would carry a complex value through {what}; astjax "
            "differentiates complex values only through the FFTs, + - * /, negation, sum, indexing, reshape, "
            "transpose, fftshift, and abs / real / imag / conj")
_HINT = "take abs, real or imag of the transform first, and apply other functions to that real value."


def _complex_callables():
    """Library functions (not primitives) whose result is complex: their values may meet a derivative."""
    import numpy as np
    from .. import numpy as jnp
    return {jnp.roots, jnp.poly, jnp.sort_complex, jnp.linalg.eig, jnp.linalg.eigvals,
            np.roots, np.poly, np.sort_complex, np.linalg.eig, np.linalg.eigvals}


def _kind_of(app):
    node = app.bound.get("kind")
    return node.value if isinstance(node, gast.Constant) else None


_MEMO = {}      # callee -> may_make_complex, for the length of one complex_flow_refusal


def _may_make_complex_once(fn):
    try:
        if fn not in _MEMO:
            _MEMO[fn] = may_make_complex(fn)
        return _MEMO[fn]
    except TypeError:       # an unhashable callee
        return may_make_complex(fn)


def may_make_complex(fn, seen=None):
    """Whether a user function's source could make a complex value: an FFT, a complex-valued library call,
    a complex literal, dtype or global, or a call of a function that could (conservative: unreadable -> True)."""
    from ..frontend.context import FunctionContext
    from ..frontend.parse import function_source
    from ..frontend.resolve import NOT_STATIC
    from ..rules import lookup_callable
    from .classify import _COMPLEX_NAMES, is_library
    import numpy as np
    seen = set() if seen is None else seen
    if fn in seen:
        return False
    seen.add(fn)
    if getattr(fn, "__module__", None) in ("astjax.api", "astjax.forward"):
        return False               # astjax.jvp / vjp / linearize called directly: derivatives are real (complex refused)
    transform = getattr(fn, "__astjax_transform__", None)
    if transform is not None:      # vmap and jit return what their function does; derivatives are real
        inner = getattr(transform, "fun", None) or getattr(getattr(transform, "jitted", None), "fun", None)
        kind = type(transform).__name__
        if "Vmap" in kind or "Jit" in kind:
            return True if inner is None else may_make_complex(inner, seen)
        return False
    if getattr(getattr(fn, "__astjax_function_source__", None), "real_valued", False):
        return False               # generated derivative code (jvp_f, vjp_f): its transformation checked it
    try:
        source = function_source(getattr(fn, "__wrapped__", fn))
        resolver = FunctionContext(source).resolver
    except Exception:       # no source to read: a transformed function's results are real; others unknown
        return not hasattr(fn, "__astjax_transform__")
    for node in walk(source.node):
        if isinstance(node, gast.Constant) and (isinstance(node.value, complex) or node.value in _COMPLEX_NAMES):
            return True
        if not isinstance(node, (gast.Name, gast.Attribute)):
            continue
        found = resolver.static_value(node)
        if found is NOT_STATIC or found is None:
            continue
        if getattr(found, "__astjax_static_call__", False):
            continue        # astjax.jacfwd(f) and its kin build a transformation: its results are real (above)
        if (found is complex or isinstance(found, complex)
                or (isinstance(found, type) and issubclass(found, np.complexfloating))
                or (isinstance(found, (np.ndarray, np.generic)) and found.dtype.kind == "c")
                or _is_complex_callable(found)):
            return True
        prim = lookup_callable(found) if callable(found) else None
        if prim is not None and prim.name in COMPLEX_RESULT:
            return True
        if (prim is None and callable(found) and hasattr(found, "__code__") and not is_library(found)
                and may_make_complex(found, seen)):
            return True
    return False


def _is_complex_callable(fn):
    try:
        return fn in _complex_callables()
    except TypeError:       # an unhashable callee
        return False


_BINARY = frozenset({"add", "subtract", "multiply", "divide", "complex_add", "complex_subtract", "complex_multiply",
                     "complex_divide"})


def is_complex_literal(node):
    """`1j`, `-2j`, `(1 + 2j)` written in place (a constant operand of + - * /)."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
        node = node.operand
    return isinstance(node, gast.Constant) and isinstance(node.value, complex)


def _name(node):
    return node.id if isinstance(node, gast.Name) else None


def _read_names(app):
    return {n.id for _, node in app.operand_nodes() for n in walk(node) if isinstance(n, gast.Name)}


def _makes_complex(app, complex_, varied=frozenset()):
    """Whether a statement's value may be complex, given the names known complex so far.

    A call of your own function whose arguments carry a derivative is differentiated itself, and
    refuses there to return a complex value; one whose do not may return one if its source makes one."""
    name = app.primitive.name if app.kind == "primitive" else None
    if app.kind == "opaque" and _is_complex_callable(app.callee):
        return True
    if app.kind == "function" and not _read_names(app) & varied and _may_make_complex_once(app.callee):
        return True
    if name in ALWAYS_COMPLEX:
        return True
    if name == "fft_apply":
        return _kind_of(app) in COMPLEX_RESULT
    if name in TYPED_LIKE:
        return _name(app.bound.get("like")) in complex_
    if name in _BINARY and any(is_complex_literal(app.bound.get(p)) for p in ("x1", "x2")):
        return True
    if not _read_names(app) & complex_:
        return False
    if name in TO_REAL or name in TAKES_COMPLEX - COMPLEX_RESULT:
        return False
    return not (app.kind == "primitive" and not app.primitive.differentiable)


def complex_names(function_node, resolver, varied=frozenset()):
    """The names of `function_node` that may hold a complex value, and their assignments [(target, app, node)]."""
    from .classify import classify
    assignments = [(node.targets[0].id, classify(node.value, resolver), node) for node in walk(function_node)
                   if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name)]
    stores = _container_stores(function_node)
    found = set()
    changed = True
    while changed:
        changed = False
        for target, app, _ in assignments:
            if target not in found and _makes_complex(app, found, varied):
                found.add(target)
                changed = True
        for container, names in stores:     # `xs.append(z)`, `xs[i] = z`: xs holds a complex value
            if container not in found and names & found:
                found.add(container)
                changed = True
    return found, assignments


def _container_stores(function_node):
    """(container name, names stored into it) for `xs.method(...)` calls and `xs[i] = v` assignments."""
    stores = []
    for node in walk(function_node):
        if (isinstance(node, gast.Expr) and isinstance(node.value, gast.Call)
                and isinstance(node.value.func, gast.Attribute) and isinstance(node.value.func.value, gast.Name)):
            call = node.value
            stored = [*call.args, *(k.value for k in call.keywords)]
            stores.append((call.func.value.id, {n.id for a in stored for n in walk(a) if isinstance(n, gast.Name)}))
        elif (isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Subscript)
              and isinstance(node.targets[0].value, gast.Name)):
            stores.append((node.targets[0].value.id, {n.id for n in walk(node.value) if isinstance(n, gast.Name)}))
    return stores


def complex_flow_refusal(function_node, resolver, activity, needed, forward):
    """(message, hint, node) for the first statement that would carry a complex value where no rule is right, else None.

    Also records the complex names on the resolver, so that `classify` picks the
    complex forms of abs / real / imag / conj (`complex_twin`).
    """
    resolver.complex_names = frozenset()
    _MEMO.clear()
    found, assignments = complex_names(function_node, resolver, activity.varied)
    for _ in range(8):          # again with the complex forms of abs/real/imag classified, until it settles
        if not found or found == resolver.complex_names:
            break
        resolver.complex_names = frozenset(found)
        found, assignments = complex_names(function_node, resolver, activity.varied)
    resolver.complex_names = frozenset(found)
    _MEMO.clear()
    if not found:
        return None
    varied_complex = found & activity.varied
    params = {a.id for a in walk(function_node.args) if isinstance(a, gast.Name)} \
        if hasattr(function_node, "args") else set()
    for target, app, node in assignments:
        if target not in needed:
            continue
        problem = _statement_refusal(target, app, found, varied_complex, activity.varied, forward)
        if problem is None and target in found and target in params:
            problem = (f"the parameter `{target}` is given a complex value, and a derivative "
                       f"flows through it", "give the complex value its own name.")
        if problem:
            return problem + (node,)
    for node in walk(function_node):
        if isinstance(node, gast.Expr) and any(isinstance(n, gast.Name) and n.id in varied_complex
                                               for n in walk(node)):
            return (_MESSAGE.format(what="this call"), _HINT, node)
        if isinstance(node, gast.Return) and node.value is not None and any(
                isinstance(n, gast.Name) and n.id in found for n in walk(node.value)):
            return ("this function returns a complex value; astjax differentiates "
                    "complex numbers inside a function only: the function (and each of yours it calls) must "
                    "return real values",
                    "return abs, real or imag of it, or compute the transform in the caller.", node)
    return None


def _statement_refusal(target, app, found, varied_complex, varied, forward):
    reads = _read_names(app)
    if not reads & found:
        return None
    name = app.primitive.name if app.kind == "primitive" else app.kind
    if name in REAL_INPUT and reads & varied_complex:
        return (f"jnp.fft.{name} reads only the real part of its input, and this one is complex and carries a "
                f"derivative", f"use jnp.fft.{name.replace('r', '', 1) if name != 'ihfft' else 'ifft'} for "
                f"complex input.")
    if name not in ALLOWED and name != "copy":
        if app.kind == "primitive" and not app.primitive.differentiable:
            return None
        what = f"`{app.primitive.name}`" if app.kind == "primitive" else "this statement"
        if app.kind == "function":
            what = f"a call of `{getattr(app.callee, '__name__', 'a function')}`"
        return (_MESSAGE.format(what=what), _HINT)
    return None


def complex_twin(app, resolver):
    """The complex form of abs / real / imag / conj (`x.real`, `x.imag` too) when the operand is a complex name."""
    names = getattr(resolver, "complex_names", None)
    if not names or app.kind != "primitive":
        return app
    from ..rules.complex_parts import TWINS
    name = app.primitive.name
    if name == "attribute":
        attr = app.bound.get("attr")
        if isinstance(attr, gast.Constant) and attr.value in ("real", "imag"):
            name = attr.value
            operand = app.bound.get("x")
        else:
            return app
        operands = {"val": operand}
    elif name in TWINS:
        operands = {p: app.bound[p] for p in app.primitive.operands if p in app.bound}
    else:
        return app
    if not any(_name(node) in names or is_complex_literal(node) for node in operands.values()):
        return app
    twin, params = TWINS[name]
    from .classify import Application
    return Application("primitive", app.node, primitive=twin, bound=dict(zip(params, operands.values())))
