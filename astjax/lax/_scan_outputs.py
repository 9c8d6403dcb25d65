"""The checks normalization puts in the loop of a lax.scan: each step's ys item (when ys is bound to one
name) and each step's carry (its type must stay the initial carry's, as JAX requires)."""

import numpy as np

__all__ = ["scan_step_output", "scan_carry_check"]


def scan_step_output(value):
    """`value` itself, checked to be one array or number: the steps' items are stacked into one array, which
    for a tuple, list or dict of arrays (JAX stacks each leaf) or None would not be JAX's meaning."""
    if value is None or isinstance(value, (tuple, list, dict)):
        from ..errors import RuntimeRefusal
        raise RuntimeRefusal(
            "under a transformation, a lax.scan whose ys is bound to one name stacks one array per step; this "
            "step gave a " + type(value).__name__ + ". Unpack a tuple of ys in the assignment: "
            "`carry, (ys1, ys2) = lax.scan(...)`")
    return value


def scan_carry_check(carry, init):
    """Check, after each step of a lax.scan, that the carry `f` returned has the type of the carry it was
    given, as JAX does when it traces `f`: the same structure, each leaf of the same shape and, unless
    the initial leaf is a Python number (weakly typed: JAX gives it the output's dtype), of the same
    kind of dtype (an int carry that becomes a float, say). JAX refuses a carry whose type changes with
    this TypeError; so does astjax (a change of float width alone passes: see `_kind`)."""
    from ..tree_util import tree_flatten
    outs, out_tree = tree_flatten(carry)
    ins, in_tree = tree_flatten(init)
    if out_tree != in_tree:
        raise TypeError("scan body function carry input and carry output must have the same pytree structure, "
                        f"but they differ:\n\nThe input carry has structure {in_tree} but the output carry has "
                        f"structure {out_tree}.\n\nRevise the function so that the carry output has the same "
                        "pytree structure as the carry input.")
    for k, (out, into) in enumerate(zip(outs, ins)):
        weak = type(into) in (bool, int, float, complex)
        out_shape, in_shape = np.shape(out), np.shape(into)
        out_dtype, in_dtype = np.result_type(out), np.result_type(into)
        if out_shape != in_shape or (not weak and _kind(out_dtype) != _kind(in_dtype)):
            what = "shapes" if out_shape != in_shape else "dtypes"
            where = "" if len(ins) == 1 else f" component {k}"
            raise TypeError(
                "scan body function carry input and carry output must have equal types, but they differ:\n\n"
                f"The input carry{where} has type {_type_text(in_dtype, in_shape)} but the corresponding output "
                f"carry component has type {_type_text(out_dtype, out_shape)}, so the {what} do not match.\n\n"
                "Revise the function so that all output types match the corresponding input types.")


def _kind(dtype):
    """The kind a carry's dtype may not change (bool, integer, float, complex). Its width may: astjax's
    `jnp.zeros(n)` is float32 (JAX's default without x64) and meets float64 data, where JAX would give both
    one width (float32 without x64, float64 with it) and accept the scan."""
    kind = np.dtype(dtype).kind
    return "i" if kind == "u" else kind


def _type_text(dtype, shape):
    """JAX's short text of an abstract value: `float32[3,4]`."""
    return f"{np.dtype(dtype).name}[{','.join(str(n) for n in shape)}]"
