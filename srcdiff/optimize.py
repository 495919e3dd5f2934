"""Stage 4: the optimisation passes (srcdiff/passes/, one module each), in the order they run.
Constant folding and algebraic simplification (passes/fold.py) run earlier, as each template
is instantiated; shape specialisation (specialize.py) runs them again at call time."""

from . import ir
from .passes.copies import propagate_copies
from .passes.dead_code import eliminate_dead_code, eliminate_dead_stacks
from .passes.dict_adjoints import gather_dict_adjoints, gather_row_adjoints
from .passes.in_place import accumulate_in_place
from .passes.nested import nest_temporaries
from .passes.plain_names import Suffixed, drop_suffixes
from .passes.release import release_early
from .passes.saved_names import drop_unread_saved, unpack_as_saved
from .modes import Mode

__all__ = [
    "optimize",
    "propagate_copies",
    "eliminate_dead_code",
    "eliminate_dead_stacks",
    "gather_dict_adjoints",
    "gather_row_adjoints",
    "accumulate_in_place",
    "nest_temporaries",
    "drop_suffixes",
    "release_early",
    "drop_unread_saved",
    "unpack_as_saved",
]


def optimize(funcs, mode, suffixed=None):
    """Run the passes over the emitted functions (in place); in split mode the second
    function is the backward one, which unpacks the saved values (those it still reads) under
    the names the forward one saved them by and frees each after its last use. `suffixed`:
    the names the transform made with a suffix (a plain_names.Suffixed), given back their
    plain names where the code the other passes leave has no clash."""
    for func in funcs:
        name_nodes = ir.NameNodes()  # (each statement walked once for both passes)
        eliminate_dead_code(func, name_nodes)
        propagate_copies(func, name_nodes)
        others = [f for f in funcs if f is not func]  # (whose locals a sum's name must not be)
        if gather_dict_adjoints(func, others):  # (a dict's shape it no longer reads: on a stack?)
            while eliminate_dead_stacks(func):
                pass
            eliminate_dead_code(func)
        accumulate_in_place(func)
        if mode is Mode.JVP:
            nest_temporaries(func)
        drop_suffixes(func, suffixed or Suffixed())
    if mode is Mode.SPLIT:
        if drop_unread_saved(*funcs):
            eliminate_dead_code(funcs[0])  # (a value computed only to be saved)
        unpack_as_saved(*funcs)
        release_early(funcs[1])
