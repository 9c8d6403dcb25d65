"""Jacobians as source, so that jacfwd and jacrev compose with every other transformation.

Calling `jacfwd(f)(x)` runs the generated jvp once per input element at the
API level. When `jacfwd(f)` is itself transformed (`jacrev(jacfwd(f))`, or
`grad` of a function that calls it), the next transformation reads this
module's source instead: a Python loop over basis vectors that calls the
generated jvp (or pullback) of `f`, which astjax differentiates like any
user code:

    def jacfwd_f(x):
        x = jacobian_input(x)       # one array: a pytree is refused (rules/helpers.py)
        _basis = jnp.eye(jnp.size(x), dtype=x.dtype)
        _out, _tangent = _jvp(x, jnp.reshape(_basis[0], jnp.shape(x)))
        _tangent = broadcast_like(jacobian_input(_tangent), _out)   # a bare 0.0: nothing reached it
        _columns = jnp.zeros(jnp.shape(_tangent) + (jnp.size(x),), dtype=_tangent.dtype)
        _columns = _columns.at[..., 0].set(_tangent)
        for _k in range(1, jnp.size(x)):
            _out, _tangent = _jvp(x, jnp.reshape(_basis[_k], jnp.shape(x)))
            _columns = _columns.at[..., _k].set(broadcast_like(jacobian_input(_tangent), _out))
        return jnp.reshape(_columns, jnp.shape(_out) + jnp.shape(x))

The columns go into one array rather than a list: vmap batches an array updated in a loop, where a list
of batched columns would make it run the whole Jacobian once per example (`vmap(hessian(f))`).
"""

import gast

__all__ = ["jacobian_source", "check_array_output"]


def check_array_output(kind, fun):
    """Refuse a Jacobian as source for a function that returns a tuple, list or dict literal: the loop
    below stacks one array per basis vector (Jacobians of pytree outputs work when called directly)."""
    from .frontend.parse import function_source
    source = function_source(fun)
    for node in _own_nodes(source.node):
        if isinstance(node, gast.Return) and isinstance(node.value, (gast.Tuple, gast.List, gast.Dict)):
            from .errors import TransformError
            raise TransformError(
                f"{kind} of `{source.name}`, which returns a tuple, list or dict, cannot be transformed again yet",
                node, source, hint=f"transform {kind} of a function returning one array, e.g. one item of the "
                                   f"output.")


def _own_nodes(function_node):
    """The nodes of a function's body, not descending into nested functions or lambdas."""
    stack = [s for s in function_node.body if not isinstance(s, gast.FunctionDef)]    # a local `def step`'s
    while stack:                                                                        # return is its own
        node = stack.pop()
        yield node
        for child in gast.iter_child_nodes(node):
            if not isinstance(child, (gast.FunctionDef, gast.Lambda)):
                stack.append(child)


def jacobian_source(kind, fun, leading, keywords, nums, generated_for):
    """FunctionSource of the Jacobian of `fun` (kind "jacfwd" or "jacrev") w.r.t. positions `nums`.

    `leading`/`keywords` are bound arguments (a method's self, a partial's
    arguments); `generated_for(position)` gives the generated jvp (jacfwd) or
    pullback (jacrev) of `fun` for one user position, bound arguments excluded.
    """
    from .backends.python import compile_function

    params = _parameters(fun, leading, keywords)
    for i in nums:
        if not -len(params) <= i < len(params):
            raise TypeError(f"{kind} of {getattr(fun, '__name__', fun)} with argnums={nums}: the function has "
                            f"only {len(params)} parameters")
    nums = tuple(i % len(params) for i in nums)
    from .rules.helpers import broadcast_like, jacobian_input
    namespace = {"_f": fun, "jacobian_input": jacobian_input, "broadcast_like": broadcast_like}
    bound = [f"_bound{i}" for i in range(len(leading))]
    namespace.update(zip(bound, leading))
    keyword_text = [f"{k}=_keyword_{k}" for k in keywords]
    namespace.update({f"_keyword_{k}": v for k, v in keywords.items()})
    lines = []
    results = []
    for n, i in enumerate(nums):
        generated = f"_d{n}"
        namespace[generated] = generated_for(i)
        build = _forward_lines if kind == "jacfwd" else _reverse_lines
        result = f"_jacobian{n}"
        lines += build(params, i, generated, bound, keyword_text, result, suffix=str(n))
        results.append(result)
    returned = results[0] if len(results) == 1 else "(" + ", ".join(results) + ",)"
    name = f"{kind}_{_chain_name(fun)}"
    text = f"def {name}({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in lines)
    text += f"    return {returned}\n"
    fn, _ = compile_function(gast.parse(text).body[0], namespace, label=name)
    return fn.__astjax_function_source__


def _forward_lines(params, i, generated, bound, keyword_text, result, suffix):
    """The columns written into one array (the first column's jvp gives its shape and dtype), not appended
    to a list: vmap batches an array updated in a loop, while a list of batched columns would make it run
    the whole Jacobian once per example."""
    x = params[i]

    def call(k):
        return ", ".join(bound + params + [f"jnp.reshape(_basis{suffix}[{k}], jnp.shape({x}))"] + keyword_text)
    columns = f"_columns{suffix}"
    return [
        f"{x} = jacobian_input({x})",
        f"_basis{suffix} = jnp.eye(jnp.size({x}), dtype={x}.dtype)",
        f"_out{suffix}, _tangent{suffix} = {generated}({call(0)})",
        f"_tangent{suffix} = broadcast_like(jacobian_input(_tangent{suffix}), _out{suffix})",
        f"{columns} = jnp.zeros(jnp.shape(_tangent{suffix}) + (jnp.size({x}),), dtype=_tangent{suffix}.dtype)",
        f"{columns} = {columns}.at[..., 0].set(_tangent{suffix})",
        f"for _k{suffix} in range(1, jnp.size({x})):",
        f"    _out{suffix}, _tangent{suffix} = {generated}({call(f'_k{suffix}')})",
        f"    {columns} = {columns}.at[..., _k{suffix}].set(broadcast_like(jacobian_input(_tangent{suffix}), _out{suffix}))",
        f"{result} = jnp.reshape({columns}, jnp.shape(_out{suffix}) + jnp.shape({x}))",
    ]


def _reverse_lines(params, i, generated, bound, keyword_text, result, suffix):
    """The rows written into one array (the first row's pullback gives its shape and dtype), as the
    columns of _forward_lines."""
    x = params[i]
    out = f"_out{suffix}"

    def call(k):
        return ", ".join([f"jnp.reshape(_basis{suffix}[{k}], jnp.shape({out}))"] + bound + params + keyword_text)
    rows = f"_rows{suffix}"
    return [
        f"{x} = jacobian_input({x})",
        f"{out} = jacobian_input(_f({', '.join(bound + params + keyword_text)}))",
        f"_basis{suffix} = jnp.eye(jnp.size({out}), dtype={out}.dtype)",
        f"_row{suffix} = broadcast_like({generated}({call(0)}), {x})",
        f"{rows} = jnp.zeros((jnp.size({out}),) + jnp.shape(_row{suffix}), dtype=_row{suffix}.dtype)",
        f"{rows} = {rows}.at[0].set(_row{suffix})",
        f"for _k{suffix} in range(1, jnp.size({out})):",
        f"    {rows} = {rows}.at[_k{suffix}].set(broadcast_like({generated}({call(f'_k{suffix}')}), {x}))",
        f"{result} = jnp.reshape({rows}, jnp.shape({out}) + jnp.shape({x}))",
    ]


def _parameters(fun, leading, keywords):
    from .frontend.parse import function_source
    node = function_source(fun).node
    names = [a.id for a in node.args.args]
    return [p for p in names[len(leading):] if p not in keywords]


def _chain_name(fun):
    """`s` for a user function, `jacrev_s` for jacrev(s), `grad_jacrev_s` ...: generated names stay distinct."""
    transform = getattr(fun, "__astjax_transform__", None)
    inner = getattr(transform, "user_fun", None)
    if transform is not None and inner is not None and inner is not fun and getattr(transform, "kind", None):
        return f"{transform.kind}_{_chain_name(inner)}"
    return _clean(getattr(fun, "__name__", "f"))


def _clean(name):
    return "lambda" if name == "<lambda>" else name
