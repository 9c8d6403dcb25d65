"""Print a transformed function's generated source specialized to example arguments.

    source(grad(f), x)  ->  run grad(f)(x), watching the helper calls (call_sites.py);
                            parse each generated function's text (comments kept);
                            replace each helper call every execution of which a fold
                            understands (folds.py), and unbroadcast between numbers in scalar
                            code (scalar_code.py); drop tape slots that saved a shape
                            nobody reads any more; clean up as generation does; drop
                            pops nothing reads with their pushes, and saves of a value
                            nothing changes before its restore (unread_saves.py);
                            recompute or save loop temporaries after computing them (loop_saves.py);
                            write a while loop's test back into its header (while_tests.py);
                            `b = e; b += f` as `b = e + f` (sum_accumulations.py); a seed
                            read once written where it is read (seed_constants.py);
                            then over all the functions together (_finish): comments of
                            derivatives of astjax's own rules naming their file
                            (library_comments.py), seeds of ones times a value of their shape
                            as that value (ones_factors.py), constant tests folded (constant_branches.py),
                            straight-line callees written out where called (inline_callees.py),
                            the user's loop index for a reverse counter (loop_indices.py), a branch's
                            forward and reverse halves as one `if` (fused_branches.py), numbers
                            propagated (propagated_constants.py), loops nothing reads from dropped
                            (dead_loops.py), tuples of adjoints split (tuple_items.py), cheap
                            temporaries and the normalizer's `out` written where read
                            (cheap_temporaries.py, returned_names.py), equal branches merged
                            (same_branches.py), value-picking branches as conditional
                            expressions (conditional_assignments.py), a temporary read once in
                            a `for` header written there (header_temporaries.py), straight-line
                            saves as new names (straight_line_saves.py), branch flags and values
                            recomputed from restored saves (recomputed_flags.py, recomputed_saves.py),
                            item resets nothing reads dropped (dead_item_resets.py), one-item
                            adjoints as `.at[i].add` (index_adjoints.py), loops that only scale an
                            adjoint as a power (scaling_loops.py), a loop's saves as a list read
                            back in the reverse loop's header (saved_lists.py), `e + e` as `2 * e`
                            (doubled_sums.py), values read once by the next statement written there
                            (single_use_values.py), items of fills and loops that fill
                            (filled_items.py), `v = e; return v` as `return e` (returned_values.py),
                            and no `else` after a return (else_after_return.py);
                            run the result on the same arguments and compare.

The general source is printed instead (with a note saying why) when the run
reaches no generated Python code (a compiled jit function) or the specialized
code does not reproduce the general code's result.
"""
import copy
import inspect

import gast
import numpy as np

from .. import tree_util
from ..codegen.unparse import parse_printed, unparse
from ..optimize import cleanup
from ..optimize.dead_code import remove_dead_code
from ..optimize.loop_accumulators import fold_loop_accumulators
from .call_sites import Seen, watch_calls
from .folds import FOLDS
from .folds_index import INDEX_FOLDS
from .loop_saves import move_loop_saves
from .unread_saves import drop_idle_saves, drop_unread_saves
from .while_tests import fold_while_tests
from .sum_accumulations import sum_accumulations
from .scalar_code import fold_in_callees, fold_scalar_unbroadcasts
from .seed_constants import inline_seed_constants
from .inline_callees import inline_callees
from .fused_branches import fuse_branches
from .conditional_assignments import conditional_assignments
from .header_temporaries import substitute_header_temporaries
from .same_branches import merge_same_branches
from .constant_branches import take_constant_branches, take_known_branches
from .library_comments import label_library_comments
from .tuple_items import split_tuple_items
from .dead_loops import drop_dead_loops
from .cheap_temporaries import substitute_cheap_temporaries
from .loop_indices import name_loop_indices
from .ones_factors import MARK as ONES_MARK, fold_ones_factors
from .returned_names import returned_names
from .propagated_constants import propagate_constants
from .returned_values import return_assigned_values
from .recomputed_flags import recompute_flags
from .straight_line_saves import name_straight_line_saves
from .index_adjoints import write_index_adjoints
from .dead_item_resets import drop_dead_item_resets
from .recomputed_saves import recompute_saved_values
from .scaling_loops import fold_scaling_loops
from .single_use_values import fold_single_use_values
from .doubled_sums import double_sums
from .filled_items import fold_filled_items
from .saved_lists import read_saves_in_loop_headers
from .else_after_return import drop_else_after_return
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["specialized_source"]


def specialized_source(run, general_text):
    """`general_text` (generated functions, the main one first) specialized to what `run()` gives them."""
    from ..errors import is_generated_file
    _, observed = watch_calls(run, is_generated_file)
    functions = [node for node in parse_printed(general_text).body if isinstance(node, gast.FunctionDef)]
    if not functions or functions[0].name not in observed.entries:
        return general_text + _note("no generated Python code ran for these arguments (a jit-compiled function?)")
    specialized, ran_as_printed = [], set()
    for node in functions:
        namespace = _namespace_of(node.name, observed)
        if namespace is None or node.name not in observed.entries:
            specialized.append(node)
            continue
        compiled_node = _compiled_node(node.name, observed)
        if compiled_node is None or gast.dump(_without_comments(compiled_node)) != gast.dump(_without_comments(node)):
            specialized.append(node)         # the printed text is not what ran: leave it general
            continue
        ran_as_printed.add(node.name)
        try:
            specialized.append(_specialize(compiled_node, namespace, observed))
        except Exception as exc:      # noqa: BLE001 -- a printing pass that failed: print the general form
            return general_text + _note(f"a printing pass raised {type(exc).__name__}: {exc}")
    if functions[0].name not in ran_as_printed:
        return general_text + _note("the function these arguments ran is not the one printed")
    callers = [(node, observed.entries[node.name][0]) for node in specialized if node.name in ran_as_printed]
    for node in specialized:
        if node.name not in ran_as_printed and node.name not in observed.entries:
            others = [n for n in specialized if n.name not in ran_as_printed]
            fold_in_callees(node, callers, others)     # a vjp_ of a branch not taken, called with numbers only
    try:
        specialized = _finish(specialized, observed)
    except Exception as exc:      # noqa: BLE001 -- a printing pass that failed: print the general form
        return general_text + _note(f"a printing pass raised {type(exc).__name__}: {exc}")
    problem = _reproduces(specialized, observed)
    if problem:
        return general_text + _note(problem)
    main_args = observed.entries[functions[0].name][0]
    return _header(functions[0], main_args) + "\n\n".join(unparse(node) for node in specialized)


def _specialize(node, namespace, observed):
    """One generated function (parsed from the text it ran from) specialized to what its run saw."""
    arguments = observed.entries[node.name][0]
    _Fold(namespace, observed, node.name).visit(node)
    _drop_unread_shape_slots(node)
    fold_scalar_unbroadcasts(node, arguments)
    _take_constant_branches(node)     # `if 0 != 0: raise ...` (a rank check) goes
    remove_dead_code(node)            # a folded `t_shape = (3,)` nobody reads must not be shared by cleanup
    cleanup(node, ones_of_any_dtype=True)
    drop_unread_saves(node, namespace, arguments)
    move_loop_saves(node, namespace, arguments)
    drop_idle_saves(node)
    fold_while_tests(node)
    return sum_accumulations(inline_seed_constants(cleanup(node, ones_of_any_dtype=True)))


def _finish(functions, observed):
    """The passes over all the generated functions together (see the module docstring); the cleanup
    passes run again in between, and returned_values.py runs last (cleanup sees top-level returns only)."""
    namespaces = {f.name: _namespace_of(f.name, observed) for f in functions}
    label_library_comments(functions, namespaces)
    for node in functions:
        take_constant_branches(node)
    functions = inline_callees(functions, namespaces)
    for node in functions:
        fold_ones_factors(node)
        renamed = name_loop_indices(node)
        fuse_branches(node)
        drop_idle_saves(node)
        propagate_constants(node)
        drop_dead_loops(node)
        temporaries = _temporaries(node.name, namespaces)
        items = split_tuple_items(node) | returned_names(node, namespaces)
        sum_accumulations(cleanup(node, temporaries=_branch_flags(node, temporaries) | items,
                                  ones_of_any_dtype=True))
        if fold_ones_factors(node, changed=True):     # fills that cleanup has just written into marked nodes
            cleanup(node, temporaries=_branch_flags(node, temporaries) | items, ones_of_any_dtype=True)
        substitute_header_temporaries(node, temporaries)
        substitute_cheap_temporaries(node, temporaries)
        renamed = name_loop_indices(node) or renamed
        if renamed and node.name in observed.entries and namespaces.get(node.name) is not None:
            move_loop_saves(node, namespaces[node.name], observed.entries[node.name][0])   # with the user's index
            cleanup(node, temporaries=_branch_flags(node, temporaries), ones_of_any_dtype=True)
            substitute_cheap_temporaries(node, temporaries)
        name_straight_line_saves(node)
        recompute_flags(node)
        recompute_saved_values(node)
        drop_dead_item_resets(node)
        write_index_adjoints(node, observed.entries[node.name][0] if node.name in observed.entries else None)
        fold_scaling_loops(node, observed.entries[node.name][0] if node.name in observed.entries else None)
        read_saves_in_loop_headers(node, namespaces.get(node.name),
                                   observed.entries[node.name][0] if node.name in observed.entries else None)
        if gast.dump(node) != gast.dump(fold_loop_accumulators(copy.deepcopy(node))):
            remove_dead_code(fold_loop_accumulators(node))   # a reverse body no longer under its flag's `if`
        double_sums(node)
        return_assigned_values(conditional_assignments(merge_same_branches(node)))
        double_sums(node)                             # `ba += ba; return ba` returned `ba + ba`
        fold_single_use_values(node, temporaries)     # after: `t = e; return f(t)` folds whole
        fold_filled_items(node, observed.entries[node.name][0] if node.name in observed.entries else None)
        return_assigned_values(node)
        if double_sums(node, changed=True):           # a return written in each branch: `ba + ba + bb`
            fold_single_use_values(node, temporaries)
            return_assigned_values(node)
        drop_else_after_return(node)
    return functions


def _branch_flags(node, temporaries):
    """The temporaries read only in `if` tests (`a_gt_b`): cleanup may write their test in the `if`."""
    tests = {id(n) for stmt in walk(node) if isinstance(stmt, gast.If) for n in walk(stmt.test)}
    loads = {}
    for n in walk(node):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            loads.setdefault(n.id, []).append(id(n) in tests)
    return frozenset(t for t in temporaries if loads.get(t) and all(loads[t]))


def _temporaries(name, namespaces):
    """The names the derivation gave its temporaries in the generated function `name` (codegen/readable_names.py)."""
    for namespace in namespaces.values():
        source = getattr((namespace or {}).get(name), "__astjax_function_source__", None)
        if source is not None:
            return frozenset(getattr(source, "temporaries", ()))
    return frozenset()


class _Fold(NodeTransformer):
    """Replace each helper call whose executions all saw one signature a fold understands."""

    def __init__(self, namespace, observed, function):
        self.namespace, self.observed, self.function = namespace, observed, function

    def visit_BinOp(self, node):
        """Mark `a * b` whose operands were arrays of one shape at every execution (ones_factors.py)."""
        self.generic_visit(node)
        outer = self._outer(node)
        if outer is not None:
            return outer
        seen = self.observed.seen_at(self.function, _position(node))
        if seen is not None:
            operands = [seen.get("self"), seen.get("other")]
            if all(o is not None and o.kind == "array" for o in operands) and operands[0].shape == operands[1].shape:
                setattr(node, ONES_MARK, operands[0].shape)
        return node

    def _outer(self, node):
        """`jnp.expand_dims(a, -1) * jnp.expand_dims(b, -2)` of vectors a and b (every execution) is
        `jnp.outer(a, b)`: the derivative of a rule's `matmul` adjoint in a second derivative."""
        if not isinstance(node.op, gast.Mult):
            return None
        vectors = []
        for operand, axis in ((node.left, -1), (node.right, -2)):
            if not (isinstance(operand, gast.Call) and isinstance(operand.func, gast.Attribute)
                    and operand.func.attr == "expand_dims" and isinstance(operand.func.value, gast.Name)
                    and operand.func.value.id == "jnp" and len(operand.args) == 2 and not operand.keywords
                    and _int_literal(operand.args[1]) == axis):
                return None
            seen = self.observed.seen_at(self.function, _position(operand))
            a = seen.get("a") if seen else None
            if a is None or a.kind != "array" or len(a.shape) != 1:
                return None
            vectors.append(operand.args[0])
        return gast.Call(func=gast.Attribute(value=gast.Name(id="jnp", ctx=gast.Load(), annotation=None,
                                                             type_comment=None), attr="outer", ctx=gast.Load()),
                         args=vectors, keywords=[])

    def visit_Call(self, node):
        if _is_call(node, "push"):
            return node                  # a saved shape stays `jnp.shape(t)`: _drop_unread_shape_slots reads it
        self.generic_visit(node)         # inner calls first: a fold may rely on an already folded argument
        target = _resolve(node.func, self.namespace)
        fold = FOLDS.get(target) if _hashable(target) else None
        if fold is None or any(isinstance(a, gast.Starred) for a in node.args):
            return node
        seen = self.observed.seen_at(self.function, _position(node))
        if seen is None and target in INDEX_FOLDS:
            seen = self.observed.merged_at(self.function, _position(node))      # a loop index varies
        if seen is None or seen.pop("__callee__", None) is not getattr(target, "__code__", None):
            return node
        try:
            bound = inspect.signature(target).bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError:
            return node
        nodes = dict(bound.arguments)
        seen = {name: seen.get(name, Seen("other")) for name in inspect.signature(target).parameters}
        seen["__writable__"] = self.observed.writable.get((self.function,) + _position(node), set())
        folded = fold(nodes, seen)
        return node if folded is None else folded


def _int_literal(node):
    """The int a literal `-1` (a negation of a constant, as parsed, or a folded constant) holds, else None."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) and isinstance(node.operand, gast.Constant):
        return -node.operand.value if type(node.operand.value) is int else None
    return node.value if isinstance(node, gast.Constant) and type(node.value) is int else None


def _position(node):
    return (node.lineno, node.end_lineno, node.col_offset, node.end_col_offset)


def _resolve(func, namespace):
    if isinstance(func, gast.Name):
        return namespace.get(func.id)
    if isinstance(func, gast.Attribute):
        owner = _resolve(func.value, namespace)
        return getattr(owner, func.attr, None) if owner is not None else None
    return None


def _hashable(obj):
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def _namespace_of(name, observed):
    """The globals the generated function `name` ran with (None where two functions shared the name)."""
    return observed.namespaces.get(name) if observed.files.get(name) else None


def _compiled_node(name, observed):
    """The generated function `name` parsed from the text it was compiled from (so call positions match)."""
    import linecache
    filename = observed.files.get(name)
    lines = linecache.cache.get(filename, (None, None, None))[2] if filename else None
    if not lines:
        return None
    functions = [n for n in parse_printed("".join(lines)).body if isinstance(n, gast.FunctionDef)]
    return functions[0] if len(functions) == 1 and functions[0].name == name else None


def _without_comments(node):
    node = copy.deepcopy(node)
    for child in walk(node):
        for field in ("body", "orelse"):
            block = getattr(child, field, None)
            if isinstance(block, list):
                setattr(child, field, [s for s in block if not _is_comment(s)])
    for child in walk(node):
        for attr in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            if hasattr(child, attr):
                setattr(child, attr, None)
    return node


def _is_comment(stmt):
    return (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)
            and isinstance(stmt.value.func, gast.Name) and stmt.value.func.id == "__comment__")


def _take_constant_branches(function_node):
    """`if False: s` disappears and `if True: s else: t` becomes `s` (tests folded to constants)."""
    take_known_branches(function_node, _constant_test)


def _constant_test(test):
    """(True, value) for a literal test, or a comparison of two literal numbers (`0 != 0`), else (False, None)."""
    if isinstance(test, gast.Constant):
        return True, bool(test.value)
    if (isinstance(test, gast.Compare) and len(test.ops) == 1 and isinstance(test.left, gast.Constant)
            and isinstance(test.comparators[0], gast.Constant) and isinstance(test.ops[0], (gast.Eq, gast.NotEq))):
        same = test.left.value == test.comparators[0].value
        return True, same if isinstance(test.ops[0], gast.Eq) else not same
    return False, None


# ------------------------------------------------------------------ tape slots
def _drop_unread_shape_slots(function_node):
    """`push(_tape, jnp.shape(t))` ... `t_shape = pop(_tape)` where nothing reads `t_shape`: both go.

    Every pop takes back what its paired push saved (the tape plan pairs them by variable), so
    removing every push and pop of one slot leaves the other slots' pairs as they were."""
    reads = {n.id for n in walk(function_node) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)}
    saved_shapes = {(_tape_of(stmt.value), _shape_of_name(stmt.value.args[1])) for stmt in walk(function_node)
                    if isinstance(stmt, gast.Expr) and _is_call(stmt.value, "push") and len(stmt.value.args) == 2}
    unread = set()        # (tape, t): `push(tape, jnp.shape(t))` and its `t_shape = pop(tape)`, which nobody reads
    for stmt in walk(function_node):
        if (isinstance(stmt, gast.Assign) and _is_call(stmt.value, "pop") and isinstance(stmt.targets[0], gast.Name)
                and stmt.targets[0].id.endswith("_shape") and stmt.targets[0].id not in reads):
            slot = (_tape_of(stmt.value), stmt.targets[0].id[:-len("_shape")])
            if slot in saved_shapes:          # (a second derivative's `dt_shape = pop(d_tape)` is no shape slot)
                unread.add(slot)
    if not unread:
        return

    def keep(stmt):
        if isinstance(stmt, gast.Expr) and _is_call(stmt.value, "push") and len(stmt.value.args) == 2:
            return (_tape_of(stmt.value), _shape_of_name(stmt.value.args[1])) not in unread
        if isinstance(stmt, gast.Assign) and _is_call(stmt.value, "pop") and isinstance(stmt.targets[0], gast.Name):
            target = stmt.targets[0].id
            return not target.endswith("_shape") or (_tape_of(stmt.value), target[:-len("_shape")]) not in unread
        return True
    _filter_blocks(function_node, keep)


def _tape_of(call):
    """The tape a push or pop names (`_tape`, or a second derivative's `d_tape`)."""
    return call.args[0].id if call.args and isinstance(call.args[0], gast.Name) else None


def _shape_of_name(expr):
    """`t` for `jnp.shape(t)`."""
    if (isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) and expr.func.attr == "shape"
            and len(expr.args) == 1 and isinstance(expr.args[0], gast.Name)):
        return expr.args[0].id
    return None


def _is_call(expr, name):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) and expr.func.id == name


def _filter_blocks(node, keep):
    for child in walk(node):
        for field in ("body", "orelse"):
            block = getattr(child, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                kept = [s for s in block if keep(s)]
                setattr(child, field, kept or [gast.Pass()])


# ------------------------------------------------------------------ checking
def _reproduces(functions, observed):
    """None if the specialized functions give the general ones' result on the same arguments, else why not."""
    from ..backends.python import compile_function
    compiled = {}
    namespaces = []
    for node in functions:
        namespace = dict(_namespace_of(node.name, observed) or {})
        namespaces.append(namespace)
        fn, _ = compile_function(copy.deepcopy(node), namespace, label=node.name)
        compiled[node.name] = fn
    for namespace in namespaces:
        namespace.update(compiled)
    main = functions[0].name
    if observed.files.get(main) is None:
        return "two generated functions of that name ran"
    arguments, expected = observed.entries[main]
    try:
        got = compiled[main](**{k: _copy(v) for k, v in arguments.items()})
    except Exception as exc:      # noqa: BLE001 -- a fold that broke the code: print the general form
        return f"the specialized code raised {type(exc).__name__}: {exc}"
    if not _same(got, expected):
        return "the specialized code did not reproduce the general code's result"
    return None


def _copy(value):
    return tree_util.tree_map(lambda leaf: leaf.copy() if isinstance(leaf, np.ndarray) else leaf, value)


def _same(a, b):
    """Whether two results of generated code agree (pytrees, adjoints of containers included)."""
    from ..rules.helpers import TreeAdjoint
    if isinstance(a, TreeAdjoint) or isinstance(b, TreeAdjoint):
        return (isinstance(a, TreeAdjoint) and isinstance(b, TreeAdjoint) and a.items.keys() == b.items.keys()
                and all(_same(a.items[k], b.items[k]) for k in a.items))
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) or isinstance(b, dict):
        return type(a) is type(b) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if a is None or b is None:
        return a is b
    if np.shape(a) != np.shape(b):
        return False
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype != b.dtype:
        return False
    return bool(np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=1e-6, atol=1e-12,
                            equal_nan=True))


def _header(main, arguments):
    params = [a.id for a in main.args.args if a.id in arguments]
    described = ", ".join(f"{p}: {_describe(arguments[p])}" for p in params)
    return f"# {main.name} specialized to {described}\n"


def _describe(value):
    """`float32[3, 2]`, `(float32[3, 2], float32[2])`, `{'w': float32[3]}`, `float`, `3`."""
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return "(" + ", ".join(map(_describe, value)) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, list):
        return "[" + ", ".join(map(_describe, value)) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_describe(v)}" for k, v in value.items()) + "}"
    return str(Seen.of(value))


def _note(why):
    return f"\n# (printed in its general form: {why})\n"

