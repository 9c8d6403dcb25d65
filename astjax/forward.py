"""Forward mode and Jacobians: jvp, jacfwd, jacrev, hessian.

`jvp` runs the generated forward-mode function (tangents beside the values);
`jacfwd` calls it once per input element, `jacrev` calls a pullback once per
output element, and `hessian` is `jacfwd` over the generated gradient.
"""
import functools
import inspect
import numbers
import weakref

import numpy as np

from . import tree_util
from .api import ReverseTransform, grad, vjp
from .arguments import check_callable, differentiable_input, is_float_leaf, split_callable
from .array import wrap
from .rules.helpers import materialize
from .codegen.namespace import renamed_keywords
from .frontend.parse import defaults_after
from .transforms.derivation import Derivation

__all__ = ["jvp", "jacfwd", "jacrev", "hessian", "forward_function"]

_FORWARD = weakref.WeakKeyDictionary()     # function -> {mask: Derivation}


def forward_function(fun, mask):
    """The generated forward-mode function of `fun` for the float arguments in `mask` (cached)."""
    try:
        table = _FORWARD.setdefault(fun, {})
    except TypeError:         # not weak-referenceable: no cache
        table = {}
    if mask not in table or not table[mask].current():     # new, or a global it read was rebound
        derivation = Derivation()
        derivation.forward(fun, [i for i, m in enumerate(mask) if m])
        table[mask] = derivation
    derivation = table[mask]
    return derivation.functions[derivation.sources[-1][0]], derivation


def jvp(fun, primals, tangents, has_aux=False):
    """`(fun(*primals), tangent of the output)`: forward mode along `tangents`, as `jax.jvp`."""
    check_callable(fun, "jvp")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp expects primals and tangents as tuples or lists: jvp(f, (x,), (dx,))")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp got {len(primals)} primals but {len(tangents)} tangents; pass one tangent per primal.")
    primals = list(primals)
    tangents = list(tangents)
    mask = []
    for i, (p, t) in enumerate(zip(primals, tangents)):
        leaves = tree_util.tree_leaves(p)
        is_float = bool(leaves) and all(is_float_leaf(leaf) for leaf in leaves)
        mask.append(is_float)
        if not is_float:
            continue
        if tree_util.tree_structure(p) != tree_util.tree_structure(t):
            raise ValueError(f"jvp: primal {i} and its tangent have different structures: "
                             f"{tree_util.tree_structure(p)} and {tree_util.tree_structure(t)}")
        for leaf_p, leaf_t in zip(leaves, tree_util.tree_leaves(t)):
            if np.shape(leaf_p) != np.shape(leaf_t):
                raise ValueError(f"jvp called with different primal and tangent shapes: primal {i} has shape "
                                 f"{np.shape(leaf_p)}, its tangent {np.shape(leaf_t)}.")
        primals[i] = tree_util.tree_map(lambda leaf: differentiable_input(leaf, "jvp"), p)
        tangents[i] = tree_util.tree_map(lambda leaf, like: wrap(np.asarray(leaf, dtype=np.result_type(like))),
                                         t, primals[i])
    function, leading, keywords = split_callable(fun)
    rest, keywords = _remaining_arguments(function, len(leading) + len(primals), keywords)
    primals += rest          # the generated function takes every primal, then the tangents
    mask += [False] * len(rest)
    generated, _ = forward_function(function, (False,) * len(leading) + tuple(mask))
    value, tangent = generated(*leading, *primals, *[t for t, m in zip(tangents, mask) if m],
                               **renamed_keywords(generated, keywords))
    if has_aux:
        (value, aux), (tangent, _) = (value, tangent)
        return _as_output(value), _tangent_like(tangent, value), aux
    return _as_output(value), _tangent_like(tangent, value)


def _remaining_arguments(function, given, keywords):
    """(values for the parameters after the first `given`, keywords left over): a partial's keywords
    and the defaults, by position, since a forward-mode function takes its tangents after every primal."""
    if not keywords:
        return defaults_after(function, given), keywords
    try:
        parameters = list(inspect.signature(function).parameters.values())[given:]
    except (TypeError, ValueError):
        return [], keywords
    rest, left = [], dict(keywords)
    for parameter in parameters:
        if parameter.kind not in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
            break
        if parameter.name in left:
            rest.append(left.pop(parameter.name))
        elif parameter.default is not parameter.empty:
            rest.append(parameter.default)
        else:
            break
    return (rest, {}) if not left else ([], keywords)


def _as_output(value):
    return tree_util.tree_map(lambda v: wrap(v) if isinstance(v, (np.ndarray, numbers.Number)) else v, value)


def _tangent_like(tangent, value):
    if isinstance(value, (tuple, list)):
        return type(value)(_tangent_like(t, v) for t, v in zip(tangent, value))
    return materialize(tangent, value)


def _zero_tangent(arg):
    """A zero tangent for any argument: zeros for float leaves, a 0-d zero for the rest."""
    return tree_util.tree_map(
        lambda leaf: np.zeros(np.shape(leaf), np.result_type(leaf)) if is_float_leaf(leaf) else np.zeros(()), arg)


def jacfwd(fun, argnums=0, has_aux=False):
    """The Jacobian of `fun` by forward mode: one jvp per input element.

    Shape: the output's shape + the input's. For a pytree argument the result
    has the argument's structure, one Jacobian per leaf, as in JAX.
    """
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(fun)
    def jacfwd_f(*args):
        args = [tree_util.tree_map(lambda leaf: differentiable_input(leaf, "jacfwd"), a) if i in nums else a
                for i, a in enumerate(args)]
        base = [_zero_tangent(a) for a in args]
        jacobians = []
        for i in nums:
            leaves, treedef = tree_util.tree_flatten(args[i])
            per_leaf = []
            for position, leaf in enumerate(leaves):
                columns, out_shape = [], None
                for k in range(np.size(leaf)):
                    basis = np.zeros(np.size(leaf), dtype=np.result_type(leaf))
                    basis[k] = 1
                    tangent_leaves = [np.zeros(np.shape(l), np.result_type(l)) for l in leaves]
                    tangent_leaves[position] = basis.reshape(np.shape(leaf))
                    tangents = list(base)
                    tangents[i] = tree_util.tree_unflatten(treedef, tangent_leaves)
                    out, tangent = jvp(fun, args, tangents)
                    out_shape = np.shape(out)
                    columns.append(np.asarray(tangent))
                if out_shape is None:
                    out_shape = np.shape(fun(*args))
                jac = np.stack(columns, axis=-1) if columns else np.zeros(out_shape + (0,))
                per_leaf.append(wrap(jac.reshape(out_shape + np.shape(leaf))))
            jacobians.append(tree_util.tree_unflatten(treedef, per_leaf))
        return jacobians[0] if single else tuple(jacobians)

    jacfwd_f.__astjax_transform__ = _ForwardTransform(fun, nums)
    return jacfwd_f


def jacrev(fun, argnums=0, has_aux=False):
    """The Jacobian of `fun` by reverse mode: one pullback per output element.

    Shape: the output's shape + the input's; pytree arguments as in `jacfwd`.
    """
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(fun)
    def jacrev_f(*args):
        out, pullback = vjp(fun, *args)
        out_arr = np.asarray(out)
        rows = {i: [] for i in nums}
        for k in range(out_arr.size):
            basis = np.zeros(out_arr.size, dtype=np.result_type(out_arr))
            basis[k] = 1
            cotangents = pullback(basis.reshape(out_arr.shape))
            for i in nums:
                rows[i].append([np.asarray(leaf) for leaf in tree_util.tree_leaves(cotangents[i])])
        jacobians = []
        for i in nums:
            leaves, treedef = tree_util.tree_flatten(args[i])
            per_leaf = []
            for position, leaf in enumerate(leaves):
                stacked = (np.stack([row[position] for row in rows[i]]) if rows[i]
                           else np.zeros((0,) + np.shape(leaf)))
                per_leaf.append(wrap(stacked.reshape(out_arr.shape + np.shape(leaf))))
            jacobians.append(tree_util.tree_unflatten(treedef, per_leaf))
        return jacobians[0] if single else tuple(jacobians)

    jacrev_f.__astjax_transform__ = ReverseTransform(fun, tuple(range(max(nums) + 1)), has_aux, "vjp")
    return jacrev_f


def hessian(fun, argnums=0, has_aux=False):
    """The Hessian of a scalar `fun`: forward mode over the generated reverse-mode gradient."""
    return jacfwd(grad(fun, argnums, has_aux=has_aux), argnums)


class _ForwardTransform:
    """What `astjax.source` shows for a forward-mode transformation: the generated jvp."""

    def __init__(self, fun, nums):
        self.fun, self.leading, _ = split_callable(fun)
        self.nums = tuple(n + len(self.leading) for n in nums)

    def _mask(self):
        from .frontend.parse import function_source
        count = len(function_source(self.fun).node.args.args)
        return tuple(i in self.nums for i in range(count))

    def source_text(self):
        return forward_function(self.fun, self._mask())[1].source_text()

    def composable_source(self):
        return forward_function(self.fun, self._mask())[0].__astjax_function_source__


# Calls of these on values known when transforming (`astjax.jacfwd(f)` inside a transformed
# function) are evaluated then, so the function they build is transformed like any callee.
for _transformation in (jacfwd, jacrev, hessian):
    _transformation.__astjax_static_call__ = True
