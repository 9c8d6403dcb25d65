"""How long is a printed gradient next to the one a teacher writes? (issue 10's measurement)

    python benchmarks/teaching_length.py [--show NAME]

For each of 25 functions of Tangent's test corpus (`teaching_functions.py`) this prints
`astjax.source(astjax.grad(f, argnums), *example_args)` and counts its code lines (comments and
blank lines left out, `def` lines counted) beside the hand-written derivative in
`teaching_hand.py`, counted the same way. It also counts four things a student should never have
to read past, over all printed functions:

- opaque adjoints: an adjoint of a numbered temporary (`b_t4`) that is not itself printed;
- `= None` placeholders;
- pushes never read: a value pushed on the tape whose pop is never read (or that is never popped), or a
  list of saved values filled and never read back;
- shape helpers on scalar code: `unbroadcast`, `jnp.shape`, ... where every argument is a scalar;

and whether the printed source, run on its own (`standalone=True`), gives grad's number.

The second-order columns (measurement only: there is no hand-written second derivative) count the
code lines of `astjax.source(grad(grad(f)), *example_args)` where the differentiated argument is a
number, and of `astjax.source(hessian(f), *example_args)` where it is an array, the four defects over
that text too (plus self-assignments `x = x` and adjoints of the tape `b_tape`), and whether the
printed second derivative run on its own gives the transformation's own number.
"""
import argparse
import io
import os
import re
import sys
import tokenize

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import astjax  # noqa: E402
import teaching_functions as F  # noqa: E402
import teaching_hand as H  # noqa: E402

__all__ = ["CORPUS", "measure", "table", "code_lines", "defects", "run_standalone", "second_order",
           "printed_second"]

_R = np.random.default_rng(0)


def _f32(*shape):
    return _R.uniform(0.2, 0.9, size=shape).astype(np.float32)


# (function name, example arguments, argnums)
CORPUS = [
    ("saxpy", (1.5, 2.0, 0.5), 0),
    ("overwrite_call", (_f32(3),), 0),
    ("overwrite_if", (1.5,), 0),
    ("nested_if", (1.5,), 0),
    ("multiarg_if", (1.5,), 0),
    ("serial_for", (1.1, 2), 0),
    ("serial_ifthenfor", (0.9, 2), 0),
    ("iterpower", (1.1, 3), 0),
    ("cond_iterpower1", (1.5,), 0),
    ("superfor_iterpower", (1.05,), 0),
    ("super_iterpower", (1.1,), 0),
    ("numpy_exp2", (0.5,), 0),
    ("logistic_regression", (_f32(2, 3), np.array([[1, 0, 1, 0], [0, 1, 1, 0]], np.float32), _f32(3, 4), _f32(4)), 2),
    ("mul_with_call", (1.5, 2.0), 0),
    ("if_mul_with_call", (1.5, 2.0), 0),
    ("iterpower_with_call", (1.1, 3), 0),
    ("nested_call", (1.5, 2.0), 0),
    ("while_big", (3.0,), 0),
    ("active_subscript", (_f32(3),), 0),
    ("slicing", (_f32(4),), 0),
    ("rnn", (_f32(3, 2), _f32(2, 3)), 1),
    ("augassign", (1.5,), 0),
    ("bilinear", (_f32(3), _f32(5), _f32(5, 4), _f32(3, 4), _f32(4)), 0),
    ("gradgrad_chain_of_multcalls", (1.1,), 0),
    ("subscript3", (_f32(3),), 0),
]

SHAPE_HELPERS = ("unbroadcast", "unbroadcast_to", "unreduce", "reduced_size", "zeros_shaped", "zeros_like_value",
                 "jnp.shape", "np.shape", "jnp.full", "jnp.broadcast_to", "sum_to_shape")


def code_lines(text):
    """Lines that hold code: not blank, not only a comment."""
    return [line for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]


def printed(name, args, argnums, standalone=False):
    return astjax.source(astjax.grad(getattr(F, name), argnums=argnums), *args, standalone=standalone)


def second_order(name, argnums, args):
    """grad(grad(f)) for a number argument, hessian(f) for an array one."""
    f = getattr(F, name)
    if np.ndim(args[argnums]) == 0:
        return astjax.grad(astjax.grad(f, argnums=argnums), argnums=argnums)
    return astjax.hessian(f, argnums=argnums)


def printed_second(name, args, argnums, standalone=False):
    return astjax.source(second_order(name, argnums, args), *args, standalone=standalone)


def second_defects(text, args):
    """defects() plus self-assignments (`bba = bba`) and derivatives of the tape (`b_tape`)."""
    out = defects(text, args)
    body = "\n".join(code_lines(text))
    out["self-assignments"] = len(re.findall(r"^\s*(\w+) = \1\s*$", body, re.M))
    out["tape derivatives"] = len(set(re.findall(r"\b[bd]+_tape\b", body)) - {"d_tape"}) + body.count("b_tape")
    return out


def run_second_standalone(name, args, argnums):
    """The standalone printed second derivative run on `args`, next to the transformation's own result."""
    text = printed_second(name, args, argnums, standalone=True)
    namespace = {"__name__": f"printed_second_{name}"}
    exec(compile(text, f"<printed second {name}>", "exec"), namespace)
    main = re.search(r"^def (\w+)\(", text, re.M).group(1)
    prepared = [np.asarray(a, np.float32) if isinstance(a, float) else np.array(a) for a in args]
    expected = second_order(name, argnums, args)(*[np.array(a) if isinstance(a, np.ndarray) else a for a in args])
    if np.ndim(args[argnums]) == 0:
        return namespace[main](*prepared), expected
    x = np.asarray(args[argnums])
    v = np.linspace(0.5, 1.5, x.size, dtype=np.float32).reshape(x.shape)
    gradient, tangent = namespace[main](*prepared, v)
    first = astjax.grad(getattr(F, name), argnums=argnums)(*[np.array(a) if isinstance(a, np.ndarray) else a
                                                               for a in args])
    along = np.tensordot(np.asarray(expected), v, axes=v.ndim)
    return _close(gradient, first) and _close(tangent, along), True


def _names(text):
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError):
        return []
    return [t.string for t in tokens if t.type == tokenize.NAME]


def defects(text, args):
    """{defect: count} for one printed derivative (see the module docstring)."""
    body = "\n".join(code_lines(text))
    names = set(_names(body))
    opaque = sorted({n for n in names if re.fullmatch(r"b_t\d+", n) and n[1:] not in names})
    placeholders = len(re.findall(r"=\s*None\b", body))
    never_read = 0
    lines = body.splitlines()
    pushes = sum(1 for line in lines if re.match(r"\s*push\(", line))
    pops = [(i, m.group(1)) for i, line in enumerate(lines) for m in [re.match(r"\s*(\w+) = pop\(", line)] if m]
    never_read += max(0, pushes - len(pops))
    for i, target in pops:
        later = "\n".join(lines[i + 1:])
        if not re.search(rf"(?<![\w.]){re.escape(target)}\b(?!\s*=[^=])", later):
            never_read += 1
    for saved in set(re.findall(r"^\s*(\w+)\.append\(", body, re.M)):     # a save list (`a_saved.append(a)`)
        reads = [line for line in lines if re.search(rf"(?<![\w.]){re.escape(saved)}\b", line)
                 and not re.match(rf"\s*{re.escape(saved)}\s*=\s*\[\]\s*$", line)
                 and not re.match(rf"\s*{re.escape(saved)}\.append\(", line)]
        never_read += not reads                  # filled and never read back
    scalar = all(np.ndim(a) == 0 and not isinstance(a, (list, tuple)) for a in args)
    helpers = sum(body.count(h + "(") for h in SHAPE_HELPERS) if scalar else 0
    return {"opaque adjoints": len(opaque), "= None": placeholders, "pushes never read": never_read,
            "shape helpers on scalars": helpers}


def run_standalone(name, args, argnums):
    """The standalone printed gradient run on `args`, next to grad's own result."""
    text = printed(name, args, argnums, standalone=True)
    namespace = {"__name__": f"printed_{name}"}
    exec(compile(text, f"<printed grad_{name}>", "exec"), namespace)
    main = re.search(r"^def (\w+)\(", text, re.M).group(1)
    prepared = [np.asarray(a, np.float32) if isinstance(a, float) else np.array(a) for a in args]
    got = namespace[main](*prepared)
    expected = astjax.grad(getattr(F, name), argnums=argnums)(*[np.array(a) if isinstance(a, np.ndarray) else a
                                                                for a in args])
    return got, expected


def _second_right(name, args, argnums):
    """Whether the printed second derivative gives what the transformation gives. A hessian prints the
    jvp of the gradient (`jvp_grad_f(x, dx)` returns the gradient and its derivative along dx): run on
    a tangent v it must give grad(f) and the Hessian times v."""
    got, expected = run_second_standalone(name, args, argnums)
    if np.ndim(args[argnums]) == 0:
        return _close(got, expected)
    return bool(got)


def _close(a, b):
    return bool(np.shape(a) == np.shape(b) and np.allclose(a, b, rtol=1e-4, atol=1e-5))


def measure(names=None, second=False):
    rows = []
    for name, args, argnums in CORPUS:
        if names and name not in names:
            continue
        text = printed(name, args, argnums)
        import inspect
        hand = inspect.getsource(getattr(H, name))
        got, expected = run_standalone(name, args, argnums)
        right = np.shape(got) == np.shape(expected) and np.allclose(got, expected, rtol=1e-5, atol=1e-6)
        row = {"name": name, "printed": len(code_lines(text)), "hand": len(code_lines(hand)),
               "defects": defects(text, args), "right": bool(right), "general": "general form" in text}
        if second:
            second_text = printed_second(name, args, argnums)
            row["second"] = len(code_lines(second_text))
            row["second_defects"] = second_defects(second_text, args)
            row["second_general"] = "general form" in second_text
            row["second_right"] = _second_right(name, args, argnums)
        rows.append(row)
    return rows


def table(rows):
    second = all("second" in r for r in rows)
    head = "| function | printed | hand | ratio | defects | right |"
    rule = "|---|---:|---:|---:|---|---|"
    if second:
        head += " 2nd order | 2nd/1st | 2nd defects | 2nd right |"
        rule += "---:|---:|---|---|"
    out = [head, rule]
    for r in rows:
        line = (f"| {r['name']} | {r['printed']} | {r['hand']} | {r['printed'] / r['hand']:.2f} | "
                f"{_defects_cell(r['defects'], r['general'])} | {'yes' if r['right'] else 'NO'} |")
        if second:
            line += (f" {r['second']} | {r['second'] / r['printed']:.2f} | "
                     f"{_defects_cell(r['second_defects'], r['second_general'])} | "
                     f"{'yes' if r['second_right'] else 'NO'} |")
        out.append(line)
    printed_total, hand_total = sum(r["printed"] for r in rows), sum(r["hand"] for r in rows)
    line = (f"| **total** | {printed_total} | {hand_total} | **{printed_total / hand_total:.2f}** | "
            + _totals(rows, "defects") + f" | {sum(r['right'] for r in rows)}/{len(rows)} |")
    if second:
        second_total = sum(r["second"] for r in rows)
        line += (f" {second_total} | **{second_total / printed_total:.2f}** | " + _totals(rows, "second_defects")
                 + f" | {sum(bool(r['second_right']) for r in rows)}/{len(rows)} |")
    out.append(line)
    return "\n".join(out)


def _defects_cell(defects_of_row, general):
    bad = ", ".join(f"{k} {v}" for k, v in defects_of_row.items() if v) or "-"
    return bad + (" (general form)" if general else "")


def _totals(rows, key):
    return ", ".join(f"{k} {sum(r[key][k] for r in rows)}" for k in rows[0][key])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", help="print one function's gradient source")
    parser.add_argument("--second", action="store_true", help="with --show: its second derivative's source")
    parser.add_argument("--first-only", action="store_true", help="measure first order only")
    options = parser.parse_args()
    if options.show:
        for name, args, argnums in CORPUS:
            if name == options.show:
                print(printed_second(name, args, argnums) if options.second else printed(name, args, argnums))
        return
    print(table(measure(second=not options.first_only)))


if __name__ == "__main__":
    main()
