"""The CUDA lowerings of the elementwise primitives: one element's expression inside a GPU kernel.

Each `deflowering(prim, cuda=CudaForm(...))` says how one element of the primitive is computed
in a `@cuda.jit` kernel written by astjax/jit/lower/cuda_kernels.py: a template over the
operand elements `a`, `b`, `c`, where `T(1)` is a constant of the computation's dtype
(`float32(1)`: a bare `1.0` would make Numba compute in float64). The math functions are
CUDA's own (`math.exp` is `expf` for float32). A primitive without a "cuda" lowering makes
`jit(f, backend="gpu")` refuse its line. Nothing here imports Numba.
"""
from .registry import PRIMITIVES, deflowering

__all__ = ["CudaForm", "CUDA_FORMS"]


class CudaForm:
    """One element of a primitive in a CUDA kernel: `template` over the operands a, b, c."""

    def __init__(self, template, arity):
        self.template, self.arity = template, arity

    def element(self, operands, dtype):
        """The kernel text of one element, the operands' texts put in (each parenthesized)."""
        import re
        if len(operands) != self.arity:
            raise ValueError(f"{self.template} takes {self.arity} operands, got {len(operands)}")
        text = self.template.replace("T(", f"{dtype}(")
        return "(" + re.sub(r"(?<![A-Za-z_.0-9])([abc])(?![A-Za-z_(0-9])",
                            lambda m: f"({operands['abc'.index(m.group(1))]})", text) + ")"

    def __repr__(self):
        return f"CudaForm({self.template!r})"


CUDA_FORMS = {
    # arithmetic (the operators + - * / ** and unary minus are these primitives)
    "add": ("a + b", 2), "subtract": ("a - b", 2), "multiply": ("a * b", 2), "divide": ("a / b", 2),
    "power": ("a ** b", 2), "negative": ("-a", 1), "positive": ("a", 1), "square": ("a * a", 1),
    "reciprocal": ("T(1) / a", 1), "abs": ("math.fabs(a)", 1), "fabs": ("math.fabs(a)", 1),
    "sqrt": ("math.sqrt(a)", 1),
    # NaN propagates, as in NumPy's maximum and minimum
    "maximum": ("a if (a >= b or a != a) else b", 2), "minimum": ("a if (a <= b or a != a) else b", 2),
    # exp and logs
    "exp": ("math.exp(a)", 1), "expm1": ("math.expm1(a)", 1), "log": ("math.log(a)", 1),
    "log1p": ("math.log1p(a)", 1), "log2": ("math.log2(a)", 1), "log10": ("math.log10(a)", 1),
    # trigonometry
    "sin": ("math.sin(a)", 1), "cos": ("math.cos(a)", 1), "tan": ("math.tan(a)", 1),
    "arcsin": ("math.asin(a)", 1), "arccos": ("math.acos(a)", 1), "arctan": ("math.atan(a)", 1),
    "arctan2": ("math.atan2(a, b)", 2), "sinh": ("math.sinh(a)", 1), "cosh": ("math.cosh(a)", 1),
    "tanh": ("math.tanh(a)", 1), "arcsinh": ("math.asinh(a)", 1), "arccosh": ("math.acosh(a)", 1),
    "arctanh": ("math.atanh(a)", 1), "hypot": ("math.hypot(a, b)", 2),
    # special functions (log_expit and logaddexp as NumPy writes them: no overflow, infinities kept)
    "expit": ("T(1) / (T(1) + math.exp(-a))", 1), "erf": ("math.erf(a)", 1), "erfc": ("math.erfc(a)", 1),
    "ndtr": ("T(0.5) * math.erfc(-a * T(0.7071067811865476))", 1),
    "log_expit": ("-((-a if a < T(0) else T(0)) + math.log1p(math.exp(-math.fabs(a))))", 1),
    "logaddexp": ("a + T(0.6931471805599453) if a == b else (a if a > b else b) + "
                  "math.log1p(math.exp(-math.fabs(a - b)))", 2),
    # tests of a float (a boolean element)
    "isnan": ("a != a", 1), "isinf": ("math.isinf(a)", 1), "isfinite": ("math.isfinite(a)", 1),
    # selection and comparisons (a boolean element)
    "where": ("b if a else c", 3),
    "greater": ("a > b", 2), "greater_equal": ("a >= b", 2), "less": ("a < b", 2), "less_equal": ("a <= b", 2),
    "equal": ("a == b", 2), "not_equal": ("a != b", 2),
}

for _name, (_template, _arity) in CUDA_FORMS.items():
    if _name in PRIMITIVES:
        deflowering(PRIMITIVES[_name], cuda=CudaForm(_template, _arity))
