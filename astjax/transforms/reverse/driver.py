"""Reverse mode: a primal sweep, then an adjoint sweep that runs the program backwards.

The driver prepares the primal (custom_vjp calls split, loop iterations counted),
runs the analyses (activity, shapes, the tape plan), asks adjoint.py for the
adjoint statements and tape_writer.py for the pushes and pops, and assembles
the generated function: primal sweep, adjoint initialisations, adjoint sweep,
return. Calls to the user's own functions get their own `vjp_<name>`
(transforms/derivation.py), which recomputes the callee's primal sweep.
"""
import copy

import gast

from ...analyses.activity import Activity
from ...analyses.classify import check_refusals
from ...analyses.shapes import ShapeClasses
from ...analyses.tape import TapePlan
from ...codegen.templates import assign, call, name
from ...frontend.normalize.base import copy_location
from .adjoint import AdjointSweep
from .custom_calls import split_custom_vjp_calls
from .loops import count_iterations
from .tape_writer import TapeWriter
from ..primal_calls import redirect_user_calls
from ...codegen.node_walk import walk

__all__ = ["ReverseMode"]

_ZERO = 0.0


class ReverseMode:
    """Differentiate one normalized function in reverse mode.

    wrt: parameter names to differentiate with respect to.
    mode: "grad" (seed 1.0; return the adjoints), "value_and_grad" (also the value)
        or "vjp" (the output's adjoint is an extra parameter).
    has_aux: the function returns (output, aux); aux is returned alongside.
    callee_vjp(fn, mask, node) -> name of the generated vjp of a called user function.
    check_output: (grad mode) the generated code checks the output is a scalar, for a gradient
        that another transformation composes (grad's wrapper checks the value it is handed).
    shape_gradients: each returned gradient is shaped like its parameter (`broadcast_like(bu, u)`), for a
        gradient another transformation composes: grad's wrapper shapes a bare 0.0 (a parameter nothing
        reached), but jit, vmap and the other compositions run this source without the wrapper.
    """

    def __init__(self, context, function_node, wrt, mode="grad", has_aux=False, callee_vjp=None, name=None,
                 bind_name=None, check_output=False, shape_gradients=False, callee_primal=None):
        self.context = context
        self.namer = context.namer
        self.function = function_node
        self.params = [a.id for a in function_node.args.args]
        self.wrt = list(wrt)
        self.mode = mode
        self.check_output = check_output
        self.shape_gradients = shape_gradients
        self.has_aux = has_aux
        self.callee_vjp = callee_vjp
        self.callee_primal = callee_primal
        self.bind_name = bind_name
        self.name = name or f"{mode}_{function_node.name.strip('_') or 'f'}"

    def transform(self):
        ret = self.function.body[-1]
        self.output, self.aux = self._outputs(ret)
        counters = {}
        primal = split_custom_vjp_calls(self.function.body[:-1], self.context, self.bind_name)
        primal = count_iterations(primal, self.namer, counters)
        self.function.body = primal + [ret]
        outputs = [self.output.id] if isinstance(self.output, gast.Name) else []
        self.activity = Activity(self.function, self.context.resolver, self.wrt, outputs)
        check_refusals(self.function, self.context.resolver, self.activity, self.context)
        self.plan = TapePlan(self.function, primal, self.params)
        self.sweep = AdjointSweep(self.context, self.activity, ShapeClasses(self.function, self.context.resolver),
                                  self.plan, counters, self.callee_vjp, self.bind_name)
        self.sweep.outputs = set(outputs)

        self.tape_variables = {n.targets[0].id for n in walk(self.function)
                               if isinstance(n, gast.Assign) and _call_name(n.value) == "Tape"}
        adjoint = self.sweep.reverse_block(primal)
        self.plan.decide(adjoint, self.sweep.restored_by)
        shape_names = {v: self.namer.unique(f"{v}_shape") for v in sorted(self.plan.shape_saved)}
        tape = TapeWriter(self.plan, self.sweep.restores, shape_names, self.namer.unique("_tape"), self.namer.adjoint)
        forward = tape.forward_block(primal)
        if self.callee_primal is not None:
            redirect_user_calls(forward, self.context, self.callee_primal)
        adjoint = tape.resolve_restores(tape.read_saved_shapes(adjoint))

        new_body = self._kept_parameters(primal)
        # the tape's own `v = None` declarations: jit may give them the type v holds later (a user's None
        # keeps its meaning); derivation.py marks them on the generated function
        self.tape_placeholders = self.plan.declarations() if tape.pushed else []
        if tape.pushed:
            new_body.append(assign(tape.tape, call("Tape")))
            new_body += [assign(v, gast.Constant(value=None, kind=None)) for v in self.tape_placeholders]
        new_body += forward
        if self.check_output:
            new_body.append(self._scalar_output_check())
        if self.mode == "value_and_grad" and isinstance(self.output, gast.Name):
            # The adjoint sweep restores overwritten variables, the output's too: keep its value now.
            self.value_name = self.namer.unique("value")
            new_body.append(assign(self.value_name, name(self.output.id)))
        if self.has_aux and isinstance(self.aux, gast.Name):
            kept = self.namer.unique("aux")
            new_body.append(assign(kept, name(self.aux.id)))
            self.aux = name(kept)
        new_body += [assign(shape, call("jnp.shape", name(v))) for v, shape in shape_names.items()]
        new_body += self._adjoint_inits()
        new_body += adjoint
        new_body.append(self._return())
        args = copy.deepcopy(self.function.args)
        if self.mode == "vjp":
            args.args.insert(0, gast.Name(id=self.seed_name, ctx=gast.Param(), annotation=None, type_comment=None))
        fn = gast.FunctionDef(name=self.name, args=args, body=new_body, decorator_list=[], returns=None,
                              type_comment=None, type_params=[])
        return copy_location(fn, self.function)

    def _kept_parameters(self, primal):
        """`x_param = x` for each parameter the body rebinds (`x, w = x`), when the returned gradients are shaped
        like their parameters: the shaping reads the value passed in, not the one the body left in `x`."""
        self.kept = {}
        if not self.shape_gradients:
            return []
        rebound = {n.id for s in primal for n in walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
        self.kept = {p: self.namer.unique(f"{p}_param") for p in self.wrt if p in rebound}
        return [assign(kept, name(p)) for p, kept in self.kept.items()]

    def _outputs(self, ret):
        value = ret.value
        if self.has_aux:
            if not (isinstance(value, gast.Tuple) and len(value.elts) == 2):
                raise self.context.error("with has_aux=True the function must return a pair (output, aux)", ret,
                                         hint="return output, aux")
            return value.elts[0], value.elts[1]
        if isinstance(value, gast.Tuple) and self.mode == "vjp":
            # A tuple output: its cotangent is a tuple too (a TreeAdjoint), read back item by item.
            packed = self.namer.unique("out")
            self.function.body.insert(len(self.function.body) - 1, copy_location(assign(packed, value), ret))
            return name(packed), None
        if isinstance(value, gast.Tuple):
            raise self.context.error(
                "the function returns a tuple; grad and vjp need a single array output here", ret,
                hint="return one array, or pass has_aux=True to return (output, aux).")
        return value, None

    def _adjoint_inits(self):
        out = []
        output = self.output.id if isinstance(self.output, gast.Name) else None
        for variable in sorted(self.activity.active):
            if variable == output and variable not in self.params:
                continue
            if variable in self.tape_variables:
                zero = call("Tape")
            elif self.sweep.needs_shaped_zero(variable) and not self.sweep.starts_bare(variable):
                zero = call("zero_like", name(variable))
            else:      # defined only inside a branch or a loop: shaped where its rule reads it (starts_bare)
                zero = gast.Constant(value=_ZERO, kind=None)
            out.append(assign(self.namer.adjoint(variable), zero))
        if output is not None and output in self.activity.active:
            if self.mode == "vjp":
                self.seed_name = self.namer.adjoint(output) if output not in self.params else self.namer.fresh("ct")
                if self.seed_name != self.namer.adjoint(output):
                    out.append(assign(self.namer.adjoint(output), name(self.seed_name)))
            else:
                out.append(assign(self.namer.adjoint(output), gast.Constant(value=1.0, kind=None)))
        elif self.mode == "vjp":
            self.seed_name = self.namer.fresh("ct")
        return out

    def _scalar_output_check(self):
        """`if jnp.ndim(out) != 0: raise TypeError(...)`: the seed 1.0 stands for a scalar output only.

        grad's wrapper checks the value it is handed, but a gradient composed into
        another transformation (grad(grad(f)) runs the jvp of this source) is never
        handed back to it: without this line a vector output would be summed. Only
        the composed version has it, so the printed gradient stays as a person writes it.
        """
        message = (f"Gradient only defined for scalar-output functions: `{self.function.name}` returned an array. "
                   f"Use jnp.sum(...) to reduce it, or astjax.vjp / astjax.jacrev for non-scalar outputs.")
        test = gast.Compare(left=call("jnp.ndim", copy.deepcopy(self.output)), ops=[gast.NotEq()],
                            comparators=[gast.Constant(value=0, kind=None)])
        error = gast.Raise(exc=call("TypeError", gast.Constant(value=message, kind=None)), cause=None)
        return copy_location(gast.If(test=test, body=[error], orelse=[]), self.function.body[-1])

    def _return(self):
        grads = [name(self.namer.adjoint(p)) if p in self.activity.active else gast.Constant(value=_ZERO, kind=None)
                 for p in self.wrt]
        if self.shape_gradients:
            grads = [call("broadcast_like", g, name(self.kept.get(p, p))) for g, p in zip(grads, self.wrt)]
        grad = grads[0] if len(grads) == 1 else gast.Tuple(elts=grads, ctx=gast.Load())
        value = name(self.value_name) if getattr(self, "value_name", None) else copy.deepcopy(self.output)
        if self.has_aux:
            aux = copy.deepcopy(self.aux)
            if self.mode == "value_and_grad":
                value = gast.Tuple(elts=[value, aux], ctx=gast.Load())
            else:
                grad = gast.Tuple(elts=[grad, aux], ctx=gast.Load())
        returned = gast.Return(value=gast.Tuple(elts=[value, grad], ctx=gast.Load()) if self.mode == "value_and_grad"
                               else grad)
        if self.shape_gradients:      # the shaping belongs to the user's return (a next order's comment says so)
            copy_location(returned, self.function.body[-1])
        return returned


def _call_name(value):
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Name):
        return value.func.id
    return None
