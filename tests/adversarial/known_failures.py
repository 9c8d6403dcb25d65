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
    # --- 6/7. calls and values passed through containers into helpers
    # --- functions as values: arguments, partials, methods, closures from factories, map
    "attacks18.helper_as_a_method": "WRONG: a user method testing type(v) on a value no tangent goes into runs as "
                                    "written on an astjax Array (primal_calls.py redirects functions, not methods)",
    # --- *args, keyword-only, **kwargs, star-unpacking
    # --- lambdas and local functions
    # --- 4. scoping
    # --- 3. the wrong function is differentiated (identity, defaults, globals frozen in caches)
    # --- 2. values dropped: calls not understood treated as constants
    # --- list methods deleted as dead code or mishandled (effects not declared)
    # --- comprehensions, dicts, tuple loop targets
    # --- 5. NumPy mutation semantics (aliases and views): wrong values, neither followed nor refused
    # --- 8. impure callees
    # --- 9. rules wrong in some uses, rules missing
    "realistic.where_unguarded_sqrt": "NAN (as JAX gives): sqrt's infinite slope at 0 times a zero inner derivative; "
                                      "truth 1.0 (finite differences). Decide: follow JAX or give 0 * inf = 0",
    # --- API compositions
    # --- names that clash with generated ones
    "names.user_push_pop": "REFUSED: user functions named push/pop taken for effects (`push(s, v)` mutates s)",
    # --- syntax
    # --- dtypes
    # --- builtins over lists (semantics.py)
    # --- attacks.py (the attacker's corpus): ordinary code refused, crashes and unclear refusals
    "attacks.list_of_lists_augmented": "REFUSED: `a[0][1] += e` on a list of lists of scalars",
    "attacks.dict_accumulate": "REFUSED: `d['b'] *= v` on a dict of Python floats",
    "attacks.setitem_2d_fancy_pairs": "REFUSED: B[[0, 2], [1, 1]] = v taken for a repeated position (the pairs differ)",
    # --- compositions.py: transformations composed over real programs (jit/hessian/vmap batteries)
    'compositions.rk4_ode_jit': 'SLOW: over the 20 s limit on 2 loaded cores: Numba compiling jit(value_and_grad) and grad(jit) (docs/performance.md, "Build time": the generated function and the fallback branches of its fused loops)',
    'compositions.rk4_ode_hess': 'SLOW: over the 20 s limit on 2 loaded cores: the battery generates hessian, jacfwd(grad), jacrev(grad), jvp(grad) of a 10-step RK4 (2.5x faster since the build-time fixes: 63 s against 157 s, both at load 16; 19.5 s at load 10, at the limit)',
    'compositions.layer_norm_rows_jit': 'SLOW: over the 20 s limit on 2 loaded cores: Numba compiling jit(value_and_grad) and grad(jit) (docs/performance.md, "Build time": the generated function and the fallback branches of its fused loops)',
    'compositions.rnn_python_loop_jit': 'SLOW: over the 20 s limit on 2 loaded cores: Numba compiling jit(value_and_grad) and grad(jit) (docs/performance.md, "Build time": the generated function and the fallback branches of its fused loops)',
    'compositions.pairwise_energy_loops_jit': 'SLOW: over the 20 s limit on 2 loaded cores: Numba compiling jit(value_and_grad) and grad(jit) (docs/performance.md, "Build time": the generated function and the fallback branches of its fused loops)',
    'compositions.cond_branches_jit': 'SLOW: over the 20 s limit on 2 loaded cores: Numba compiling jit(value_and_grad) and grad(jit) (docs/performance.md, "Build time": the generated function and the fallback branches of its fused loops)',
    'compositions.softmax_xent_labels_jit': 'SLOW: over the 20 s limit on 2 loaded cores: Numba compiling jit(value_and_grad) and grad(jit) (docs/performance.md, "Build time": the generated function and the fallback branches of its fused loops)',
    'compositions.where_piecewise_jit': 'SLOW: over the 20 s limit on 2 loaded cores: Numba compiling jit(value_and_grad) and grad(jit) (docs/performance.md, "Build time": the generated function and the fallback branches of its fused loops)',
    'compositions.huber_loss_jit': 'SLOW: over the 20 s limit on 2 loaded cores: Numba compiling jit(value_and_grad) and grad(jit) (docs/performance.md, "Build time": the generated function and the fallback branches of its fused loops)',
    # --- edges.py (NumPy and Python at their edges): ordinary code refused clearly
    'edges.column_swap_with_copy': 'REFUSED (conservative): a[:, 0], a[:, 1] = a[:, 1], a[:, 0].copy() refused as a swap of views though the second value is a copy',
    'edges.column_swap_with_copy_hess': 'REFUSED (conservative): a[:, 0], a[:, 1] = a[:, 1], a[:, 0].copy() refused as a swap of views though the second value is a copy',
    'edges.none_default_list_idiom': 'REFUSED: a helper appending to a list passed in (`acc=None` idiom) and returning it',
    'edges.none_default_list_idiom_hess': 'REFUSED: a helper appending to a list passed in (`acc=None` idiom) and returning it',
    'edges.try_except_index_error': 'REFUSED: try/except IndexError',
    'edges.try_except_index_error_hess': 'REFUSED: try/except IndexError',
    'edges.try_else_runs_without_error': 'REFUSED: try/except/else/finally',
    'edges.try_else_runs_without_error_hess': 'REFUSED: try/except/else/finally',
    'edges.curried_lambdas': 'REFUSED: a factory returning nested lambdas',
    'edges.curried_lambdas_hess': 'REFUSED: a factory returning nested lambdas',
    'edges.ones_bool_dtype_positional': 'REFUSED (conservative): a bool written into a bool array (np.ones(3, bool)) is taken for a truncating write into an integer array',
    'edges.ones_bool_dtype_positional_hess': 'REFUSED (conservative): a bool written into a bool array is taken for a truncating write',
    'edges.int_list_array_iadd_float': 'REFUSED (conservative): `a[0] += 0.7` on an int array of constants (truncation of a constant needs no derivative)',
    'edges.int_list_array_iadd_float_hess': 'REFUSED (conservative): `a[0] += 0.7` on an int array of constants',
    'edges.einsum_ellipsis_and_diag_hess': "REFUSED (documented): a second derivative of einsum with `...`; jacrev(grad(f)) refuses naming only generated code (AttributeError: 'NoneType' object has no attribute '_fields')",
}
