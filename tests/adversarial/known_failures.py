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
    "realistic.winsorized_mean": "REFUSED: np.clip with bounds that depend on the input (JAX differentiates them)",
    "realistic.maximum_accumulate_drawdown": "REFUSED: np.maximum.accumulate (running maximum) has no derivative rule",
    # --- API compositions
    # --- names that clash with generated ones
    "names.user_push_pop": "REFUSED: user functions named push/pop taken for effects (`push(s, v)` mutates s)",
    # --- syntax
    # --- dtypes
    # --- refused by the aliasing pass: two items of one parameter (a, b = x[0], x[1]) may be one array
#     (x may be a list holding an array twice), so `a += b` is refused while b is read; clear errors
    "scoping.augmented_on_unpacked": "REFUSED (aliasing, conservative): a, b = x[0], x[1]; a += b (x[0], x[1] may share memory)",
    # --- builtins over lists (semantics.py)
    "semantics.builtin_sum_with_start": "REFUSED: sum(gen, start) with a traced start",
    "semantics.builtin_divmod_scalar": "REFUSED: builtin divmod(a, b) of a traced scalar",
    # --- attacks.py (the attacker's corpus): ordinary code refused, crashes and unclear refusals
    "attacks.walrus_in_while_condition": "REFUSED: walrus `:=` in a while condition",
    "attacks.walrus_in_comprehension_filter": "REFUSED: walrus `:=` in a comprehension's filter",
    "attacks.walrus_binding_leaks_from_comprehension": "REFUSED: walrus `:=` in a comprehension (binding read after it)",
    "attacks.del_then_rebind": "REFUSED: `del y` then y rebound",
    "attacks.star_unpack_middle": "REFUSED (runtime): `first, *mid, last = x` of an array",
    "attacks.enumerate_weights_reversed": "REFUSED (runtime): enumerate(reversed(list(x)))",
    "attacks.list_of_lists_augmented": "REFUSED: `a[0][1] += e` on a list of lists of scalars",
    "attacks.dict_accumulate": "REFUSED: `d['b'] *= v` on a dict of Python floats",
    "attacks.list_extend_and_reverse": "REFUSED: list.extend / list.reverse",
    "attacks.for_else_breaks": "REFUSED: for/else with a data-dependent break",
    "attacks.for_else_runs_else": "REFUSED: for/else with a data-dependent break",
    "attacks.einsum_broadcast_ellipsis": "REFUSED: einsum with `...` subscripts",
    "attacks.custom_jvp_under_hessian_hessian": "UNCLEAR REFUSAL: hessian through a custom_jvp names generated code, not the user's line",
    "api_fill.beta_cdf_shape_from_x": "UNCLEAR REFUSAL: betainc's shape refused inside astjax.scipy.stats.beta, naming that module's line, not the user's call",
    "api_fill.defjvps_curvature": "UNCLEAR REFUSAL: hessian through a custom_jvp (defjvps) names generated code, not the user's line",
    "attacks.switch_clamped_index": "REFUSED: lax.switch with the branch list held in a variable",
    "attacks.take_modes": "REFUSED: jnp.take(..., mode='wrap'/'clip') has no derivative rule",
    "attacks.pad_edge_and_constant_values": "REFUSED: jnp.pad with mode='edge' or a traced constant_values",
    "attacks.mutate_global_array": "REFUSED: `_W.copy()` of a global array then written into ('no rule for ndarray.copy')",
    "attacks.setitem_2d_fancy_pairs": "REFUSED: B[[0, 2], [1, 1]] = v taken for a repeated position (the pairs differ)",
}
