"""Normalization: rewrite a function into the small form the transformations read.

First, in-place operations are checked against every other name that may
share their memory and refused where NumPy's meaning would differ (aliasing).
After these passes every statement applies one primitive to names and
constants (`_t1 = jnp.sin(x)`), methods are function calls, updates are
functional (`y = y.at[i].add(v)`), and the function ends in a single return.
Each pass is one file; `normalize` runs them in order.
"""
from .module_aliases import ModuleAliases
from .warning_contexts import WarningContexts
from .loop_else import LoopElse
from .try_finally import TryFinally
from .chained_assignments import ChainedAssignments
from .local_deletes import LocalDeletes
from .comprehension_walrus import ComprehensionWalrus
from .function_lists import FunctionLists
from .walrus_assignments import WalrusAssignments
from .generator_names import GeneratorNames
from .object_subscripts import ObjectSubscripts
from .reserved_names import ReservedNames
from .type_inspection import TypeInspection
from .builtin_extrema import BuiltinExtrema
from .builtin_divmod import BuiltinDivmod
from .sequence_sums import SequenceSums
from .operator_functions import OperatorFunctions
from .aliasing import Aliasing
from .call_signatures import CallSignatures
from .static_star_arguments import StaticStarArguments
from .keyed_ordering import KeyedOrdering
from .iteration_builtins import IterationBuiltins
from .itertools_accumulate import ItertoolsAccumulate
from .generator_consumers import GeneratorConsumers
from .object_records import ObjectRecords
from .namedtuple_constructions import NamedtupleConstructions
from .custom_roots import CustomRoots
from .jvp_calls import JvpCalls
from .lax_control_flow import LaxControlFlow
from .local_functions import LocalFunctions
from .factory_call_results import FactoryCallResults
from .local_factories import LocalFactories
from .closure_factories import ClosureFactories
from .local_function_values import LocalFunctionValues
from .method_calls import MethodCalls
from .function_arguments import FunctionArguments
from .map_calls import MapCalls
from .tree_map_calls import TreeMapCalls
from .scipy_calls import ScipyCalls
from .debug_print_calls import DebugPrintCalls
from .numpy_calls import NumpyCalls
from .array_assembly import ArrayAssembly
from .per_slice_calls import PerSliceCalls
from .augmented_assignment import AugmentedAssignment
from .tuple_assignment import TupleAssignment
from .container_idioms import ContainerIdioms
from .control_flow import ControlFlow
from .one_primitive_per_statement import OnePrimitivePerStatement
from .list_operands import ListOperands
from .dict_operators import DictOperators

from ...codegen.node_walk import copy_tree

__all__ = ["normalize", "PASSES"]

PASSES = (ModuleAliases, CustomRoots, WarningContexts, DictOperators, LocalDeletes, ChainedAssignments, TryFinally, LoopElse, GeneratorNames, ObjectSubscripts, ComprehensionWalrus, FunctionLists, WalrusAssignments, StaticStarArguments, GeneratorConsumers, KeyedOrdering, IterationBuiltins, ItertoolsAccumulate, CallSignatures, ObjectRecords, NamedtupleConstructions, JvpCalls, Aliasing, ReservedNames, TypeInspection,
          BuiltinExtrema, BuiltinDivmod, SequenceSums, TreeMapCalls, MapCalls, ContainerIdioms, OperatorFunctions, FactoryCallResults, ClosureFactories, LocalFactories, LocalFunctionValues, LocalFunctions, MethodCalls,
          FunctionArguments, ScipyCalls, DebugPrintCalls, PerSliceCalls, NumpyCalls, ArrayAssembly, AugmentedAssignment, LaxControlFlow, TupleAssignment, ControlFlow,
          OnePrimitivePerStatement, ListOperands)


def normalize(function_node, context):
    """Run every normalization pass over a copy of `function_node`."""
    node = copy_tree(function_node)
    for pass_class in PASSES:
        node = pass_class(context).run(node)
    return node
