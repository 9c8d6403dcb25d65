"""Every name generated code calls besides the user's own functions and values.

`from astjax.generated import *` above a printed derivative (astjax.source) makes it runnable as
it stands, once the user's own functions it calls (`sigmoid`, `vjp_sigmoid`) are defined too.
"""
from .codegen.namespace import GENERATED_NAMESPACE

globals().update(GENERATED_NAMESPACE)
__all__ = sorted(GENERATED_NAMESPACE)
