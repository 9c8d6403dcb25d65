"""Function identity: is the function astjax differentiates the one Python runs?

Two lambdas on one line, decorated functions, default arguments, globals and
closure cells rebound after the first transform, redefined functions, a file
edited after import, bound methods, callable objects, partial objects.
"""
import functools
import importlib.util
import os
import sys
import tempfile
import textwrap

import numpy as np

import astjax
import astjax.numpy as jnp
from astjax.errors import AstjaxError

from .case import case, vec, scalar
from .harness import fd_grad, names_a_line_of

double_lambda, triple_lambda = (lambda x: x * 2.0 + x * x), (lambda x: x * 3.0 + x * x)

case(double_lambda, lambda r: (scalar(r),), "works", name="first_of_two_lambdas_on_one_line")
case(triple_lambda, lambda r: (scalar(r),), "works", name="second_of_two_lambdas_on_one_line")

lambdas_in_a_list = [lambda x: jnp.sin(x) * 1.0, lambda x: jnp.sin(x) * 4.0]
case(lambdas_in_a_list[1], lambda r: (scalar(r),), "works", name="second_lambda_in_a_list")

nested_lambda_line = (lambda x: (lambda y: y * 5.0)(x) + x)
case(nested_lambda_line, lambda r: (scalar(r),), "works", name="lambda_calling_inline_lambda")


def doubled(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


@doubled
def decorated_with_wraps(x):
    return jnp.sum(x ** 2)


case(decorated_with_wraps, lambda r: (vec(r, 3),), "works")


def shifted(fn):
    def wrapper(x):
        return fn(x + 1.0)
    return wrapper


@shifted
def decorated_without_wraps(x):
    return jnp.sum(x ** 3)


case(decorated_without_wraps, lambda r: (vec(r, 3),), "works", name="decorated_without_wraps")


def _register_noop(fn):
    return fn


@_register_noop
def decorated_identity(x):
    return jnp.sum(jnp.sin(x))


case(decorated_identity, lambda r: (vec(r, 3),), "works")


@functools.lru_cache(maxsize=None)
def _cached_constant(n):
    return float(n) * 2.0


def calls_lru_cached_helper(x):
    return jnp.sum(x * _cached_constant(3))


case(calls_lru_cached_helper, lambda r: (vec(r, 3),), "works")

_DEFAULT_SCALE = 2.0


def default_from_global(x, scale=_DEFAULT_SCALE):
    return jnp.sum(scale * x ** 2)


_DEFAULT_SCALE = 7.0  # rebinding the global does not change the default: Python evaluated it at `def`

case(default_from_global, lambda r: (vec(r, 3),), "works")


def redefined(x):
    return jnp.sum(x * 2.0)


_first_redefined = redefined


def redefined(x):  # noqa: F811
    return jnp.sum(x * x * 3.0)


case(_first_redefined, lambda r: (vec(r, 3),), "works", name="redefined_first_definition")
case(redefined, lambda r: (vec(r, 3),), "works", name="redefined_second_definition")

_GLOBAL_SCALE = 1.0


def uses_global_scale(x):
    return jnp.sum(_GLOBAL_SCALE * x ** 2)


def _check_global_rebound(fn, args):
    global _GLOBAL_SCALE
    g = astjax.grad(fn)
    out = [(g(*args), fd_grad(fn, args, 0)[0], "before rebinding the global")]
    _GLOBAL_SCALE = 3.0
    try:
        out.append((g(*args), fd_grad(fn, args, 0)[0], "same grad object after rebinding the global"))
        out.append((astjax.grad(fn)(*args), fd_grad(fn, args, 0)[0], "new grad after rebinding the global"))
    finally:
        _GLOBAL_SCALE = 1.0
    return out


case(uses_global_scale, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_global_rebound,
     name="global_rebound_after_first_transform")

_GLOBAL_FN = jnp.sin


def uses_global_function(x):
    return jnp.sum(_GLOBAL_FN(x))


def _check_global_function_rebound(fn, args):
    global _GLOBAL_FN
    out = [(astjax.grad(fn)(*args), fd_grad(fn, args, 0)[0], "with sin")]
    _GLOBAL_FN = jnp.cos
    try:
        out.append((astjax.grad(fn)(*args), fd_grad(fn, args, 0)[0], "after rebinding to cos"))
    finally:
        _GLOBAL_FN = jnp.sin
    return out


case(uses_global_function, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_global_function_rebound,
     name="global_function_rebound")


def _global_helper(v):
    return v * 2.0


def uses_global_helper(x):
    return jnp.sum(_global_helper(x) ** 2)


def _replacement_helper(v):
    return jnp.sin(v) * 5.0


def _check_global_helper_rebound(fn, args):
    global _global_helper
    original = _global_helper
    out = [(astjax.grad(fn)(*args), fd_grad(fn, args, 0)[0], "original helper")]
    _global_helper = _replacement_helper
    try:
        out.append((astjax.grad(fn)(*args), fd_grad(fn, args, 0)[0], "after replacing the helper"))
    finally:
        _global_helper = original
    return out


case(uses_global_helper, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_global_helper_rebound,
     name="global_helper_function_rebound")


def _make_nonlocal_loss():
    k = 1.0

    def loss(x):
        return jnp.sum(k * x ** 2)

    def set_k(v):
        nonlocal k
        k = v
    return loss, set_k


_nonlocal_loss, _set_nonlocal_k = _make_nonlocal_loss()


def _check_nonlocal_rebound(fn, args):
    g = astjax.grad(fn)
    out = [(g(*args), fd_grad(fn, args, 0)[0], "k = 1")]
    _set_nonlocal_k(4.0)
    try:
        out.append((g(*args), fd_grad(fn, args, 0)[0], "same grad object after k = 4"))
        out.append((astjax.grad(fn)(*args), fd_grad(fn, args, 0)[0], "new grad after k = 4"))
    finally:
        _set_nonlocal_k(1.0)
    return out


case(_nonlocal_loss, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_nonlocal_rebound,
     name="nonlocal_rebound_after_first_transform")


def _check_edited_file(fn, args):
    """A module file edited after import: astjax must differentiate the code Python runs, or refuse."""
    with tempfile.TemporaryDirectory(prefix="astjax_adv_") as folder:
        path = os.path.join(folder, "adv_edited_module.py")
        original = textwrap.dedent("""\
            import astjax.numpy as jnp


            def edited(x):
                return jnp.sum(x * x * 2.0)
            """)
        with open(path, "w") as fh:
            fh.write(original)
        spec = importlib.util.spec_from_file_location("adv_edited_module", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        with open(path, "w") as fh:
            fh.write(original.replace("x * x * 2.0", "x * 3.0    "))
        os.utime(path, (os.path.getmtime(path) + 5,) * 2)
        try:
            got = astjax.grad(module.edited)(*args)
        except AstjaxError as exc:
            assert names_a_line_of(exc, path), f"refusal does not name {path}: {exc}"
            return [(1.0, 1.0, "refused clearly")]
        return [(got, fd_grad(module.edited, args, 0)[0], "code Python runs, not the edited file")]


def edited_file(x):
    return jnp.sum(x)


case(edited_file, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_edited_file,
     name="source_file_edited_after_import")


def _check_code_replaced(fn, args):
    def original(x):
        return jnp.sum(x * x)

    def other(x):
        return jnp.sum(jnp.sin(x) * 3.0)
    original.__code__ = other.__code__
    return [(astjax.grad(original)(*args), fd_grad(original, args, 0)[0], "function whose __code__ was replaced")]


def code_replaced(x):
    return jnp.sum(x)


case(code_replaced, lambda r: (vec(r, 3),), "either", mode="custom", check=_check_code_replaced,
     name="dunder_code_replaced")


class Quadratic:
    def __init__(self, a):
        self.a = a

    def loss(self, x):
        return jnp.sum(self.a * x ** 2 + x)

    def __call__(self, x):
        return jnp.sum(jnp.sin(x) * self.a)

    @staticmethod
    def static_loss(x):
        return jnp.sum(x ** 4)

    @classmethod
    def class_loss(cls, x):
        return jnp.sum(x ** 2) * cls.FACTOR

    FACTOR = 3.0


_QUAD = Quadratic(2.5)
case(_QUAD.loss, lambda r: (vec(r, 3),), "works", name="bound_method")
case(_QUAD, lambda r: (vec(r, 3),), "either", name="callable_object")
case(Quadratic.static_loss, lambda r: (vec(r, 3),), "works", name="static_method")
case(_QUAD.class_loss, lambda r: (vec(r, 3),), "works", name="class_method")


def _scaled_loss(x, scale):
    return jnp.sum(scale * x ** 2)


case(functools.partial(_scaled_loss, scale=3.0), lambda r: (vec(r, 3),), "works", name="partial_as_function")


def alias_target(x):
    return jnp.sum(jnp.cos(x))


alias_name = alias_target
case(alias_name, lambda r: (vec(r, 3),), "works", name="function_under_another_name")


def _factory(power):
    def loss(x):
        return jnp.sum(x ** power)
    return loss


_cube_loss = _factory(3)
_square_loss = _factory(2)
case(_cube_loss, lambda r: (vec(r, 3),), "works", name="same_closure_code_power_3")
case(_square_loss, lambda r: (vec(r, 3),), "works", name="same_closure_code_power_2")


def _check_factory_pair_cached(fn, args):
    a, b = _factory(2), _factory(4)
    return [(astjax.grad(a)(*args), fd_grad(a, args, 0)[0], "closure power 2"),
            (astjax.grad(b)(*args), fd_grad(b, args, 0)[0], "closure power 4 (same code object)")]


case(_factory, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_factory_pair_cached,
     name="closures_sharing_code_object")


def _check_redefined_in_loop(fn, args):
    out = []
    for k in (1.0, 2.0):
        def local(x, k=k):
            return jnp.sum(k * jnp.sin(x))
        out.append((astjax.grad(local)(*args), fd_grad(local, args, 0)[0], f"local def with default k={k}"))
    return out


def redefined_in_loop(x):
    return jnp.sum(x)


case(redefined_in_loop, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_redefined_in_loop,
     name="function_redefined_in_a_loop")


def _check_module_attribute_rebound(fn, args):
    module = sys.modules[__name__]
    original = module.module_level_constant_user
    out = [(astjax.grad(original)(*args), fd_grad(original, args, 0)[0], "original")]
    saved = module._MODULE_VECTOR
    module._MODULE_VECTOR = np.array([5.0, -1.0, 2.0])
    try:
        out.append((astjax.grad(original)(*args), fd_grad(original, args, 0)[0], "after rebinding a global array"))
    finally:
        module._MODULE_VECTOR = saved
    return out


_MODULE_VECTOR = np.array([1.0, 2.0, 3.0])


def module_level_constant_user(x):
    return jnp.sum(_MODULE_VECTOR * x ** 2)


case(module_level_constant_user, lambda r: (vec(r, 3),), "works", mode="custom",
     check=_check_module_attribute_rebound, name="global_array_rebound")


def _check_global_array_mutated(fn, args):
    out = [(astjax.grad(fn)(*args), fd_grad(fn, args, 0)[0], "original")]
    _MUTATED_VECTOR[0] = 10.0
    try:
        out.append((astjax.grad(fn)(*args), fd_grad(fn, args, 0)[0], "after writing into the global array"))
    finally:
        _MUTATED_VECTOR[0] = 1.0
    return out


_MUTATED_VECTOR = np.array([1.0, 2.0, 3.0])


def global_array_user(x):
    return jnp.sum(_MUTATED_VECTOR * x ** 2)


case(global_array_user, lambda r: (vec(r, 3),), "works", mode="custom", check=_check_global_array_mutated,
     name="global_array_mutated_in_place")


_namespace = {"jnp": jnp}
exec("def made_by_exec(x):\n    return jnp.sum(x ** 3)\n", _namespace)
case(_namespace["made_by_exec"], lambda r: (vec(r, 3),), "either", name="function_made_by_exec",
     errors=(astjax.errors.SourceUnavailableError,), error_match="(?i)source",
     note="no source file: refusing is the only option besides differentiating the bytecode")


multi_line_lambda = (lambda x:
                     jnp.sum(x ** 2)
                     * 3.0)
case(multi_line_lambda, lambda r: (vec(r, 3),), "works", name="lambda_over_several_lines")


def doubled_star_args(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) * 2.0
    return wrapper


@doubled_star_args
def decorated_star_args_wrapper(x):
    return jnp.sum(jnp.sin(x))


case(decorated_star_args_wrapper, lambda r: (vec(r, 3),), "works")


_REGISTRY = {}


def register_and_replace(fn):
    _REGISTRY[fn.__name__] = fn
    return lambda x: fn(x) + jnp.sum(x)


@register_and_replace
def decorator_returns_lambda(x):
    return jnp.sum(x ** 2)


case(decorator_returns_lambda, lambda r: (vec(r, 3),), "works", name="decorator_returning_a_lambda")


LOSSES = {"l2": lambda x: jnp.sum(x ** 2), "l4": lambda x: jnp.sum(x ** 4)}
case(LOSSES["l4"], lambda r: (vec(r, 3),), "works", name="second_lambda_in_a_dict_on_one_line")


SCALED = []
for _k in (1.0, 5.0):
    SCALED.append(lambda x, k=_k: jnp.sum(jnp.sin(x) * k))
case(SCALED[1], lambda r: (vec(r, 3),), "works", name="lambda_made_in_a_module_loop_default_5")


def renamed_function(x):
    return jnp.sum(jnp.cos(x) * 4.0)


renamed_function.__name__ = "triple_lambda"
renamed_function.__qualname__ = "triple_lambda"
case(renamed_function, lambda r: (vec(r, 3),), "works", name="function_with_changed_name")


def _external_forward(self, x):
    return jnp.sum(x * self.k)


class AssignedMethod:
    k = 3.0
    forward = _external_forward


case(AssignedMethod().forward, lambda r: (vec(r, 3),), "works", name="method_assigned_in_class_body")
