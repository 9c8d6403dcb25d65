"""`import astjax` does not import SciPy (it costs ~0.4 s); SciPy's functions in user code still resolve to
astjax's primitives, through the registry's lazy aliases, in a fresh process."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _run(code, tmp_path):
    script = tmp_path / "program.py"      # a file: astjax reads the user's source
    script.write_text(textwrap.dedent(code))
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          env={"PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
                               "PATH": "/usr/bin:/bin"}, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_import_astjax_imports_no_scipy_and_scipy_calls_still_use_the_rules(tmp_path):
    out = _run("""
        import sys
        import numpy as np
        import astjax
        import astjax.numpy as jnp
        from astjax.rules import lookup_callable

        def f(x):
            return jnp.sum(jnp.sin(x) * jnp.exp(x))

        print(float(astjax.grad(f)(np.ones(3))[0]))        # a transformation does not import it either
        print(sorted(m for m in sys.modules if m == "scipy" or m.startswith("scipy.")))

        import scipy.special
        import scipy.linalg

        def g(x):
            return jnp.sum(scipy.special.gammaln(x)) + jnp.sum(scipy.linalg.expm(jnp.outer(x, x) * 0.1))

        x = np.array([0.7, 1.3, 2.9])
        print(" ".join(repr(float(v)) for v in astjax.grad(g)(x)))
        print(lookup_callable(scipy.special.gammaln).name, lookup_callable(scipy.linalg.expm).name)
        """, tmp_path)
    value, modules, grads, names = out.strip().splitlines()
    assert modules == "[]"
    assert np.isclose(float(value), np.exp(1.0) * (np.cos(1.0) + np.sin(1.0)))
    assert names == "gammaln expm"              # resolved to the primitives: differentiated by their rules
    import scipy.linalg
    import scipy.special
    x = np.array([0.7, 1.3, 2.9])

    def g(v):
        return np.sum(scipy.special.gammaln(v)) + np.sum(scipy.linalg.expm(np.outer(v, v) * 0.1))
    h = 1e-6
    numeric = [(g(x + h * e) - g(x - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose([float(d) for d in grads.split()], numeric, rtol=1e-6)


def test_every_lazy_alias_resolves():
    """Each dotted-path alias names a real SciPy function, and none is lost once resolved."""
    import importlib

    from astjax.rules import registry
    for module_name, pending in list(registry._LAZY.items()):
        module = importlib.import_module(module_name)
        for attribute, _, prim in pending:
            assert callable(getattr(module, attribute, None)), f"{module_name}.{attribute} ({prim.name})"
    registry.resolve_lazy_aliases(registry.lazy_alias_modules())
    assert registry.lazy_alias_modules() == []
    import scipy.special
    for name in ("gammaln", "logsumexp", "xlogy", "ndtri", "softmax", "zeta", "gammasgn"):
        prim = registry.lookup_callable(getattr(scipy.special, name))
        assert prim is not None and prim.impl.__module__ == "astjax.scipy.special", name


def test_every_rule_template_parses():
    """Rule templates are parsed on first use (not at import): parse them all, so a malformed one fails here."""
    from astjax.rules import all_primitives
    for prim in all_primitives():
        for operand, node in list(prim.vjp.items()) + list(prim.jvp.items()):
            assert operand in prim.operands and node is not None, prim


def test_astjax_imports_and_differentiates_vstack_under_a_numpy_without_row_stack(tmp_path):
    """NumPy 2.5 removed np.row_stack: astjax must still import there (its vstack rule aliased it)."""
    out = _run("""
        import numpy as np
        if hasattr(np, "row_stack"):
            del np.row_stack                     # as NumPy 2.5 ships
        import astjax
        import astjax.numpy as jnp

        def f(x):
            return jnp.sum(jnp.vstack([x, 2.0 * x]) ** 2)

        print(float(astjax.grad(f)(np.ones(2))[0]))
        """, tmp_path)
    assert abs(float(out.split()[-1]) - 10.0) < 1e-12
