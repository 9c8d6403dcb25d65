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
    if any(isinstance(n, (gast.Break, gast.Continue, gast.Return)) for n in walk(loop)):
        return False
    if isinstance(loop, gast.While) and _mentions(loop.test, name):
        return False
    tainted = _tainted(loop.body, name)
    if tainted is None:
        return False
    assigning = next(s for s in loop.body if _assigns(s, name))
    for later in body[loop_at + 1:]:        # later loops may restore it from the tape (a reverse sweep) only
        for n in walk(later):
            if isinstance(n, gast.Name) and n.id in tainted and not isinstance(n.ctx, gast.Load) \
                    and not _restored_from_tape(later, n):
                return False
        if _read_outside_reverse_sweeps(later, tainted - {name}):
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
    for new, where in ((start, loop), (mark, assigning), (check, loop)):
        for n in walk(new):
            if hasattr(n, "lineno"):
                gast.copy_location(n, where)
    place = loop.body.index(assigning)
    loop.body.insert(place + 1, mark)
    body.insert(loop_at + 1, check)
    body.insert(loop_at, start)
    return True


def _tainted(statements, name):
    """The names the loop's body computes from the carry (the carry and the temporaries of its update, each
    set once, at the top of the body, by `+ - * /` of them and other values), or None where the body reads
    one of them otherwise than so or in a derivative's tape reads, or sets one of them otherwise."""
    tainted, grown = {name}, True
    while grown:                           # a temporary may be read before its line, from the last iteration
        grown = False
        for stmt in statements:
            if _updates(stmt, tainted) and stmt.targets[0].id not in tainted:
                tainted.add(stmt.targets[0].id)
                grown = True
    carry_sets, sets = 0, set()
    for stmt in statements:
        if _updates(stmt, tainted):
            target = stmt.targets[0].id
            if target in sets:
                return None                    # set twice in one iteration
            sets.add(target)
            carry_sets += target == name
            continue
        stores = {n.id for n in walk(stmt) if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
        if stores & tainted or (any(_mentions(stmt, t) for t in tainted) and not _tape_read(stmt, tainted)):
            return None
    return tainted if carry_sets == 1 else None


def _updates(stmt, tainted):
    """`t = <+ - * / tree with a leaf in tainted>`."""
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and _elementwise_of(stmt.value, tainted))


def _read_outside_reverse_sweeps(stmt, names):
    """Whether the top-level statement `stmt` reads one of `names` (temporaries, which after a loop of one
    iteration still hold that iteration's values) other than for its shape (`jnp.shape(t)`, which a
    derivative's adjoint of the stand-in reads) outside a derivative's reverse loop (`for i in reversed(...)`)."""
    if not names:
        return False
    if isinstance(stmt, gast.For) and isinstance(stmt.iter, gast.Call) and isinstance(stmt.iter.func, gast.Name) \
            and stmt.iter.func.id == "reversed":
        return False
    shapes = {id(n.args[0]) for n in walk(stmt) if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
              and n.func.attr == "shape" and len(n.args) == 1}
    return any(isinstance(n, gast.Name) and n.id in names and id(n) not in shapes for n in walk(stmt))


def _mentions(node, name):
    return any(isinstance(n, gast.Name) and n.id == name for n in walk(node))


def _assigns(stmt, name):
    return (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and stmt.targets[0].id == name)


def _elementwise_of(expr, names):
    """Whether `expr` is a tree of `+ - * /` and unary `-` with one of `names` among its leaves, and no
    other leaf reading them."""
    found = []

    def leaves(e):
        if isinstance(e, gast.BinOp) and isinstance(e.op, _ELEMENTWISE):
            return leaves(e.left) and leaves(e.right)
        if isinstance(e, gast.UnaryOp) and isinstance(e.op, gast.USub):
            return leaves(e.operand)
        if isinstance(e, gast.Name) and e.id in names:
            found.append(e)
            return True
        return not any(_mentions(e, n) for n in names)
    return leaves(expr) and bool(found)


def _tape_read(stmt, names):
    """`push(_tape, v)` or `push(_tape, jnp.shape(v))` of one of `names`: a derivative saving it for its
    reverse sweep."""
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id in _TAPE_READS
            and len(stmt.value.args) == 2 and not stmt.value.keywords):
        return False
    saved = stmt.value.args[1]
    if isinstance(saved, gast.Name):
        return saved.id in names
    return (isinstance(saved, gast.Call) and isinstance(saved.func, gast.Attribute) and saved.func.attr == "shape"
            and len(saved.args) == 1 and isinstance(saved.args[0], gast.Name) and saved.args[0].id in names)


def _restored_from_tape(loop, target):
    """Whether the store `target` is `name = pop(_tape)` in `loop`."""
    return any(isinstance(s, gast.Assign) and len(s.targets) == 1 and s.targets[0] is target
               and isinstance(s.value, gast.Call) and isinstance(s.value.func, gast.Name) and s.value.func.id == "pop"
               for s in walk(loop))
