"""Stencil loops: a loop nest that only accumulates into one array becomes one kernel, rows outermost.

The founding blur, after fuse_elementwise, is a nest of tap loops around one in-place fused loop:

    for i in range(ker_h):
        for j in range(ker_w):
            output = _fused_1(output.shape, output, padded, kernel[i, j], o0(i), o1(j)) if COND else FALLBACK

Each tap reads the whole of `output` and writes it back: 81 passes over memory. Interchanging the
loops (every element of `output`, then every tap) keeps each output row in cache while all taps add
into it, and leaves the innermost loop over contiguous memory:

    if COND:
        _taps_1_c0 = []; ...                       # each tap's scalar operands, in the nest's order
        for i in range(ker_h):
            for j in range(ker_w):
                _taps_1_c0.append(kernel[i, j]); ...
        output = _stencil_1(output.shape, output, padded, _taps_1_c0, ...)
    else:
        <the nest as it was>

    def _stencil_1(shape, x0, x1, c0, o1_0, o1_1):
        out = x0
        for i0 in range(shape[0]):                  # rows
            for t in range(len(c0)):               # the taps, in the nest's order
                t_c0 = c0[t]; ...
                for i1 in range(shape[1]):          # contiguous
                    out[i0, i1] = x0[i0, i1] + t_c0 * x1[i0 + t_o1_0, i1 + t_o1_1]
        return out

Every element still receives the taps' terms in the same order, so the result is the nest's to the
bit. (Rows run serially: on the shared two-core machine a `prange` over rows ran 8x slower than
the serial loop, measured 2026-11-27.) Why it is the same program: the fused loop writes only `out` at the element it reads (it was
made in place only for a fresh array nothing else can see), its other arrays are not rebound in the
nest, its scalar operands do not read the accumulated array (they are computed first, in the same
order, with the same loop variables, which end bound as the nest leaves them), and COND reads the
accumulated array only through its shape, which the fused loop keeps: COND before the nest is COND at
every tap. Anything else keeps the nest as it was.
"""
import copy

import gast

from .observed_shapes import guard_statement, guarded_shape

from ...codegen.unparse import unparse
from ...codegen.node_walk import walk, NodeTransformer

__all__ = ["interchange_stencils"]

def interchange_stencils(node, context):
    """Rewrite the stencil nests of `node`; their kernels go to `context.kernels`."""
    kernels = {label: kernel for label, kernel, _ in context.kernels}
    counter = [0]

    class Rewrite(NodeTransformer):
        def visit_For(self, loop):
            rewritten = _interchange(loop, kernels, context, counter)
            if rewritten is not None:
                return rewritten
            self.generic_visit(loop)
            return loop

    Rewrite().visit(node)


def _interchange(loop, kernels, context, counter):
    nest, inner, loop_names = _nest(loop)
    if nest is None:
        return None
    target = inner.targets[0].id
    if target in loop_names:
        return None
    for level in nest:
        for p in level.body[:-1]:
            if not _only_shape_of(p.value, target):
                return None
    test, call = (inner.value.test, inner.value.body) if isinstance(inner.value, gast.IfExp) else (None, inner.value)
    guard = guarded_shape(call.args[0], context) if isinstance(call, gast.Call) and call.args else None
    if test is None and guard is not None:          # the test held on the first call (lower/observed_shapes.py)
        call = gast.Call(func=call.func, args=[guard[0]] + call.args[1:], keywords=call.keywords)
        test = guard[1]
    if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name) and call.func.id in kernels
            and not call.keywords):
        return None
    kernel = kernels[call.func.id]
    shape = _kernel_shape(kernel)
    if shape is None:
        return None
    params, overwritten, depth = shape
    if depth < 2 or len(call.args) != len(params):
        return None
    binding = dict(zip(params, call.args))
    fresh = overwritten is None
    if fresh:       # the loop writes a new array each tap: the stencil copies the first one and adds into it
        accumulated = [p for p in params[1:] if isinstance(binding[p], gast.Name) and binding[p].id == target]
        if len(accumulated) != 1 or not _read_elementwise(kernel, accumulated[0]):
            return None
        overwritten = accumulated[0]
    if not (isinstance(binding[overwritten], gast.Name) and binding[overwritten].id == target):
        return None
    if not _only_shape_of(binding["shape"], target) or _mentions(binding["shape"], loop_names):
        return None
    if test is not None and (_mentions(test, loop_names) or not _only_shape_of(test, target)):
        return None
    if not all(_only_shape_of(a, target) for n in nest for a in n.iter.args):
        return None
    arrays = [p for p in params[1:] if p.startswith("x")]
    operands = [p for p in params[1:] if not p.startswith("x")]
    for p in arrays:
        if p != overwritten and not (isinstance(binding[p], gast.Name) and binding[p].id not in loop_names | {target}):
            return None
    if not operands or any(_mentions(binding[p], {target}) for p in operands):
        return None

    counter[0] += 1
    label = context.bind(f"_stencil_{counter[0]}", None, ())
    tables = {p: context.bind(f"_taps_{counter[0]}_{p}", None, ()) for p in operands}
    kind = context.lowered_type(target)
    dtype = kind[1] if kind is not None and kind[0] == "array" else None
    context.kernels.append((label, _stencil_kernel(label, kernel, operands, overwritten if fresh else None, dtype),
                            {}))
    fill = copy.deepcopy(loop)
    innermost = _nest(fill)[0][-1]
    args = [copy.deepcopy(binding[p]) if p.startswith("x") or p == "shape" else _load(tables[p]) for p in params]
    dtypes = _tap_dtypes(nest, operands, binding, loop_names, context)
    if dtypes is None:
        innermost.body[-1:] = [_statement(f"{tables[p]}.append(_)", _=binding[p]) for p in operands]
        start = [_statement(f"{tables[p]} = []") for p in operands]
    else:               # arrays of the tap count: Numba compiles a list's append helpers per element type
        from ...runtime.numba_allocate import empty_array
        count = context.bind(f"_taps_{counter[0]}_n", None, ())
        empty = context.bind("_stencil_empty", empty_array, ())      # inline allocation (numba_calls leaves it)
        trips = " * ".join(f"len({unparse(n.iter).strip()})" for n in nest)
        start = [_statement(f"{count} = {trips}"),
                 *(_statement(f"{tables[p]} = {empty}({count}, np.{dtypes[p]})") for p in operands),
                 _statement(f"{count} = 0")]
        innermost.body[-1:] = [*(_statement(f"{tables[p]}[{count}] = _", _=binding[p]) for p in operands),
                               _statement(f"{count} += 1")]
    fused = [*start, fill,
             gast.Assign(targets=[_store(target)], value=gast.Call(func=_load(label), args=args, keywords=[]))]
    if test is None:
        return fused
    if guard is not None:       # the nest runs its taps one by one only in the version compiled for other shapes
        return gast.If(test=copy.deepcopy(test), body=fused, orelse=[guard_statement(context, (), loop)])
    return gast.If(test=copy.deepcopy(test), body=fused, orelse=[loop])


def _tap_dtypes(nest, operands, binding, loop_names, context):
    """{operand: the dtype of an array holding its value at every tap}, or None (the taps go to lists).
    Window offsets (`o...`) are ints; a scalar operand (`c...`) must be an element of an array of a
    known float dtype (`kernel[i, j]`) or a scalar name of one, so that the kernel's arithmetic reads
    the value it read from a list. The tap count is the product of the ranges' lengths, so no range
    may read a name the nest assigns."""
    if any(_mentions(n.iter, loop_names) for n in nest):
        return None
    dtypes = {}
    for p in operands:
        if p.startswith("o"):
            dtypes[p] = "int64"
            continue
        value, kind = binding[p], None
        if isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            index = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
            kind = context.lowered_type(value.value.id)
            if kind is None or kind[0] != "array" or kind[2] != len(index) or not all(
                    isinstance(i, gast.Name) for i in index):
                return None
        elif isinstance(value, gast.Name):
            kind = context.lowered_type(value.id)
            if kind is None or kind[0] != "scalar":
                return None
        if kind is None or kind[1] not in ("float32", "float64"):
            return None
        dtypes[p] = kind[1]
    return dtypes


def _nest(loop):
    """([the For loops, outermost first], the assignment they repeat, names the nest assigns) or Nones.

    Each level may start with plain assignments (`i = _k2`, `_t3 = kernel.shape[1]`, as generated code
    writes loops); the innermost ends with the accumulation."""
    nest, stored = [], set()
    stmt = loop
    while isinstance(stmt, gast.For):
        if (stmt.orelse or not stmt.body or not isinstance(stmt.target, gast.Name)
                or not (isinstance(stmt.iter, gast.Call) and isinstance(stmt.iter.func, gast.Name)
                        and stmt.iter.func.id == "range" and not stmt.iter.keywords and 1 <= len(stmt.iter.args) <= 3)):
            return None, None, None
        *prefix, last = stmt.body
        if not all(isinstance(p, gast.Assign) and len(p.targets) == 1 and isinstance(p.targets[0], gast.Name)
                   for p in prefix):
            return None, None, None
        nest.append(stmt)
        stored |= {stmt.target.id} | {p.targets[0].id for p in prefix}
        stmt = last
    if not nest or not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1
                        and isinstance(stmt.targets[0], gast.Name)):
        return None, None, None
    return nest, stmt, stored


def _kernel_shape(kernel):
    """(parameters, the array parameter it writes in place or None, loop depth) of a fused elementwise kernel."""
    params = [a.id for a in kernel.args.args]
    body = kernel.body
    if not (params and params[0] == "shape" and len(body) == 3 and isinstance(body[0], gast.Assign)
            and isinstance(body[1], gast.For) and isinstance(body[2], gast.Return)):
        return None
    written = body[0].value.id if isinstance(body[0].value, gast.Name) and body[0].value.id in params else None
    depth, stmt = 0, body[1]
    while isinstance(stmt, gast.For) and len(stmt.body) == 1:
        depth += 1
        stmt = stmt.body[0]
    if not isinstance(stmt, gast.Assign):
        return None
    return params, written, depth


def _stencil_kernel(label, kernel, operands, copied=None, dtype=None):
    """The fused kernel with a loop over the taps inside its outermost loop; `operands` become lists.
    With `copied`, the kernel made a new array: the stencil starts from a copy of that parameter and
    reads the copy where the kernel read it. With the accumulated array's `dtype`, UNROLL taps at a
    time add into each element in one pass (see `_unrolled_taps`), the rest one by one."""
    kernel = copy.deepcopy(kernel)
    kernel.name = label
    rows = kernel.body[1]
    inner = rows.body[0]
    renamed = {p: f"t_{p}" for p in operands}
    accumulated = copied
    if copied is not None:
        kernel.body[0] = _statement(f"out = {copied}.copy()")
        renamed[copied] = "out"
    else:
        accumulated = kernel.body[0].value.id          # `out = x0`: the kernel writes x0 in place
    one_by_one = _renamed(inner, renamed)
    reads = [_statement(f"{renamed[p]} = {p}[t]") for p in operands]
    count = operands[0]
    taps = gast.For(target=_store("t"), iter=_expression(f"range(len({count}))"),
                    body=reads + [one_by_one], orelse=[], type_comment=None)
    unrolled = _unrolled_taps(inner, operands, renamed.get(accumulated, accumulated), dtype) if dtype else None
    if unrolled is None:
        rows.body = [taps]
        return kernel
    taps.iter = _expression(f"range(len({count}) - len({count}) % {UNROLL}, len({count}))")
    rows.body = [unrolled, taps]
    return kernel


UNROLL = 4


def _unrolled_taps(inner, operands, accumulated, dtype):
    """UNROLL taps in one pass over a row, or None: the innermost assignment `out[idx] = E(acc[idx], t_ops)`
    becomes `out[idx] = E(... E(E(acc[idx], a_ops), b_ops) ..., d_ops)`. Each element receives the same
    terms in the same order, each rounded to `dtype` as the store into the array rounded it, so the sum
    is the one tap at a time's to the bit; the row is read and written once per UNROLL taps, not per tap
    (measured on the 9x9 blur at 473x716: 2.15 ms -> 1.62 ms)."""
    inner = copy.deepcopy(inner)
    stmt = inner
    while isinstance(stmt, gast.For):
        stmt = stmt.body[0]
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Subscript)):
        return None
    element = stmt.targets[0]
    reads = [n for n in walk(stmt.value) if isinstance(n, gast.Name) and n.id == accumulated]
    at_element = [n for n in walk(stmt.value) if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name)
                  and n.value.id == accumulated and unparse(n.slice) == unparse(element.slice)]
    if len(reads) != 1 or len(at_element) != 1 or unparse(element.value).strip() != "out":
        return None
    value = None
    for k in range(UNROLL):
        names = {p: f"t{k}_{p}" for p in operands}
        term = _renamed(stmt.value, names)
        if value is not None:
            term = _replaced(term, accumulated, element.slice, _expression(f"np.{dtype}(_)", value))
        value = term
    stmt.value = value
    reads = [_statement(f"t{k}_{p} = {p}[t + {k}]") for k in range(UNROLL) for p in operands]
    count = operands[0]
    return gast.For(target=_store("t"), iter=_expression(f"range(0, len({count}) - {UNROLL - 1}, {UNROLL})"),
                    body=reads + [inner], orelse=[], type_comment=None)


def _renamed(node, renamed):
    class Rename(NodeTransformer):
        def visit_Name(self, n):
            if renamed.get(n.id) and isinstance(n.ctx, gast.Load):
                return _load(renamed[n.id])
            return n
    return Rename().visit(copy.deepcopy(node))


def _replaced(node, name, index, by):
    """`node` with its read `name[index]` replaced by the expression `by`."""
    text = unparse(index)

    class Replace(NodeTransformer):
        def visit_Subscript(self, n):
            if isinstance(n.value, gast.Name) and n.value.id == name and unparse(n.slice) == text:
                return copy.deepcopy(by)
            self.generic_visit(n)
            return n
    return Replace().visit(node)


def _expression(text, _=None):
    return _statement(text, _).value


def _read_elementwise(kernel, param):
    """Every read of `param` in the kernel's loop is its element at the loop's own indices."""
    loop, indices = kernel.body[1], []
    stmt = loop
    while isinstance(stmt, gast.For):
        indices.append(stmt.target.id)
        stmt = stmt.body[0]
    reads = [n for n in walk(loop) if isinstance(n, gast.Name) and n.id == param]
    at_element = [n.value for n in walk(loop) if isinstance(n, gast.Subscript)
                  and isinstance(n.value, gast.Name) and n.value.id == param
                  and isinstance(n.slice, gast.Tuple) and [getattr(e, "id", None) for e in n.slice.elts] == indices]
    return bool(reads) and len(reads) == len(at_element)


def _only_shape_of(expr, name):
    """Every read of `name` in `expr` is `name.shape`."""
    shapes = {id(n.value) for n in walk(expr) if isinstance(n, gast.Attribute) and n.attr == "shape"}
    return all(id(n) in shapes for n in walk(expr) if isinstance(n, gast.Name) and n.id == name)


def _mentions(expr, names):
    return any(isinstance(n, gast.Name) and n.id in names for n in walk(expr))


def _statement(text, _=None):
    stmt = gast.parse(text).body[0]
    if _ is not None:
        class Put(NodeTransformer):
            def visit_Name(self, n):
                return copy.deepcopy(_) if n.id == "_" else n
        stmt = Put().visit(stmt)
    return stmt


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _store(name):
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)
