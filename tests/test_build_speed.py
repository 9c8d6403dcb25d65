"""The build-time shortcuts (docs/performance.md, "Build time, seventh session") keep every result exact.

Each shortcut is keyed on what its result depends on: the visit-method table on the visitor class
itself (a subclass gets its own), the parsed function's gast tree copied per caller (a caller that
changes its tree changes no other's), the cleanup fixpoint's fingerprint telling `0.0` from `-0.0`;
and neither a per-call visitor class nor beniget's def-use chains outlive the build that made them.
"""
import gc
import weakref

import gast

from astjax.codegen.node_walk import NodeTransformer, NodeVisitor
from astjax.frontend.parse import function_source
from astjax.frontend.resolve import Resolver, def_use_chains, free_name_nodes, local_names, release
from astjax.optimize import _fingerprint

SCALE = 3.0


def uses_a_global(x):
    y = x * SCALE
    return [y for y in (x, y)][0] + len("ab")


def _names_seen(visitor_class, tree):
    visitor = visitor_class()
    visitor.seen = []
    visitor.visit(tree)
    return visitor.seen


def test_a_subclass_has_its_own_visit_table():
    class Base(NodeVisitor):
        def visit_Name(self, node):
            self.seen.append(node.id)

    class Upper(Base):
        def visit_Name(self, node):
            self.seen.append(node.id.upper())

    tree = gast.parse("a + b")
    assert _names_seen(Base, tree) == ["a", "b"]
    assert _names_seen(Upper, tree) == ["A", "B"]       # not Base's method, cached first
    assert _names_seen(Base, tree) == ["a", "b"]


def test_a_visitor_class_made_per_call_is_freed():
    def make(context):
        class Local(NodeTransformer):
            def visit_Name(self, node):
                context.append(node.id)
                return node
        Local().visit(gast.parse("f(x)"))
        return weakref.ref(Local)

    ref = make([])
    gc.collect()
    assert ref() is None


def test_def_use_chains_leave_no_cyclic_garbage():
    node = function_source(uses_a_global).node
    expected_free = sorted(n.id for n in free_name_nodes(node))
    expected_locals = local_names(node)
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        chains = def_use_chains(node)
        assert sorted(n.id for n in free_name_nodes(node, chains)) == expected_free == ["SCALE", "len"]
        assert local_names(node, chains) == expected_locals == {"x", "y"}
        release(chains)
        del chains
        resolver = Resolver(uses_a_global, node)
        assert sorted(n.id for n in resolver.free_name_nodes(node)) == expected_free
        del resolver
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_each_caller_gets_its_own_tree_of_a_function():
    first = function_source(uses_a_global).node
    first.body[0].value.right.id = "CHANGED"
    first.body.clear()
    second = function_source(uses_a_global).node
    assert gast.dump(second) != gast.dump(first)
    assert second.body[0].value.right.id == "SCALE"
    assert second is not function_source(uses_a_global).node


def test_the_fixpoint_fingerprint_tells_signed_zeros_and_names_apart():
    def fingerprint(text):
        return _fingerprint(gast.parse(text))
    assert fingerprint("y = x + 0.0") == fingerprint("y = x + 0.0")
    zero, negative_zero = gast.parse("y = x + 0.0"), gast.parse("y = x + 0.0")
    negative_zero.body[0].value.right.value = -0.0
    assert _fingerprint(zero) != _fingerprint(negative_zero)
    assert fingerprint("y = x + 1") != fingerprint("y = x + True")
    assert fingerprint("y = x") != fingerprint("y = z")
    assert fingerprint("y = f(x, 'a')") != fingerprint("y = f(x, 'b')")
