"""What the trainer tells: a progress line with images/s and ETA, one line per epoch, metrics
appended to a CSV and a JSON-lines file, and a plot of the history."""

import csv
import json
import os
import time

COLUMNS = ("epoch", "lr", "loss", "train_acc", "val_acc", "test_acc", "seconds", "images_per_s")


def duration(seconds):
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    """Writes to `stream` unless quiet: on a terminal a bar redrawn as the epoch goes, into a
    file or pipe a line a minute (and one per epoch either way)."""

    def __init__(self, stream, quiet, epochs):
        self.stream, self.quiet, self.epochs = stream, quiet, epochs
        self.live = not quiet and stream.isatty()
        self.last_drawn = time.monotonic()

    def say(self, text):
        if not self.quiet:
            self.stream.write(text + "\n")
            self.stream.flush()

    def step(self, epoch, done, total, loss, accuracy, lr, rate):
        """Progress in the epoch under way (`epoch` counts from 1)."""
        now = time.monotonic()
        if self.quiet or now - self.last_drawn < (0.1 if self.live else 60) or done == total:
            return
        self.last_drawn = now
        left = (total - done) / max(rate, 1e-9)
        whole = left + (self.epochs - epoch) * total / max(rate, 1e-9)
        status = (
            f"{done}/{total} loss {loss:.3f} acc {accuracy:.3f} lr {lr:.3g} "
            f"{rate:.0f} img/s ETA {duration(left)} (run {duration(whole)})"
        )
        if not self.live:
            return self.say(f"epoch {epoch}/{self.epochs}: {status}")
        filled = int(24 * done / total)
        self.stream.write(
            f"\repoch {epoch}/{self.epochs} [{'#' * filled}{'.' * (24 - filled)}] {status}\033[K"
        )
        self.stream.flush()

    def epoch_done(self, row, runs_left):
        if self.live:
            self.stream.write("\r\033[K")
        parts = [
            f"epoch {row['epoch']}/{self.epochs}: loss {row['loss']:.4f}",
            f"train accuracy {row['train_acc']:.3f}",
        ]
        parts += [
            f"{name} accuracy {row[key]:.3f}"
            for name, key in (("validation", "val_acc"), ("test", "test_acc"))
            if row.get(key) is not None
        ]
        timing = f"({row['seconds']:.1f} s, {row['images_per_s']:.0f} img/s"
        timing += f", ETA {duration(runs_left * row['seconds'])})" if runs_left else ")"
        self.say(", ".join(parts) + f", lr {row['lr']:.3g} " + timing)


class MetricsLog:
    """Per-epoch rows appended to PREFIX.csv and PREFIX.jsonl as each epoch ends. A new run
    starts both files afresh; a resumed one keeps the rows up to the epoch it resumes after
    (and drops any that a run interrupted after writing them, before its checkpoint, left)."""

    def __init__(self, prefix, keep_through_epoch=None):
        self.csv_path, self.json_path = prefix + ".csv", prefix + ".jsonl"
        kept = (
            []
            if keep_through_epoch is None
            else [row for row in self._read() if row.get("epoch", 0) <= keep_through_epoch]
        )
        with open(self.csv_path, "w", newline="") as f:
            writer = csv.DictWriter(f, COLUMNS, extrasaction="ignore")
            writer.writeheader()
            writer.writerows(kept)
        with open(self.json_path, "w") as f:
            f.writelines(json.dumps(row) + "\n" for row in kept)

    def _read(self):
        if not os.path.exists(self.json_path):
            return []
        rows = []
        with open(self.json_path) as f:
            for line in f:
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError:
                    break  # a line cut short by a crash: it and anything after are dropped
        return [row for row in rows if isinstance(row, dict)]

    def append(self, row):
        with open(self.csv_path, "a", newline="") as f:
            csv.DictWriter(f, COLUMNS, extrasaction="ignore").writerow(row)
        with open(self.json_path, "a") as f:
            f.write(json.dumps(row) + "\n")


def matplotlib_pyplot():
    """matplotlib.pyplot on the file-only Agg backend, or None when it is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


def plot_history(history, path):
    """Loss and accuracies per epoch as a PNG; None (and nothing written) without matplotlib."""
    plt = matplotlib_pyplot()
    if plt is None:
        return None
    epochs = [row["epoch"] for row in history]
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.5))
    left.plot(epochs, [row["loss"] for row in history], marker="o")
    left.set(xlabel="epoch", ylabel="training loss")
    for key, label in (("train_acc", "train"), ("val_acc", "validation"), ("test_acc", "test")):
        points = [(row["epoch"], row[key]) for row in history if row.get(key) is not None]
        if points:
            right.plot(*zip(*points), marker="o", label=label)
    right.set(xlabel="epoch", ylabel="accuracy")
    right.legend()
    for axes in (left, right):
        axes.xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
