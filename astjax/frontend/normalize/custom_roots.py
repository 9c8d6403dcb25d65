"""`lax.custom_root` and `lax.custom_linear_solve` calls become calls of a custom_jvp function of what they read.

    f = lambda y: y * y - a * b                   _custom_root_1 = root_function(...)   (made here, once)
    y = lax.custom_root(f, x0, solve, tsolve) ->  y = _custom_root_1(x0, a, b, tol, )

f, solve and tangent_solve (lambdas, functions defined once in the enclosing function, or module-level
functions) are closure-converted: each becomes a generated function whose parameters are its own plus the
enclosing function's variables it reads (a, b for f; tol for solve), so the values f depends on are
explicit arguments of the custom_jvp call, and the transformations differentiate through them with its
rule, the implicit function theorem (lax/_solves.py). tangent_solve's calls of its linear map `g(u)`
become calls of a generated `J(y, a, b, u)` (and `jacfwd(g)(u)`, `jacrev(g)(u)` its Jacobian over u).
`custom_linear_solve(matvec, b, solve)` is the root of `x -> matvec(x) - b` (b one more input of f),
found by `solve(matvec, b)`, with solve, its calls of matvec rewritten the same way, as tangent_solve.

Refused at the call's line: a function that is not a lambda, a single local definition or a plain
module-level function; one with defaults, *args or keywords; one that reads a local function or changes
the enclosing function's arrays in place; a solver that uses its linear map other than by calling it; a
call inside a local function, lambda or comprehension.
"""
import copy
import inspect

import beniget
import gast

from ... import lax
from ..parse import function_source
from ..resolve import _INTRODUCED, NOT_STATIC, release
from .base import Pass, copy_location, name
from ...codegen.node_walk import NodeTransformer, walk

__all__ = ["CustomRoots"]

_ARITY = {"f": 1, "solve": 2, "tangent_solve": 2, "matvec": 1, "linear solve": 2}


class _FreeNames(beniget.DefUseChains):
    """beniget's chains, collecting the names a definition reads without binding (its free names)."""

    def __init__(self):
        super().__init__()
        self.free = []

    def unbound_identifier(self, name, node):
        if name not in self.free:
            self.free.append(name)

    def warn(self, msg, node):
        pass


def free_names(definition):
    """The free names of a FunctionDef, in order of first appearance."""
    chains = _FreeNames()
    chains.visit(gast.Module(body=[definition], type_ignores=[]))
    free = [n for n in chains.free if n not in ("__class__",)]
    release(chains)         # no cyclic garbage left for the collector (frontend/resolve.py)
    return free


def _is_solver(value):
    return value is lax.custom_root or value is lax.custom_linear_solve


class CustomRoots(Pass):
    """Rewrite each `lax.custom_root(...)` call of the function's own body (see the module docstring)."""

    def run(self, node):
        if not any(isinstance(n, gast.Call) and _is_solver(self.context.resolver.static_value(n.func))
                   for n in walk(node)):
            return node             # nothing to rewrite: the analyses below need not run
        self.function = node
        # the enclosing function's own variables, read from its source here: what f, solve and tangent_solve
        # read of these becomes an argument (never a name looked up where the generated code runs)
        self.variables = _own_variables(node)
        self.definitions = _local_definitions(node)
        self.function_names = set(self.definitions) | _local_function_names(node)
        self.depth = 0
        self.extra = {}           # names the generated definitions read: module-level functions passed
        return self.generic_visit(node) or node

    def visit_FunctionDef(self, node):
        if node is self.function:
            return self.generic_visit(node)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    def visit_Lambda(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        return node

    # a comprehension is a scope of its own: what a function passed in it reads may be its variable
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_Lambda

    def visit_Call(self, node):
        self.generic_visit(node)
        callee = self.context.resolver.static_value(node.func)
        if callee is not lax.custom_root and callee is not lax.custom_linear_solve:
            return node
        what = f"lax.{callee.__name__}"
        if self.depth:
            raise self.error(f"{what} called inside a local function, lambda or comprehension is not supported", node,
                             hint=f"call {what} in the transformed function's own body")
        if callee is lax.custom_root:
            given, has_aux = self._arguments(node, what, ["f", "initial_guess", "solve", "tangent_solve"], [])
            return copy_location(self._root(node, given, has_aux), node)
        given, has_aux = self._arguments(node, what, ["matvec", "b", "solve"], ["transpose_solve", "symmetric"])
        return copy_location(self._linear_solve(node, given, has_aux), node)

    def _arguments(self, call, what, required, optional):
        """{parameter: expression} of a call, and has_aux (a literal True or False)."""
        params = required + optional + ["has_aux"]
        if any(isinstance(a, gast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) \
                or len(call.args) > len(params):
            raise self.error(f"{what}: pass its arguments by position or name (no * or **)", call)
        given = dict(zip(params, call.args))
        for k in call.keywords:
            if k.arg not in params or k.arg in given:
                raise self.error(f"{what} got an unexpected or repeated argument `{k.arg}`", call)
            given[k.arg] = k.value
        missing = [p for p in required if p not in given]
        if missing:
            raise self.error(f"{what} is missing {', '.join(missing)}", call)
        has_aux = given.get("has_aux", gast.Constant(value=False, kind=None))
        if not (isinstance(has_aux, gast.Constant) and isinstance(has_aux.value, bool)):
            raise self.error(f"{what}: has_aux must be written as True or False", call)
        return given, has_aux.value

    def _root(self, call, given, has_aux):
        if has_aux and not isinstance(given["initial_guess"], (gast.Name, gast.Constant)):
            # the root and its aux are two calls, each reading the initial guess
            raise self.error("lax.custom_root with has_aux=True: pass the initial guess as a name", call,
                             hint="assign it to a variable first")
        f, f_reads = self._definition(given["f"], "f", call)
        solve, solve_reads = self._definition(given["solve"], "solve", call)
        tsolve, tsolve_reads = self._definition(given["tangent_solve"], "tangent_solve", call)
        tsolve = _calls_of_linear_map(tsolve, f_reads, self, call)
        f.name, solve.name = "_custom_root_f", "_custom_root_solve"
        _add_parameters(f, f_reads)
        _add_parameters(solve, solve_reads)
        _add_parameters(tsolve, tsolve_reads + _map_point(len(f_reads)))
        theta = [name(n) for n in f_reads]
        return self._custom_call(call, [f, solve, tsolve], given["initial_guess"], theta,
                                 [name(n) for n in solve_reads], [name(n) for n in tsolve_reads], has_aux)

    def _linear_solve(self, call, given, has_aux):
        """custom_linear_solve(matvec, b, solve) as the root of f(x) = matvec(x) - b: solve(matvec, b) gives its
        value, and solve with its calls of matvec made calls of the linear map (which is matvec) is the
        tangent_solve. transpose_solve and symmetric only make JAX's reverse mode cheaper: astjax's transposes
        the rule, so they are not called."""
        matvec, m_reads = self._definition(given["matvec"], "matvec", call)
        user_solve, s_reads = self._definition(given["solve"], "linear solve", call)
        tsolve = _calls_of_linear_map(copy.deepcopy(user_solve), m_reads + ["b"], self, call)
        tsolve.name = "_custom_root_tsolve_inner"
        matvec.name, user_solve.name = "_custom_root_matvec", "_custom_root_user_solve"
        _add_parameters(matvec, m_reads)
        _add_parameters(user_solve, s_reads)
        _add_parameters(tsolve, s_reads + _map_point(len(m_reads) + 1))
        m = [f"_m{i}" for i in range(len(m_reads))]
        s = [f"_s{i}" for i in range(len(s_reads))]
        line = call.lineno
        wrappers = [
            f"def _custom_root_f(_x, {_listed(m)}_b):\n    return _custom_root_matvec(_x, {_listed(m)}) - _b\n",
            f"def _custom_root_bind_matvec({_listed(m)}):\n    def matvec(x):\n"
            f"        return _custom_root_matvec(x, {_listed(m)})\n    return matvec\n",
            f"def _custom_root_solve(_f, _x0, {_listed(s + m)}_b):\n"
            f"    return _custom_root_user_solve(_custom_root_bind_matvec({_listed(m)}), _b, {_listed(s)})\n",
            f"def _custom_root_tsolve(_v, {_listed(s + _map_point(len(m) + 1))}):\n"
            f"    return _custom_root_tsolve_inner(_v, {_listed(s + _map_point(len(m) + 1))}){'[0]' if has_aux else ''}\n",
        ]
        nodes = [matvec, user_solve, tsolve] + [_at_line(gast.parse(w).body[0], line) for w in wrappers]
        b = given["b"]
        theta = [name(n) for n in m_reads] + [b]
        solve_values = [name(n) for n in s_reads + m_reads] + [copy.deepcopy(b)]
        if not isinstance(b, (gast.Name, gast.Constant)):
            raise self.error("lax.custom_linear_solve: pass b as a name", call, hint="assign it to a variable first")
        zeros = self.context.resolver.introduce("_custom_root_zeros_like", _INTRODUCED["jnp"].zeros_like,
                                                self.context.namer)
        guess = gast.Call(func=name(zeros), args=[copy.deepcopy(b)], keywords=[])
        return self._custom_call(call, nodes, guess, theta, solve_values, [name(n) for n in s_reads], has_aux)

    def _custom_call(self, call, nodes, guess, theta, solve_values, tsolve_values, has_aux):
        """`_custom_rootN(guess, *theta, *solve_values, *tsolve_values)` (and its aux) for generated `nodes`."""
        from ...lax._solves import root_function
        label = self.context.namer.fresh("_custom_root")
        custom, aux = root_function(label.strip("_"), nodes, self._namespace(),
                                    (len(theta), len(solve_values), len(tsolve_values)), has_aux,
                                    self.context.source.filename, self.context.source.file_line(call.lineno))
        self.context.resolver.introduce_as(label, custom)
        args = [guess] + theta + solve_values + tsolve_values
        root = gast.Call(func=name(label), args=args, keywords=[])
        if aux is None:
            return root
        aux_label = self.context.resolver.introduce(f"{label}_aux", aux, self.context.namer)
        return gast.Tuple(elts=[root, gast.Call(func=name(aux_label), args=copy.deepcopy(args), keywords=[])],
                          ctx=gast.Load())

    def _namespace(self):
        resolver = self.context.resolver
        namespace = dict(_INTRODUCED)
        namespace.update(resolver.globals)
        namespace.update(resolver.closure)
        namespace.update(resolver.introduced)
        namespace.update(self.extra)
        return namespace

    def _definition(self, expr, role, call):
        """(a FunctionDef of the function passed as `role`, the enclosing function's variables it reads)."""
        if isinstance(expr, gast.Lambda):
            node = _lambda_def(expr)
        elif isinstance(expr, gast.Name) and expr.id in self.definitions:
            node = self.definitions[expr.id]
            if node is None:
                raise self.error(f"lax.custom_root: `{expr.id}` ({role}) is defined more than once or bound "
                                 "otherwise too; define it once", call)
            node = copy.deepcopy(node)
        elif isinstance(expr, gast.Name) and self.context.resolver.is_local(expr.id):
            raise self.error(f"lax.custom_root: {role} `{expr.id}` is a variable of this function; astjax needs a "
                             "lambda, a function defined once here, or a module-level function", call,
                             hint=f"define {role} with def or lambda in this function or at module level")
        else:
            value = self.context.resolver.static_value(expr)
            if not inspect.isfunction(value) or getattr(value, "__astjax_transform__", None) is not None:
                raise self.error(f"lax.custom_root: {role} must be a Python function astjax can read, got "
                                 f"{'a value computed here' if value is NOT_STATIC else type(value).__name__}", call)
            label = self.context.namer.fresh(f"_custom_root_{role}")
            self.extra[label] = value
            # its names are read from a copy of the globals: a rebinding must rebuild the derivation
            self.context.inlined_functions = getattr(self.context, "inlined_functions", []) + [value]
            node = _module_function(value, role, label, value.__globals__ is self.context.resolver.globals, self,
                                    call)
            # marked on the node itself: an id() kept in a set was once reused by a later lambda's definition
            # once this node was freed, and that lambda then read the enclosing function's variables unpassed
            node._module_level = True
        if node.decorator_list:
            raise self.error(f"lax.custom_root: {role} `{node.name}` is decorated; pass a plain function", call)
        a = node.args
        if (a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs
                or len(a.args) != _ARITY[role]):
            raise self.error(f"lax.custom_root: {role} must take exactly {_ARITY[role]} plain positional "
                             "parameter(s) (no defaults, *args or keywords)", call)
        if getattr(node, "_module_level", False):
            return node, []
        reads = []
        for n in free_names(node):
            if n in self.function_names:
                raise self.error(f"lax.custom_root: {role} reads the local function `{n}`; astjax passes only "
                                 "arrays and numbers from this function to it", call,
                                 hint=f"define `{n}` at module level")
            if n in self.variables or self.context.resolver.is_local(n):
                reads.append(n)
        if any(isinstance(n, (gast.Nonlocal, gast.Global)) for n in gast.walk(node)):
            raise self.error(f"lax.custom_root: {role} rebinds a variable with nonlocal or global; astjax passes "
                             "it the values as arguments, where that change would be lost", call)
        written = _written_in_place(node) & set(reads)
        if written:
            raise self.error(f"lax.custom_root: {role} changes `{sorted(written)[0]}` of this function in place; "
                             "astjax passes it the values as arguments, where that change would be lost", call,
                             hint="compute a new value inside the function instead")
        return node, reads

    def error(self, message, node, hint=None):
        return self.context.error(message, node, hint=hint)


def _module_function(fn, role, label, same_module, owner, call):
    """A module-level function as a definition: f and solve as `def _m(_a): return <label>(_a)` (called, so
    they read their own module's names); tangent_solve as its own source, whose calls of its linear map
    are rewritten (only for one of this module, without closure, so its names mean the same here)."""
    if role in ("tangent_solve", "linear solve"):
        if fn.__closure__ or not same_module:
            raise owner.error(f"a module-level {role} must be a plain function of this module (astjax rewrites "
                              "its calls of the linear map)", call, hint=f"define {role} as a lambda or def here")
        node = copy.deepcopy(function_source(fn).node)
        node.decorator_list = []
        return node
    params = ["_a", "_b"][:_ARITY[role]]
    node = gast.parse(f"def _m({', '.join(params)}):\n    return {label}({', '.join(params)})\n").body[0]
    node._module_level = True
    return node


def _own_variables(function_node):
    """The names `function_node` binds in its own scope (parameters, assignments, loop targets), not those
    of the lambdas, local functions and comprehensions inside it."""
    found = {a.id for a in function_node.args.args} | {a.id for a in function_node.args.kwonlyargs}
    found |= {a.id for a in (function_node.args.vararg, function_node.args.kwarg) if a is not None}
    stack = list(function_node.body)
    while stack:
        n = stack.pop()
        if isinstance(n, (gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
            continue
        if isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            found.add(n.name)
            continue
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            found.add(n.id)
        stack.extend(gast.iter_child_nodes(n))
    return found


def _listed(names):
    return "".join(n + ", " for n in names)


def _map_point(count):
    """The names tangent_solve's rewritten calls of its linear map pass: the root and f's inputs."""
    return ["_custom_root_y"] + [f"_custom_root_p{i}" for i in range(count)]


def _at_line(node, line):
    for child in gast.walk(node):
        if hasattr(child, "lineno"):
            child.lineno, child.end_lineno = line, line
    return node


def _lambda_def(expr):
    node = gast.parse("def _l():\n    pass\n").body[0]
    node.args = copy.deepcopy(expr.args)
    node.body = [copy_location(gast.Return(value=copy.deepcopy(expr.body)), expr)]
    return copy_location(node, expr)


def _add_parameters(node, names):
    node.args.args = list(node.args.args) + [gast.Name(id=n, ctx=gast.Param(), annotation=None, type_comment=None)
                                             for n in names]


def _calls_of_linear_map(node, f_reads, owner, call):
    """tangent_solve with each call `g(u)` of its linear map parameter g made `_custom_root_map(y, *theta, u)`."""
    g = node.args.args[0].id
    extra = [name(n) for n in _map_point(len(f_reads))]

    class Calls(NodeTransformer):
        def visit_Call(self, c):
            if isinstance(c.func, gast.Name) and c.func.id == g:
                if c.keywords or any(isinstance(a, gast.Starred) for a in c.args) or len(c.args) != 1:
                    raise owner.error(f"lax.custom_root: tangent_solve calls its linear map `{g}` with other than "
                                      "one positional argument", call)
                c.args = [self.visit(a) for a in c.args]
                c.func = name("_custom_root_map")
                c.args = [copy.deepcopy(e) for e in extra] + c.args
                return c
            if isinstance(c.func, gast.Call) and [getattr(a, "id", None) for a in c.func.args] == [g] \
                    and not c.func.keywords and owner.context.resolver.static_value(c.func.func) in _JACOBIANS():
                # jacfwd(g)(u): the Jacobian of the linear map, over its last argument
                c.func.args = [name("_custom_root_map")]
                c.func.keywords = [gast.keyword(arg="argnums", value=gast.Constant(value=len(extra), kind=None))]
                c.func.func = self.visit(c.func.func)
                c.args = [copy.deepcopy(e) for e in extra] + [self.visit(a) for a in c.args]
                return c
            return self.generic_visit(c)

        def visit_Name(self, n):
            if n.id == g and not isinstance(n.ctx, gast.Param):
                raise owner.error(f"the solver uses its linear map `{g}` other than by calling it (`{g}(v)`, "
                                  f"`jacfwd({g})(v)`); astjax rewrites those calls only", call,
                                  hint=f"write the solver's use of `{g}` in its own body")
            return n

    node = Calls().visit(node)
    node.args.args = node.args.args[1:]
    node.name = "_custom_root_tsolve"
    return node


def _written_in_place(node):
    """Names whose value a definition changes in place (`a[i] = v`, `a.x = v`, `a += v` on a subscript)."""
    names = set()
    for child in gast.walk(node):
        target = None
        if isinstance(child, (gast.Subscript, gast.Attribute)) and isinstance(child.ctx, (gast.Store, gast.Del)):
            target = child.value
        elif isinstance(child, gast.Call) and isinstance(child.func, gast.Attribute):
            target = child.func.value if child.func.attr in _MUTATORS else None
        while isinstance(target, (gast.Subscript, gast.Attribute)):
            if isinstance(target, gast.Attribute) and target.attr == "at":
                target = None                   # `a.at[i].add(v)`: a new array
                break
            target = target.value
        if isinstance(target, gast.Name):
            names.add(target.id)
    return names


_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "popitem", "sort",
             "reverse", "fill", "resize", "add", "discard", "itemset", "put"}


def _JACOBIANS():
    import astjax
    return (astjax.jacfwd, astjax.jacrev)


def _local_definitions(function):
    """Names bound exactly once in `function` (outside nested functions), by a def or `name = lambda ...`,
    mapped to that definition as a FunctionDef; None for a name also bound otherwise."""
    stores = {}

    def walk(node, top):
        for child in gast.iter_child_nodes(node):
            if isinstance(child, gast.FunctionDef):
                stores.setdefault(child.name, []).append(child)
                continue
            if isinstance(child, gast.Lambda):
                continue
            if isinstance(child, gast.Assign) and len(child.targets) == 1 \
                    and isinstance(child.targets[0], gast.Name) and isinstance(child.value, gast.Lambda):
                stores.setdefault(child.targets[0].id, []).append(_lambda_def(child.value))
                walk(child.value, False)
                continue
            if isinstance(child, gast.Name) and isinstance(child.ctx, (gast.Store, gast.Del)):
                stores.setdefault(child.id, []).append(None)
            walk(child, False)

    walk(function, True)
    for p in function.args.args + function.args.kwonlyargs + function.args.posonlyargs:
        stores.setdefault(p.id, []).append(None)
    return {k: (v[0] if len(v) == 1 else None) for k, v in stores.items()
            if any(d is not None for d in v)}


def _local_function_names(function):
    return {n.name for n in gast.walk(function) if isinstance(n, gast.FunctionDef) and n is not function}
