"""inspect.signature of a builtin (numpy's functions written in C: np.concatenate) read off its
text signature with ast. inspect reads it with tokenize, whose first use in a process compiles
its pattern of every string prefix: ~2 ms of a first transform that calls one."""

import ast
import inspect
import types

_Parameter = inspect.Parameter


def signature(fn):
    """inspect.signature(fn); the same Signature, made without tokenize, for a builtin whose
    text signature is plain Python (but for Argument Clinic's `$` before a bound first
    parameter, `$module` or `$self`), with literal defaults."""
    target = inspect.unwrap(
        fn, stop=lambda f: hasattr(f, "__signature__") or isinstance(f, types.MethodType)
    )
    text = getattr(target, "__text_signature__", None)
    if (
        not callable(fn)
        or isinstance(fn, types.MethodType)
        or isinstance(target, types.MethodType)
        or getattr(target, "__signature__", None) is not None
        or hasattr(target, "_partialmethod")
        or not (inspect.isbuiltin(target) or inspect.ismethoddescriptor(target))
        or not isinstance(text, str)
    ):
        return inspect.signature(fn)
    try:
        return _read(text, target)
    except (SyntaxError, ValueError):  # (what inspect reads its own way, or refuses)
        return inspect.signature(fn)


def _read(text, target):
    """The Signature of a builtin's text signature, as inspect makes it (its first parameter,
    marked `$`, left out where the builtin is bound to a module or an object)."""
    marked = text.startswith("($")
    if marked:
        text = "(" + text[2:]
    if "$" in text:
        raise ValueError(text)
    arguments = ast.parse(f"def f{text}: pass").body[0].args
    positional = arguments.posonlyargs + arguments.args
    defaults = [None] * (len(positional) - len(arguments.defaults)) + arguments.defaults
    parameters = [
        _parameter(
            arg,
            _Parameter.POSITIONAL_ONLY
            if k < len(arguments.posonlyargs)
            else _Parameter.POSITIONAL_OR_KEYWORD,
            default,
        )
        for k, (arg, default) in enumerate(zip(positional, defaults))
    ]
    if arguments.vararg is not None:
        parameters.append(_parameter(arguments.vararg, _Parameter.VAR_POSITIONAL))
    parameters += [
        _parameter(arg, _Parameter.KEYWORD_ONLY, default)
        for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults)
    ]
    if arguments.kwarg is not None:
        parameters.append(_parameter(arguments.kwarg, _Parameter.VAR_KEYWORD))
    if marked:
        if getattr(target, "__self__", None) is not None:
            parameters.pop(0)
        else:
            parameters[0] = parameters[0].replace(kind=_Parameter.POSITIONAL_ONLY)
    return inspect.Signature(parameters)


def _parameter(arg, kind, default=None):
    if arg.annotation is not None:
        raise ValueError(arg.arg)
    value = _Parameter.empty if default is None else ast.literal_eval(default)
    return _Parameter(arg.arg, kind, default=value)
