"""What a normalized statement applies: a primitive, a user function, a copy, or something opaque.

The result binds the statement's operand nodes to the primitive's parameter
names, so a rule template can be expanded with them.
"""
import gast

from ..frontend.resolve import NOT_STATIC
from ..rules import lookup_callable, lookup_operator, PRIMITIVES

__all__ = ["Application", "classify"]

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
            names.extend(n.id for n in gast.walk(node) if isinstance(n, gast.Name))
        return names

    def __repr__(self):
        what = self.primitive.name if self.primitive else getattr(self.callee, "__name__", "")
        return f"<Application {self.kind} {what}>"


def classify(value, resolver):
    """The Application of a normalized right-hand side `value`."""
    if isinstance(value, gast.Name):
        if resolver.is_local(value.id):
            return Application("copy", value)
        return Application("constant", value)
    if isinstance(value, (gast.Constant, gast.JoinedStr)):
        return Application("constant", value)
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
    return Application("opaque", value)


# Functions from these packages are used through their rules only: one without a rule is an
# error where it meets a derivative, never transformed as if it were the user's code.
_LIBRARIES = ("numpy", "astjax.numpy", "astjax.lax", "astjax.random", "astjax.array", "scipy", "math")


def is_library(fn):
    module = getattr(fn, "__module__", None) or ""
    return any(module == lib or module.startswith(lib + ".") for lib in _LIBRARIES)


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
        return Application("opaque", call, args=list(call.args) + [k.value for k in call.keywords])
    from ..custom_derivatives import custom_jvp, custom_vjp
    if isinstance(target, custom_vjp):
        return Application("custom_vjp", call, callee=target, args=list(call.args))
    if isinstance(target, custom_jvp):
        return Application("custom_jvp", call, callee=target, args=list(call.args))
    prim = lookup_callable(target)
    if prim is not None:
        bound = prim.bind(call.args, {k.arg: k.value for k in call.keywords})
        if bound is None:
            return Application("opaque", call, callee=target, args=list(call.args))
        return _primitive(prim, call, bound)
    if hasattr(target, "__astjax_transform__") or (callable(target) and hasattr(target, "__code__")
                                                   and not is_library(target)):
        return Application("function", call, callee=target, args=list(call.args))
    return Application("opaque", call, callee=target, args=list(call.args) + [k.value for k in call.keywords])
