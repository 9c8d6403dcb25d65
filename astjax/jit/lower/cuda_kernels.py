"""Write the CUDA kernels and the host launcher of a GPU Program (astjax/jit/lower/cuda_program.py).

Every kernel is one grid-stride loop over the elements (`i = cuda.grid(1)`, then
`i += cuda.gridsize(1)`) whose body is the program's element lines that the kernel needs,
one line per generated statement, named as the generated source names them:

    @cuda.jit
    def selu_elements(n, x, c0, c1, c2, out0):
        i = cuda.grid(1)
        stride = cuda.gridsize(1)
        while i < n:
            where_x_gt_0 = (x[i] if x[i] > c1 else c2 * math.exp(x[i]) - c2)
            out = c0 * where_x_gt_0
            out0[i] = out
            i += stride

A full reduction is its own kernel: each thread accumulates its elements (sums in float64),
the block combines its threads' values in shared memory, and one thread per block writes the
block's partial result; runtime/cuda_reductions.py combines the partials in a second pass (the
same order every call: no atomics, so a sum is the same number every time). One last kernel
writes every array the function returns (and, from thread 0, every scalar computed from the
reductions). The launcher is plain Python: host arithmetic as the reference computes it, then
the launches (`run` is runtime/cuda_launch.py's Launch).
"""
__all__ = ["write_kernels"]


class Kernels:
    """The text of the launcher and of each kernel, and how the result leaves map to outputs."""

    def __init__(self):
        self.kernels = []          # (label, text)
        self.launcher = None       # text of `def launch_<name>(run, ...)`
        self.launcher_name = None
        self.outputs = []          # ("array" | "scalar") per output buffer, in order


def write_kernels(program, threads):
    """Kernels of `program` for blocks of `threads` threads (a power of two)."""
    out = Kernels()
    name = program.name
    consts = sorted(program.consts.items(), key=lambda item: int(item[1][1:]))
    lines = [f"def launch_{name}(run, {', '.join(program.params)}):", "    size = run.size"]
    lines += [f"    {target} = {text}" for target, text in program.host_lines]
    lines += [f"    {label} = scalar_arg({text}, {program.dtype})" for text, label in consts]
    for k, reduction in enumerate(program.reductions):
        label = f"{name}_{reduction.kind}_{k}"
        params = _parameters(program, [reduction.value])
        out.kernels.append((label, _reduction_kernel(label, program, reduction, params, threads)))
        lines.append(f"    {reduction.label} = run.reduce({reduction.kind!r}, {label}, {_tuple(params)})")
    leaves = []
    result = _map(program.result, leaves)
    arrays = [(j, v) for j, v in enumerate(leaves) if v.kind == "array"]
    scalars = [(j, v) for j, v in enumerate(leaves) if v.kind == "device" and not _bare_reduction(v)]
    texts = {}
    for j, value in enumerate(leaves):
        if value.kind == "host":
            texts[j] = value.text
        elif value.kind == "device" and _bare_reduction(value):
            texts[j] = value.text[:-3]
    if arrays or scalars:
        label = f"{name}_elements"
        written = []
        for j, _ in arrays:
            texts[j] = f"out{len(out.outputs)}"
            written.append(texts[j])
            lines.append(f"    {texts[j]} = run.output({len(out.outputs)}, leaf={j})")
            out.outputs.append("array")
        for j, _ in scalars:
            texts[j] = f"s{len(out.outputs)}"
            written.append(texts[j])
            lines.append(f"    {texts[j]} = run.output({len(out.outputs)}, leaf={j})")
            out.outputs.append("scalar")
        params = _parameters(program, [v for _, v in arrays + scalars])
        out.kernels.append((label, _elements_kernel(label, program, arrays, scalars, params, texts)))
        lines.append(f"    run.launch({label}, {_tuple(params + written)})")
    lines.append(f"    return {_result_text(result, texts)}")
    out.launcher = "\n".join(lines) + "\n"
    out.launcher_name = f"launch_{name}"
    return out


def _map(tree, leaves):
    """The result tree with each Value replaced by its index in `leaves`."""
    if isinstance(tree, tuple):
        return tuple(_map(t, leaves) for t in tree)
    leaves.append(tree)
    return len(leaves) - 1


def _result_text(tree, texts):
    if isinstance(tree, tuple):
        items = [_result_text(t, texts) for t in tree]
        return "(" + (items[0] + "," if len(items) == 1 else ", ".join(items)) + ")"
    return texts[tree]


def _tuple(names):
    return "(" + (names[0] + "," if len(names) == 1 else ", ".join(names)) + ")" if names else "()"


def _bare_reduction(value):
    return value.text.endswith("[0]") and value.text[:-3] in value.reductions


def _parameters(program, values):
    """The kernel parameters that `values` read: argument arrays, host constants, reduction results."""
    arrays = set().union(*(v.arrays for v in values))
    consts = set().union(*(v.consts for v in values))
    reductions = set().union(*(v.reductions for v in values))
    order = [p for p in program.array_params if p in arrays]
    order += sorted(consts, key=lambda c: int(c[1:]))
    order += sorted(reductions, key=lambda r: int(r[1:]))
    return order


def _element_lines(program, values, indent):
    needed = sorted(set().union(*(v.lines for v in values)))
    return [f"{indent}{program.kernel_lines[k][0]} = {_strip(program.kernel_lines[k][1])}" for k in needed]


def _strip(text):
    """The element's text with only the parentheses Python needs (the forms parenthesize every operand),
    and `-(-e)` written `e` (negation is exact: the same number)."""
    import ast

    class DoubleNegation(ast.NodeTransformer):
        def visit_UnaryOp(self, node):
            self.generic_visit(node)
            if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.UnaryOp) \
                    and isinstance(node.operand.op, ast.USub):
                return node.operand.operand
            return node
    return ast.unparse(DoubleNegation().visit(ast.parse(text, mode="eval")))


def _elements_kernel(label, program, arrays, scalars, params, texts):
    lines = ["@cuda.jit", f"def {label}({', '.join(['n'] + params + [texts[j] for j, _ in arrays + scalars])}):",
             "    i = cuda.grid(1)"]
    if scalars:
        lines.append("    if i == 0:")
        lines += [f"        {texts[j]}[0] = {_strip(v.text)}" for j, v in scalars]
    lines += ["    stride = cuda.gridsize(1)", "    while i < n:"]
    lines += _element_lines(program, [v for _, v in arrays], "        ")
    lines += [f"        {texts[j]}[i] = {_strip(v.text)}" for j, v in arrays]
    lines += ["        i += stride"]
    return "\n".join(lines) + "\n"


def _reduction_kernel(label, program, reduction, params, threads):
    value = reduction.value
    total = "float64" if reduction.kind == "sum" else program.dtype
    lines = ["@cuda.jit", f"def {label}({', '.join(['n'] + params + ['partials', 'start'])}):",
             f"    cache = cuda.shared.array({threads}, {total})",
             "    i = cuda.grid(1)",
             "    stride = cuda.gridsize(1)",
             "    acc = start",
             "    while i < n:"]
    lines += _element_lines(program, [value], "        ")
    lines.append(f"        element = {_strip(value.text)}")
    lines.append(f"        acc = {_combine(reduction.kind, 'acc', 'element')}")
    lines += ["        i += stride",
              "    t = cuda.threadIdx.x",
              "    cache[t] = acc",
              "    cuda.syncthreads()",
              f"    step = {threads // 2}",
              "    while step > 0:",
              "        if t < step:",
              "            other = cache[t + step]",
              f"            cache[t] = {_combine(reduction.kind, 'cache[t]', 'other')}",
              "        cuda.syncthreads()",
              "        step //= 2",
              "    if t == 0:",
              "        partials[cuda.blockIdx.x] = cache[0]"]
    return "\n".join(lines) + "\n"


def _combine(kind, a, b):
    """The text combining two partial results (NaN propagates through max and min, as in NumPy)."""
    if kind == "sum":
        return f"{a} + {b}"
    compare = ">=" if kind == "max" else "<="
    return f"{a} if ({a} {compare} {b} or {a} != {a}) else {b}"

