"""What a normalized statement applies: a primitive, a user function, a copy, or something opaque.

The result binds the statement's operand nodes to the primitive's parameter
names, so a rule template can be expanded with them.

Refuse by default (`check_refusals`): a value that carries a derivative may
reach a result only through an operand a rule covers, a copy, a tuple item or
a user function's argument. An opaque call (a method or function astjax has
no rule for), a static argument (`clip`'s bounds, `full`'s shape), an
expression nested in an operand, or a mutation the transformations do not
reverse is an error at the user's line, never a silent zero.
"""
import gast
import numpy as np

from ..frontend.resolve import NOT_STATIC
from ..rules import lookup_callable, lookup_operator, PRIMITIVES
from .complex_flow import complex_flow_refusal, complex_twin, is_complex_literal
from ..codegen.node_walk import walk

__all__ = ["Application", "classify", "check_refusals", "method_classification"]

_AT_METHODS = {"set": "at_set", "add": "at_add", "multiply": "at_multiply", "mul": "at_multiply",
               "get": "getitem"}
_METADATA = {"shape", "dtype", "ndim", "size", "device"}


class Application:
    """One statement's right-hand side, understood.

    kind: "primitive", "function" (a user's Python function), "copy", "constant",
    "tuple" (a literal tuple/list of values), "dict" (a dict literal) or "opaque" (anything else).
    """

    def __init__(self, kind, node, primitive=None, bound=None, callee=None, args=None):
        self.kind = kind
        self.node = node
        self.primitive = primitive
        self.bound = bound or {}
        self.callee = callee
        self.args = args or []

    @property
    def differentiable(self):
        if self.kind == "primitive":
            return self.primitive.differentiable
        return self.kind in ("function", "copy", "tuple", "dict", "opaque", "custom_vjp", "custom_jvp")

    def operand_nodes(self):
        """(operand name, node) for each operand a derivative could flow through."""
        if self.kind == "primitive":
            return [(p, self.bound[p]) for p in self.primitive.operands if p in self.bound]
        if self.kind == "copy":
            return [("x", self.node)]
        if self.kind == "tuple":
            return [(str(i), e) for i, e in enumerate(self.node.elts)]
        if self.kind == "dict":
            return [(str(i), e) for i, e in enumerate(self.node.values)]
        if self.kind in ("function", "opaque", "custom_vjp", "custom_jvp"):
            return [(str(i), a) for i, a in enumerate(self.args)]
        return []

    def operand_names(self):
        """Names of variables whose derivative could flow into the result."""
        names = []
        for _, node in self.operand_nodes():
            names.extend(n.id for n in walk(node) if isinstance(n, gast.Name))
        return names

    def refusal(self, varied):
        """(message, hint) when a derivative that flows into this application has no rule, else None.

        `varied`: the names that depend on the differentiated inputs. Refuse by
        default: a value that needs a derivative may enter only through an
        operand a rule covers, never through a static argument, an expression
        nested inside an operand, or a call astjax does not know.
        """
        def carries(node):
            return any(isinstance(n, gast.Name) and n.id in varied for n in walk(node))

        if self.kind == "primitive":
            return _primitive_refusal(self, carries)
        if self.kind == "tuple":
            for element in self.node.elts:
                if not isinstance(element, (gast.Name, gast.Constant)) and carries(element):
                    return ("a value that needs a derivative is nested inside this list or tuple",
                            "give the inner value its own name first")
            return None
        if self.kind == "opaque" and any(carries(a) for a in self.args):
            what = getattr(self.callee, "__qualname__", None) or getattr(self.callee, "__name__", None)
            stated = getattr(self.callee, "__astjax_no_derivative__", None)
            if stated is not None:          # a library function that says why it has no rule (no_derivative)
                reason, hint = stated
                return f"astjax has no derivative rule for {_describe(what, self.node)}: {reason}", hint
            return (f"astjax has no derivative rule for {_describe(what, self.node)}",
                    "use an astjax.numpy function, write it in Python from primitives that have rules, "
                    "or give it a rule with @astjax.custom_vjp.")
        if self.kind in ("function", "custom_vjp", "custom_jvp") and any(
                carries(k.value) for k in getattr(self.node, "keywords", [])):
            return ("a value that needs a derivative is passed by keyword to a user function",
                    "pass it by position")
        if self.kind in ("function", "custom_vjp", "custom_jvp") and any(
                not isinstance(a, (gast.Name, gast.Constant)) and carries(a) for a in self.args):
            return ("a value that needs a derivative is passed inside an expression to a user function",
                    "give that value its own name on the line before and pass the name")
        return None

    def __repr__(self):
        what = self.primitive.name if self.primitive else getattr(self.callee, "__name__", "")
        return f"<Application {self.kind} {what}>"


def _primitive_refusal(app, carries):
    prim = app.primitive
    if not prim.differentiable:
        return None          # declared with a reason: its result carries no derivative
    for param, node in app.bound.items():
        if param in prim.operands:
            if isinstance(node, (gast.Name, gast.Constant)) or not carries(node):
                continue
            if param == prim.sequence_operand and isinstance(node, (gast.List, gast.Tuple)) and all(
                    isinstance(e, (gast.Name, gast.Constant)) for e in node.elts):
                continue
            return (f"`{prim.name}` receives a value that needs a derivative inside the expression "
                    f"passed as `{param}`", "give that value its own name on the line before")
        if param in prim.shape_params or not carries(node):
            continue
        return (f"`{prim.name}` treats its argument `{param}` as a constant, but it depends on the input "
                f"being differentiated: its derivative would be silently dropped",
                f"pass a value that does not depend on the differentiated input as `{param}` (compute it "
                f"outside and pass it as an argument you do not differentiate).")
    return None


def _describe(what, node):
    if what:
        return what if what.startswith("the `") else f"`{what}`"
    try:
        import ast
        return f"`{ast.unparse(gast.gast_to_ast(node))}`"
    except Exception:       # an unusual node
        return "this expression"


def check_refusals(function_node, resolver, activity, context, forward=False):
    """Refuse by default: raise at the first statement whose derivative no rule covers.

    In reverse mode the derivative of an active name is computed; in forward
    mode that of every varied name (`activity` is the function's Activity).
    """
    from ..optimize.effects import mutation_refusal
    needed = activity.varied if forward else activity.active
    complex_problem = complex_flow_refusal(function_node, resolver, activity, needed, forward)
    mutated_needed = None if forward else activity.useful
    containers = _container_names(function_node)
    for node in walk(function_node):
        problem = None
        if getattr(node, "is_custom_forward", False):
            continue        # `_r = f_fwd(x)` of a custom_vjp f: the statement after it carries the derivative
        if isinstance(node, gast.Assign) and isinstance(node.targets[0], gast.Name):
            target = node.targets[0].id
            if target in activity.useful:     # a complex value the output depends on, varied or not
                problem = _complex_refusal(node.value, resolver)
            if not problem and target in needed:
                problem = (_container_arithmetic_refusal(node.value, containers)
                           or classify(getattr(node, "custom_call", node.value), resolver).refusal(activity.varied))
            elif not problem and target in activity.varied:
                problem = _opaque_inspection_refusal(node.value, resolver, activity.varied)
            if not problem:
                problem = _constant_arguments_refusal(node.value, resolver, activity.varied)
        elif isinstance(node, gast.Expr) and isinstance(node.value, gast.Call):
            problem = (mutation_refusal(node.value, resolver, activity.varied, mutated_needed, forward)
                       or _discarded_call_refusal(node.value, resolver, activity.varied))
        if problem:
            message, hint = problem
            raise context.error(message, node, hint=hint)
    if complex_problem:         # after the refusals above: `np.poly(x)` is refused as a call without rules
        message, hint, node = complex_problem
        raise context.error(message, node, hint=hint)


def _constant_arguments_refusal(value, resolver, varied):
    """A non-differentiable primitive whose result would still move with a float argument (`arange(x0, 3.0)` is
    x0 + k) declares `refuse_varied_arguments`: an argument that depends on the input is refused, since its
    result carries no derivative (its target is never varied, so the checks above do not see it)."""
    if not isinstance(value, gast.Call):
        return None
    app = classify(value, resolver)
    if app.kind != "primitive" or not getattr(app.primitive, "refuse_varied_arguments", False):
        return None
    for param, node in app.bound.items():
        if any(isinstance(n, gast.Name) and n.id in varied for n in walk(node)):
            return (f"`{app.primitive.name}` treats its argument `{param}` as a constant, but it depends on the "
                    f"input being differentiated: its derivative would be silently dropped",
                    f"pass a value that does not depend on the differentiated input as `{param}` (compute it "
                    f"outside and pass it as an argument you do not differentiate).")
    return None


def _opaque_inspection_refusal(value, resolver, varied):
    """A call astjax has no rule for, of a value that depends on the input, whose result the output does not
    depend on as a number (`s = repr(x[0])`, `if "__len__" in dir(v)`, `getattr(v, "__len__", None)`).

    Its result may still steer the program (a branch, a loop), and it runs on the transformed program's astjax
    Array where the original holds a NumPy array or scalar: Python's answers about the object (its repr, its
    attributes) can differ and take another branch, silently. Forward mode refuses such calls already (every
    varied value is needed there); reverse mode refuses them too."""
    app = classify(value, resolver)
    if app.kind != "opaque" or not isinstance(value, gast.Call):
        return None
    return app.refusal(varied)


_COMPLEX_NAMES = {"complex64", "complex128", "complex", "c8", "c16", "csingle", "cdouble", "clongdouble",
                  "complex256", "complexfloating"}


def _complex_refusal(value, resolver):
    """A complex constant or dtype in a statement that carries a derivative: the rules are for real
    numbers, so `x.astype(jnp.complex64)` would differentiate wrongly without a word. Refused. A complex
    literal as an operand of + - * / (`1j * k`) is the complex-flow analysis's (analyses/complex_flow.py):
    it makes a complex value that the complex forms of + - * / and abs/real/imag/conj differentiate."""
    literal_operands = ({id(value.left), id(value.right)} if isinstance(value, gast.BinOp) and isinstance(
        value.op, (gast.Add, gast.Sub, gast.Mult, gast.Div)) else set())
    literal_operands |= {id(n.operand) for n in (value.left, value.right) if isinstance(n, gast.UnaryOp)} \
        if literal_operands else set()
    for n in walk(value):
        if id(n) in literal_operands and is_complex_literal(n):
            continue
        complex_type = False
        if isinstance(n, gast.Constant):
            complex_type = isinstance(n.value, complex) or (isinstance(n.value, str) and n.value in _COMPLEX_NAMES)
        elif isinstance(n, (gast.Name, gast.Attribute)):
            found = resolver.static_value(n)
            complex_type = (found is complex or isinstance(found, complex)
                            or (isinstance(found, type) and issubclass(found, np.complexfloating))
                            or (isinstance(found, (np.ndarray, np.generic)) and found.dtype.kind == "c"))
        if complex_type:
            return ("astjax has no derivative rule for complex numbers: this line makes or reads a complex value "
                    "that the output depends on, and the real-number rules would give a wrong derivative",
                    "differentiate the real and imaginary parts as separate real values (for |x * (a + bj)|**2, "
                    "write (a**2 + b**2) * x**2).")
    return None


def _container_names(function_node):
    """Names some statement binds to a tuple or list built in place (`t = (a, b)`, `xs = [...]`)."""
    assigns = [n for n in walk(function_node) if isinstance(n, gast.Assign) and isinstance(n.targets[0], gast.Name)]
    names = {n.targets[0].id for n in assigns if isinstance(n.value, (gast.Tuple, gast.List, gast.ListComp))}
    while True:         # a slice of a tuple or list is one too (`xs[1:]`)
        more = {n.targets[0].id for n in assigns if isinstance(n.value, gast.Subscript)
                and isinstance(n.value.slice, gast.Slice) and isinstance(n.value.value, gast.Name)
                and n.value.value.id in names} - names
        if not more:
            return names
        names |= more


def _container_arithmetic_refusal(value, containers):
    """`+` and `*` on tuples and lists concatenate and repeat; the arithmetic rules would differentiate
    them as sums and products, a silently wrong derivative: refused instead."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Mult))):
        return None
    for operand in (value.left, value.right):
        if isinstance(operand, (gast.Tuple, gast.List)) or (isinstance(operand, gast.Name)
                                                              and operand.id in containers):
            what = "concatenates" if isinstance(value.op, gast.Add) else "repeats"
            return (f"`{'+' if isinstance(value.op, gast.Add) else '*'}` here {what} a tuple or list, which "
                    f"astjax cannot differentiate", "build the list with `append` (or `jnp.concatenate` / "
                    "`jnp.stack` for arrays), or use its items directly.")
    return None


def _discarded_call_refusal(call, resolver, varied):
    """A call whose result is dropped can only matter through what it changes: refused if a derivative reaches it.

    `add_to(xs, x)` may append to xs; astjax follows no such mutation (methods
    in optimize/effects.py's table are judged there).
    """
    from ..optimize.effects import MUTATING_METHODS
    if isinstance(call.func, gast.Attribute) and call.func.attr in MUTATING_METHODS:
        return None
    app = classify(call, resolver)
    if app.kind not in ("function", "opaque", "custom_vjp", "custom_jvp"):
        return None
    names = {n.id for n in walk(call) if isinstance(n, gast.Name)}
    if not names & varied:
        return None
    if app.kind == "function" and _pure(app.callee):
        return None         # a pure callee's dropped result changes nothing (dead-code elimination drops it)
    return ("the result of this call is not used, so it can only matter through what it changes in its "
            "arguments; astjax does not follow such changes", "return the new value and assign it "
            "(`xs = add_to(xs, x)`), or make the call on values that do not depend on the differentiated input")


def _pure(fn, seen=None):
    """Whether a user function changes nothing outside itself: no random draw, no change to an object it did not
    create (transforms/derivation.py's check), and no `global` / `nonlocal` rebinding, in it or its callees."""
    import inspect
    from ..transforms.derivation import _impurity
    from ..frontend.context import FunctionContext
    from ..frontend.parse import function_source
    seen = set() if seen is None else seen
    if fn in seen:
        return True
    seen.add(fn)
    if _impurity(fn, set()) is not None:
        return False
    try:
        source = function_source(fn)
    except Exception:
        return False
    resolver = FunctionContext(source).resolver
    params = {a.id for a in walk(getattr(source.node, "args", gast.arguments(
        args=[], posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])))
        if isinstance(a, gast.Name)}
    for node in walk(source.node):
        if isinstance(node, (gast.Global, gast.Nonlocal)):
            return False
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) and node.target.id in params:
            return False        # `xs += [x]` changes the caller's list (or array) in place
        if isinstance(node, gast.Call) and any(k.arg == "out" for k in node.keywords):
            return False
        if isinstance(node, gast.Call):
            target = resolver.static_value(node.func)
            if inspect.isfunction(target) and not is_library(target) and lookup_callable(target) is None \
                    and not (getattr(target, "__module__", None) or "").startswith("astjax.") \
                    and not _pure(target, seen):
                return False
    return True


def classify(value, resolver):
    """The Application of a normalized right-hand side `value` (abs/real/imag/conj of a value the
    complex-flow analysis knows complex: their complex forms)."""
    app = _classify(value, resolver)
    return complex_twin(app, resolver) if getattr(resolver, "complex_names", None) else app


def _classify(value, resolver):
    if isinstance(value, gast.Name):
        if resolver.is_local(value.id):
            return Application("copy", value)
        return Application("constant", value)
    if isinstance(value, (gast.Constant, gast.JoinedStr)):
        return Application("constant", value)
    if isinstance(value, gast.BinOp) and isinstance(value.op, gast.Mod) and (
            isinstance(value.left, gast.JoinedStr)
            or (isinstance(value.left, gast.Constant) and isinstance(value.left.value, str))):
        return Application("constant", value)        # "step %d: %.4f" % (i, loss): a string, as an f-string
    if isinstance(value, gast.BinOp):
        prim = lookup_operator(value.op)
        return _primitive(prim, value, {"x1": value.left, "x2": value.right})
    if isinstance(value, gast.UnaryOp):
        if isinstance(value.op, gast.USub):
            return _primitive(PRIMITIVES["negative"], value, {"x": value.operand})
        if isinstance(value.op, gast.UAdd):
            return _primitive(PRIMITIVES["positive"], value, {"x": value.operand})
        return Application("constant", value)       # `not x`: no derivative
    if isinstance(value, gast.Compare):
        return Application("primitive", value, primitive=lookup_operator(value.ops[0]) or PRIMITIVES["equal"])
    if isinstance(value, gast.Subscript):
        return _primitive(PRIMITIVES["getitem"], value, {"x": value.value, "idx": value.slice})
    if isinstance(value, gast.Attribute):
        if resolver.static_value(value) is not NOT_STATIC:
            return Application("constant", value)
        if value.attr in _METADATA:
            return Application("primitive", value, primitive=PRIMITIVES["shape"])
        return _primitive(PRIMITIVES["attribute"], value,
                          {"x": value.value, "attr": gast.Constant(value=value.attr, kind=None)})
    if isinstance(value, (gast.Tuple, gast.List)):
        return Application("tuple", value)
    if isinstance(value, gast.Dict):
        return Application("dict", value)
    if isinstance(value, gast.Call):
        return _call(value, resolver)
    return Application("opaque", value, args=[value])


# Functions from these packages are used through their rules only: one without a rule is an
# error where it meets a derivative, never transformed as if it were the user's code.
_LIBRARIES = ("numpy", "astjax.numpy", "astjax.lax", "astjax.random", "astjax.array", "astjax.tree_util",
              "scipy", "math", "astjax.scipy.special", "astjax.scipy.linalg", "astjax.scipy.stats._ranks",
              "astjax.callbacks")


def is_library(fn):
    module = getattr(fn, "__module__", None) or ""
    return any(module == lib or module.startswith(lib + ".") for lib in _LIBRARIES) or _standard_library(module)


def _standard_library(module):
    """A Python function of the standard library (`heapq.nsmallest`, `statistics.mean`): not the user's
    code, so it is not transformed as theirs (its refusals named a line of heapq.py, not the user's): a call
    a derivative reaches is refused at the user's line, as any call without a rule."""
    from ..frontend.standard_library import is_standard_library
    return is_standard_library(module)


def _primitive(prim, node, bound):
    return Application("primitive", node, primitive=prim, bound=bound)


def _call(call, resolver):
    func = call.func
    # x.at[idx].add(v)
    if (isinstance(func, gast.Attribute) and func.attr in _AT_METHODS and isinstance(func.value, gast.Subscript)
            and isinstance(func.value.value, gast.Attribute) and func.value.value.attr == "at"):
        bound = {"x": func.value.value.value, "idx": func.value.slice}
        if call.args:
            bound["v"] = call.args[0]
        return _primitive(PRIMITIVES[_AT_METHODS[func.attr]], call, bound)
    target = resolver.static_value(func)
    if target is NOT_STATIC:
        # `x.cumprod()`, `f(x)` for a local f: the receiver and every argument may carry a derivative
        receiver = [func.value] if isinstance(func, gast.Attribute) else [func]
        return Application("opaque", call, callee=_Unknown(func),
                           args=receiver + list(call.args) + [k.value for k in call.keywords])
    from ..custom_derivatives import custom_jvp, custom_vjp
    if isinstance(target, custom_vjp):
        return Application("custom_vjp", call, callee=target, args=list(call.args))
    if isinstance(target, custom_jvp):
        return Application("custom_jvp", call, callee=target, args=list(call.args))
    prim = lookup_callable(target)
    if prim is not None:
        bound = prim.bind(call.args, {k.arg: k.value for k in call.keywords})
        if bound is None:
            return Application("opaque", call, callee=target,
                               args=list(call.args) + [k.value for k in call.keywords])
        static = {k: _known_constant(v, resolver) for k, v in bound.items() if k not in prim.operands}
        return _primitive(prim, call, dict(bound, **static))
    if hasattr(target, "__astjax_transform__") or (callable(target) and hasattr(target, "__code__")
                                                   and not is_library(target)):
        return Application("function", call, callee=target, args=list(call.args))
    return Application("opaque", call, callee=target, args=list(call.args) + [k.value for k in call.keywords])


def _known_constant(node, resolver):
    """A static argument written as a global or closure name (`ord=ORD`) as the constant it holds.

    Rules and their checks read static arguments as literals; a name they could
    not read would slip past a check (`norm(A, ORD)` with ORD = 1).
    """
    if isinstance(node, (gast.Name, gast.Attribute)):
        value = resolver.static_value(node)
        if _is_literal(value):
            from ..rules.registry import _constant_node
            return _constant_node(value)
    return node


def _is_literal(value):
    if isinstance(value, tuple):
        return all(_is_literal(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


class _Unknown:
    """Stands for a callee astjax cannot name statically (a method of a value, a local callable)."""

    def __init__(self, func):
        import ast
        try:
            text = ast.unparse(gast.gast_to_ast(func))
        except Exception:       # an unusual node: say "this call"
            text = "this call"
        if isinstance(func, gast.Attribute):
            text = f"the `.{func.attr}()` method of `{text.rsplit('.', 1)[0]}`"
        self.__qualname__ = self.__name__ = text


def method_classification(method):
    """How astjax treats `x.<method>` of an array under a derivative (a rules.Classification).

    A method astjax rewrites into an astjax.numpy function is classified as that
    function; metadata (`x.shape`) depends only on shapes; a method that mutates
    the array, and every other one, is refused where a derivative reaches it.
    """
    from .. import numpy as jnp
    from ..frontend.normalize.method_calls import METHODS
    from ..optimize.effects import MUTATING_METHODS
    from ..rules import Classification, classification
    from ..rules.nondifferentiable import SHAPES
    if method in METHODS:
        return classification(getattr(jnp, METHODS[method]))
    if method == "T":
        return classification(jnp.transpose)
    if method in _METADATA:
        return Classification("nondifferentiable", "shape", SHAPES)
    if method in MUTATING_METHODS:
        return Classification("refused", None, f"it {MUTATING_METHODS[method]}: a mutation astjax does not reverse")
    return Classification("refused", None, "astjax has no derivative rule for this method: a call that a "
                                           "derivative reaches is an error")
