"""Reverse mode over loops must re-run exactly the iterations the primal ran.

Each case is checked three ways: the value against the original function, the
gradient against central finite differences in float64, and forward mode
(jvp along each basis vector) against reverse mode.
"""
import inspect

import numpy as np
import pytest

import astjax
import astjax.numpy as jnp

import reverse_sweep_cases as cases

X = np.array([1.0, 2.0, 3.0, 4.0, 0.5, 0.7, 0.2, 0.9])
COUNTS = np.array([2, 0, 3])

REFUSED = {"callee_draws_random_numbers", "callee_changes_a_global_list", "callee_appends_to_its_argument",
           "callee_assigns_into_a_global", "decorated_local_function",
           "falls_off_the_end", "complex_output",
           "iterate_array_while_changing_it", "iterate_list_while_appending"}
CASES = [(name, fn) for name, fn in vars(cases).items() if inspect.isfunction(fn) and not name.startswith("_")
         and fn.__module__ == cases.__name__ and name not in REFUSED]


def _args(fn):
    return (X.copy(), COUNTS) if fn is cases.bound_from_data else (X.copy(),)


def _with_fixed_counts(x):
    return cases.bound_from_data(x, COUNTS)


def _finite_differences(fn, args, eps=1e-6):
    x = args[0]
    grad = np.zeros_like(x)
    for k in range(x.size):
        step = np.zeros_like(x)
        step[k] = eps
        grad[k] = (fn(x + step, *args[1:]) - fn(x - step, *args[1:])) / (2 * eps)
    return grad


@pytest.mark.parametrize("name, fn", CASES, ids=[n for n, _ in CASES])
def test_value_and_gradient(name, fn):
    args = _args(fn)
    value, grad = astjax.value_and_grad(fn)(*args)
    np.testing.assert_allclose(value, fn(*_args(fn)), rtol=1e-12)
    np.testing.assert_allclose(grad, _finite_differences(fn, _args(fn)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name, fn", CASES, ids=[n for n, _ in CASES])
def test_forward_agrees_with_reverse(name, fn):
    args = _args(fn)
    grad = np.asarray(astjax.grad(fn)(*args))
    for k in range(X.size):
        direction = np.zeros_like(X)
        direction[k] = 1.0
        _, tangent = astjax.jvp(_with_fixed_counts if len(args) > 1 else fn, (X.copy(),), (direction,))
        np.testing.assert_allclose(tangent, grad[k], rtol=1e-9, atol=1e-12)


def test_while_loop_counter_is_kept_per_outer_iteration():
    text = astjax.source(astjax.grad(cases.while_inside_for))
    assert "push(" in text and "_n" in text


def _mlp_over_parameter_list(params, x):
    h = x
    for W, b in params:
        h = jnp.tanh(h @ W + b)
    return jnp.sum(h ** 2)


def test_gradient_with_respect_to_a_list_of_layer_tuples():
    params = [(W.copy(), b.copy()) for W, b in cases._LAYERS]
    grads = astjax.grad(_mlp_over_parameter_list)(params, X.copy())
    for layer in range(3):
        for part in range(2):
            def along(v, layer=layer, part=part):
                changed = [list(p) for p in params]
                changed[layer][part] = v.reshape(params[layer][part].shape)
                return _mlp_over_parameter_list([tuple(p) for p in changed], X.copy())
            expected = _finite_differences(along, (params[layer][part].ravel().copy(),))
            np.testing.assert_allclose(np.asarray(grads[layer][part]).ravel(), expected, rtol=1e-6, atol=1e-7)


def test_a_callee_that_draws_random_numbers_is_refused():
    """Its derivative would re-run it and draw other numbers: the gradient of another sample."""
    with pytest.raises(astjax.errors.TransformError) as info:
        astjax.grad(cases.callee_draws_random_numbers)(X.copy())
    message = str(info.value)
    assert "reverse_sweep_cases.py" in message and "random" in message and "_indirectly_noisy" in message


@pytest.mark.parametrize("fn, line", [(cases.iterate_array_while_changing_it, "y[1] = 5.0"),
                                      (cases.iterate_list_while_appending, "xs.append(v * 2.0)")])
def test_a_sequence_changed_in_place_while_iterated_is_refused(fn, line):
    """Python iterates lists and arrays live; astjax refuses rather than iterate a snapshot."""
    with pytest.raises(astjax.errors.TransformError) as info:
        astjax.grad(fn)(X.copy())
    assert line in str(info.value) and "in place" in str(info.value)


@pytest.mark.parametrize("fn, words", [(cases.callee_changes_a_global_list, "changes `_CALLS` in place"),
                                       (cases.callee_appends_to_its_argument, "`_append_to`"),
                                       (cases.callee_assigns_into_a_global, "assigns into `_STATE`")])
def test_a_callee_that_changes_outside_state_is_refused(fn, words):
    """Re-running it in the reverse sweep would change the state again (and it may read the change)."""
    with pytest.raises(astjax.errors.TransformError) as info:
        astjax.grad(fn)(X.copy())
    assert words in str(info.value) and "reverse_sweep_cases.py" in str(info.value)


@pytest.mark.parametrize("fn, line, words", [
    (cases.decorated_local_function, "@twice", "has a decorator"),
])
def test_constructs_the_rules_would_get_wrong_are_refused_at_their_line(fn, line, words):
    """`+` / `*` on tuples would be differentiated as sums and products; a local decorator would be skipped."""
    with pytest.raises(astjax.errors.TransformError) as info:
        astjax.grad(fn)(X.copy())
    assert line in str(info.value) and words in str(info.value)


@pytest.mark.parametrize("fn, words", [(cases.falls_off_the_end, "Output was None"),
                                       (cases.complex_output, "complex numbers")])
def test_outputs_grad_cannot_differentiate_raise_type_error(fn, words):
    with pytest.raises((TypeError, astjax.errors.AstjaxError), match=words):
        astjax.grad(fn)(X.copy())
