"""Train the numpy ResNet with srcdiff-emitted gradients (`python -m srcdiff train`).

Default data: scikit-learn's bundled 8x8 digits (the `[examples]` extra), no download.
`--data DIR` reads CIFAR-10 from its python-pickle batch files instead and trains with the
CIFAR-10 recipe of He et al. (2016). Under `mpiexec -n N ... --distributed` the ranks share
each batch (srcdiff/distributed.py).
"""

import dataclasses
import math
import signal
import sys
import time
from collections import namedtuple
from dataclasses import dataclass

import numpy as np

import srcdiff as nf
from srcdiff import checkpoint_file, optim, resnet
from srcdiff.checkpoint_file import CheckpointError, named_leaves
from srcdiff.data import Dataset, augment, fingerprint, prepare, sample_crops
from srcdiff.distributed import Single
from srcdiff.report import MetricsLog, Progress, plot_history
from srcdiff.tree import tree_map

# streams of random numbers, each a pure function of (seed, stream, epoch, step): a run resumed
# at any step draws what the uninterrupted run drew there, with no generator state to carry
# (stream 1 is data.prepare's validation split)
INIT, SHUFFLE, CROPS = 0, 2, 3


@dataclass(frozen=True)
class Config:
    """Everything that decides a run's numbers (the defaults: the digits demo)."""

    depth: int = 8  # 6n + 2
    width: int = 16  # channels of the first stage (then 2x, 4x)
    epochs: int = 4
    batch_size: int = 32  # the global batch, shared among MPI ranks
    lr: float = 0.05
    momentum: float = 0.9
    weight_decay: float = 5e-4  # on kernels and weight matrices only
    schedule: str = "constant"  # constant | step | cosine
    milestones: tuple = ()  # epochs after which "step" multiplies lr by gamma
    gamma: float = 0.1
    warmup: float = 0.0  # epochs of linear warm-up from lr / warm-up steps to lr
    augment: bool = False  # random crop (crop_padding) and horizontal flip
    crop_padding: int = 4
    val: int = 0  # training images held out for validation
    limit: int = 0  # train on only this many images (0: all)
    seed: int = 0
    ranks: int = 1  # MPI ranks sharing each batch
    sync_bn: bool = False  # average the ranks' batch-norm running statistics

    def as_record(self):
        return {**dataclasses.asdict(self), "milestones": list(self.milestones)}

    @classmethod
    def from_record(cls, record):
        fields = {f.name for f in dataclasses.fields(cls)}
        return cls(
            **{k: tuple(v) if k == "milestones" else v for k, v in record.items() if k in fields}
        )


# He et al. 2016, section 4.2 (lr 0.1, momentum 0.9, weight decay 1e-4, batch 128, lr / 10 at
# half and three quarters of training), with a one-epoch warm-up and a 45k/5k split
CIFAR10 = dict(
    depth=20,
    epochs=160,
    batch_size=128,
    lr=0.1,
    weight_decay=1e-4,
    schedule="step",
    warmup=1.0,
    augment=True,
    val=5000,
)

# what may differ between a checkpoint and the run that resumes it
RESUMABLE = {"epochs"}

Result = namedtuple("Result", "params state history")

# a tree's leaves by path ({"blocks.0.w1": array}), as tools/bench.py and tests/test_nn.py
# compare parameter trees
flatten = named_leaves


class TrainingInterrupted(Exception):
    """Ctrl-C: the run stopped after a whole step (and saved it, when it has a checkpoint)."""


class Interrupt:
    """Set by Ctrl-C (SIGINT, or SIGTERM) while installed: training then stops after the step
    under way. A second Ctrl-C stops at once."""

    def __init__(self):
        self.requested = False

    def __enter__(self):
        self.previous = {
            sig: signal.signal(sig, self._handle) for sig in (signal.SIGINT, signal.SIGTERM)
        }
        return self

    def _handle(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True

    def __exit__(self, *exc):
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)


@dataclass
class Run:
    """A run's state between steps: all a checkpoint holds, with the configuration."""

    params: dict
    velocity: dict
    bn: dict = None  # batch-norm running statistics (None before the first step)
    epoch: int = 0  # epochs completed
    step: int = 0  # steps completed in the epoch under way
    loss_sum: float = 0.0  # over the epoch's images so far
    correct: int = 0
    seen: int = 0
    seconds: float = 0.0  # spent in the epoch so far (before a resume too)
    history: list = dataclasses.field(default_factory=list)
    best: dict = None  # {"epoch", "val_acc"} of the best validation accuracy


def learning_rate(config, step, steps_per_epoch):
    """The learning rate of global step `step` (0-based)."""
    epoch = step / steps_per_epoch
    warmup_steps = config.warmup * steps_per_epoch
    if step < warmup_steps:
        return config.lr * (step + 1) / warmup_steps
    if config.schedule == "cosine":
        done = (epoch - config.warmup) / max(config.epochs - config.warmup, 1e-9)
        return config.lr * 0.5 * (1 + math.cos(math.pi * min(done, 1.0)))
    if config.schedule == "step":
        return config.lr * config.gamma ** sum(epoch >= m for m in config.milestones)
    return config.lr


def train(
    data,
    config=None,
    *,
    checkpoint_path=None,
    resume=False,
    metrics=None,
    plot=None,
    stream=None,
    quiet=False,
    world=None,
    interrupt=None,
    **options,
):
    """Train a ResNet on `data` (a Dataset, or ((x, y), (x_test, y_test))) and evaluate it each
    epoch; returns Result(params, state, history), history a list of per-epoch metric dicts.

    `options` override fields of `config` (a Config). With `checkpoint_path` the run is saved
    after each epoch (and as `NAME.best.npz` when validation accuracy improves); `resume`
    continues from it. `metrics`: a path prefix for PREFIX.csv and PREFIX.jsonl."""
    world = world or Single()
    config = dataclasses.replace(config or Config(), ranks=world.size, **options)
    dataset = (
        data
        if isinstance(data, Dataset)
        else prepare(
            "arrays", *data, val_size=config.val, limit=config.limit or None, seed=config.seed
        )
    )
    progress = Progress(stream or sys.stdout, quiet or not world.is_root, config.epochs)
    grad = nf.grad(resnet.train_loss, has_aux=True, preserve_result=True)
    run = (
        resume_run(checkpoint_path, dataset, config, world, progress)
        if resume
        else new_run(dataset, config, world)
    )
    log = MetricsLog(metrics, run.epoch if resume else None) if metrics and world.is_root else None
    saver = Saver(checkpoint_path, dataset, config, world)
    if run.epoch >= config.epochs:
        progress.say(
            f"{checkpoint_path} has trained {run.epoch} epochs already: raise --epochs to train on"
        )
    while run.epoch < config.epochs:
        if not run_epoch(run, grad, dataset, config, world, progress, interrupt):
            saver.save(run)
            raise TrainingInterrupted(_interrupted_message(run, checkpoint_path, dataset, config))
        end_epoch(run, dataset, config, world, progress, log, saver)
    if plot and world.is_root and run.history:
        progress.say(
            f"wrote {plot}"
            if plot_history(run.history, plot)
            else "no plot written: matplotlib is not installed"
        )
    return Result(run.params, run.bn, run.history)


def new_run(dataset, config, world):
    x = dataset.train[0]
    params = resnet.init(
        np.random.default_rng([config.seed, INIT]),
        depth=config.depth,
        width=config.width,
        num_classes=dataset.num_classes,
        in_channels=x.shape[1],
    )
    params = world.broadcast(params)  # every rank starts from rank 0's, as DDP does
    return Run(params, optim.momentum_init(params))


def steps_per_epoch(dataset, config):
    return -(-len(dataset.train[1]) // config.batch_size)


def run_epoch(run, grad, dataset, config, world, progress, interrupt):
    """Steps to the end of the epoch under way (from run.step, after a resume); False when
    interrupted first."""
    (x, y), steps = dataset.train, steps_per_epoch(dataset, config)
    order = np.random.default_rng([config.seed, SHUFFLE, run.epoch]).permutation(len(y))
    started = time.monotonic() - run.seconds
    while run.step < steps:
        batch = order[run.step * config.batch_size : (run.step + 1) * config.batch_size]
        lr = learning_rate(config, run.epoch * steps + run.step, steps)
        stopping = train_step(
            run, grad, batch_data(x, y, batch, run, config, world), lr, config, world, interrupt
        )
        run.seconds = time.monotonic() - started
        progress.step(
            run.epoch + 1,
            run.seen,
            len(y),
            run.loss_sum / run.seen,
            run.correct / run.seen,
            lr,
            run.seen / max(run.seconds, 1e-9),
        )
        if stopping:
            return False
    return True


def batch_data(x, y, batch, run, config, world):
    """This rank's share of a global batch, augmented; the random crops are drawn for the whole
    global batch, so that the numbers do not depend on how many ranks share it."""
    if config.augment:
        crops = sample_crops(
            np.random.default_rng([config.seed, CROPS, run.epoch, run.step]),
            len(batch),
            config.crop_padding,
        )
    mine = world.shard(np.arange(len(batch)))
    xb, yb = x[batch[mine]], y[batch[mine]]
    if config.augment:
        xb = augment(xb, crops[0][mine], crops[1][mine], config.crop_padding)
    return xb, yb


def train_step(run, grad, shard, lr, config, world, interrupt=None):
    """One SGD step on the global batch whose share `shard` this rank holds; True if any rank
    was interrupted (the ranks learn it with the step's sums, so they stop at the same step)."""
    xb, yb = shard
    if len(yb):
        grads, loss, (bn, logits) = grad(run.params, run.bn, xb, yb)
        correct = int(np.sum(np.argmax(logits, axis=1) == yb))
    else:  # a last batch smaller than the number of ranks
        grads, loss, bn, correct = tree_map(np.zeros_like, run.params), 0.0, run.bn, 0
    grads = world.mean_gradient(grads, len(yb))
    stop = bool(interrupt and interrupt.requested)  # read after the gradient, which takes long
    loss_sum, correct, seen, stops = world.sum([float(loss) * len(yb), correct, len(yb), stop])
    grads = optim.weight_decay(grads, run.params, config.weight_decay)
    run.params, run.velocity = optim.momentum(run.params, grads, run.velocity, lr, config.momentum)
    run.bn = world.mean_tree(bn) if config.sync_bn else bn
    run.step += 1
    run.loss_sum += float(loss_sum)
    run.correct += int(correct)
    run.seen += int(seen)
    return stops > 0


def evaluate(params, state, data, batch_size=256):
    x, y = data
    correct = 0
    for start in range(0, len(x), batch_size):
        pred = resnet.predict(params, state, x[start : start + batch_size])
        correct += int(np.sum(pred == y[start : start + batch_size]))
    return correct / len(x)


def end_epoch(run, dataset, config, world, progress, log, saver):
    """Evaluate (on rank 0, with its statistics), record, save; then reset the epoch's sums."""
    last = run.epoch + 1 == config.epochs
    accuracy = None
    if world.is_root:
        # the test set is looked at only at the end when there is a validation set to choose by
        val = evaluate(run.params, run.bn, dataset.val) if dataset.val else None
        test = evaluate(run.params, run.bn, dataset.test) if last or not dataset.val else None
        accuracy = (val, test)
    val, test = world.broadcast(accuracy)
    world.check_same(run.params, "parameters")
    steps = steps_per_epoch(dataset, config)
    row = {
        "epoch": run.epoch + 1,
        "lr": learning_rate(config, (run.epoch + 1) * steps - 1, steps),
        "loss": run.loss_sum / run.seen,
        "train_acc": run.correct / run.seen,
        "val_acc": val,
        "test_acc": test,
        "seconds": run.seconds,
        "images_per_s": run.seen / max(run.seconds, 1e-9),
    }
    run.history.append(row)
    run.epoch, run.step, run.loss_sum, run.correct, run.seen, run.seconds = (
        run.epoch + 1,
        0,
        0.0,
        0,
        0,
        0.0,
    )
    improved = val is not None and (run.best is None or val > run.best["val_acc"])
    if improved:
        run.best = {"epoch": run.epoch, "val_acc": val}
    if log:
        log.append(row)
    saver.save(run, best=improved)
    progress.epoch_done(row, config.epochs - run.epoch)


def _interrupted_message(run, path, dataset, config):
    where = (
        f"interrupted in epoch {run.epoch + 1} after step {run.step} of "
        f"{steps_per_epoch(dataset, config)}"
    )
    if not path:
        return where + "; nothing was saved (no --checkpoint was given)"
    return where + f"; saved to {path}: add --resume to carry on exactly where it stopped"


class Saver:
    """Writes checkpoints on rank 0 (the others send it their batch-norm statistics)."""

    def __init__(self, path, dataset, config, world):
        self.path, self.world = path, world
        self.identity = {"config": config.as_record(), "data": fingerprint(dataset)}

    def save(self, run, best=False):
        if not self.path:
            return
        per_rank = self.world.gather(run.bn)
        if not self.world.is_root:
            return
        meta = {
            **self.identity,
            **{
                k: getattr(run, k)
                for k in (
                    "epoch",
                    "step",
                    "loss_sum",
                    "correct",
                    "seen",
                    "seconds",
                    "history",
                    "best",
                )
            },
            "random": "drawn from numpy's default_rng([seed, stream, epoch, step]): no state",
        }
        trees = {"params": run.params, "velocity": run.velocity}
        trees.update({f"bn{rank}": bn for rank, bn in enumerate(per_rank)})
        checkpoint_file.save(self.path, meta, trees)
        if best:
            checkpoint_file.save(best_path(self.path), meta, trees)


def best_path(path):
    stem = path[:-4] if path.endswith(".npz") else path
    return stem + ".best.npz"


def resume_run(path, dataset, config, world, progress):
    """The Run saved at `path`, after checking it was made with `config` on `dataset`."""
    if not path:
        raise CheckpointError(
            "resume needs a checkpoint to resume from",
            hint="pass --checkpoint PATH (the file a run saved)",
        )
    loaded = None
    if world.is_root:
        try:
            loaded = checkpoint_file.load(path)
        except CheckpointError as exc:
            loaded = exc
    loaded = world.broadcast(loaded)
    if isinstance(loaded, CheckpointError):
        raise loaded
    meta, trees = loaded
    check_compatible(path, meta, config, fingerprint(dataset))
    fresh = new_run(dataset, config, Single())
    params = checkpoint_file.restore(path, "parameters", trees.get("params", {}), fresh.params)
    velocity = checkpoint_file.restore(path, "momentum", trees.get("velocity", {}), fresh.velocity)
    stored_bn = trees.get(f"bn{world.rank}", {})
    bn = None
    if stored_bn:
        like = resnet.forward(params, None, dataset.train[0][:1], True)[1]
        bn = checkpoint_file.restore(path, "batch-norm statistics", stored_bn, like)
    run = Run(
        params,
        velocity,
        bn,
        **{
            k: meta[k]
            for k in ("epoch", "step", "loss_sum", "correct", "seen", "seconds", "history", "best")
        },
    )
    position = f"epoch {run.epoch}" + (f", step {run.step}" if run.step else "")
    progress.say(f"resumed from {path} after {position}")
    return run


def check_compatible(path, meta, config, data=None):
    """A CheckpointError naming each option whose value differs from the checkpoint's (and the
    data, when its fingerprint is given)."""
    saved = Config.from_record(meta["config"]).as_record()
    given = config.as_record()
    differ = [
        f"{option_name(k)} {format_value(saved[k])} (these options: {format_value(given[k])})"
        for k in given
        if k not in RESUMABLE and saved.get(k) != given[k]
    ]
    if data is not None and meta["data"] != data:
        differ.append(f"data {meta['data']} (this data: {data})")
    if differ:
        raise CheckpointError(
            f"{path} was written by a run with " + "; ".join(differ),
            hint="resume with the checkpoint's options (leave them out and "
            "they are taken from it), or start a new run with another "
            "--checkpoint",
        )


def option_name(field):
    return "ranks (mpiexec -n)" if field == "ranks" else "--" + field.replace("_", "-")


def format_value(value):
    if isinstance(value, list):
        return ",".join(map(str, value)) or "none"
    return str(value)
