"""Arrays of which the function only ever reads the shape are computed as shapes.

The blur's derivative runs the primal loop again for what its reverse sweep needs, and after
recompute_windows that is only shapes:

    output = np.zeros_like(image)                          _shape_of_output = image.shape
    for i ...:                                             for i ...:
        for j ...:                                             for j ...:
            window = lax.dynamic_slice(padded, (i, j), s) ->       _shape_of_window = window_shape(padded.shape, s)
            _tape__t2_shape.append(shape_of(_t2))                  _tape__t2_shape.append(_shape_of__t2)
            _t2 = _t1 * window                                     _shape_of__t2 = _shape_of_window
            output = output + _t2                                  _shape_of_output = broadcast_shape(...)

81 products and sums of the whole image, none of whose numbers anything reads, become tuple
arithmetic. A name qualifies when every read of it is `shape_of(v)`, `jnp.shape(v)`, `v.shape`, or
inside the value of an assignment to a name that qualifies, and every value assigned to it has a
shape this pass can write: arithmetic (broadcast_shape, which raises where the arrays would not
broadcast), a scalar name or number, a dynamic_slice (window_shape, which raises where the slice
would), zeros_like, a literal placeholder. Anything else keeps its array (an element `a[i, j]` too:
its index error must stay).
"""
import gast

from ...rules import lookup_callable
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["compute_shapes_only"]

_ARITHMETIC = (gast.Add, gast.Sub, gast.Mult, gast.Div, gast.Pow)


def compute_shapes_only(node, context):
    params = {a.id for a in node.args.args}
    assignments = {}
    excluded = set(params)
    for n in walk(node):
        if isinstance(n, (gast.Assign, gast.AugAssign)):
            targets = n.targets if isinstance(n, gast.Assign) else [n.target]
            plain = len(targets) == 1 and isinstance(targets[0], gast.Name)
            for t in targets:
                for name in walk(t):
                    if isinstance(name, gast.Name) and not isinstance(name.ctx, gast.Load):
                        if plain and name is targets[0]:
                            assignments.setdefault(name.id, []).append(n)
                        else:
                            excluded.add(name.id)
        elif isinstance(n, (gast.For, gast.comprehension, gast.NamedExpr, gast.With, gast.Delete)):
            excluded |= {x.id for x in walk(n.target if hasattr(n, "target") else n)
                         if isinstance(x, gast.Name) and not isinstance(x.ctx, gast.Load)}
        elif isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not node:
            excluded |= {x.id for x in walk(n) if isinstance(x, gast.Name)}
    candidates = {v for v in assignments if v not in excluded and _array_type(context, v) is not None}
    shape_reads = _shape_reads(node, context)
    while True:
        owner = _assignment_of_each_load(node)
        dropped = set()
        for n in walk(node):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in candidates:
                if id(n) in shape_reads:
                    continue
                stmt = owner.get(id(n))
                if stmt is None or _target(stmt) not in candidates:
                    dropped.add(n.id)
        for v in candidates - dropped:
            if any(_shape(_value(s), candidates, context) is None for s in assignments[v]):
                dropped.add(v)
        if not dropped:
            break
        candidates -= dropped
    if not candidates:
        return
    for v in sorted(candidates):
        context.types[_shape_name(v)] = {("tuple", (("weak", "int"),) * _array_type(context, v)[2])}
    Rewrite(candidates, shape_reads, context).visit(node)


def _shape_name(v):
    return f"_shape_of_{v}"


def _array_type(context, name):
    kind = context.lowered_type(name)
    return kind if kind is not None and kind[0] == "array" and context.types_of(name) - {("none",)} == {kind} else None


def _target(stmt):
    return stmt.targets[0].id if isinstance(stmt, gast.Assign) else stmt.target.id


def _value(stmt):
    if isinstance(stmt, gast.AugAssign):
        return gast.BinOp(left=gast.Name(id=stmt.target.id, ctx=gast.Load(), annotation=None, type_comment=None),
                          op=stmt.op, right=stmt.value)
    return stmt.value


def _assignment_of_each_load(node):
    """id of each Name read in the value of a plain assignment -> that assignment."""
    owner = {}
    for n in walk(node):
        if isinstance(n, (gast.Assign, gast.AugAssign)):
            targets = n.targets if isinstance(n, gast.Assign) else [n.target]
            if len(targets) == 1 and isinstance(targets[0], gast.Name):
                for x in walk(n.value):
                    owner[id(x)] = n
                if isinstance(n, gast.AugAssign):
                    owner[id(n.target)] = n
    return owner


def _shape_reads(node, context):
    """ids of the Names read only for their shape: `shape_of(v)`, `jnp.shape(v)`, `v.shape`."""
    reads = set()
    for n in walk(node):
        if isinstance(n, gast.Attribute) and n.attr == "shape" and isinstance(n.value, gast.Name):
            reads.add(id(n.value))
        elif (isinstance(n, gast.Call) and len(n.args) == 1 and not n.keywords
              and isinstance(n.args[0], gast.Name) and _is_shape_call(n.func, context)):
            reads.add(id(n.args[0]))
    return reads


def _is_shape_call(func, context):
    if isinstance(func, gast.Name) and func.id == "shape_of":
        return True
    prim = lookup_callable(context.static_object(func))
    return prim is not None and prim.name == "shape"



def _shape(expr, candidates, context):
    """Source text of `expr`'s shape, or None."""
    if isinstance(expr, gast.Name):
        if expr.id in candidates:
            return _shape_name(expr.id)
        kind = context.lowered_type(expr.id)
        if kind is None:
            return None
        if kind[0] == "array":
            return f"{expr.id}.shape"
        return "()" if kind[0] in ("scalar", "weak") else None
    if isinstance(expr, gast.Constant):
        return "()" if isinstance(expr.value, (int, float)) and not isinstance(expr.value, bool) else None
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, _ARITHMETIC):
        left, right = _shape(expr.left, candidates, context), _shape(expr.right, candidates, context)
        if left is None or right is None:
            return None
        if left == "()" or left == right:
            return right
        if right == "()":
            return left
        return f"broadcast_shape({left}, {right})"
    if isinstance(expr, gast.UnaryOp) and isinstance(expr.op, (gast.USub, gast.UAdd)):
        return _shape(expr.operand, candidates, context)
    if isinstance(expr, gast.Call) and not expr.keywords:
        func = expr.func
        if (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) and func.value.id == "np"
                and func.attr in ("float32", "float64") and len(expr.args) == 1):
            inner = _shape(expr.args[0], candidates, context)
            return "()" if inner == "()" else None
        zeros = ((isinstance(func, gast.Name) and func.id == "zeros")
                 or (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                     and func.value.id == "np" and func.attr == "zeros"))
        if zeros and len(expr.args) == 2:
            literal = expr.args[0]
            if isinstance(literal, gast.Tuple) and all(isinstance(e, gast.Constant) and type(e.value) is int
                                                       for e in literal.elts):
                return "(" + "".join(f"{e.value}, " for e in literal.elts) + ")"
            return None
        prim = lookup_callable(context.static_object(func))
        if prim is None:
            return None
        if prim.name == "zeros_like" and len(expr.args) == 1:
            return _shape(expr.args[0], candidates, context)
        if prim.name == "dynamic_slice" and len(expr.args) == 3:
            operand, starts, sizes = expr.args
            kind = context.lowered_type(operand.id) if isinstance(operand, gast.Name) else None
            if (kind is None or kind[0] != "array" or not isinstance(sizes, gast.Tuple)
                    or not isinstance(starts, gast.Tuple) or len(sizes.elts) != kind[2] or len(starts.elts) != kind[2]
                    or not all(_integer_scalar(e, context) for e in starts.elts + sizes.elts)):
                return None
            names = "".join(f"{_text(e)}, " for e in sizes.elts)
            return f"window_shape({operand.id}.shape, ({names}))"
    return None


def _integer_scalar(expr, context):
    if isinstance(expr, gast.Constant):
        return type(expr.value) is int
    if isinstance(expr, gast.Name):
        kind = context.lowered_type(expr.id)
        return kind is not None and (kind == ("weak", "int") or (kind[0] == "scalar" and kind[1].startswith(("int", "uint"))))
    return False


def _text(expr):
    return str(expr.value) if isinstance(expr, gast.Constant) else expr.id


class Rewrite(NodeTransformer):
    def __init__(self, candidates, shape_reads, context):
        self.candidates, self.shape_reads, self.context = candidates, shape_reads, context
        from ...runtime.numba_shapes import broadcast_shape, window_shape
        self.context.bindings["broadcast_shape"] = broadcast_shape
        self.context.bindings["window_shape"] = window_shape

    def _assign(self, node):
        targets = node.targets if isinstance(node, gast.Assign) else [node.target]
        if not (len(targets) == 1 and isinstance(targets[0], gast.Name)) or _target(node) not in self.candidates:
            self.generic_visit(node)
            return node
        text = _shape(_value(node), self.candidates, self.context)
        new = gast.parse(f"{_shape_name(_target(node))} = {text}").body[0]
        return gast.copy_location(new, node)

    visit_Assign = visit_AugAssign = _assign

    def visit_Attribute(self, node):
        if node.attr == "shape" and isinstance(node.value, gast.Name) and node.value.id in self.candidates:
            return _load(_shape_name(node.value.id))
        self.generic_visit(node)
        return node

    def visit_Call(self, node):
        if (len(node.args) == 1 and isinstance(node.args[0], gast.Name) and node.args[0].id in self.candidates
                and id(node.args[0]) in self.shape_reads):
            return _load(_shape_name(node.args[0].id))
        self.generic_visit(node)
        return node


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)
