"""Views of generated code for people: the derivative printed for the signature a student used.

`astjax.source(grad(f), x)` runs the derivative once on `x`, watching the
shape helpers generated code calls, and prints the source specialized to what
it saw: `unbroadcast(g, x)` between equal shapes is `g`, a matrix product's
adjoint is `g @ x.T`, a shape saved on the tape only for such a helper is
gone. The specialized source is run on the same arguments and must give the
same result as the general one, or the general source is printed instead.
"""
from .explain import Explanation, explain
from .specialize import specialized_source

__all__ = ["specialized_source", "explain", "Explanation"]
