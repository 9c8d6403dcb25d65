"""Merge a fused sum and a fused elementwise loop over the same arrays into one pass.

value_and_grad of `jnp.sum(sigmoid(x))` (and grad, which returns the value too) fuses into two
loops over x after fusion: the primal's sum and the adjoint's elementwise gradient,

    value = _fused_2(x.shape, x, np.float32(1.0))
    bout = 1.0
    bx = _fused_1(x.shape, x, np.float32(bout), np.float32(1.0))

each reading x and computing exp(-x). They become one loop that reads each element once, adds
the primal's element into the sum and writes the gradient's element:

    value, bx = _fused_2_and_1(x.shape, x, np.float32(1.0), np.float32(bout))

    def _fused_2_and_1(shape, x0, c0, c1):
        out = astjax_empty(shape, np.float32)
        total = 0.0
        n = shape[0]
        full = n - n % 256
        for start in range(0, full, 256):
            part = 0.0
            for k in range(256):
                i0 = start + k
                part += _fused_2_element(x0[i0], c0)
                out[i0] = _fused_2_and_1_out(x0[i0], c1, c0)    # np.float32(1.0) passed once
            total += part
        part = 0.0
        for i0 in range(full, n):
            ...                                     # the last partial chunk, the same two lines
        total += part
        return (np.float32(total), out)

Each element is still its own function compiled without fast-math flags (only the partial sums
are reassociated, as in a sum's own loop); LLVM inlines both and computes the shared exp once.

Only when nothing can change: both are unguarded calls of kernels fusion made (no window reads, no
expanded reads, no array overwritten in place), their loop shapes are the same expression, both sit in the function's
top-level body, and the statements between them neither read nor rebind the sum's target nor
rebind a name the sum's call reads (the sum moves down to the elementwise statement), and that statement does
not read the sum's target either.
"""
import copy

import gast

from ...codegen.unparse import unparse
from ...codegen.node_walk import walk

__all__ = ["merge_sibling_loops", "FusedLoop"]


class FusedLoop:
    """What fusion recorded about one fused statement's call (kept on the call node)."""

    def __init__(self, fusion, label, element_label, scalar, reduce):
        self.fusion, self.label, self.element_label = fusion, label, element_label
        self.scalar, self.reduce = scalar, reduce


def merge_sibling_loops(node, context):
    """Merge each fused sum in `node`'s top-level body with a later elementwise loop over its arrays."""
    body = node.body
    i = 0
    while i < len(body):
        first = _fused(body[i])
        if first is None or not first.reduce:
            i += 1
            continue
        merged = False
        for j in range(i + 1, len(body)):
            second = _fused(body[j])
            if second is not None and not second.reduce and _mergeable(body, i, j, first, second):
                body[j] = _merge(body[i], body[j], first, second, context)
                del body[i]
                merged = True
                break
            if _blocks_motion(body[i], body[j]):
                break
        if not merged:
            i += 1


def _fused(stmt):
    if not (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Name)
            and isinstance(stmt.value, gast.Call)):
        return None
    return getattr(stmt.value, "_astjax_fused", None)


def _names(tree, load=True):
    kind = gast.Load if load else (gast.Store, gast.Del)
    return {n.id for n in walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, kind)}


def _blocks_motion(sum_stmt, between):
    """Whether moving `sum_stmt` below `between` could change what it or anyone computes."""
    if not isinstance(between, (gast.Assign, gast.Expr)):
        return True
    if any(isinstance(n, (gast.Call, gast.Subscript, gast.Attribute)) and isinstance(getattr(n, "ctx", None),
                                                                                     (gast.Store, gast.Del))
           for n in walk(between)):
        return True
    if isinstance(between, gast.Expr):
        return True
    target = sum_stmt.targets[0].id
    stored = _names(between, load=False)
    return target in _names(between) or target in stored or bool(stored & _names(sum_stmt.value))


def _mergeable(body, i, j, first, second):
    a, b = first.fusion, second.fusion
    if a.windows or b.windows or a.expanded or b.expanded or b.update_in_place is not None and b._overwritten() is not None:
        return False
    if a.ndim != b.ndim or a.dtype != b.dtype:
        return False
    if unparse(body[i].value.args[0]).strip() != unparse(body[j].value.args[0]).strip():
        return False
    if body[i].targets[0].id in _names(body[j].value) or body[i].targets[0].id == body[j].targets[0].id:
        return False
    return not any(_blocks_motion(body[i], body[k]) for k in range(i + 1, j))


def _merge(sum_stmt, map_stmt, first, second, context):
    from .fuse_elementwise import chunked_sum_lines
    a, b = first.fusion, second.fusion
    label = context.bind(f"{first.label}_and_{second.label[len('_fused_'):]}", None, ())
    out_label = context.bind(f"{label}_out", None, ())
    context.kernels[:] = [k for k in context.kernels if k[0] not in (first.label, second.label)]
    context.kernels.append((out_label, b._element_function(out_label, second.scalar), {}))

    keys = list(a.keys)                   # the arrays, each passed once
    arrays = [copy.deepcopy(x) for x in a.arrays]
    for key, x in zip(b.keys, b.arrays):
        if key not in keys:
            keys.append(key)
            arrays.append(copy.deepcopy(x))
    sum_reads = [f"x{keys.index(k)}[{{i}}]" for k in a.keys]
    map_reads = [f"x{keys.index(k)}[{{i}}]" for k in b.keys]
    # Equal scalar operands (`np.float32(1.0)` in both) are passed once: they are leaves (names, casts)
    # evaluated at the one merged call either way, and LLVM then shares the terms both elements compute
    # from them (sigmoid's `1 / (1 + e)` in the value and in its gradient).
    scalar_texts, unique_scalars = [], []
    for s in [*a.scalars, *b.scalars]:
        text = unparse(s).strip()
        if text not in scalar_texts:
            scalar_texts.append(text)
            unique_scalars.append(s)
    sum_scalars = [f"c{scalar_texts.index(unparse(s).strip())}" for s in a.scalars]
    map_scalars = [f"c{scalar_texts.index(unparse(s).strip())}" for s in b.scalars]
    params = ["shape"] + [f"x{k}" for k in range(len(arrays))] + [f"c{k}" for k in range(len(scalar_texts))]
    indices = [f"i{d}" for d in range(a.ndim)]
    index = ", ".join(indices)

    def call(fn, reads, scalars):
        return f"{fn}({', '.join([r.format(i=index) for r in reads] + scalars)})"

    lines = [f"def {label}({', '.join(params)}):", f"    out = astjax_empty(shape, np.{a.dtype})", "    total = 0.0"]
    indent = "    "
    for d, i in enumerate(indices[:-1]):
        lines.append(f"{indent}for {i} in range(shape[{d}]):")
        indent += "    "
    body = [f"part += {call(first.element_label, sum_reads, sum_scalars)}",
            f"out[{index}] = {call(out_label, map_reads, map_scalars)}"]
    lines += chunked_sum_lines(indent, len(indices) - 1, indices[-1], a.dtype, body)
    lines.append(f"    return (np.{a.dtype}(total), out)")
    kernel = gast.parse("\n".join(lines) + "\n").body[0]
    context.kernels.append((label, kernel, {"fastmath": {"reassoc"}}))

    args = [copy.deepcopy(sum_stmt.value.args[0]), *arrays,
            *[copy.deepcopy(s) for s in unique_scalars]]
    targets = gast.Tuple(elts=[copy.deepcopy(sum_stmt.targets[0]), copy.deepcopy(map_stmt.targets[0])],
                         ctx=gast.Store())
    merged = gast.Assign(targets=[targets], value=gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None,
                                                                          type_comment=None),
                                                           args=args, keywords=[]), type_comment=None)
    return gast.copy_location(merged, map_stmt)
