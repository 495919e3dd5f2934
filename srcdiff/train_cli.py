"""`python -m srcdiff train`: options, their checks, and the run."""

import argparse
import dataclasses
import os
import sys
import traceback

from srcdiff import checkpoint_file, threads
from srcdiff.checkpoint_file import CheckpointError
from srcdiff.data import DatasetError, load_cifar10, load_digits, prepare
from srcdiff.distributed import DistributedError, Single, world as make_world
from srcdiff.report import matplotlib_pyplot
from srcdiff.train import (
    CIFAR10,
    Config,
    Interrupt,
    TrainingInterrupted,
    best_path,
    check_compatible,
    train,
)

EXAMPLES = """\
examples:
  python -m srcdiff train                                   # ResNet-8 on the 8x8 digits
  python -m srcdiff train --data cifar-10-batches-py --checkpoint r20.npz   # ResNet-20 recipe
  python -m srcdiff train --data cifar-10-batches-py --checkpoint r20.npz --resume
  mpiexec -n 2 python -m srcdiff train --distributed --data cifar-10-batches-py

Ctrl-C stops after the step under way and saves it to --checkpoint; --resume then carries on
exactly as if the run had not stopped."""


def _number(kind, low, low_inclusive=True, high=None):
    def parse(text):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
        too_low = value < low if low_inclusive else value <= low
        if too_low or (high is not None and value >= high):
            bound = f"{'at least' if low_inclusive else 'more than'} {low}"
            raise argparse.ArgumentTypeError(
                f"{text} is out of range: it must be {bound}"
                + (f" and below {high}" if high else "")
            )
        return value

    return parse


def _depth(text):
    depth = _number(int, 2)(text)
    if depth < 8 or (depth - 2) % 6:
        raise argparse.ArgumentTypeError(
            f"{depth} is not 6n + 2 with n >= 1: try 8, 14, 20, 32, 44 or 56"
        )
    return depth


def _milestones(text):
    try:
        epochs = tuple(int(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected epochs like 80,120, got {text!r}") from None
    if any(e < 1 for e in epochs) or list(epochs) != sorted(set(epochs)):
        raise argparse.ArgumentTypeError(f"{text}: epochs must be positive and increasing")
    return epochs


def _default(field, unit=""):
    digits, cifar = getattr(Config, field), CIFAR10.get(field, getattr(Config, field))
    show = lambda v: (",".join(map(str, v)) or "none") if isinstance(v, tuple) else v  # noqa
    if digits == cifar:
        return f"(default: {show(digits)}{unit})"
    return f"(default: {show(cifar)}{unit} on CIFAR-10, {show(digits)}{unit} on digits)"


def build_parser(prog):
    parser = argparse.ArgumentParser(
        prog=prog,
        description=sys.modules["srcdiff.train"].__doc__,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    for title, options in (
        ("data", _data_options),
        ("model", _model_options),
        ("optimisation (SGD with momentum)", _optimisation_options),
        ("run", _run_options),
        ("distributed (under mpiexec)", _distributed_options),
    ):
        options(parser.add_argument_group(title).add_argument)
    return parser


def _data_options(add):
    add(
        "--data",
        metavar="DIR",
        help="CIFAR-10 folder (python version: data_batch_1..5, "
        "test_batch) (default: scikit-learn's 8x8 digits)",
    )
    add(
        "--val",
        type=_number(int, 0),
        metavar="N",
        help="training images held out to choose the best epoch by " + _default("val"),
    )
    add("--limit", type=_number(int, 1), metavar="N", help="train on only N images (default: all)")
    add(
        "--augment",
        action=argparse.BooleanOptionalAction,
        help="random crop (4-pixel padding) and horizontal flip " + _default("augment"),
    )


def _model_options(add):
    add("--depth", type=_depth, help="6n + 2 layers " + _default("depth"))
    add("--width", type=_number(int, 1), help="channels of the first stage " + _default("width"))


def _optimisation_options(add):
    add("--epochs", type=_number(int, 1), help=_default("epochs"))
    add("--batch-size", type=_number(int, 1), help="global batch " + _default("batch_size"))
    add("--lr", type=_number(float, 0, False), help="peak learning rate " + _default("lr"))
    add("--momentum", type=_number(float, 0, True, 1), help=_default("momentum"))
    add(
        "--weight-decay",
        type=_number(float, 0),
        help="on kernels and weight matrices " + _default("weight_decay"),
    )
    add("--schedule", choices=("constant", "step", "cosine"), help=_default("schedule"))
    add(
        "--milestones",
        type=_milestones,
        metavar="E1,E2",
        help="epochs after which the step schedule multiplies lr by --gamma (default: half "
        "and three quarters of --epochs)",
    )
    add("--gamma", type=_number(float, 0, False), help=_default("gamma"))
    add(
        "--warmup",
        type=_number(float, 0),
        metavar="EPOCHS",
        help="linear learning-rate warm-up " + _default("warmup", " epochs"),
    )
    add("--seed", type=int, help="initialisation, split, shuffling, crops " + _default("seed"))


def _run_options(add):
    add(
        "--checkpoint",
        metavar="PATH",
        help="save the run here (.npz) after each epoch and on "
        "Ctrl-C; the best validation epoch goes to PATH.best.npz",
    )
    add(
        "--resume",
        action="store_true",
        help="carry on the run saved at --checkpoint (options "
        "left out are taken from it; --epochs may be raised)",
    )
    add(
        "--metrics",
        metavar="PREFIX",
        help="append each epoch's metrics to PREFIX.csv and "
        "PREFIX.jsonl (default: beside --checkpoint)",
    )
    add("--plot", metavar="PNG", help="write a loss/accuracy plot (needs matplotlib)")
    add("--quiet", action="store_true", help="print only the final accuracy, warnings and errors")
    add(
        "--threads",
        type=_number(int, 1),
        metavar="N",
        help="BLAS threads per process (default: the idle cores' share, see the README)",
    )


def _distributed_options(add):
    add(
        "--distributed",
        action="store_true",
        help="share each batch among the MPI ranks (needs pip install 'srcdiff[distributed]')",
    )
    add(
        "--sync-bn",
        action="store_true",
        default=None,
        help="average the ranks' batch-norm running statistics after every step (default: "
        "each rank keeps its own)",
    )


def check_arguments(parser, args):
    """Option combinations and paths that would fail later: fail now, before any training."""
    if args.resume and not args.checkpoint:
        parser.error("--resume needs --checkpoint PATH: the run to carry on")
    if args.sync_bn and not args.distributed:
        parser.error("--sync-bn applies only with --distributed")
    if args.checkpoint and os.path.exists(args.checkpoint) and not args.resume:
        parser.error(
            f"{args.checkpoint} exists: add --resume to carry on that run, or choose "
            "another --checkpoint to start a new one"
        )
    for option in ("checkpoint", "metrics", "plot"):
        path = getattr(args, option)
        folder = os.path.dirname(os.path.abspath(path)) if path else None
        if folder and not (os.path.isdir(folder) and os.access(folder, os.W_OK)):
            parser.error(
                f"--{option} {path}: the folder {folder} does not exist or is not writable"
            )
    if args.plot and matplotlib_pyplot() is None:
        parser.error("--plot needs matplotlib: pip install matplotlib (it is in srcdiff[examples])")


CONFIG_OPTIONS = [
    f.name for f in dataclasses.fields(Config) if f.name not in ("ranks", "crop_padding")
]


def resolve_config(parser, args, world):
    """The run's Config: the checkpoint's on --resume, else the dataset's recipe; with the
    options given on the command line over it."""
    given = {
        name: getattr(args, name) for name in CONFIG_OPTIONS if getattr(args, name) is not None
    }
    if args.resume:
        meta = world.broadcast(_saved_meta(args.checkpoint) if world.is_root else None)
        if isinstance(meta, CheckpointError):
            raise meta
        if args.data is None and meta["data"].startswith("cifar10"):
            parser.error(f"{args.checkpoint} was trained on CIFAR-10: pass --data DIR as well")
        config = dataclasses.replace(Config.from_record(meta["config"]), **given)
        # before the data are loaded: a wrong option should not cost that wait
        check_compatible(args.checkpoint, meta, dataclasses.replace(config, ranks=world.size))
        return config
    base = Config(**CIFAR10) if args.data else Config()
    if given.get("schedule", base.schedule) == "step" and "milestones" not in given:
        epochs = given.get("epochs", base.epochs)
        given["milestones"] = tuple(sorted({max(1, epochs // 2), max(1, 3 * epochs // 4)}))
    return dataclasses.replace(base, **given)


def _saved_meta(path):
    try:
        return checkpoint_file.load(path)[0]
    except CheckpointError as exc:
        return exc


def load_data(args, config):
    if args.data:
        train_part, test = load_cifar10(args.data)
        name = "cifar10"
    else:
        train_part, test = load_digits(config.seed)
        name = "digits"
    return prepare(
        name, train_part, test, val_size=config.val, limit=config.limit or None, seed=config.seed
    )


def set_threads(parser, args, restart):
    """Before MPI or any work starts (so that a restart, see threads.limit, loses nothing):
    the BLAS thread count for each of the processes the launcher started here."""
    processes = threads.launcher_processes() if args.distributed else 1
    count, warnings = threads.choose(args.threads, processes)
    try:
        note = threads.limit(count, restart=restart)
    except RuntimeError as exc:
        if args.threads:
            parser.error(str(exc))
        warnings.append(str(exc))
        note = "BLAS threads: numpy's default"
    return note, warnings


def run(parser, args, world, note, warnings):
    config = resolve_config(parser, args, world)
    dataset = load_data(args, config)
    if world.is_root:
        for warning in warnings:
            print(f"warning: {warning}", file=sys.stderr)
        if not args.quiet:
            sizes = "/".join(
                str(len(p[1])) for p in (dataset.train, dataset.val or ((), ()), dataset.test)
            )
            print(
                f"ResNet-{config.depth} (width {config.width}) on {dataset.name}, "
                f"train/val/test {sizes}, {config.epochs} epochs, batch {config.batch_size}"
                f"{f' over {world.size} ranks' if world.size > 1 else ''}, {note}"
            )
    metrics = args.metrics or (
        best_path(args.checkpoint)[: -len(".best.npz")] + ".metrics" if args.checkpoint else None
    )
    with Interrupt() as interrupt:
        result = train(
            dataset,
            config,
            checkpoint_path=args.checkpoint,
            resume=args.resume,
            metrics=metrics,
            plot=args.plot,
            quiet=args.quiet,
            world=world,
            interrupt=interrupt,
        )
    final = result.history[-1] if result.history else {}
    if world.is_root and final.get("test_acc") is not None:
        print(f"final test accuracy: {final['test_acc']:.3f}")
    return 0


def main(argv=None, restart=False):
    """`restart`: this process runs the command line (not a caller's argv), and may be
    replaced by the same command with the BLAS thread variables set (see threads.limit)."""
    prog = (
        "srcdiff train" if os.path.basename(sys.argv[0]) == "srcdiff" else "python -m srcdiff train"
    )
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    check_arguments(parser, args)
    note, warnings = set_threads(parser, args, restart)
    try:
        world = make_world(args.distributed)
    except DistributedError as exc:
        parser.error(str(exc))
    try:
        return run(parser, args, world, note, warnings)
    except (DatasetError, CheckpointError, DistributedError) as exc:
        if world.is_root:
            print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    except TrainingInterrupted as exc:
        if world.is_root:
            print(f"\n{exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:  # before training began, or a second Ctrl-C
        print("\nstopped at once: nothing saved since the last checkpoint", file=sys.stderr)
        return 130
    except Exception:
        if isinstance(world, Single):
            raise
        traceback.print_exc()  # one rank failing alone would leave the others waiting
        world.abort()
