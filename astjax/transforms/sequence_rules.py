"""Rules for one element of a list operand (`jnp.stack([a, b])`), shared by both modes."""

import gast

__all__ = ["sequence_rule"]


def sequence_rule(prim, mode, app, k, context, stmt):
    """The rule for element k of a list operand: the primitive's own, or one built from a static argument."""
    builders = getattr(prim, "sequence_rule_builders", None)
    if builders is None:
        return getattr(prim, "sequence_vjp", None)
    static = app.bound.get(builders["static"])
    count = len(app.bound[prim.sequence_operand].elts)
    text = builders[mode](static.value, k, count) if isinstance(static, gast.Constant) else None
    if text is None:
        message, hint = builders["unsupported"]
        raise context.error(message, stmt, hint=hint)
    from ..rules.registry import parse_expression
    return parse_expression(text)
