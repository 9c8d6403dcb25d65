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
    # --- refused by the aliasing pass: two items of one parameter (a, b = x[0], x[1]) may be one array
#     (x may be a list holding an array twice), so `a += b` is refused while b is read; clear errors
    "scoping.augmented_on_unpacked": "REFUSED (aliasing, conservative): a, b = x[0], x[1]; a += b (x[0], x[1] may share memory)",
    # --- builtins over lists (semantics.py)
    # --- attacks.py (the attacker's corpus): ordinary code refused, crashes and unclear refusals
    "attacks.walrus_in_comprehension_filter": "REFUSED: walrus `:=` in a comprehension's filter",
    "attacks.walrus_binding_leaks_from_comprehension": "REFUSED: walrus `:=` in a comprehension (binding read after it)",
    "attacks.list_of_lists_augmented": "REFUSED: `a[0][1] += e` on a list of lists of scalars",
    "attacks.dict_accumulate": "REFUSED: `d['b'] *= v` on a dict of Python floats",
    "attacks.list_extend_and_reverse": "REFUSED: list.extend / list.reverse",
    "attacks.setitem_2d_fancy_pairs": "REFUSED: B[[0, 2], [1, 1]] = v taken for a repeated position (the pairs differ)",
    # --- compositions.py: transformations composed over real programs (jit/hessian/vmap batteries)
    'compositions.rk4_ode_jit': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.rk4_ode_hess': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.rk4_ode_vmap': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.layer_norm_rows_jit': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.rnn_python_loop_jit': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.pairwise_energy_loops_jit': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.cond_branches_jit': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.softmax_xent_labels_jit': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.where_piecewise_jit': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
    'compositions.huber_loss_jit': 'SLOW: over the 20 s limit on 2 loaded cores (Numba compile of jit(value_and_grad), or the transform itself: grad of the 10-step RK4 takes 5 s, its hessian 11 s)',
}
