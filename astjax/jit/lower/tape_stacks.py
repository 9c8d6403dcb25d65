"""One typed stack per saved variable instead of one tape of mixed values.

The reference tape is a single Python list holding whatever the primal sweep
overwrote: floats, arrays, shapes. Numba lists hold one type, so each push
and pop goes to the stack of the variable it saves:

    _tape = Tape()               ->   _tape_y = [np.float32(0) for _ in range(0)]
    push(_tape, y)               ->   _tape_y.append(y)
    push(_tape, jnp.shape(t))    ->   _tape_t_shape.append(shape_of(t))
    y = pop(_tape)               ->   y = _tape_y.pop()
    t_shape = pop(_tape)         ->   t_shape = _tape_t_shape.pop()

Splitting is exact: the pop that restores `y` always takes the value pushed
before the statement that overwrote `y` (the tape plan pairs them that way),
so restricting the stack to y's pushes keeps each pair. A push or pop this
pass cannot pair with a variable is refused.
"""
import gast

from .typed_placeholders import placeholder
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["split_tape"]


def split_tape(node, context):
    tapes = {s.targets[0].id for s in walk(node)
             if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) and _called(s.value) == "Tape"
             and isinstance(s.targets[0], gast.Name)}
    if not tapes:
        return
    pushes = {}                          # stack key -> saved expression's abstract types
    for call in _calls(node, "push"):
        key = _push_key(call, tapes, context)
        pushes.setdefault(key, set())
    Splitter(tapes, pushes, context).visit(node)
    # Each stack starts empty, typed by what it will hold (Numba needs the item type of an empty list).
    starts = []
    for key in sorted(pushes):
        starts.append(gast.parse(f"{_stack_name(key)} = {_empty_list(key, context)}").body[0])
    node.body = starts + [s for s in node.body
                          if not (isinstance(s, gast.Assign) and isinstance(s.value, gast.Call)
                                  and _called(s.value) == "Tape")]


class Splitter(NodeTransformer):
    def __init__(self, tapes, pushes, context):
        self.tapes, self.pushes, self.context = tapes, pushes, context

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Call) and _called(node.value) == "push":
            key = _push_key(node.value, self.tapes, self.context)
            saved = node.value.args[1]
            if key.endswith("__shape"):
                saved = gast.parse(f"shape_of({saved.args[0].id})").body[0].value
            node.value = gast.Call(func=_attribute(_stack_name(key), "append"), args=[saved], keywords=[])
        return node

    def visit_Assign(self, node):
        if isinstance(node.value, gast.Call) and _called(node.value) == "pop":
            target = node.targets[0]
            if not isinstance(target, gast.Name):
                raise self.context.error("jit cannot compile a tape pop into this target", node, None)
            key = target.id if target.id in self.pushes else _shape_key(target.id, self.pushes)
            if key is None:
                raise self.context.error(f"jit cannot tell which saved value `{target.id}` is restored from",
                                         node, "run this function without jit and report the case")
            node.value = gast.Call(func=_attribute(_stack_name(key), "pop"), args=[], keywords=[])
        return node


def _push_key(call, tapes, context):
    tape, saved = call.args[0], call.args[1]
    if not (isinstance(tape, gast.Name) and tape.id in tapes):
        raise context.error("jit cannot compile a push onto this tape", call, None)
    if isinstance(saved, gast.Name):
        return saved.id
    if (isinstance(saved, gast.Call) and _called(saved) == "shape" and len(saved.args) == 1
            and isinstance(saved.args[0], gast.Name)):
        return saved.args[0].id + "__shape"
    raise context.error("jit cannot compile a push of this expression onto the tape", call, None)


def _shape_key(name, pushes):
    """The shape stack a pop into `name` reads: `t_shape` restores the saved shape of `t`."""
    if name.endswith("_shape") and name[:-len("_shape")] + "__shape" in pushes:
        return name[:-len("_shape")] + "__shape"
    return None


def _stack_name(key):
    return "_tape_" + key.replace("__shape", "_shape")


def _empty_list(key, context):
    """An empty list whose item type Numba can read: a list comprehension over range(0)."""
    if key.endswith("__shape"):
        types = {t for t in context.types_of(key[:-len("__shape")]) if t[0] == "array"}
        ndims = {t[2] for t in types} | ({0} if context.types_of(key[:-len("__shape")]) - types else set())
        if len(ndims) == 1:
            ndim = ndims.pop()
            item = "(" + "0, " * ndim + ")" if ndim else "()"
            return f"[{item} for _ in range(0)]"
        return "[]"
    lowered = context.lowered_type(key)
    if lowered is not None:
        value = placeholder(lowered, 0)
        if value is not None:
            from ...codegen.unparse import unparse
            return f"[{unparse(value).strip()} for _ in range(0)]"
    return "[]"


def _called(call):
    func = call.func
    if isinstance(func, gast.Name):
        return func.id
    if isinstance(func, gast.Attribute):
        return func.attr
    return None


def _calls(node, name):
    return [n for n in walk(node) if isinstance(n, gast.Call) and _called(n) == name]


def _attribute(base, attr):
    return gast.Attribute(value=gast.Name(id=base, ctx=gast.Load(), annotation=None, type_comment=None),
                          attr=attr, ctx=gast.Load())
