"""The check normalization puts on each step's ys item of a lax.scan whose ys is bound to one name."""

__all__ = ["scan_step_output"]


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
