"""A loop carry that starts as a Python number and becomes an array, as an array from the start.

    acc = 0.0                           acc = np.zeros((1,), np.float64)
    for row in X:               ->      _number_carry_set_1 = False
        acc = acc + row                 for row in X:
                                            acc = acc + row
                                            _number_carry_set_1 = True
                                        if not _number_carry_set_1:
                                            raise _number_carry_refusal(...)

Compiled code gives a variable one type: the first call saw `acc` hold an array of one type (rank r) after
the number, so the number becomes zeros (or its value) of shape (1, ..., 1) and that dtype. That is exact
where the first iteration's statement combines the number elementwise (`+ - * /` and unary `-`, `acc`
itself a leaf of the tree): its result has rank r, its operands broadcast to it, and a (1, ..., 1) array
changes neither their values nor that shape. A derivative's tape reads of it (`push(_tape, acc)`,
`jnp.shape(acc)`) only carry the stand-in to the adjoint of the number, which goes nowhere.

Where the loop runs no iteration the number would be the result as it is: compiled code raises a
RuntimeRefusal there, and the jitted call runs the reference backend instead (jit/compiled.py), which
returns it. Any other use (the assignment inside an `if`, a read in another statement, a loop that is not
a top-level statement, a second loop assigning it) keeps jit's refusal at the user's line.
"""
import gast

from ...codegen.node_walk import walk

__all__ = ["carry_from_number"]

_ELEMENTWISE = (gast.Add, gast.Sub, gast.Mult, gast.Div)
_TAPE_READS = ("push",)


def carry_from_number(function, stmt, name, value, target, context):
    """Rewrite the number `stmt` (`name = value`, a top-level statement of `function`) into its array
    stand-in of type `target`, with the guard above; False (nothing changed) where that is not exact."""
    body = function.body
    at = next((k for k, s in enumerate(body) if s is stmt), None)
    if at is None or target[0] != "array":
        return False
    loop_at = next((k for k in range(at + 1, len(body)) if _mentions(body[k], name)), None)
    if loop_at is None or not isinstance(body[loop_at], (gast.For, gast.While)) or body[loop_at].orelse:
        return False
    loop = body[loop_at]
    assigning = [s for s in loop.body if _assigns(s, name)]
    if len(assigning) != 1 or not _elementwise_of(assigning[0].value, name):
        return False
    if any(isinstance(n, (gast.Break, gast.Continue, gast.Return)) for n in walk(loop)):
        return False
    for inner in loop.body:                  # reads of it: the elementwise update and tape reads only
        if inner is assigning[0]:
            continue
        if _mentions(inner, name) and not _tape_read(inner, name):
            return False
        if any(isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load) for n in walk(inner)):
            return False
    if isinstance(loop, gast.While) and _mentions(loop.test, name):
        return False
    for later in body[loop_at + 1:]:        # later loops may restore it from the tape (a reverse sweep) only
        for n in walk(later):
            if isinstance(n, gast.Name) and n.id == name and not isinstance(n.ctx, gast.Load) \
                    and not _restored_from_tape(later, n):
                return False
    from .typed_placeholders import placeholder
    replacement = placeholder(target, 1, value)
    if replacement is None:
        return False
    stmt.value = replacement
    taken = {n.id for n in walk(function) if isinstance(n, gast.Name)}
    flag, n = f"_number_carry_set_{name}", 1
    while flag in taken or flag in context.bindings:
        n += 1
        flag = f"_number_carry_set_{name}_{n}"
    from ...errors import RuntimeRefusal
    refusal = context.bind("_number_carry_refusal", RuntimeRefusal, taken)
    message = (f"`{name}` starts as the number {value!r} and the loop that makes it an array ran no iteration: "
               f"compiled code holds it as an array, so the reference backend computes this call")
    start = gast.parse(f"{flag} = False").body[0]
    mark = gast.parse(f"{flag} = True").body[0]
    check = gast.parse(f"if not {flag}:\n    raise {refusal}({message!r})").body[0]
    for new, where in ((start, loop), (mark, assigning[0]), (check, loop)):
        for n in walk(new):
            if hasattr(n, "lineno"):
                gast.copy_location(n, where)
    place = loop.body.index(assigning[0])
    loop.body.insert(place + 1, mark)
    body.insert(loop_at + 1, check)
    body.insert(loop_at, start)
    return True


def _mentions(node, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in walk(node))


def _assigns(stmt, name):
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == name)


def _elementwise_of(expr, name):
    """Whether `expr` is a tree of `+ - * /` and unary `-` with `name` among its leaves, and no other
    leaf reading `name`."""
    found = []

    def leaves(e):
        if isinstance(e, gast.BinOp) and isinstance(e.op, _ELEMENTWISE):
            return leaves(e.left) and leaves(e.right)
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
            return leaves(e.operand)
        if isinstance(e, gast.Name) and e.id == name:
            found.append(e)
            return True
        return not _mentions(e, name)
    return leaves(expr) and bool(found)


def _tape_read(stmt, name):
    """`push(_tape, name)` or `push(_tape, jnp.shape(name))`: a derivative saving it for its reverse sweep."""
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in _TAPE_READS
            and len(stmt.value.args) == 2 and not stmt.value.keywords):
        return False
    saved = stmt.value.args[1]
    if isinstance(saved, gast.Name):
        return saved.id == name
    return (isinstance(saved, gast.Call) and isinstance(saved.func, gast.Attribute) and saved.func.attr == "shape"
            and len(saved.args) == 1 and isinstance(saved.args[0], gast.Name) and saved.args[0].id == name)


def _restored_from_tape(loop, target):
    """Whether the store `target` is `name = pop(_tape)` in `loop`."""
    return any(isinstance(s, gast.Assign) and len(s.targets) == 1 and s.targets[0] is target
               and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Name) and s.value.func.id == "pop"
               for s in walk(loop))
