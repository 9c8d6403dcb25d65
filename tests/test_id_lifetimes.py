"""Maps keyed by id(): every keyed object stays alive while the map is consulted (CPython gives a freed
object's address, its id, to the next object allocated there). Cheap: no Numba."""
import gc

import gast
import numpy as np

import astjax
import astjax.analyses.shapes as shapes_module
import astjax.numpy as jnp

ROW = ((1.0,), (2.0,))      # shape (2, 1): `full_like(ROW, x)` makes its shape node from this global
COLUMN = (1.0, 2.0, 3.0)    # shape (3,)


def two_unknown_shapes(x):
    y = jnp.full_like(ROW, x)
    z = jnp.full_like(COLUMN, x)
    return jnp.sum(jnp.sin(y * z))


def test_shape_classes_of_made_nodes_stay_apart(monkeypatch):
    """classify makes a node for a static argument read from a global (`full_like(ROW, x)`'s ROW); its
    `unknown:<id>` class once outlived it, so each fixed-point round gave y and z new classes, ids shared
    between them (two values of different shapes in one class: `unbroadcast` could be left out)."""
    made = []
    original = shapes_module.ShapeClasses.__init__

    def keep(self, *args):
        original(self, *args)
        made.append(self)
    monkeypatch.setattr(shapes_module.ShapeClasses, "__init__", keep)
    g = astjax.grad(two_unknown_shapes)(np.float64(0.7))
    (classes,) = made
    y, z = classes.variable["y"], classes.variable["z"]
    assert len(y) == 1 and len(z) == 1 and y != z
    expected = np.sum(np.cos(0.49 * np.ones((2, 3))) * 2 * 0.7)        # d/dx sum(sin(x * x))
    assert np.allclose(g, expected)


def _classes_and_a_freed_statement():
    tree = gast.parse("def f(x):\n    y = x * 2.0\n    return y\n").body[0]
    classes = shapes_module.ShapeClasses(tree, resolver=None)
    first = classes.statement(tree.body[0])
    replacement = gast.parse("y = x").body[0]
    gc.collect()                                     # nothing else freed between the drop and the new nodes
    tree.body[0] = replacement                       # the analysed statement is dropped from the tree
    return tree, classes, first


def test_shape_class_of_a_statement_is_its_own():
    """A statement made after the analysis (a new node) never takes a freed statement's classes."""
    tree, classes, first = _classes_and_a_freed_statement()
    fresh = [gast.Assign(targets=[], value=None, type_comment=None) for _ in range(2000)]
    assert first == frozenset(["param:x"])
    assert not [s for s in fresh if classes.statement(s) == first]
