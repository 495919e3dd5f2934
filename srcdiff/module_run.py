"""Running an emitted module, what an Emitted made without its code does when first asked
(Emitted.__getattr__): the scope its functions run in, then its code run there.

The scope is made alone where that is enough to know which of f's names the code reads (it
reads none: `scope_alone`). A first call runs the code specialised for its arguments in that
scope (specialize.py) and needs the generic functions only if something asks for them later
(a signature not specialised, a check against them), so the first call of a long function
does not compile its generic module as well; when they are asked for, the module runs in the
same scope, the one the specialised code sees.
"""

import re

import numpy as np

from . import codegen, runtime
from .emitted import live_names, namespace


class ModuleRun:
    """The run of the emitted module `source` made for fn, `callees` those made with it and
    what makes each of those in a recursion through fn (linked when they have run)."""

    def __init__(self, fn, source, meta, callees, filename, on_disk):
        self.fn, self.source, self.meta, self.callees = fn, source, meta, callees
        self.filename, self.on_disk = filename, on_disk
        self.made = None  # (the scope with the callees' functions, what scope_alone found)

    def scope_alone(self):
        """{scope, live, linked} without running the module, where fn's names that its code
        reads are certainly none (so the scope and the module's imports are all there is to
        make): no callee made in a recursion through fn to link, no defaults of f's to give,
        no import but srcdiff's own, and no word of its code one of fn's names or of its own
        functions'; else None."""
        fn, (_, linked) = self.fn, self.callees
        definitions = codegen.definitions(self.source)
        if linked or fn.__defaults__ or fn.__kwdefaults__ or not definitions.startswith("def "):
            return None
        scope = self._scope()
        cells = fn.__code__.co_freevars
        among = (fn.__globals__.keys() | set(cells) | set(self.meta.names)) - scope.keys()
        if not _none_a_word(among - _IMPORTED.keys(), definitions):
            return None
        scope.update(_IMPORTED)
        self.made = scope, {"scope": scope, "live": [], "linked": []}
        return self.made[1]

    def __call__(self):
        """What running the module gives: its functions, the scope they run in (with the
        callees' functions), the names of fn's it reads live, and the callees linked."""
        fn, meta = self.fn, self.meta
        scope = self._scope()
        alone = self.made[1]  # (what scope_alone found, if it did)
        linked = [make() for make in self.callees[1]]
        for emitted in linked:
            emitted.link(scope)
        # on disk a one-line header precedes the source: keep traceback line numbers in step
        codes = codegen.compiled(
            self.source,
            self.filename,
            first_line=2 if self.on_disk else 1,
            origin=(meta.defined.filename, dict(meta.lines)),
            bare=(meta.names[0], _parameters(fn)) if fn.__defaults__ or fn.__kwdefaults__ else None,
        )
        live = alone["live"] if alone is not None else live_names(codes, scope, fn)
        for name, cell in live:
            try:
                scope[name] = cell.cell_contents if cell is not None else fn.__globals__[name]
            except ValueError:  # a closure variable not assigned yet
                pass
        exec(codes[0], scope)
        functions = {n: scope[n] for n in meta.names}
        _take_defaults(functions[meta.names[0]], fn)
        return {"functions": functions, "scope": scope, "live": live, "linked": linked}

    def _scope(self):
        """fn's module's namespace for emitted code, with the callees' functions (made once:
        the specialised code made before the module runs runs in it too)."""
        if self.made is None:
            scope = namespace(self.fn)
            for emitted in self.callees[0]:
                scope.update(emitted.functions)
            self.made = scope, None
        return self.made[0]


# what codegen.IMPORTS binds, as every emitted module begins
_IMPORTED = {"np": np, "runtime": runtime}


def _none_a_word(names, code):
    """Whether none of `names` is a word of emitted `code` but as the name a def defines (a
    word in a string counts too: one too many only makes scope_alone give up). Few names
    are each looked for in C, most found in no part of the code; many, among its words."""
    if len(names) > _FEW:
        return names.isdisjoint(_WORDS.findall(code))
    return not any(_is_a_word(name, code) for name in names if name in code)


def _is_a_word(name, code):
    """Whether `name` is a word of `code` somewhere, not as the name a def defines."""
    start = code.find(name)
    while start >= 0:
        end = start + len(name)
        if (
            not (start and _in_word(code[start - 1]))
            and not (end < len(code) and _in_word(code[end]))
            and code[max(0, start - 4) : start] != "def "
        ):
            return True
        start = code.find(name, start + 1)
    return False


def _in_word(character):
    return character.isalnum() or character == "_"  # (what \w matches)


_FEW = 30  # (names a module of emitted code is searched for one by one)
# a word of emitted code, but the name a def defines
_WORDS = re.compile(r"(?<!def )\b\w+")


def _take_defaults(emitted, fn):
    """Give the emitted function f's defaults, the values bound when f was defined (its own
    default expressions, evaluated in the emitted module, may read what was rebound since,
    or what it lacks), where it takes f's parameters last (a JVP's tangents come first)."""
    if codegen.takes_parameters(_parameters(emitted), _parameters(fn)):
        emitted.__defaults__, emitted.__kwdefaults__ = fn.__defaults__, fn.__kwdefaults__


def _parameters(fn):
    """(the names of fn's positional parameters, of its keyword-only ones)."""
    code = fn.__code__
    names = code.co_varnames
    return names[: code.co_argcount], names[code.co_argcount :][: code.co_kwonlyargcount]
