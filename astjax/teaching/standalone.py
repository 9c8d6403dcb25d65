"""Printed derivative source that runs when pasted into a file: `astjax.source(f, standalone=True)`.

The generated functions call three kinds of names besides their own: what every
generated function may call (`unbroadcast`, `push`, `jnp`: imported from
astjax.generated), the user's own functions and modules (imported from where
they live, or their source copied when they live in a script or notebook), and
values bound when the derivative was built (defaults, globals: written as
literals). A value that cannot be written as source is named in a comment at
the top, so nothing is silently left out. Two generated functions that bind one name to different
values (each its own default `_default1`) get one definition each: the second function's reads are
renamed (`_default1_2`).
"""
import builtins
import importlib
import inspect
import re
import textwrap
import types

import gast
import numpy as np

from ..codegen.namespace import GENERATED_NAMESPACE
from ..codegen.unparse import parse_printed
from ..codegen.node_walk import walk

__all__ = ["standalone_source"]


def standalone_source(text, namespaces):
    """`text` (printed generated functions) preceded by what makes it run on its own.

    `namespaces`: {generated function name: the globals it runs with}."""
    module = parse_printed(text)
    functions = {node.name: node for node in module.body if isinstance(node, gast.FunctionDef)}
    defined = set(functions)
    imports, definitions, missing = [], [], []
    done = {}                  # name -> the value written for it
    renamed = False
    work = [(fn, name, namespaces.get(fn)) for fn, name in _free_names(module, defined)]
    while work:
        reader, name, namespace = work.pop(0)
        if name in defined or namespace is None or name not in namespace:
            continue
        value = namespace[name]
        if name in done:
            if _same_value(done[name], value):
                continue
            if reader not in functions:        # two copied user functions disagree: say so, never guess
                missing.append(f"`{name}` (two different values of that name)")
                continue
            fresh = _fresh_name(name, set(done) | defined)
            _rename_reads(functions[reader], name, fresh)     # `loc=_default1` of another function
            renamed, name = True, fresh
        done[name] = value
        if GENERATED_NAMESPACE.get(name, _NOTHING) is value:
            continue
        line = _import_line(name, value)
        if line is not None:
            imports.append(line)
            continue
        literal = _literal(value)
        if literal is not None:
            definitions.append(f"{name} = {literal}")
            continue
        copied = _copied_source(name, value)
        if copied is not None:
            definitions.append(copied)
            function_module = parse_printed(copied)
            work.extend((name, free, value.__globals__) for _, free in _free_names(function_module, {name}))
            continue
        missing.append(f"`{name}` ({type(value).__name__})")
    head = ["from astjax.generated import *"]
    if any(re.search(r"\bnp\.", d) for d in definitions):
        head.append("import numpy as np")
    head += sorted(set(imports) - set(head))
    if missing:
        head.insert(0, "# not standalone: define " + ", ".join(missing) + " before running this code")
    if renamed:
        from ..codegen.unparse import unparse
        text = unparse(module)
    parts = ["\n".join(head)] + definitions + [text.strip()]
    return "\n\n\n".join(part.strip() for part in parts if part.strip()) + "\n"


_NOTHING = object()


def _same_value(a, b):
    """Whether one written definition serves both: the same object, or the same literal."""
    if a is b:
        return True
    literal = _literal(a)
    return literal is not None and literal == _literal(b) and type(a) is type(b)


def _fresh_name(name, taken):
    n = 2
    while f"{name}_{n}" in taken:
        n += 1
    return f"{name}_{n}"


def _rename_reads(function_node, old, new):
    """Every read of the global `old` in `function_node` (its defaults too) reads `new`."""
    for node in walk(function_node):
        if isinstance(node, gast.Name) and node.id == old and isinstance(node.ctx, gast.Load):
            node.id = new


def _free_names(module, defined):
    """(function name, free name) pairs: names each function reads but neither binds nor gets as a builtin."""
    pairs = []
    for node in module.body:
        if not isinstance(node, gast.FunctionDef):
            continue
        bound = {a.id for a in node.args.args + node.args.kwonlyargs}
        bound |= {a.id for a in (node.args.vararg, node.args.kwarg) if a is not None}
        loads = []
        for child in walk(node):
            if isinstance(child, gast.Name):
                if isinstance(child.ctx, (gast.Store, gast.Del)):
                    bound.add(child.id)
                elif child.id not in loads:
                    loads.append(child.id)
            elif isinstance(child, (gast.FunctionDef, gast.ClassDef)) and child is not node:
                bound.add(child.name)
        for name in loads:
            if name not in bound and name not in defined and name != "__comment__" and not hasattr(builtins, name):
                pairs.append((node.name, name))
    return pairs


def _import_line(name, value):
    """`import numpy as np`, `from mypkg.model import sigmoid`, or None where no import reaches `value`."""
    if isinstance(value, types.ModuleType):
        return f"import {value.__name__}" if value.__name__ == name else f"import {value.__name__} as {name}"
    module_name = getattr(value, "__module__", None)
    qualname = getattr(value, "__qualname__", None)
    if not module_name or not qualname or "<" in qualname or "." in qualname or module_name == "__main__":
        return None
    try:
        found = getattr(importlib.import_module(module_name), qualname, None)
    except Exception:          # noqa: BLE001 -- a module that cannot be imported again: copy the source instead
        return None
    if found is not value:
        return None
    return f"from {module_name} import {qualname}" + ("" if qualname == name else f" as {name}")


def _literal(value):
    """Python source for a number, string, None, a tuple of those, or a small array; else None."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, np.generic):
        return f"np.{value.dtype.name}({value.item()!r})"
    if isinstance(value, tuple):
        items = [_literal(v) for v in value]
        return None if None in items else "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if isinstance(value, np.ndarray) and value.size <= 64 and value.dtype.kind in "biuf":
        return f"jnp.asarray(np.array({value.tolist()!r}, dtype=np.{value.dtype.name}))"
    return None


def _copied_source(name, value):
    """The source of a function defined in a script or notebook, renamed to `name` if need be."""
    if not inspect.isfunction(value) or value.__closure__ or value.__name__ == "<lambda>":
        return None
    try:
        source = textwrap.dedent(inspect.getsource(value))
    except (OSError, TypeError):
        return None
    node = parse_printed(source).body[0]
    if not isinstance(node, gast.FunctionDef):
        return None
    code = getattr(value, "__code__", None)
    if code is None or (len(node.args.posonlyargs) + len(node.args.args), len(node.args.kwonlyargs)) != (
            code.co_argcount, code.co_kwonlyargcount):
        return None     # the source found is not this function's (a wrapper: `inspect.getsource` unwraps it)
    node.decorator_list = []
    node.name = name
    from ..codegen.unparse import unparse
    return unparse(node)
