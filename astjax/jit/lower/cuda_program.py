"""Read a specialized generated function as an elementwise program for the GPU, or refuse its line.

The GPU backend takes the same typed, specialized source the CPU jit lowers (observed types,
inlined callees, weak Python numbers cast to the arrays' dtype) and reads every statement as
one of three kinds of value:

    host     Python numbers and casts of them (`bout = 1.0`, `np.float32(alpha)`): computed on
             the host by Python, as the reference backend computes them, then passed to kernels
    array    an elementwise expression over the argument arrays (all of one shape and one float
             dtype): one element of it is a line of kernel code, recomputed where it is read
    device   a full reduction (`jnp.sum/mean/max/min` of an array value) and scalar arithmetic
             on one: a value the kernels leave in a one-element device array

Each element is written with its primitive's "cuda" lowering from the rule table
(astjax/rules/cuda_lowerings.py). Anything else (indexing, `jnp.dot`, reductions over an axis,
loops and branches over data, a primitive with no CUDA lowering) raises a JitError at the
user's line saying what the GPU backend lowers today and that `jit(f)` (CPU) runs it: never a
silent fallback to the CPU. astjax/jit/lower/cuda_kernels.py writes the kernels.
"""
import builtins
import copy
import inspect
import re

import gast

from ...codegen.unparse import unparse
from ...rules import PRIMITIVES, lookup_callable, lookup_operator
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["read_program", "Program", "Value", "SCOPE", "REDUCTIONS"]

SCOPE = ("the GPU backend lowers elementwise programs over arrays of one shape and float dtype, ending in "
         "optional full reductions (sum, mean, max, min), today")
HINT = "run it on the CPU with astjax.jit(f) (the default backend), or without jit"
REDUCTIONS = ("sum", "mean", "max", "min")
_COMPARISONS = {gast.Gt: "greater", gast.GtE: "greater_equal", gast.Lt: "less", gast.LtE: "less_equal",
                gast.Eq: "equal", gast.NotEq: "not_equal"}
_FLOATS = ("float32", "float64")
_SHAPE_HELPERS = ("unreduce", "unbroadcast", "reduced_size")
# names the kernels and the launcher use themselves: a user's name that is one of them is renamed
_RESERVED = re.compile(r"n|i|stride|acc|cache|t|step|partials|start|other|element|math|cuda|float32|float64|np|"
                       r"size|run|scalar_arg|[crs]\d+|out\d+")


class Value:
    """What an expression is on the GPU: kind "host" (text: a launcher expression), "array" or "device"
    (text: a kernel expression for element i). `lines`: indices of the kernel lines it reads, `arrays`:
    the argument arrays it reads, `reductions`: the reduction results it reads, `consts`: the host
    values it reads as kernel parameters, `boolean`: whether its element is a bool."""

    def __init__(self, kind, text, lines=(), arrays=(), reductions=(), consts=(), boolean=False):
        self.kind, self.text, self.boolean = kind, text, boolean
        self.lines, self.arrays = frozenset(lines), frozenset(arrays)
        self.reductions, self.consts = frozenset(reductions), frozenset(consts)

    def merged(self, kind, text, others, boolean=False):
        union = lambda field: frozenset().union(*(getattr(v, field) for v in (self, *others)))  # noqa: E731
        return Value(kind, text, union("lines"), union("arrays"), union("reductions"), union("consts"), boolean)


class Reduction:
    """One full reduction: `kind` (sum, max, min) of the element `value` (an array Value)."""

    def __init__(self, label, kind, value):
        self.label, self.kind, self.value = label, kind, value


class Program:
    """The GPU program of one signature: host lines, kernel lines, reductions, and the result."""

    def __init__(self, name, params, dtype):
        self.name, self.params, self.dtype = name, params, dtype
        self.array_params = []        # argument arrays, in parameter order
        self.host_lines = []          # launcher lines: (target, text)
        self.kernel_lines = []        # (local name, element text, Value it was made from)
        self.consts = {}              # host text -> kernel parameter name (c0, c1, ...)
        self.reductions = []          # Reductions in program order
        self.result = None            # a tree (tuples) of Values


def read_program(node, context, dtype_of_arrays):
    """The Program of the specialized function `node` (parameters typed by `context.types`)."""
    return _Reader(node, context, dtype_of_arrays).read()


class _Reader:
    def __init__(self, node, context, dtype):
        self.node, self.context, self.dtype = node, context, dtype
        self.program = Program(node.name, [a.id for a in node.args.args], dtype)
        self.taken = {n.id for n in walk(node) if isinstance(n, gast.Name)}
        self.used = set()

    def refuse(self, what, node):
        raise self.context.error(f"jit(backend=\"gpu\") cannot lower {what}: {SCOPE}", node, HINT)

    def read(self):
        env = {}
        self.program.params = [self.fresh(a.id) for a in self.node.args.args]
        for arg, label in zip(self.node.args.args, self.program.params):
            kinds = self.context.types_of(arg.id) - {("none",)}
            kind = next(iter(kinds)) if len(kinds) == 1 else None
            if kind is not None and kind[0] == "array":
                if kind[1] != self.dtype:
                    self.refuse(f"the argument `{arg.id}` ({kind[1]}; the other arrays are {self.dtype})", self.node)
                self.program.array_params.append(label)
                env[arg.id] = Value("array", f"{label}[i]", arrays=[label])
            elif kind is not None and (kind[0] in ("weak", "scalar")):
                env[arg.id] = Value("host", label)
            else:
                self.refuse(f"the argument `{arg.id}` (a {_describe_kind(kinds)})", self.node)
        if not self.program.array_params:
            self.refuse("a function without an array argument", self.node)
        result = self.body(self.node.body, env, self.context.namespace)
        if result is None:
            self.refuse("a function that returns nothing", self.node)
        self.program.result = result
        return self.program

    # ------------------------------------------------------------------ statements
    def body(self, statements, env, namespace, prefix=""):
        """Read the statements into `env`; the result tree of their return."""
        for stmt in statements:
            if isinstance(stmt, gast.Return):
                if stmt.value is None:
                    return None
                return self.result(stmt.value, env, namespace)
            if isinstance(stmt, gast.Pass) or (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant)):
                continue
            if isinstance(stmt, gast.AugAssign) and isinstance(stmt.target, gast.Name):
                value = gast.BinOp(left=gast.Name(id=stmt.target.id, ctx=gast.Load(), annotation=None,
                                                  type_comment=None), op=stmt.op, right=stmt.value)
                gast.copy_location(value, stmt)
                self.assign(stmt.target.id, value, env, namespace, prefix, stmt)
                continue
            if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name):
                self.assign(stmt.targets[0].id, stmt.value, env, namespace, prefix, stmt)
                continue
            if isinstance(stmt, gast.If):
                taken = self.constant_test(stmt.test, env, namespace)
                if taken is not None:         # `if approximate:` on a literal default: one branch, known now
                    result = self.body(stmt.body if taken else stmt.orelse, env, namespace, prefix)
                    if result is not None or _returns(stmt.body if taken else stmt.orelse):
                        return result
                    continue
            self.refuse(_describe_statement(stmt), stmt)
        return None

    def constant_test(self, test, env, namespace):
        """The truth of a branch's test when it is a literal known when the kernels are written (a default
        argument of an inlined function, a constant), else None: a test read at run time is refused."""
        import ast
        value = self.expression(test, env, namespace)
        if value.kind != "host":
            return None
        try:
            return bool(ast.literal_eval(value.text))
        except (ValueError, SyntaxError):
            return None

    def assign(self, name, expr, env, namespace, prefix, stmt):
        value = self.expression(expr, env, namespace)
        local = self.fresh(prefix + name)
        if value.kind == "host":
            self.program.host_lines.append((local, value.text))
            env[name] = Value("host", local)
        elif value.kind == "array":
            index = len(self.program.kernel_lines)
            self.program.kernel_lines.append((local, value.text, value))
            env[name] = Value("array", local, value.lines | {index}, value.arrays, value.reductions, value.consts,
                              value.boolean)
        else:
            env[name] = value             # a device scalar: its text reads the reductions' results

    def fresh(self, name):
        """A name no other launcher or kernel name uses (the kernels' own names are reserved)."""
        label, k = name, 1
        while label in self.used or _RESERVED.fullmatch(label):
            k += 1
            label = f"{name}_{k}"
        self.used.add(label)
        return label

    def result(self, expr, env, namespace):
        if isinstance(expr, gast.Tuple):
            return tuple(self.result(e, env, namespace) for e in expr.elts)
        return self.expression(expr, env, namespace)

    # ------------------------------------------------------------------ expressions
    def expression(self, expr, env, namespace):
        if isinstance(expr, gast.Name):
            if expr.id in env:
                return env[expr.id]
            value = namespace.get(expr.id, getattr(builtins, expr.id, None))
            if isinstance(value, (bool, int, float)):
                return Value("host", repr(value))
            self.refuse(f"the global `{expr.id}` (a {type(value).__name__}, not a number)", expr)
        if isinstance(expr, gast.Constant):
            if isinstance(expr.value, (bool, int, float)):
                return Value("host", repr(expr.value))
            self.refuse(f"the constant {expr.value!r}", expr)
        if isinstance(expr, gast.BinOp):
            prim = lookup_operator(expr.op)
            return self.primitive(prim, [expr.left, expr.right], env, namespace, expr, unparse(expr).strip())
        if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
            prim = PRIMITIVES["negative" if isinstance(expr.op, gast.USub) else "positive"]
            return self.primitive(prim, [expr.operand], env, namespace, expr, unparse(expr).strip())
        if isinstance(expr, gast.Compare) and len(expr.ops) == 1 and type(expr.ops[0]) in _COMPARISONS:
            prim = PRIMITIVES[_COMPARISONS[type(expr.ops[0])]]
            return self.primitive(prim, [expr.left, expr.comparators[0]], env, namespace, expr,
                                  unparse(expr).strip())
        if isinstance(expr, gast.Call):
            return self.call(expr, env, namespace)
        if isinstance(expr, gast.Subscript):
            self.refuse(f"the indexing `{unparse(expr).strip()}`", expr)
        if isinstance(expr, gast.Attribute):
            value = _static(expr, namespace, env)
            if isinstance(value, (int, float)) and not isinstance(value, bool):      # jnp.pi, math.e
                return Value("host", repr(value))
            self.refuse(f"the attribute `{unparse(expr).strip()}`", expr)
        kinds = {gast.Tuple: "the tuple ", gast.List: "the list ", gast.Dict: "the dict ", gast.Starred: "the starred "}
        self.refuse(f"{kinds.get(type(expr), '')}`{unparse(expr).strip()}`", expr)

    def primitive(self, prim, operands, env, namespace, node, text):
        values = [self.expression(o, env, namespace) for o in operands]
        if all(v.kind == "host" for v in values):
            return Value("host", self.host_text(node, env, namespace))
        form = prim.lowerings.get("cuda") if prim is not None else None
        if form is None:
            name = prim.name if prim is not None else text
            raise self.context.error(
                f"jit(backend=\"gpu\") cannot lower `{text}`: `{name}` has no CUDA lowering in the rule table; "
                f"{SCOPE}", node, HINT)
        elements = [self.element(v) for v in values]
        kind = "array" if any(v.kind == "array" for v in values) else "device"
        leaves = [self.as_leaf(v) for v in values]
        return leaves[0].merged(kind, form.element(elements, self.dtype), leaves[1:],
                                boolean=prim.name in _COMPARISONS.values())

    def element(self, value):
        """The kernel text of a value's element (a host value becomes a kernel parameter)."""
        return self.as_leaf(value).text

    def as_leaf(self, value):
        if value.kind != "host":
            return value
        label = self.program.consts.get(value.text)
        if label is None:
            label = self.program.consts[value.text] = f"c{len(self.program.consts)}"
        return Value("device", label, consts=[label])

    def host_text(self, node, env, namespace):
        """The launcher text computing a host expression: its names are launcher variables, its calls
        the objects they name here (bound in the launcher's namespace)."""
        reader = self

        class Rewrite(NodeTransformer):
            def visit_Name(self, n):
                if isinstance(n.ctx, gast.Load) and n.id in env:
                    return gast.parse(env[n.id].text).body[0].value
                if isinstance(n.ctx, gast.Load):
                    value = _global(n.id, namespace)
                    if isinstance(value, (bool, int, float)):
                        return gast.Constant(value=value, kind=None)
                    if value is _global(n.id, reader.context.namespace) and n.id not in reader.used:
                        return n          # the launcher runs in the generated function's namespace
                    return gast.Name(id=reader.context.bind(n.id, value, reader.taken), ctx=gast.Load(),
                                     annotation=None, type_comment=None)
                return n
        return unparse(Rewrite().visit(copy.deepcopy(node))).strip()

    def call(self, expr, env, namespace):
        target = _static(expr.func, namespace, env)
        text = unparse(expr).strip()
        if isinstance(expr.func, gast.Name) and expr.func.id == "weak_like" and len(expr.args) == 2:
            return self.expression(expr.args[0], env, namespace)      # the kernel casts weak numbers itself
        if _is_numpy_scalar_type(target) and len(expr.args) == 1 and not expr.keywords:
            value = self.expression(expr.args[0], env, namespace)
            if value.kind == "host":
                return Value("host", self.host_text(expr, env, namespace))
            if getattr(target, "__name__", None) == self.dtype:
                return value
            self.refuse(f"the cast `{text}`", expr)
        prim = lookup_callable(target) if target is not None else None
        if prim is not None:
            return self.primitive_call(prim, expr, env, namespace, text)
        source = getattr(target, "__astjax_function_source__", None)
        if source is not None and getattr(target, "__globals__", None) is not None:
            return self.inline(target, expr, env, namespace)
        from .numba_calls import _is_user_function, primal_of
        if target is not None and _is_user_function(target):
            return self.inline(primal_of(target), expr, env, namespace)
        described = getattr(target, "__name__", None) or text
        raise self.context.error(f"jit(backend=\"gpu\") cannot lower the call `{text}`: `{described}` has no "
                                 f"CUDA lowering; {SCOPE}", expr, HINT)

    def primitive_call(self, prim, expr, env, namespace, text):
        bound = prim.bind(expr.args, {k.arg: k.value for k in expr.keywords if k.arg is not None})
        if bound is None or any(k.arg is None for k in expr.keywords):
            self.refuse(f"the call `{text}` (its arguments do not fit `{prim.name}`)", expr)
        if prim.name in REDUCTIONS or prim.name in _SHAPE_HELPERS:
            first = next(iter(bound))
            others = {k: v for k, v in bound.items() if k not in (first, "x")}
            if prim.name in ("unreduce", "unbroadcast"):
                others = {k: v for k, v in bound.items() if k not in ("g", "x")}
            defaults = prim.signature.parameters
            if any(not _is_default(v, defaults[k].default) for k, v in others.items()):
                self.refuse(f"`{text}` (a reduction over an axis, or with options)", expr)
            if prim.name in REDUCTIONS:
                return self.reduction(prim.name, self.expression(bound[first], env, namespace), expr, text)
            return self.shape_helper(prim.name, bound, env, namespace, expr, text)
        if not prim.elementwise and prim.lowerings.get("cuda") is None:
            raise self.context.error(f"jit(backend=\"gpu\") cannot lower `{text}`: `{prim.name}` has no CUDA "
                                     f"lowering in the rule table; {SCOPE}", expr, HINT)
        names = list(prim.signature.parameters) if prim.signature is not None else []
        operands = [bound[n] for n in names if n in bound]
        extra = [n for n in bound if n not in names[:len(operands)]]
        form = prim.lowerings.get("cuda")
        if form is None or extra or len(operands) != form.arity:
            values = [self.expression(o, env, namespace) for o in operands]
            if form is None and all(v.kind == "host" for v in values):
                return Value("host", self.host_text(expr, env, namespace))
            raise self.context.error(f"jit(backend=\"gpu\") cannot lower `{text}`: `{prim.name}` has no CUDA "
                                     f"lowering in the rule table{' for these arguments' if form else ''}; {SCOPE}",
                                     expr, HINT)
        return self.primitive(prim, operands, env, namespace, expr, text)

    def reduction(self, kind, value, node, text):
        if value.kind != "array":
            self.refuse(f"`{text}` (a reduction of a value that is not an array of the arguments' shape)", node)
        if value.boolean:
            self.refuse(f"`{text}` (a reduction of booleans)", node)
        label = f"r{len(self.program.reductions)}"
        self.program.reductions.append(Reduction(label, "sum" if kind == "mean" else kind, value))
        result = Value("device", f"{label}[0]", reductions=[label])
        if kind == "mean":
            size = self.as_leaf(Value("host", "size"))
            return result.merged("device", f"({label}[0] / {size.text})", [size])
        return result

    def shape_helper(self, name, bound, env, namespace, node, text):
        if name == "reduced_size":
            like = self.expression(bound["x"], env, namespace)
            if like.kind != "array":
                self.refuse(f"`{text}`", node)
            return Value("host", "size")
        g, like = self.expression(bound["g"], env, namespace), self.expression(bound["x"], env, namespace)
        if name == "unreduce":
            if like.kind != "array":
                self.refuse(f"`{text}` (a spread to a shape that is not the arguments')", node)
            if g.kind == "array":
                self.refuse(f"`{text}` (an adjoint spread along an axis)", node)
            leaf = self.as_leaf(g)
            return leaf.merged("array", leaf.text, [])
        if g.kind != "array":
            self.refuse(f"`{text}` (an adjoint of a shape other than its operand's)", node)
        if like.kind != "array":          # the adjoint of a scalar that met every element: their sum
            return self.reduction("sum", g, node, text)
        return g

    def inline(self, callee, expr, env, namespace):
        """A generated (or user) function called from the program: its statements read in place, its
        locals renamed after it."""
        fn = callee.__astjax_function_source__.node
        text = unparse(expr).strip()
        if expr.keywords or fn.args.vararg or fn.args.kwarg or fn.args.kwonlyargs or fn.args.posonlyargs \
                or any(isinstance(a, gast.Starred) for a in expr.args):
            self.refuse(f"the call `{text}` (keyword or variable arguments)", expr)
        params = [a.id for a in fn.args.args]
        defaults = inspect.signature(callee).parameters
        values = [self.expression(a, env, namespace) for a in expr.args]
        callee_env = dict(zip(params, values))
        for name in params[len(values):]:
            default = defaults[name].default
            if not isinstance(default, (bool, int, float)):
                self.refuse(f"the call `{text}` (a default argument that is not a number)", expr)
            callee_env[name] = Value("host", repr(default))
        result = self.body(fn.body, callee_env, callee.__globals__, prefix=f"{callee.__name__}_")
        if result is None or isinstance(result, tuple):
            self.refuse(f"the call `{text}` (a function returning nothing or a tuple)", expr)
        return result


def _static(func, namespace, env):
    if isinstance(func, gast.Name):
        if func.id in env:
            return None
        return _global(func.id, namespace)
    if isinstance(func, gast.Attribute):
        base = _static(func.value, namespace, env)
        return getattr(base, func.attr, None) if base is not None else None
    return None


def _returns(statements):
    return bool(statements) and isinstance(statements[-1], gast.Return)


def _is_default(node, default):
    """Whether the argument `node` is the literal default value of its parameter (None, False, 0)."""
    return isinstance(node, gast.Constant) and type(node.value) is type(default) and node.value == default


def _global(name, namespace):
    """What a global name of generated code holds (`np` is the one the lowering passes' casts read)."""
    if name == "np" and "np" not in namespace:
        import numpy
        return numpy
    return namespace.get(name, getattr(builtins, name, None))


def _is_numpy_scalar_type(obj):
    import numpy as np
    return isinstance(obj, type) and issubclass(obj, np.generic)


def _describe_kind(kinds):
    if not kinds:
        return "value of unknown type"
    kind = next(iter(kinds))
    return {"tuple": "tuple", "list": "list", "object": f"{kind[-1]} object"}.get(kind[0], str(kind))


def _describe_statement(stmt):
    if isinstance(stmt, (gast.For, gast.While)):
        return "a loop"
    if isinstance(stmt, gast.If):
        return "a branch (`if`)"
    if isinstance(stmt, gast.Assign):
        return f"the assignment `{unparse(stmt).strip()}`"
    return f"the statement `{unparse(stmt).strip().splitlines()[0]}`"
