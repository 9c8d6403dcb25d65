"""What every pass over one function needs: its origin, name resolution, fresh names."""
from ..codegen.namespace import RESERVED
from ..codegen.naming import Namer, names_in
from ..errors import TransformError
from .resolve import Resolver

__all__ = ["FunctionContext"]


class FunctionContext:
    """The user's function being transformed: source, resolver, namer, error reporting."""

    def __init__(self, source):
        self.source = source
        self.resolver = Resolver(source.fn, source.node)
        self.namer = Namer(names_in(source.node) | set(self.resolver.closure) | RESERVED,
                           on_new=self.resolver.locals.add)
        self.renamed_free = {}     # a free name clashing with a reserved one -> its name in generated code
        self.renamed_params = {}   # a parameter clashing with a reserved name -> its name in generated code

    def error(self, message, node=None, hint=None):
        return TransformError(message, node=node, origin=self.source, hint=hint)

    def line_text(self, node):
        lineno = getattr(node, "lineno", None)
        return self.source.line_text(lineno) if lineno else ""
