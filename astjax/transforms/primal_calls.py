"""The user functions a derivative's primal sweep calls run as astjax normalized them where that differs.

The generated code holds astjax Arrays where the original program may hold NumPy arrays. A user function
called as written receives them and follows JAX's semantics, not NumPy's: `y[0] = v` into a copy fails
("astjax arrays are immutable"), and `type(v) is np.ndarray` takes the other branch, so the value the sweep
carries on (and the gradient computed from it) silently differs from the program's. Its normalized version
(Derivation.primal: NumPy's item assignment written as functional updates, `type(v)` checked at run time) keeps
the program's semantics or refuses, as the derivative of the same call does.

    y = helper(x)        ->   y = primal_helper(x)
    y = f(x)             ->   y = checked_callee(f)(x)      (f a local name or `fs[0]`: known when it runs)

`checked_callee` refuses, when the call runs, a user function that would read differently on Arrays.
"""
import gast

from ..analyses.classify import classify
from ..codegen.node_walk import walk
from ..rules.helpers import MEMORY_ATTRIBUTES

__all__ = ["redirect_user_calls", "reads_differently_on_arrays"]


def redirect_user_calls(stmts, context, callee_primal):
    """Point each call of a module-level user function in `stmts` at its normalized version (in place)."""
    from .derivation import _gradient_transform
    for node in [n for stmt in stmts for n in walk(stmt) if isinstance(n, gast.Call)]:
        if (isinstance(node.func, gast.Name) and context.resolver.is_local(node.func.id)) \
                or isinstance(node.func, gast.Subscript):
            # `f = helper; f(v)`, `helpers[0](v)`: which function runs is known when it runs
            node.func = gast.copy_location(gast.Call(func=gast.Name(id="checked_callee", ctx=gast.Load(),
                                                                    annotation=None, type_comment=None),
                                                     args=[node.func], keywords=[]), node.func)
            continue
        app = classify(node, context.resolver)
        callee = app.callee if app.kind == "function" else None
        if (callee is None or getattr(callee, "__astjax_function_source__", None) is not None
                or getattr(callee, "__astjax_transform__", None) is not None or _gradient_transform(callee) is not None
                or getattr(callee, "__astjax_static_call__", False)
                or (getattr(callee, "__module__", None) or "").partition(".")[0] == "astjax"):
            continue      # generated code (normalized already), a transformation (its own wrapper), astjax's own
        if not _reads_differently_on_arrays(callee, set()):
            continue      # as written it computes what its normalized version does: the readable call stays
        label = callee_primal(callee, (), node)
        node.func = gast.Name(id=label, ctx=gast.Load(), annotation=None, type_comment=None)


_TRANSFORMS = frozenset({"grad", "value_and_grad", "jacfwd", "jacrev", "hessian", "jvp", "vjp", "vmap", "jit",
                         "linearize"})


def _reads_differently_on_arrays(fn, seen):
    """Whether `fn` (or a module-level function it calls) holds what runs otherwise on an astjax Array than on a
    NumPy array: a write into an item (`y[0] = v`, `y[i] += v`), an in-place operator, a test of a value's
    type (`type(v)`, `isinstance(v, ...)`, `hasattr`, `v.__class__`), of its storage (`v.flags`, `v.base`,
    `np.isscalar`) or of its identity (`np.asarray(v) is v`, `id(v)`, `repr(v)`). One that calls a
    transformation (`grad(loss)(p)`) stays as written (the transformation's wrapper shapes its result)."""
    if fn in seen:
        return False      # recursion: its body is read once
    if len(seen) > 20:
        return True       # more functions than the look reaches: the normalized version (it looks at its own calls)
    seen.add(fn)
    try:
        from ..frontend.parse import function_source
        node = function_source(fn).node
    except Exception:
        return False
    names = getattr(fn, "__globals__", {})
    called = []
    for n in walk(node):
        if isinstance(n, (gast.Name, gast.Attribute)) and (getattr(n, "id", None) or getattr(n, "attr", None)) \
                in _TRANSFORMS:
            return False
        if isinstance(n, gast.AugAssign) or (isinstance(n, gast.Assign) and any(
                isinstance(t, gast.Subscript) for t in n.targets)):
            return True
        if _tests_identity_or_storage(n):
            return True
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name):
            if n.func.id in ("type", "isinstance", "hasattr", "id", "repr"):
                return True
            target = names.get(n.func.id)
            if callable(target) and hasattr(target, "__code__"):
                called.append(target)
    return any(_reads_differently_on_arrays(c, seen) for c in called)


def _tests_identity_or_storage(node):
    """`a is b` between two values (not `v is None`), `v.__class__`, `v.flags`/`v.base`, or `np.isscalar(v)`:
    each answers by which object v is, and astjax's objects are not the program's (type_inspection.py)."""
    if isinstance(node, gast.Compare):
        return any(isinstance(op, (gast.Is, gast.IsNot)) for op in node.ops) and not any(
            isinstance(side, gast.Constant) for side in [node.left, *node.comparators])
    if isinstance(node, gast.Attribute):
        return node.attr == "__class__" or node.attr in MEMORY_ATTRIBUTES or node.attr == "isscalar"
    return False


def reads_differently_on_arrays(fn):
    """`_reads_differently_on_arrays` for a function known when the generated code runs (rules/helpers.py)."""
    return _reads_differently_on_arrays(fn, set())
