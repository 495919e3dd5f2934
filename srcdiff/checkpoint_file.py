"""Training checkpoints: one .npz file holding every array of a run (parameters, optimiser
state, batch-norm running statistics) under its path in the tree (`params/blocks.0.w1`), and
a JSON record (`meta`) of the configuration, the position (epoch, step) and the history.

Nothing in it is pickled (it is read with allow_pickle=False), and it is written to a
temporary file in the same directory and renamed over the old one, so an interrupted or failed
write never leaves a broken checkpoint in place of a good one.
"""

import json
import os
import tempfile
import zipfile

import numpy as np

from .errors import SrcdiffError
from .tree import tree_flatten, tree_unflatten

FORMAT = "srcdiff-train-checkpoint"
VERSION = 1


class CheckpointError(SrcdiffError):
    """A checkpoint that cannot be read, or does not belong to the run asked for."""


def named_leaves(tree):
    """{'stem.w': array, 'blocks.0.w1': array, ...}: each leaf under its path."""
    out = {}

    def walk(prefix, node):
        if isinstance(node, dict):
            items = node.items()
        elif isinstance(node, (list, tuple)):
            items = enumerate(node)
        elif node is None:
            return
        else:
            out[prefix] = node
            return
        for key, child in items:
            walk(f"{prefix}.{key}" if prefix else str(key), child)

    walk("", tree)
    return out


def save(path, meta, trees):
    """Write `meta` (JSON-able) and the arrays of each tree in `trees` ({name: tree}) to path."""
    arrays = {
        "meta": np.frombuffer(
            json.dumps({"format": FORMAT, "version": VERSION, **meta}).encode(), dtype=np.uint8
        )
    }
    for name, tree in trees.items():
        for key, leaf in named_leaves(tree).items():
            arrays[f"{name}/{key}"] = np.asarray(leaf)
    directory, base = os.path.split(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=f".{base}.", suffix=".partial", dir=directory)
    try:
        os.fchmod(handle, 0o666 & ~_umask())  # mkstemp's file is private; np.savez's is not
        with os.fdopen(handle, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def load(path):
    """(meta, {name: {path in tree: array}}) from a checkpoint written by `save`."""
    if not os.path.isfile(path):
        raise CheckpointError(
            f"there is no checkpoint at {path} to resume from",
            hint="check the path, or leave out --resume to start a new run",
        )
    try:
        with np.load(path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except (OSError, ValueError, EOFError, KeyError, zipfile.BadZipFile) as exc:
        raise CheckpointError(
            f"{path} is not a readable checkpoint ({exc or type(exc).__name__})",
            hint="it may be truncated or not a srcdiff checkpoint; resume "
            "from another one or start a new run",
        ) from None
    meta = _meta(path, arrays.pop("meta", None))
    trees = {}
    for key, array in arrays.items():
        name, _, leaf_path = key.partition("/")
        trees.setdefault(name, {})[leaf_path] = array
    return meta, trees


def _meta(path, record):
    try:
        meta = json.loads(record.tobytes().decode()) if record is not None else None
    except (UnicodeDecodeError, json.JSONDecodeError):
        meta = None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise CheckpointError(
            f"{path} was not written by this version of srcdiff train: it holds no configuration",
            hint="start a new run",
        )
    if meta.get("version") != VERSION:
        raise CheckpointError(
            f"{path} is a version {meta.get('version')} checkpoint; this "
            f"srcdiff reads version {VERSION}",
            hint="start a new run",
        )
    return meta


def restore(path, name, stored, like):
    """The tree of `like`'s structure with the arrays `stored` ({path: array}), each checked
    against `like`'s shape and dtype."""
    leaves, treedef = tree_flatten(like)
    expected = named_leaves(like)
    if set(expected) != set(stored):
        missing = sorted(set(expected) - set(stored))[:3]
        extra = sorted(set(stored) - set(expected))[:3]
        raise CheckpointError(
            f"{path}: its {name} do not fit this model (missing {missing}, unexpected {extra})",
            hint="resume with the checkpoint's options",
        )
    restored = []
    for key, leaf in expected.items():
        array = stored[key]
        if np.shape(array) != np.shape(leaf):
            raise CheckpointError(
                f"{path}: {name} {key} has shape {array.shape}, this model {np.shape(leaf)}",
                hint="resume with the checkpoint's options",
            )
        if isinstance(leaf, np.ndarray):
            restored.append(array.astype(leaf.dtype, copy=False))
        else:
            restored.append(type(leaf)(array[()]))  # a Python number stays one
    return tree_unflatten(treedef, restored)
