"""Adversarial cases that fail today, each with a one-line reason (the fixers' work list).

Grouped by mechanism. "WRONG" marks a silently wrong number (the worst outcome);
"CRASH" a non-astjax exception from generated code or the runtime; "REFUSED" a
clear refusal of ordinary code that must work; "HANG" a loop that never ends.
A fix turns the case into an XPASS (the xfail is strict): then delete its entry.
Run `python tests/adversarial/triage.py NAME` to see the current failure.
"""
KNOWN_FAILURES = {
    # --- 1. loop headers read after they changed (bounds, trip counts, break positions are not taped)
    "loops.bound_from_round_of_data": "REFUSED (jvp): n = int(m[0]) read from a non-differentiated argument",
    "containers.append_then_pop_in_loop": "REFUSED: append and pop in the same loop body",
    "containers.append_in_dependent_loop_then_pop": "REFUSED: append in a loop, one pop after it",
    "containers.iterate_growing_list_in_inner_loop": "REFUSED: acc.pop() after iterating a list that grows in the outer loop",
    # --- 6/7. calls and values passed through containers into helpers
    "calls.dict_into_helper": "REFUSED: dict literal passed to a helper",
    # --- functions as values: arguments, partials, methods, closures from factories, map
    "calls.function_as_argument": "REFUSED: jnp.tanh passed as an argument to a user function",
    "calls.nonlinearity_keyword": "REFUSED: nonlinearity=np.sin keyword argument",
    "calls.user_function_as_argument": "REFUSED: user function passed as an argument",
    "calls.partial_object": "REFUSED: functools.partial object called",
    "calls.partial_passed_as_argument": "REFUSED: functools.partial passed as an argument",
    "calls.method_on_loop_variable": "REFUSED: layer.forward(h) on a loop variable",
    "calls.method_calling_other_method": "REFUSED: self.forward(...) inside a method",
    "calls.closure_factory": "REFUSED: calling a closure returned by a factory",
    "calls.closure_over_traced_factory": "REFUSED: calling a closure over a traced value returned by a factory",
    "calls.builtin_map_over_helper": "REFUSED: map(user_fn, list)",
    "containers.map_builtin": "REFUSED: map(jnp.sin, list)",
    "calls.callable_object_inside_loss": "REFUSED: an object with __call__ called inside the loss",
    "calls.method_with_loop_over_attribute": "REFUSED: arrays stored in an object's attribute list (Model([w0, w1]).loss(x))",
    "calls.composed_functions": "REFUSED: a lambda returned by a helper (function composition)",
    "calls.higher_order_helper_in_loop": "REFUSED: jnp.tanh passed to a helper that applies it in a loop",
    # --- *args, keyword-only, **kwargs, star-unpacking
    "calls.star_args_callee": "REFUSED: callee with *vals",
    "calls.star_args_unpacked_call": "REFUSED: f(*parts)",
    "calls.keyword_only_args": "REFUSED: keyword-only parameters",
    "calls.double_star_kwargs": "REFUSED: **kw parameters",
    "containers.zip_star_pairs": "REFUSED: zip(*pairs)",
    "scoping.star_unpack_list": "REFUSED: first, *rest = [...]",
    # --- lambdas and local functions
    "calls.lambda_in_loop": "REFUSED: lambda defined inside a loop",
    "containers.map_lambda": "REFUSED: map(lambda ...)",
    "identity.lambda_calling_inline_lambda": "REFUSED: (lambda y: ...)(x) inside a lambda",
    "scoping.lambda_rebound_in_branch": "REFUSED: lambda rebound inside an if",
    "scoping.conditional_expression_lambda": "REFUSED: (lambda ...) if c else (lambda ...)",
    "scoping.nested_function_reads_loop_variable": "REFUSED: def inside a loop body",
    "library.tree_map_in_loss": "REFUSED: tree_util.tree_map(lambda ...) in a loss",
    # --- 4. scoping
    # --- 3. the wrong function is differentiated (identity, defaults, globals frozen in caches)
    "identity.decorated_star_args_wrapper": "REFUSED: functools.wraps wrapper with (*args, **kwargs)",
    # --- 2. values dropped: calls not understood treated as constants
    # --- list methods deleted as dead code or mishandled (effects not declared)
    "loops.while_pop_until_empty": "REFUSED: v = stack.pop() in `while len(stack) > 0`",
    "containers.list_extend_with_generator": "REFUSED: xs.extend(generator expression)",
    "containers.list_pop": "REFUSED: last = xs.pop()",
    "containers.list_pop_front": "REFUSED: first = xs.pop(0)",
    "containers.list_extend": "REFUSED: xs.extend([...]) (hint: build a new list)",
    "containers.list_insert": "REFUSED: xs.insert(1, v)",
    "containers.list_pop_while": "REFUSED: `while stack: stack.pop()`",
    "containers.list_slice_and_concat": "REFUSED: + on slices of a list (concatenation)",
    "containers.list_multiply_repeat": "REFUSED: + / * on a tuple or list (concatenation, repetition) is refused",
    "containers.tuple_concat": "REFUSED: + / * on a tuple or list (concatenation, repetition) is refused",
    "containers.list_copy_then_mutate": "REFUSED: list(xs)",
    "containers.list_of_lists_update": "REFUSED: grid[1][0] = ... nested list assignment",
    "misc.soft_dtw": "REFUSED: R[i][j] = ... on a list of lists (dynamic programming table)",
    "misc.bubble_sort_network": "REFUSED: v[j], v[j + 1] = v[j + 1], v[j] swap on a list",
    # --- comprehensions, dicts, tuple loop targets
    "containers.dict_get_with_default": "REFUSED: params.get('w') / params.get('b', 0.5)",
    "containers.dict_keys_loop_sorted": "REFUSED: for k in sorted(params)",
    "containers.dict_literal_loss": "REFUSED: dict literal in a loss",
    "containers.dict_item_update": "REFUSED: dict(params) then p['w'] = ...",
    "containers.dict_items_loop": "REFUSED: for k, v in params.items()",
    "containers.dict_comprehension": "REFUSED: dict comprehension",
    # --- 5. NumPy mutation semantics (aliases and views): wrong values, neither followed nor refused
    # --- 8. impure callees
    # --- 9. rules wrong in some uses, rules missing
    # --- API compositions
    # --- names that clash with generated ones
    "names.user_push_pop": "REFUSED: user functions named push/pop taken for effects (`push(s, v)` mutates s)",
    # --- syntax
    # --- dtypes
    # --- refused by the aliasing pass: two items of one parameter (a, b = x[0], x[1]) may be one array
#     (x may be a list holding an array twice), so `a += b` is refused while b is read; clear errors
    "scoping.augmented_on_unpacked": "REFUSED (aliasing, conservative): a, b = x[0], x[1]; a += b (x[0], x[1] may share memory)",
}
