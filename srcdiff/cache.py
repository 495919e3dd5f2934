"""Stage 5: the in-memory and on-disk caches of emitted source.

An on-disk entry is executable code, so it is used only when its recorded key and the digest of
its text both match; the directory is private (0700) and entries are 0600, written to a
temporary file and renamed into place. Anything else is regenerated, with a warning saying why.
"""
import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path

MAGIC = "# srcdiff-cache "
stats = {"transforms": 0, "memory_hits": 0, "disk_hits": 0, "disk_rejects": 0}
settings = {"cache": True}
_memory = {}


def directory():
    """The on-disk cache directory, or None when disk caching is off."""
    configured = os.environ.get("SRCDIFF_CACHE_DIR")
    if not settings["cache"] or (configured or "").lower() == "off":
        return None
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "srcdiff"


def digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(str(part).encode())
        h.update(b"\0")
    return h.hexdigest()


def memory_get(key):
    entry = _memory.get(key)
    if entry is not None:
        stats["memory_hits"] += 1
    return entry


def memory_put(key, entry):
    _memory[key] = entry


def path_for(key):
    root = directory()
    return None if root is None else root / f"{key}.py"


def load(key):
    """(source, meta) of a trusted on-disk entry for `key`, or None."""
    path = path_for(key)
    if path is None:
        return None
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return _reject(path, f"cannot read it ({exc})")
    if not os.path.isfile(path) or os.path.islink(path):
        return _reject(path, "it is not a regular file")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        return _reject(path, "another user owns it")
    try:
        text = path.read_text(encoding="utf-8")
        header, body = text.split("\n", 1)
        record = json.loads(header[len(MAGIC):]) if header.startswith(MAGIC) else None
    except (OSError, ValueError, UnicodeDecodeError):
        record = None
    if not isinstance(record, dict) or record.get("key") != key:
        return _reject(path, "its header is missing or belongs to another key")
    if record.get("sha256") != digest(key, body):
        return _reject(path, "its contents do not match its recorded hash")
    stats["disk_hits"] += 1
    return body, record.get("meta", {})


def _reject(path, why):
    stats["disk_rejects"] += 1
    warnings.warn(f"srcdiff: ignoring cache entry {path}: {why}; regenerating it", stacklevel=3)
    return None


def store(key, source, meta):
    """Write an entry atomically; a cache that cannot be written is skipped silently."""
    path = path_for(key)
    if path is None:
        return None
    record = {"key": key, "sha256": digest(key, source), "meta": meta}
    text = MAGIC + json.dumps(record, sort_keys=True) + "\n" + source
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return None
    return path


def clear():
    """Forget the in-memory entries and delete the on-disk ones; returns how many files went."""
    _memory.clear()
    root = directory()
    removed = 0
    if root is not None and root.is_dir():
        for entry in root.glob("*.py"):
            entry.unlink()
            removed += 1
    return removed
