"""Instances of plain user classes made inside a transformed function, as dicts of their attributes.

    class Affine:                                  def __init__(w, b):        (a copy of __init__)
        def __init__(self, w, b):                      self_w = w
            self.w = w                      ->         self_b = b
            self.b = b                                 return {"w": self_w, "b": self_b}
        def forward(self, h):                      def forward(self, h):      (a copy of forward)
            return jnp.tanh(self.w * h + self.b)       return jnp.tanh(self["w"] * h + self["b"])

A class qualifies when it is a user class deriving only from `object`, with no
customized attribute access, whose `__init__` sets each attribute once, at the
top level of its body (`self.w = w`), and reads only attributes it has set.
A method (or property getter, or `__call__`) qualifies when it reads `self`
only as `self.attr` (an attribute `__init__` sets), `self.method(...)`,
`self.prop` or `self(...)`, and never assigns to it: the object then never
changes after `__init__`, so a dict holding the attribute values stands for it
exactly, and the derivative passes read dict items as they read any others.
"""
import copy
import inspect

import gast

from .parse import function_source
from .specialize import function_from_node
from ..codegen.node_walk import walk, NodeTransformer

__all__ = ["record_class", "RecordClass"]

_CLASSES = {}


def record_class(cls):
    """The RecordClass of `cls`, or None when its instances cannot be dicts of their attributes."""
    if not isinstance(cls, type):
        return None
    found = _CLASSES.get(cls)
    if found is not None and found[0] is cls.__dict__.get("__init__"):
        return found[1]
    made = _build(cls)
    _CLASSES[cls] = (cls.__dict__.get("__init__"), made)
    return made


def _build(cls):
    from ..analyses.classify import is_library
    if cls.__mro__ != (cls, object) or is_library(cls) or (cls.__module__ or "").startswith("astjax"):
        return None
    dataclass_init = _dataclass_init(cls)
    for special in ("__getattr__", "__getattribute__", "__setattr__", "__slots__", "__new__", "__init_subclass__",
                    "__class_getitem__"):
        if special in cls.__dict__ and not (dataclass_init is not None and _generated(cls.__dict__[special])):
            return None
    init = cls.__dict__.get("__init__") if dataclass_init is None else dataclass_init
    if not _plain(init):
        return None
    record = RecordClass(cls)
    try:
        if not record.build_init(init):
            return None
    except Exception:       # no source (a dataclass's generated __init__), a construct not followed: not a record
        return None
    return record


def _generated(fn):
    """Whether `fn` was written by the dataclasses module (its code comes from a string, not a file)."""
    code = getattr(fn, "__code__", None)
    return code is not None and code.co_filename == "<string>"


def _dataclass_init(cls):
    """For a dataclass whose `__init__` is the generated one that only stores its fields (no __post_init__,
    no InitVar, no default_factory, no keyword-only or init=False field), that `__init__` written as
    Python source astjax can read (`self.w = w` per field, the defaults the dataclass gives); else None."""
    import dataclasses
    if not dataclasses.is_dataclass(cls) or not _generated(cls.__dict__.get("__init__")) or \
            hasattr(cls, "__post_init__"):
        return None
    fields = dataclasses.fields(cls)
    if any(not f.init or getattr(f, "kw_only", False) or f.default_factory is not dataclasses.MISSING
           for f in fields):
        return None
    if [f.name for f in fields] != list(inspect.signature(cls.__init__).parameters)[1:]:
        return None      # an InitVar, or a parameter that is not a field
    defaults = {f"_default_{f.name}": f.default for f in fields if f.default is not dataclasses.MISSING}
    params = ", ".join(f.name + (f" = _default_{f.name}" if f"_default_{f.name}" in defaults else "")
                       for f in fields)
    this = "self" if "self" not in {f.name for f in fields} else "_self"
    lines = [f"def __init__({this}, {params}):"] + [f"    {this}.{f.name} = {f.name}" for f in fields] + \
        ([f"    pass"] if not fields else [])
    from ..backends.python import compile_function
    node = gast.parse("\n".join(lines) + "\n").body[0]
    fn, _ = compile_function(node, dict(defaults), label=f"{cls.__name__}_dataclass_init")
    return fn


def _plain(fn):
    """A Python function of plain parameters, the first being `self`."""
    if not inspect.isfunction(fn):
        return False
    code = fn.__code__
    return (code.co_argcount >= 1 and not code.co_posonlyargcount and not code.co_kwonlyargcount
            and not code.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS | inspect.CO_GENERATOR))


class RecordClass:
    """What is known about a qualifying class: its attributes, and copies of its methods on dicts."""

    def __init__(self, cls):
        self.cls = cls
        self.attributes = []
        self.init = None
        self._methods = {}
        self._building = set()

    def kind(self, attr):
        """'attribute', 'method', 'property' or None for `obj.attr`."""
        if attr in self.attributes:
            return "attribute"
        value = self.cls.__dict__.get(attr)
        if isinstance(value, property) and value.fset is None and value.fdel is None and _plain(value.fget):
            return "property"
        if _plain(value) and not attr.startswith("__"):
            return "method"
        return None

    def used(self):
        """(class, name, value) of each class attribute a copy was made from: the derivation depends on them."""
        return [(self.cls, "__init__", self.cls.__dict__.get("__init__"))] + [
            (self.cls, attr, value) for attr, (value, _) in self._methods.items()]

    def method(self, attr):
        """A copy of the method (or property getter, or `__call__`) reading `self` as a dict, or None."""
        found = self._methods.get(attr)
        if found is not None and found[0] is self.cls.__dict__.get(attr):
            return found[1]
        if attr in self._building:
            return None              # methods calling each other in a cycle: not followed
        value = self.cls.__dict__.get(attr)
        fn = value.fget if isinstance(value, property) else value
        if attr == "__call__" and not _plain(fn):
            return None
        self._building.add(attr)
        try:
            made = self._copy(fn)
        finally:
            self._building.discard(attr)
        self._methods[attr] = (value, made)
        return made

    def _copy(self, fn):
        source = function_source(fn)
        node = copy.deepcopy(source.node)
        if not node.args.args:
            return None
        this = node.args.args[0].id
        cells = {}
        rewriter = _SelfUses(self, this, cells)
        node.body = [rewriter.visit(s) for s in node.body]
        if rewriter.refused:
            return None
        node.decorator_list = []
        node.returns = None
        for arg in node.args.args:
            arg.annotation = None
        return function_from_node(fn, node, source, cells, fn.__defaults__ or ())

    def build_init(self, init):
        """`__init__` as a function of its other parameters returning the dict of attributes."""
        source = function_source(init)
        node = copy.deepcopy(source.node)
        this = node.args.args[0].id
        user_names = {n.id for n in walk(node) if isinstance(n, gast.Name)}
        locals_ = {}
        body = []
        for stmt in _one_attribute_per_assignment(node.body, this):
            if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant):
                continue
            if (isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], gast.Attribute)
                    and isinstance(stmt.targets[0].value, gast.Name) and stmt.targets[0].value.id == this):
                attr = stmt.targets[0].attr
                value = _ReadAttributes(this, locals_).visit(stmt.value)
                declared = self.cls.__dict__.get(attr)
                if value is None or attr in locals_ or hasattr(type(declared), "__set__") or callable(declared):
                    return False     # a property or other descriptor, or a method, of the same name
                locals_[attr] = f"{this}_{attr}"
                body.append(gast.copy_location(gast.Assign(targets=[gast.Name(
                    id=locals_[attr], ctx=gast.Store(), annotation=None, type_comment=None)], value=value,
                    type_comment=None), stmt))
                continue
            reader = _ReadAttributes(this, locals_)
            stmt = reader.visit(stmt)
            if stmt is None:
                return False
            body.append(stmt)
        names = {n.id for s in body for n in walk(s) if isinstance(n, gast.Name)}
        if this in names or any(isinstance(n, (gast.Return, gast.Yield, gast.Global, gast.Nonlocal, gast.FunctionDef,
                                               gast.Lambda)) for s in body for n in walk(s)):
            return False
        if set(locals_.values()) & user_names:
            return False                 # a name of ours the user's body uses itself
        self.attributes = list(locals_)
        result = gast.Dict(keys=[gast.Constant(value=a, kind=None) for a in locals_],
                           values=[gast.Name(id=v, ctx=gast.Load(), annotation=None, type_comment=None)
                                   for v in locals_.values()])
        body.append(gast.copy_location(gast.Return(value=result), node.body[-1] if node.body else node))
        node.body = body
        node.args.args = node.args.args[1:]
        node.name = f"{self.cls.__name__}_init"
        node.decorator_list = []
        node.returns = None
        for arg in node.args.args:
            arg.annotation = None
        self.init = function_from_node(init, node, source, {}, init.__defaults__ or ())
        return True


def _one_attribute_per_assignment(body, this):
    """`self.w, self.b = w, b` as `self.w = w; self.b = b`.

    Python evaluates the whole right side first; one at a time is the same
    when no item on the right reads an attribute the left side sets (else the
    statement is left whole, and build_init refuses it).
    """
    for stmt in body:
        target = stmt.targets[0] if isinstance(stmt, gast.Assign) and len(stmt.targets) == 1 else None
        if (isinstance(target, gast.Tuple) and isinstance(stmt.value, gast.Tuple)
                and len(target.elts) == len(stmt.value.elts)
                and all(isinstance(t, gast.Attribute) and isinstance(t.value, gast.Name) and t.value.id == this
                        for t in target.elts)
                and not {t.attr for t in target.elts} & {n.attr for n in walk(stmt.value)
                                                           if isinstance(n, gast.Attribute)}):
            for t, v in zip(target.elts, stmt.value.elts):
                yield gast.copy_location(gast.Assign(targets=[t], value=v, type_comment=None), stmt)
        else:
            yield stmt


class _ReadAttributes(NodeTransformer):
    """In `__init__`: `self.a` (set above) -> its local; any other use of `self` makes visit return None."""

    def __init__(self, this, locals_):
        self.this, self.locals = this, locals_
        self.refused = False

    def visit(self, node):
        out = super().visit(node)
        return None if self.refused else out

    def visit_Attribute(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.this:
            if isinstance(node.ctx, gast.Load) and node.attr in self.locals:
                return gast.copy_location(gast.Name(id=self.locals[node.attr], ctx=gast.Load(), annotation=None,
                                                    type_comment=None), node)
            self.refused = True
            return node
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id == self.this:
            self.refused = True
        return node


class _SelfUses(NodeTransformer):
    """In a method: `self.a` -> `self["a"]`, `self.m(...)` / `self.p` / `self(...)` -> calls of copies."""

    def __init__(self, record, this, cells):
        self.record, self.this, self.cells = record, this, cells
        self.refused = False

    def _self(self, node):
        return isinstance(node, gast.Name) and node.id == self.this and isinstance(node.ctx, gast.Load)

    def _label(self, attr):
        copy_ = self.record.method(attr)
        if copy_ is None:
            self.refused = True
            return None
        label = f"_{self.record.cls.__name__}_{attr.strip('_')}"
        self.cells[label] = copy_
        return label

    def _this(self):
        n = gast.Name(id=self.this, ctx=gast.Load(), annotation=None, type_comment=None)
        n.self_ok = True
        return n

    def visit_Call(self, node):
        if isinstance(node.func, gast.Attribute) and self._self(node.func.value) and \
                self.record.kind(node.func.attr) == "method":
            label = self._label(node.func.attr)
            args = [self.visit(a) for a in node.args]
            node.keywords = [self.visit(k) for k in node.keywords]
            if label is not None:
                return gast.copy_location(gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None,
                                                                   type_comment=None),
                                                    args=[self._this()] + args, keywords=node.keywords), node)
            return node
        if self._self(node.func):
            label = self._label("__call__")
            args = [self.visit(a) for a in node.args]
            if label is not None:
                return gast.copy_location(gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None,
                                                                   type_comment=None),
                                                    args=[self._this()] + args, keywords=node.keywords), node)
            return node
        self.generic_visit(node)
        return node

    def visit_Attribute(self, node):
        if self._self(node.value):
            kind = self.record.kind(node.attr)
            if kind == "attribute" and isinstance(node.ctx, gast.Load):
                return gast.copy_location(gast.Subscript(value=self._this(), slice=gast.Constant(
                    value=node.attr, kind=None), ctx=gast.Load()), node)
            if kind == "property" and isinstance(node.ctx, gast.Load):
                label = self._label(node.attr)
                if label is not None:
                    return gast.copy_location(gast.Call(func=gast.Name(id=label, ctx=gast.Load(), annotation=None,
                                                                       type_comment=None),
                                                        args=[self._this()], keywords=[]), node)
            self.refused = True
            return node
        self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if node.id == self.this and not getattr(node, "self_ok", False):
            self.refused = True
        return node
