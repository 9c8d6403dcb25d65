"""The tape: where the forward sweep keeps values that the reverse sweep needs back.

When a loop overwrites a variable whose old value a derivative rule reads,
the forward sweep pushes the old value and the reverse sweep pops it. The
tape is a plain stack, so its memory grows with what is overwritten, not
with the number of statements.
"""
import builtins

from . import helpers
from .helpers import to_float
from .nondifferentiable import SHAPES
from .registry import PRIMITIVES, deflowering, defjvp, defvjp, parse_expression, primitive


class Tape(list):
    """A last-in first-out stack of saved values."""

    __slots__ = ()

    def __repr__(self):
        return f"Tape({len(self)} values)"


def push(tape, value):
    """Save `value` on `tape`."""
    tape.append(value)


def pop(tape):
    """Take back the value saved last."""
    return tape.pop()


# `float(x)` of an array keeps the derivative flowing.
to_float_prim = primitive("to_float", to_float, operands=("x",), aliases=(builtins.float,), result_shape_of="x")
defvjp(to_float_prim, "bx += by")
defjvp(to_float_prim, "dy = dx")
deflowering(to_float_prim, numba="astjax.runtime.numba_cpu:to_float")

# min(a, b) and max(a, b) of two values are elementwise minimum / maximum.
builtin_max = primitive("builtin_max", builtins.max, operands=("x1", "x2"), unbroadcast=True,
                        signature=lambda x1, x2: None)
defvjp(builtin_max, "bx1 += by * (x1 >= x2)", "bx2 += by * (x1 < x2)")
defjvp(builtin_max, "dy = dx1 * (x1 >= x2) + dx2 * (x1 < x2)")
deflowering(builtin_max, numba="astjax.runtime.numba_cpu:builtin_max")
builtin_min = primitive("builtin_min", builtins.min, operands=("x1", "x2"), unbroadcast=True,
                        signature=lambda x1, x2: None)
defvjp(builtin_min, "bx1 += by * (x1 <= x2)", "bx2 += by * (x1 > x2)")
defjvp(builtin_min, "dy = dx1 * (x1 <= x2) + dx2 * (x1 > x2)")
deflowering(builtin_min, numba="astjax.runtime.numba_cpu:builtin_min")

# The tape's own operations: the transformations give them their derivatives
# directly (a pushed value's tangent goes on a tangent tape beside it).
primitive("Tape", Tape, operands=(), differentiable=False, reason="a new, empty tape holds no values yet")
primitive("pop", pop, operands=("tape",), effect="takes the last value off the tape")
primitive("push", push, operands=("tape", "value"), effect="puts a value on the tape")
# The adjoint nothing has reached yet (zeros, 0.0 for a container, an empty tape) is a constant:
# a derivative of generated code copies it unchanged rather than transforming the helper.
deflowering(primitive("zero_like", helpers.zero_like, operands=(), differentiable=False, reason=SHAPES),
            numba="astjax.runtime.numba_cpu:zero_like")
# zeros of a saved shape (transforms/reverse/tape_writer.py) likewise: a lax.scan's second derivative once
# transformed the helper's own source and refused at astjax's line instead of the user's.
deflowering(primitive("zeros_shaped", helpers.zeros_shaped, operands=(), differentiable=False, reason=SHAPES),
            numba="astjax.runtime.numba_cpu:zeros_shaped")

# The builtin sum of a list: each item's adjoint is the result's, summed back to the item's shape; so is
# the adjoint of `start` (sum(items, start) is start + item + item ...).
builtin_sum = primitive("builtin_sum", builtins.sum, operands=("iterable", "start"), sequence_operand="iterable",
                        signature=lambda iterable, start=0: None)
defvjp(builtin_sum, "biterable += sum_adjoint(by, iterable)", "bstart += unbroadcast(by, start)")
defjvp(builtin_sum, "diterable -> sum(diterable)", "dstart -> dstart")
# A literal list's item k: its part of sum_adjoint's, which refuses a sum that concatenates lists or tuples.
builtin_sum.sequence_vjp = parse_expression("item_adjoint(sum_adjoint(by, iterable), k)")
sum_adjoint = primitive("sum_adjoint", helpers.sum_adjoint, operands=("g",))
defvjp(sum_adjoint, "bg += sum_items(by, g, iterable)")
defjvp(sum_adjoint, "dy = sum_adjoint(dg, iterable)")
for _summing in (builtin_sum, sum_adjoint):       # a list of floats or float arrays (runtime/numba_builtin_sums.py)
    deflowering(_summing, numba=f"astjax.runtime.numba_cpu:{_summing.name}")
sum_items = primitive("sum_items", helpers.sum_items, operands=("t",))
defvjp(sum_items, "bt += sum_adjoint(by, iterable)")
defjvp(sum_items, "dy = sum_items(dt, like, iterable)")

# A float() and a tape pop pass a bare 0.0 adjoint through unchanged.
for _prim in (to_float_prim, PRIMITIVES["pop"]):
    _prim.accepts_scalar_zero = True

# sum_adjoint/sum_items read the summed list for its items' shapes only.
sum_adjoint.shape_params = sum_adjoint.shape_params | frozenset({"iterable"})
sum_items.shape_params = sum_items.shape_params | frozenset({"like", "iterable"})
