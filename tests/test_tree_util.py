"""Tests for astjax.tree_util: JAX-compatible pytrees."""
from collections import OrderedDict, defaultdict, namedtuple

import numpy as np
import pytest

from astjax import tree_util as tu

Point = namedtuple("Point", "x y")


class Box:
    """Registered with register_pytree_node; aux is its label."""

    def __init__(self, value, label):
        self.value, self.label = value, label

    def __eq__(self, other):
        return (type(other) is Box and self.label == other.label
                and self.value == other.value)

    def __repr__(self):
        return "Box(%r, %r)" % (self.value, self.label)


tu.register_pytree_node(
    Box, lambda b: ((b.value,), b.label), lambda label, ch: Box(ch[0], label))


@tu.register_pytree_node_class
class Pair:
    """Registered with the class decorator."""

    def __init__(self, a, b, name="p"):
        self.a, self.b, self.name = a, b, name

    def tree_flatten(self):
        return (self.a, self.b), self.name

    @classmethod
    def tree_unflatten(cls, name, children):
        assert isinstance(children, tuple)
        return cls(*children, name=name)

    def __eq__(self, other):
        return (type(other) is Pair and (self.a, self.b, self.name)
                == (other.a, other.b, other.name))

    def __repr__(self):
        return "Pair(%r, %r, %r)" % (self.a, self.b, self.name)


TREES = [
    1,
    None,
    (),
    [],
    {},
    (1,),
    (1, 2.0, "s"),
    [1, [2, [3]]],
    {"b": 1, "a": 2, "c": [3, 4]},
    (1, {"a": None, "b": (2, None)}),
    Point(1, (2, 3)),
    OrderedDict([("b", 1), ("a", {"z": 2, "y": 3})]),
    defaultdict(list, {"b": 1, "a": [2, 3]}),
    Box([1, 2], "lbl"),
    Pair(1, (2, Box(3, "in")), name="outer"),
    [Point(Pair(1, 2), None), {"k": OrderedDict(x=1)}],
    {1: "a", 0: "b", -1: ("c", "d")},
]


def same(a, b):
    """Equal and of the same container types all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        if list(a) != list(b) and not isinstance(a, (OrderedDict,)):
            return sorted(a) == sorted(b) and all(same(a[k], b[k]) for k in a)
        if isinstance(a, defaultdict) and a.default_factory is not b.default_factory:
            return False
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_round_trip(tree):
    leaves, treedef = tu.tree_flatten(tree)
    assert treedef.num_leaves == len(leaves)
    assert same(tu.tree_unflatten(treedef, leaves), tree)
    assert same(treedef.unflatten(iter(leaves)), tree)
    assert tu.tree_leaves(tree) == leaves
    assert tu.tree_structure(tree) == treedef


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_repeated_unflatten_matches(tree):
    """A treedef reused many times keeps giving the same tree."""
    leaves, treedef = tu.tree_flatten(tree)
    for _ in range(5):
        assert same(treedef.unflatten(leaves), tree)
    new = list(range(len(leaves)))
    assert tu.tree_leaves(treedef.unflatten(new)) == new


def test_unflatten_builds_fresh_containers():
    leaves, treedef = tu.tree_flatten([1, {"a": 2}])
    for _ in range(3):
        a, b = treedef.unflatten(leaves), treedef.unflatten(leaves)
        assert a == b and a is not b and a[1] is not b[1]


def test_dict_keys_sorted():
    leaves, treedef = tu.tree_flatten({"b": 1, "a": 2, "c": 3})
    assert leaves == [2, 1, 3]
    assert list(treedef.unflatten([10, 20, 30])) == ["a", "b", "c"]
    assert tu.tree_structure({"a": 0, "b": 0}) == tu.tree_structure({"b": 1, "a": 1})
    assert tu.tree_leaves({2: "x", 1: "y"}) == ["y", "x"]


def test_unsortable_dict_keys():
    with pytest.raises(ValueError):
        tu.tree_flatten({1: "a", "b": 2})


def test_ordered_dict_keeps_order():
    od = OrderedDict([("b", 1), ("a", 2)])
    leaves, treedef = tu.tree_flatten(od)
    assert leaves == [1, 2]
    out = treedef.unflatten([3, 4])
    assert type(out) is OrderedDict and list(out.items()) == [("b", 3), ("a", 4)]
    assert treedef != tu.tree_structure(OrderedDict([("a", 1), ("b", 2)]))
    assert treedef != tu.tree_structure({"b": 1, "a": 2})


def test_defaultdict():
    dd = defaultdict(list, {"b": 1, "a": 2})
    leaves, treedef = tu.tree_flatten(dd)
    assert leaves == [2, 1]
    out = treedef.unflatten([5, 6])
    assert type(out) is defaultdict and out.default_factory is list
    assert dict(out) == {"a": 5, "b": 6}
    assert treedef != tu.tree_structure(defaultdict(dict, {"b": 1, "a": 2}))
    assert treedef != tu.tree_structure({"b": 1, "a": 2})


def test_none_is_empty_node():
    assert tu.tree_leaves(None) == []
    assert tu.tree_leaves([None, 1, (None,)]) == [1]
    leaves, treedef = tu.tree_flatten((1, None))
    assert treedef.num_leaves == 1
    assert treedef.unflatten([7]) == (7, None)
    assert tu.tree_map(lambda x: x + 1, [1, None, 2]) == [2, None, 3]
    assert tu.tree_structure(None) != tu.tree_structure(1)
    assert tu.tree_unflatten(tu.tree_structure(None), []) is None
    assert repr(tu.tree_structure(None)) == "PyTreeDef(None)"


def test_namedtuple():
    leaves, treedef = tu.tree_flatten(Point(1, (2, 3)))
    assert leaves == [1, 2, 3]
    out = treedef.unflatten([4, 5, 6])
    assert type(out) is Point and out == Point(4, (5, 6))
    assert tu.tree_structure(Point(1, 2)) != tu.tree_structure((1, 2))
    Other = namedtuple("Other", "x y")
    assert tu.tree_structure(Point(1, 2)) != tu.tree_structure(Other(1, 2))


def test_subclasses_of_builtin_containers_are_leaves():
    class D(dict):
        pass

    class T(tuple):
        pass

    assert tu.tree_leaves(D(a=1)) == [D(a=1)]
    assert tu.tree_leaves(T((1, 2))) == [T((1, 2))]


def test_arrays_are_leaves():
    a = np.arange(3)
    leaves = tu.tree_leaves({"x": a, "y": [a, 1.0]})
    assert len(leaves) == 3 and leaves[0] is a


def test_registered_node():
    leaves, treedef = tu.tree_flatten(Box((1, 2), "L"))
    assert leaves == [1, 2]
    assert treedef.unflatten([3, 4]) == Box((3, 4), "L")
    assert treedef != tu.tree_structure(Box((1, 2), "M"))
    assert treedef == tu.tree_structure(Box((5, 6), "L"))


def test_registered_class_decorator():
    p = Pair({"a": 1}, [2, 3], name="n")
    leaves, treedef = tu.tree_flatten(p)
    assert leaves == [1, 2, 3]
    assert treedef.unflatten([4, 5, 6]) == Pair({"a": 4}, [5, 6], name="n")
    assert tu.tree_map(lambda x: x * 10, p) == Pair({"a": 10}, [20, 30], "n")


def test_duplicate_registration():
    with pytest.raises(ValueError, match="Duplicate"):
        tu.register_pytree_node(Box, lambda b: ((), None), lambda a, c: None)
    with pytest.raises(ValueError):
        tu.register_pytree_node(tuple, lambda b: ((), None), lambda a, c: None)


def test_unhashable_aux_data():
    class Meta:
        def __init__(self, v):
            self.v = v
    tu.register_pytree_node(Meta, lambda m: ((), [m.v]),
                            lambda aux, ch: Meta(aux[0]))
    s1, s2, s3 = (tu.tree_structure((1, Meta(v))) for v in (1, 1, 2))
    assert s1 == s2 and s1 != s3
    assert hash(s1) == hash(s2)
    assert {s1: "x"}[s2] == "x"


def test_is_leaf():
    tree = [1, (2, 3), {"a": (4,)}]
    is_tuple = lambda x: isinstance(x, tuple)
    leaves, treedef = tu.tree_flatten(tree, is_leaf=is_tuple)
    assert leaves == [1, (2, 3), (4,)]
    assert treedef.unflatten(leaves) == tree
    assert tu.tree_leaves([None, (1, None)], is_leaf=lambda x: x is None) == [
        None, 1, None]
    assert tu.tree_leaves(tree, is_leaf=lambda x: x is tree) == [tree]
    out = tu.tree_map(lambda t: t[0] if isinstance(t, tuple) else t, tree,
                      is_leaf=is_tuple)
    assert out == [1, 2, {"a": 4}]


def test_tree_map_multiple_trees():
    a = {"x": 1, "y": (2, 3)}
    b = {"y": (20, 30), "x": 10}
    assert tu.tree_map(lambda p, q: p + q, a, b) == {"x": 11, "y": (22, 33)}
    assert tu.tree_map(lambda p, q, r: p + q + r, [1, 2], [3, 4], [5, 6]) == [9, 12]
    # Later trees may hold whole subtrees where the first has leaves.
    assert tu.tree_map(lambda p, q: (p, q), [1, 2], [(3,), {"a": 4}]) == [
        (1, (3,)), (2, {"a": 4})]
    # None in the first tree matches None only, and f never sees it.
    assert tu.tree_map(lambda p, q: p + q, (1, None), (2, None)) == (3, None)
    assert tu.tree_map(lambda p, q: (p, q), (1, 2), (1, None)) == (
        (1, 1), (2, None))


@pytest.mark.parametrize("a, b", [
    ((1, 2), (1, 2, 3)),
    ((1, 2), [1, 2]),
    ({"a": 1}, {"b": 1}),
    ((1, None), (1, 2)),
    (Point(1, 2), (1, 2)),
    (OrderedDict(a=1, b=2), OrderedDict(b=1, a=2)),
    ({"a": 1}, defaultdict(list, a=1)),
    (Box(1, "L"), Box(1, "M")),
    ([1, (2, 3)], [1, (2,)]),
])
def test_tree_map_mismatch(a, b):
    with pytest.raises(ValueError) as info:
        tu.tree_map(lambda *xs: xs, a, b)
    msg = str(info.value)
    assert repr(tu.tree_structure(a)) in msg
    assert repr(tu.tree_structure(b)) in msg


def test_flatten_up_to():
    treedef = tu.tree_structure((1, [2]))
    assert treedef.flatten_up_to(((1, 2), [3])) == [(1, 2), 3]
    with pytest.raises(ValueError):
        treedef.flatten_up_to((1, 2))


def test_treedef_equality_and_hash():
    s1 = tu.tree_structure((1, {"a": 2, "b": [3]}))
    s2 = tu.tree_structure(("x", {"b": ["y"], "a": "z"}))
    s3 = tu.tree_structure((1, {"a": 2, "b": (3,)}))
    assert s1 == s2 and hash(s1) == hash(s2)
    assert s1 != s3
    assert s1 != "PyTreeDef" and s1 != None  # noqa: E711
    cache = {s1: 1}
    assert cache[s2] == 1 and s3 not in cache
    assert tu.tree_structure([1, 2]) != tu.tree_structure((1, 2))
    assert tu.tree_structure([1, 2]) != tu.tree_structure([1, 2, 3])
    assert tu.tree_structure([1, (2,)]) != tu.tree_structure([1, 2])
    assert tu.tree_structure(1) == tu.tree_structure(np.zeros(3))


def test_treedef_repr():
    assert repr(tu.tree_structure((1, {"a": 2}))) == "PyTreeDef((*, {'a': *}))"
    assert repr(tu.tree_structure(1)) == "PyTreeDef(*)"
    assert repr(tu.tree_structure((1,))) == "PyTreeDef((*,))"
    assert repr(tu.tree_structure([1, None])) == "PyTreeDef([*, None])"
    assert repr(tu.tree_structure(Point(1, 2))) == (
        "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))")
    assert repr(tu.tree_structure(Box(1, "L"))) == (
        "PyTreeDef(CustomNode(Box[L], [*]))")


def test_treedef_helpers():
    treedef = tu.tree_structure((1, {"a": [None]}))
    assert treedef.num_nodes == 5
    assert treedef.children() == [tu.tree_structure(0),
                                  tu.tree_structure({"a": [None]})]
    assert tu.treedef_children(treedef) == treedef.children()
    assert tu.treedef_is_leaf(tu.tree_structure(1))
    assert not tu.treedef_is_leaf(treedef)
    t = tu.treedef_tuple([tu.tree_structure((1, 2)), tu.tree_structure(1)])
    assert t == tu.tree_structure(((1, 2), 3)) and t.num_leaves == 3


def test_wrong_leaf_count():
    treedef = tu.tree_structure((1, 2))
    with pytest.raises(ValueError, match="few"):
        treedef.unflatten([1])
    with pytest.raises(ValueError, match="many"):
        treedef.unflatten([1, 2, 3])


def test_reduce_all_and_all_leaves():
    tree = [1, (2, {"a": 3})]
    assert tu.tree_reduce(lambda a, b: a + b, tree) == 6
    assert tu.tree_reduce(lambda a, b: a + b, tree, 10) == 16
    assert tu.tree_reduce(lambda a, b: a + b, [], 0) == 0
    with pytest.raises(TypeError):
        tu.tree_reduce(lambda a, b: a + b, [])
    assert tu.tree_all([1, (True, {"a": 2})])
    assert not tu.tree_all([1, (0,)])
    assert tu.tree_all([])
    assert tu.all_leaves([1, 2.0, np.zeros(2)])
    assert not tu.all_leaves([1, None])
    assert not tu.all_leaves([1, (2,)])
    assert tu.all_leaves([None], is_leaf=lambda x: x is None)


def test_deep_and_wide_trees():
    deep = 0
    for _ in range(300):
        deep = [deep]
    leaves, treedef = tu.tree_flatten(deep)
    assert treedef.unflatten(leaves) == deep
    wide = {"k%d" % i: (i, [i]) for i in range(1500)}
    leaves, treedef = tu.tree_flatten(wide)
    assert treedef.unflatten(leaves) == wide


# --- oracle: the same answers as jax.tree_util --------------------------

def test_against_jax():
    jtu = pytest.importorskip("jax.tree_util")
    try:
        jtu.register_pytree_node(
            Box, lambda b: ((b.value,), b.label),
            lambda label, ch: Box(ch[0], label))
        jtu.register_pytree_node_class(Pair)
    except ValueError:
        pass                            # already registered by an earlier run
    for tree in TREES:
        ours, ours_def = tu.tree_flatten(tree)
        theirs, theirs_def = jtu.tree_flatten(tree)
        assert ours == theirs, tree
        assert repr(ours_def) == repr(theirs_def), tree
        assert ours_def.num_leaves == theirs_def.num_leaves
        assert ours_def.num_nodes == theirs_def.num_nodes
        assert same(ours_def.unflatten(ours), theirs_def.unflatten(theirs))
        is_leaf = lambda x: isinstance(x, (tuple, Box))
        assert tu.tree_leaves(tree, is_leaf) == jtu.tree_leaves(tree, is_leaf)
    # Equality between treedefs agrees with JAX's.
    for a in TREES:
        for b in TREES:
            assert ((tu.tree_structure(a) == tu.tree_structure(b))
                    == (jtu.tree_structure(a) == jtu.tree_structure(b))), (a, b)
    # tree_map with several trees, including prefix matches and mismatches.
    pairs = [([1, 2], [(3,), {"a": 4}]), ((1, None), (1, 2)),
             ((1, 2), (1, None)), ({"a": 1}, {"b": 1}), (Point(1, 2), (1, 2))]
    for a, b in pairs:
        try:
            expected = jtu.tree_map(lambda *xs: xs, a, b)
        except ValueError:
            with pytest.raises(ValueError):
                tu.tree_map(lambda *xs: xs, a, b)
        else:
            assert tu.tree_map(lambda *xs: xs, a, b) == expected
