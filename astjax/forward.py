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
from .api import as_seed, derivation_cache_key, grad
from .arguments import FLOAT0, Packing, argnums_as_ints, check_callable, differentiable_input, is_float_leaf, refuse_complex, split_callable
from .array import wrap
from .errors import api_boundary
from .rules.helpers import materialize
from .codegen.namespace import renamed_keywords
from .frontend.parse import defaults_after
from .transforms.derivation import Derivation

__all__ = ["jvp", "linearize", "jacfwd", "jacrev", "jacobian", "hessian", "forward_function"]

_FORWARD = weakref.WeakKeyDictionary()     # function -> {mask: Derivation}


def forward_function(fun, mask):
    """The generated forward-mode function of `fun` for the float arguments in `mask` (cached)."""
    try:
        table = _FORWARD.setdefault(derivation_cache_key(fun), {})
    except TypeError:         # not weak-referenceable: no cache
        table = {}
    if mask not in table or not table[mask].current():     # new, or a global it read was rebound
        derivation = Derivation()
        derivation.forward(fun, [i for i, m in enumerate(mask) if m])
        table[mask] = derivation
    derivation = table[mask]
    return derivation.functions[derivation.sources[-1][0]], derivation


@api_boundary
def jvp(fun, primals, tangents, has_aux=False):
    """`(fun(*primals), tangent of the output)`: forward mode along `tangents`, as `jax.jvp`."""
    return _jvp(fun, primals, tangents, has_aux)


@api_boundary
def linearize(fun, *primals, has_aux=False):
    """`(fun(*primals), f_jvp)` as `jax.linearize`: `f_jvp(*tangents)` is jvp's output tangent at `primals`.

    Each call of f_jvp runs the forward-mode derivative at the stored primals (the generated source is
    built once and cached); it does not keep a linear program of its own as JAX does, so a call costs
    a jvp. With has_aux=True the result is `(value, f_jvp, aux)`.
    """
    out = _jvp(fun, primals, tuple(_zero_tangent(p) for p in primals), has_aux)
    value, aux = (out[0], out[2]) if has_aux else (out[0], None)

    @api_boundary
    def f_jvp(*tangents):
        if len(tangents) != len(primals):
            raise TypeError(f"linearize's function takes {len(primals)} tangent(s), one per primal, "
                            f"got {len(tangents)}")
        return _jvp(fun, primals, tangents, has_aux)[1]

    return (value, f_jvp, aux) if has_aux else (value, f_jvp)


def _jvp(fun, primals, tangents, has_aux=False, held=frozenset(), primal_only=False):
    """jvp, with the primals at the positions in `held` not differentiated at all (jacfwd's arguments
    outside `argnums`): no tangent, rather than a zero tangent, which times an undefined partial
    derivative (d/dn of (-1.0) ** n) would be nan. With primal_only (every position held), the output as the
    generated function returns it."""
    check_callable(fun, "jvp")
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("jvp expects primals and tangents as tuples or lists: jvp(f, (x,), (dx,))")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp got {len(primals)} primals but {len(tangents)} tangents; pass one tangent per primal.")
    primals = list(primals)
    tangents = list(tangents)
    refuse_complex(primals, "jvp")
    mask = []
    for i, (p, t) in enumerate(zip(primals, tangents)):
        leaves = tree_util.tree_leaves(p)
        is_float = i not in held and bool(leaves) and all(is_float_leaf(leaf) for leaf in leaves)
        mask.append(is_float)
        if i in held:
            continue
        if not is_float:
            _check_constant_primal(i, p, leaves, t)
            continue
        if tree_util.tree_structure(p) != tree_util.tree_structure(t):
            raise ValueError(f"jvp: primal {i} and its tangent have different structures: "
                             f"{tree_util.tree_structure(p)} and {tree_util.tree_structure(t)}")
        for leaf_p, leaf_t in zip(leaves, tree_util.tree_leaves(t)):
            if np.shape(leaf_p) != np.shape(leaf_t):
                raise ValueError(f"jvp called with different primal and tangent shapes: primal {i} has shape "
                                 f"{np.shape(leaf_p)}, its tangent {np.shape(leaf_t)}.")
            _check_tangent_dtype(i, leaf_p, leaf_t)
        primals[i] = tree_util.tree_map(lambda leaf: differentiable_input(leaf, "jvp"), p)
        tangents[i] = tree_util.tree_map(lambda leaf, like: wrap(np.asarray(leaf, dtype=np.result_type(like))),
                                         t, primals[i])
    function, leading, keywords = split_callable(fun)
    if Packing.needed(function) and not leading:
        function, primals, tangents, mask = _packed_call(function, primals, tangents, mask, keywords)
        keywords = {}
    else:
        rest, keywords = _remaining_arguments(function, len(leading) + len(primals), keywords)
        primals += rest          # the generated function takes every primal, then the tangents
        mask += [False] * len(rest)
    generated, _ = forward_function(function, (False,) * len(leading) + tuple(mask))
    value, tangent = generated(*leading, *primals, *[t for t, m in zip(tangents, mask) if m],
                               **renamed_keywords(generated, keywords))
    value, tangent = _shaped_like_a_gradient(fun, value, tangent, primals)
    if primal_only:
        return value
    if has_aux:
        (value, aux), (tangent, _) = (value, tangent)
        return _as_output(value), _tangent_like(tangent, value), aux
    return _as_output(value), _tangent_like(tangent, value)


def _check_tangent_dtype(i, primal, tangent):
    """A float primal takes a float tangent: an integer or boolean one is a TypeError, as in JAX (astjax cast it
    to the primal's dtype and went on). A float of another width is cast to the primal's dtype, as JAX does
    in its default mode (float64 read as float32): a program JAX runs in both of its modes runs here."""
    if tangent is None or _is_python_float(tangent):
        return
    tangent_dtype = np.result_type(tangent)
    if tangent_dtype.kind in "biuV":
        described = "a Python float" if _is_python_float(primal) else f"dtype {np.result_type(primal)}"
        raise TypeError(f"primal and tangent arguments to jvp do not match; dtypes must be equal, or in case of "
                        f"int/bool primal dtype the tangent dtype must be float0. Got primal {i} ({described}), "
                        f"but its tangent has dtype {tangent_dtype}. Pass a float tangent "
                        f"(`np.asarray(t, dtype=float)`, 1.0 rather than 1).")


def _is_python_float(value):
    return isinstance(value, float) and not isinstance(value, np.generic)      # np.float64 is a float too


def _check_constant_primal(i, primal, leaves, tangent):
    """A primal jvp does not differentiate (integers, booleans) takes a float0 or zero tangent: a nonzero
    tangent there would be dropped, and the output tangent silently miss it (`jvp(f, (2,), (1.0,))` would
    give 0, not 4; JAX takes only float0). A primal mixing float leaves with others is refused: astjax
    differentiates whole arguments, so its float leaves would get no tangent."""
    if any(is_float_leaf(leaf) for leaf in leaves):
        others = sorted({str(leaf.dtype) if hasattr(leaf, "dtype") else type(leaf).__name__
                         for leaf in leaves if not is_float_leaf(leaf)})
        raise TypeError(f"jvp: primal {i} mixes float leaves with {', '.join(others)} leaves; astjax differentiates "
                        "whole arguments, so its float leaves would get no tangent. Pass the float leaves and the "
                        "others as separate arguments (or make every leaf a float).")
    if not any(_is_integral(leaf) for leaf in leaves):
        return
    if tree_util.tree_structure(primal) != tree_util.tree_structure(tangent):
        raise TypeError(f"primal and tangent arguments to jvp must have the same tree structure; primal {i} has "
                        f"{tree_util.tree_structure(primal)}, its tangent {tree_util.tree_structure(tangent)}")
    for leaf_p, leaf_t in zip(leaves, tree_util.tree_leaves(tangent)):
        if _is_integral(leaf_p) and np.result_type(leaf_t) != FLOAT0 and np.any(np.asarray(leaf_t) != 0):
            raise TypeError(f"jvp: primal {i} is an integer or boolean ({np.result_type(leaf_p)}), which is not "
                            "differentiated, but its tangent is not zero: the output tangent would leave it out. "
                            "Pass a float primal (2.0, not 2) to differentiate along it, or a float0 tangent "
                            "(np.zeros(shape, astjax.dtypes.float0)) as in JAX.")


def _is_integral(leaf):
    if isinstance(leaf, (bool, numbers.Integral)):
        return True
    dtype = getattr(leaf, "dtype", None)
    return isinstance(dtype, np.dtype) and dtype.kind in "biu"


def primal_output(fun, args, has_aux=False, given=None):
    """`(output, aux)` of `fun(*args)` as the transformed program computes it: the forward-mode function with no
    argument differentiated, which keeps NumPy's semantics (item assignment, aliases, NumPy scalars) or refuses.
    Running `fun` itself on astjax Arrays follows JAX's instead (immutable arrays, 0-d arrays for items): an
    output computed so could differ from the program's, silently (vjp's primal output, jacrev's aux).

    `given`: the arguments as the caller passed them. A NumPy array among them is passed on as a NumPy array
    (a copy), not as the Array `args` holds: with nothing differentiated, the user functions it calls run as
    written, and one that tests `type(v) is np.ndarray` or writes `y[0] = v` into a copy must see what the
    program gives it (vjp's output came from the other branch, silently)."""
    if given is not None:
        args = [tree_util.tree_map(_as_given, g, a) if tree_util.tree_structure(g) == tree_util.tree_structure(a)
                else a for g, a in zip(given, args)]
    value = _jvp(fun, list(args), list(args), has_aux, held=frozenset(range(len(args))), primal_only=True)
    output, aux = (value[0], value[1]) if has_aux else (value, None)
    return tree_util.tree_map(lambda v: wrap(v) if isinstance(v, (np.ndarray, numbers.Number)) else v, output), aux


def _as_given(given, prepared):
    """The caller's NumPy array (a copy) where the prepared argument is that array as an Array of its dtype."""
    if type(given) is np.ndarray and np.result_type(prepared) == given.dtype:
        return given.copy()
    return prepared


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
def _packed_call(function, primals, tangents, mask, keywords=None):
    """(source, primals, tangents, mask) for a function with *args: the extra arguments are one tuple
    (`keywords`: those bound with functools.partial, as jacfwd/hessian pass a call's keyword arguments)."""
    packing = Packing(function)
    n = len(packing.positional)
    keywords = keywords or {}
    if packing.keyword_only and any(packing.signature.parameters[k].default is inspect.Parameter.empty
                                    and k not in keywords for k in packing.keyword_only):
        raise TypeError(f"jvp of {getattr(function, '__name__', function)}: its keyword-only parameters need "
                        f"values, and jvp passes positional arguments only; bind them with functools.partial.")
    packed_primals = packing.pack(primals, keywords)
    rest = [t if m else _zero_tangent(p) for p, t, m in zip(primals[n:], tangents[n:], mask[n:])]
    packed_tangents = list(tangents[:n]) + ([tuple(rest)] if packing.vararg else [])
    packed_mask = list(mask[:n]) + ([any(mask[n:])] if packing.vararg else [])
    extra = len(packed_primals) - len(packed_mask)
    return packing.source, packed_primals, packed_tangents + [None] * extra, tuple(packed_mask + [False] * extra)


def _shaped_like_a_gradient(fun, value, tangent, primals):
    """jvp of a gradient (a Hessian-vector product): its value and tangent shaped like the differentiated
    arguments, as `grad` returns them. The generated code keeps a container's gradient as the items
    it reached (a TreeAdjoint), which only the arguments can turn back into their dicts and lists."""
    transform = getattr(fun, "__astjax_transform__", None)
    if transform is None or getattr(transform, "kind", None) not in ("grad", "value_and_grad"):
        return value, tangent
    from .api import _materialize_grads
    shaped = lambda g: _materialize_grads(transform, g, primals)      # noqa: E731
    if transform.kind == "grad" and not transform.has_aux:
        return shaped(value), shaped(tangent)
    if transform.kind == "grad":                                      # (gradient, aux)
        return (shaped(value[0]), value[1]), (shaped(tangent[0]), tangent[1])
    return (value[0], shaped(value[1])), (tangent[0], shaped(tangent[1]))


def _as_output(value):
    return tree_util.tree_map(lambda v: wrap(v) if isinstance(v, (np.ndarray, numbers.Number)) else v, value)


def _tangent_like(tangent, value):
    """The output's tangent in the output's structure (tuples, lists, namedtuples, dicts), zeros filled in."""
    if isinstance(value, dict):
        return type(value)((k, _tangent_like(tangent[k], v)) for k, v in value.items())
    if isinstance(value, (tuple, list)):
        items = [_tangent_like(t, v) for t, v in zip(tangent, value)]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return materialize(tangent, value)


def _zero_tangent(arg):
    """A zero tangent for any argument: zeros for float leaves, float0 zeros for integers and booleans (as in
    JAX), a 0-d zero for the rest."""
    def zero(leaf):
        if is_float_leaf(leaf):
            return np.zeros(np.shape(leaf), np.result_type(leaf))
        return np.zeros(np.shape(leaf), FLOAT0) if _is_integral(leaf) else np.zeros(())
    return tree_util.tree_map(zero, arg)


def jacfwd(fun, argnums=0, has_aux=False):
    """The Jacobian of `fun` by forward mode: one jvp per input element.

    Shape: the output's shape + the input's. For a pytree argument the result
    has the argument's structure, one Jacobian per leaf; for a pytree output it
    has the output's structure (outer) over the arguments' (inner), as in JAX.
    With has_aux=True `fun` returns `(output, aux)` and the result is `(jacobian, aux)`.
    """
    check_callable(fun, "jacfwd")
    argnums = argnums_as_ints(argnums)
    single = isinstance(argnums, int)
    nums = argnums_given = (argnums,) if single else tuple(argnums)

    @functools.wraps(fun)
    @api_boundary
    def jacfwd_f(*args, **kwargs):
        if kwargs:          # keyword arguments are passed through, not differentiated (as in JAX)
            return jacfwd(functools.partial(fun, **kwargs), argnums_given if not single else argnums,
                          has_aux)(*args)
        _check_argnums("jacfwd", fun, argnums_given, args)
        refuse_complex(args, "jacfwd")
        # Negative argnums count from the end: held (undifferentiated) positions are computed from these,
        # and a -1 left as is would hold every argument (a silently zero Jacobian).
        nums = tuple(i % len(args) for i in argnums_given)
        args = [tree_util.tree_map(lambda leaf: differentiable_input(leaf, "jacfwd"), a) if i in nums else a
                for i, a in enumerate(args)]
        base = [_zero_tangent(a) for a in args]
        out, aux = None, None
        per_arg = []            # per argument: per input leaf: per output leaf: columns
        for i in nums:
            leaves, treedef = tree_util.tree_flatten(args[i])
            per_leaf = []
            for position, leaf in enumerate(leaves):
                columns = []
                for k in range(np.size(leaf)):
                    basis = np.zeros(np.size(leaf), dtype=np.result_type(leaf))
                    basis[k] = 1
                    tangent_leaves = [np.zeros(np.shape(l), np.result_type(l)) for l in leaves]
                    tangent_leaves[position] = basis.reshape(np.shape(leaf))
                    tangents = list(base)
                    tangents[i] = tree_util.tree_unflatten(treedef, tangent_leaves)
                    result = _jvp(fun, args, tangents, has_aux, held=frozenset(range(len(args))) - set(nums))
                    out, tangent = result[0], result[1]
                    aux = result[2] if has_aux else None
                    columns.append([np.asarray(t) for t in tree_util.tree_leaves(tangent)])
                per_leaf.append(columns)
            per_arg.append((leaves, treedef, per_leaf))
        if out is None:                        # every differentiated argument is empty
            value = fun(*args)
            out, aux = (value[0], value[1]) if has_aux else (value, None)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        _refuse_integer_outputs("jacfwd", fun, out_leaves, booleans_only=True)
        jacobians = []
        for j, out_leaf in enumerate(out_leaves):
            out_shape = np.shape(out_leaf)
            for_output = []
            for leaves, treedef, per_leaf in per_arg:
                blocks = []
                for leaf, columns in zip(leaves, per_leaf):
                    jac = (np.stack([column[j] for column in columns], axis=-1) if columns
                           else np.zeros(out_shape + (0,), np.result_type(out_leaf)))
                    blocks.append(wrap(jac.reshape(out_shape + np.shape(leaf))))
                for_output.append(tree_util.tree_unflatten(treedef, blocks))
            jacobians.append(for_output[0] if single else tuple(for_output))
        jacobian = tree_util.tree_unflatten(out_tree, jacobians)
        return (jacobian, aux) if has_aux else jacobian

    jacfwd_f.__astjax_transform__ = _JacobianTransform("jacfwd", fun, nums, has_aux)
    return jacfwd_f


def jacrev(fun, argnums=0, has_aux=False):
    """The Jacobian of `fun` by reverse mode: one pullback per output element.

    Shapes and pytrees as in `jacfwd`; with has_aux=True the result is `(jacobian, aux)`.
    """
    check_callable(fun, "jacrev")
    argnums = argnums_as_ints(argnums)
    single = isinstance(argnums, int)
    nums = (argnums,) if single else tuple(argnums)

    @functools.wraps(fun)
    @api_boundary
    def jacrev_f(*args, **kwargs):
        if kwargs:          # keyword arguments are passed through, not differentiated (as in JAX)
            return jacrev(functools.partial(fun, **kwargs), argnums, has_aux)(*args)
        _check_argnums("jacrev", fun, nums, args)
        given = args
        positions = tuple(i % len(args) for i in nums)
        args = [tree_util.tree_map(lambda leaf: differentiable_input(leaf, "jacrev"), a) if i in positions else a
                for i, a in enumerate(args)]
        function, leading, keywords = split_callable(fun)
        cotangents_of = _pullback_for(function, leading, keywords, positions, args, has_aux)
        out, aux = primal_output(fun, args, has_aux, given=given)
        out_leaves, out_tree = tree_util.tree_flatten(out)
        _refuse_integer_outputs("jacrev", fun, out_leaves)
        jacobians = []
        for j, out_leaf in enumerate(out_leaves):
            out_arr = np.asarray(out_leaf)
            rows = []                         # per output element: per argument: its cotangent's leaves
            for k in range(out_arr.size):
                basis = np.zeros(out_arr.size, dtype=out_arr.dtype)
                basis[k] = 1
                seeds = [wrap(np.zeros(np.shape(l), np.result_type(l))) for l in out_leaves]
                seeds[j] = wrap(basis.reshape(out_arr.shape))
                seed = as_seed(tree_util.tree_unflatten(out_tree, seeds))
                rows.append([[np.asarray(leaf) for leaf in tree_util.tree_leaves(g)] for g in cotangents_of(seed)])
            for_output = []
            for a, i in enumerate(positions):
                leaves, treedef = tree_util.tree_flatten(args[i])
                blocks = []
                for position, leaf in enumerate(leaves):
                    stacked = (np.stack([row[a][position] for row in rows]) if rows
                               else np.zeros((0,) + np.shape(leaf), np.result_type(leaf)))
                    blocks.append(wrap(stacked.reshape(out_arr.shape + np.shape(leaf))))
                for_output.append(tree_util.tree_unflatten(treedef, blocks))
            jacobians.append(for_output[0] if single else tuple(for_output))
        jacobian = tree_util.tree_unflatten(out_tree, jacobians)
        return (jacobian, aux) if has_aux else jacobian

    jacrev_f.__astjax_transform__ = _JacobianTransform("jacrev", fun, nums, has_aux)
    return jacrev_f


def _pullback_for(function, leading, keywords, positions, args, has_aux):
    """`seed -> [cotangent of args[i] for i in positions]`, through the generated pullback of `function`
    (for a function with *args, through that of its packed form: see arguments.Packing)."""
    if Packing.needed(function) and not leading and not keywords:
        packing = Packing(function)
        wrt = tuple(sorted({packing.position(i, len(args))[0] for i in positions}))
        pullback, _ = pullback_function(packing.source, wrt, has_aux)
        packed = packing.pack(args, {})

        def cotangents_of(seed):
            grads = pullback(seed, *packed)
            grads = grads[0] if has_aux else grads
            grads = grads if len(wrt) > 1 else (grads,)
            out = []
            for i in positions:
                param, item = packing.position(i, len(args))
                g = materialize(grads[wrt.index(param)], packed[param])
                out.append(g if item is None else g[item])
            return out
        return cotangents_of

    pullback, _ = pullback_function(function, tuple(len(leading) + i for i in positions), has_aux)

    def cotangents_of(seed):
        grads = pullback(seed, *leading, *args, **keywords)
        grads = grads[0] if has_aux else grads
        grads = grads if len(positions) > 1 else (grads,)
        return [materialize(g, args[i]) for g, i in zip(grads, positions)]
    return cotangents_of


def _refuse_integer_outputs(kind, fun, out_leaves, booleans_only=False):
    """jacrev of a function with an integer or boolean output, as JAX: a TypeError (its pullback would seed
    an integer output, and the Jacobian read zeros that no derivative gave). jacfwd keeps JAX's integer
    zeros for an integer output (its tangent is zero) and refuses a boolean one (JAX fails there)."""
    kinds = "b" if booleans_only else "biu"
    for leaf in out_leaves:
        dtype = np.result_type(leaf)
        if dtype.kind in kinds:
            raise TypeError(f"{kind} requires real-valued outputs (a floating dtype), but "
                            f"{getattr(fun, '__name__', 'the function')} returns {dtype}. Return a float "
                            "(`x.astype(float)`), or for an integer output's zero derivative use astjax.vjp "
                            "directly.")


def _check_argnums(kind, fun, nums, args):
    if not nums or not all(isinstance(i, int) for i in nums):
        raise TypeError(f"argnums must be an int or a tuple of ints, got {nums!r}")
    for i in nums:
        if not -len(args) <= i < len(args):
            raise TypeError(f"{kind} of {getattr(fun, '__name__', fun)} with argnums={nums} needs at least "
                            f"{max(nums) + 1} positional arguments, got {len(args)}")


def hessian(fun, argnums=0, has_aux=False):
    """The Hessian of a scalar `fun`: forward mode over the generated reverse-mode gradient."""
    return jacfwd(grad(fun, argnums, has_aux=has_aux), argnums, has_aux=has_aux)


class _JacobianTransform:
    """What `astjax.source` shows for jacfwd/jacrev (the generated jvp or pullback of `fun`), and the
    Jacobian as source (a loop over basis vectors) for the next transformation to differentiate."""

    def __init__(self, kind, fun, nums, has_aux):
        self.kind = kind
        self.user_fun = fun
        self.fun, self.leading, self.keywords = split_callable(fun)
        self.nums = tuple(nums)
        self.has_aux = has_aux
        self._source = None

    def _count(self):
        from .frontend.parse import function_source
        return len(function_source(self.fun).node.args.args)

    def _mask(self, position):
        shifted = position + len(self.leading)
        return tuple(i == shifted for i in range(self._count()))

    def generated_for(self, position):
        """The generated jvp (jacfwd) or pullback (jacrev) of `fun` for one user argument position."""
        if self.kind == "jacfwd":
            return forward_function(self.fun, self._mask(position))[0]
        return pullback_function(self.fun, (position + len(self.leading),))[0]

    def source_text(self):
        return self.printed_derivation().source_text()

    def printed_derivation(self):
        """The Derivation `source_text` prints: the jvp or pullback for the first argument in argnums."""
        position = self.nums[0] % max(self._count() - len(self.leading), 1)
        if self.kind == "jacfwd":
            return forward_function(self.fun, self._mask(position))[1]
        return pullback_function(self.fun, (position + len(self.leading),))[1]

    def composable_source(self):
        if self.has_aux:
            raise NotImplementedError(
                f"transforming {self.kind}(f, has_aux=True) again is not supported yet; transform a function "
                f"without aux (has_aux=False) instead")
        if self._source is None:
            from .jacobian_source import jacobian_source, check_array_output
            check_array_output(self.kind, self.fun)
            self._source = jacobian_source(self.kind, self.fun, self.leading, self.keywords, self.nums,
                                           self.generated_for)
        return self._source


def pullback_function(fun, wrt, has_aux=False):
    """The generated pullback `(ct, *args) -> cotangents of args[wrt]` of `fun` (cached)."""
    from .api import _REVERSE
    try:
        table = _REVERSE.setdefault(derivation_cache_key(fun), {})
    except TypeError:
        table = {}
    key = ("vjp", tuple(wrt), has_aux)
    if key not in table:
        derivation = Derivation()
        derivation.reverse(fun, list(wrt), mode="vjp", has_aux=has_aux)
        table[key] = derivation
    derivation = table[key]
    return derivation.functions[derivation.sources[-1][0]], derivation


jacobian = jacrev          # JAX's name for the reverse-mode Jacobian


# Calls of these on values known when transforming (`astjax.jacfwd(f)` inside a transformed
# function) are evaluated then, so the function they build is transformed like any callee.
for _transformation in (jacfwd, jacrev, hessian):
    _transformation.__astjax_static_call__ = True
