"""Command line: `srcdiff demo | train | show MODULE:FUNCTION | cache info|clear | --version`
(or `python -m srcdiff ...`)."""

import argparse
import importlib
import io
import keyword
import os
import sys
import tokenize

from .errors import SrcdiffError

_COLOURS = {
    "keyword": "\033[1;34m",
    "string": "\033[32m",
    "comment": "\033[90m",
    "number": "\033[35m",
    "reset": "\033[0m",
}


def highlight(source):
    """ANSI-coloured Python source (keywords, strings, comments, numbers)."""
    starts = [0]
    for line in source.splitlines(True):
        starts.append(starts[-1] + len(line))
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError):
        return source
    out, done = [], 0
    for tok in tokens:
        kind = (
            "keyword"
            if tok.type == tokenize.NAME and keyword.iskeyword(tok.string)
            else {
                tokenize.STRING: "string",
                tokenize.COMMENT: "comment",
                tokenize.NUMBER: "number",
            }.get(tok.type)
        )
        if not kind:
            continue
        begin = starts[tok.start[0] - 1] + tok.start[1]
        out += [source[done:begin], _COLOURS[kind], tok.string, _COLOURS["reset"]]
        done = begin + len(tok.string)
    return "".join(out) + source[done:]


def _load(spec):
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise SystemExit(f"srcdiff show: expected MODULE:FUNCTION, got {spec!r}")
    sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SystemExit(f"srcdiff show: cannot import module {module_name!r}: {exc}") from None
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise SystemExit(f"srcdiff show: module {module_name!r} has no function {attr!r}")
        obj = getattr(obj, part)
    return getattr(obj, "fun", obj)


def show(args):
    import srcdiff as nf

    fn = _load(args.target)
    wrt = tuple(int(w) for w in args.wrt.split(","))
    wrt = wrt[0] if len(wrt) == 1 else wrt
    if args.mode == "forward":
        derivative = nf.jvp(fn, wrt=wrt, optimized=not args.raw)
    else:
        derivative = nf.grad(fn, wrt=wrt, optimized=not args.raw)
    source = (
        derivative.source
        if args.args is None
        else derivative.source_for(*parse_arguments(args.args))
    )
    colour = args.color == "always" or (
        args.color == "auto"
        and sys.stdout.isatty()
        and os.environ.get("TERM", "dumb") != "dumb"
        and "NO_COLOR" not in os.environ
    )
    sys.stdout.write(highlight(source) if colour else source)
    return 0


def parse_arguments(spec):
    """Arguments standing in for a call's, from words like `float32[32,3,8,8]` (zeros of that
    dtype and shape), `float` (a Python float), `floats` (a list of them), `3` (an int) or
    `none`."""
    import numpy as np

    out = []
    for word in spec.split():
        dtype, bracket, dims = word.partition("[")
        try:
            if bracket:
                shape = tuple(int(d) for d in dims.rstrip("]").split(",") if d.strip())
                out.append(np.zeros(shape, dtype=np.dtype(dtype)))
            elif word == "float":
                out.append(0.0)
            elif word == "floats":  # a list of them, of any length
                out.append([0.0])
            elif word == "none":
                out.append(None)
            else:
                out.append(int(word))
        except (TypeError, ValueError):
            raise SystemExit(
                f"srcdiff show: cannot read argument {word!r}; write a dtype and "
                "a shape (float32[64,10]), float, floats, an int or none"
            ) from None
    return out


def cache_command(args):
    from . import cache

    root = cache.directory()
    if root is None:
        print("on-disk cache: off (SRCDIFF_CACHE_DIR=off)")
        return 0
    refused = cache.refusal()
    if refused:
        print(f"on-disk cache: {root} is not used: {refused}", file=sys.stderr)
        return 1
    if args.action == "clear":
        print(f"removed {cache.clear()} cached entries from {root}")
        return 0
    entries = cache.entries() or []
    size = sum(size for _, size in entries)
    print(f"on-disk cache: {root}\nentries: {len(entries)}\nsize: {size / 1024:.1f} KiB")
    return 0


def program():
    """What the user typed to run srcdiff, for usage lines: `python -m srcdiff`, or the
    console script `srcdiff`."""
    run_as_module = os.path.basename(sys.argv[0] if sys.argv else "") == "__main__.py"
    return "python -m srcdiff" if run_as_module else "srcdiff"


def main(argv=None):
    from . import __version__

    command_line = argv is None  # (not a caller's list): the trainer may restart it
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["train"]:
        from .train_cli import main as train

        return train(argv[1:], restart=command_line)
    prog = program()
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--version", action="version", version=f"srcdiff {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="check an emitted gradient, then train a small ResNet")
    commands.add_parser("train", help=f"train the numpy ResNet ({prog} train -h)")
    show_parser = commands.add_parser("show", help="print the emitted derivative of a function")
    show_parser.add_argument("target", help="MODULE:FUNCTION, e.g. srcdiff.resnet:loss")
    show_parser.add_argument("--wrt", default="0", help="argument positions, e.g. 0,1")
    show_parser.add_argument("--mode", choices=("reverse", "forward"), default="reverse")
    show_parser.add_argument("--raw", action="store_true", help="skip optimisation passes")
    show_parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    show_parser.add_argument(
        "--args",
        metavar="SPEC",
        help="show the code a call runs for arguments of these types "
        "and shapes, e.g. 'float64[4,4] float floats 3 none'",
    )
    cache_parser = commands.add_parser("cache", help="show or clear the on-disk cache")
    cache_parser.add_argument("action", choices=("info", "clear"))
    args = parser.parse_args(argv)
    try:
        if args.command == "demo":
            from .demo import main as demo

            return demo()
        if args.command == "cache":
            return cache_command(args)
        return show(args)
    except SrcdiffError as exc:
        print(f"srcdiff: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
