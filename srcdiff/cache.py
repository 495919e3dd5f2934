"""Stage 5: the in-memory and on-disk caches of emitted source.

An on-disk entry is code that will run, so the cache trusts a file only when no other user can
have written it: the directory must be the user's own, not group- or world-writable and not a
symlink (else srcdiff warns once and runs uncached); it is created 0700. Each entry is opened
once, without following symlinks, and its owner and mode are checked on that open descriptor,
so what is read is the file that was checked. Entries are 0600, written to a temporary file
and renamed into place; anything else is regenerated, with a warning saying why.
"""

import contextlib
import errno
import hashlib
import json
import os
import re
import secrets
import stat
import sys
import threading
import warnings
from pathlib import Path

MAGIC = "# srcdiff-cache "
ENTRY_NAME = re.compile(r"[0-9a-f]{64}\.py")  # a key (a sha256 digest) and .py
TEMP_NAME = re.compile(r"\.tmp-[0-9a-f]{16}\.py")
stats = {"transforms": 0, "memory_hits": 0, "disk_hits": 0, "disk_rejects": 0}
settings = {"cache": True}
_memory = {}
_refused = set()  # directories already warned about (one warning each per process)

# Operations relative to an open directory descriptor: once the directory is checked, nothing
# can swap it (or a parent) for another between the check and the use. Windows has no dir_fd;
# there the directory is per-user (%LOCALAPPDATA%) and paths are used.
# (os.replace takes dir_fd wherever os.rename does, though only rename is listed)
_AT = (
    os.open in os.supports_dir_fd
    and os.rename in os.supports_dir_fd
    and os.unlink in os.supports_dir_fd
    and os.stat in os.supports_dir_fd
    and os.listdir in os.supports_fd
)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_OPEN_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)


def default_directory():
    """The user's cache directory for srcdiff, by each platform's convention (as platformdirs
    has it): %LOCALAPPDATA%\\srcdiff\\Cache on Windows, ~/Library/Caches/srcdiff on macOS,
    else $XDG_CACHE_HOME/srcdiff (an absolute XDG_CACHE_HOME only) or ~/.cache/srcdiff."""
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA", "").strip() or os.path.join(
            os.path.expanduser("~"), "AppData", "Local"
        )
        return Path(base) / "srcdiff" / "Cache"
    if sys.platform == "darwin":
        return Path(os.path.expanduser("~")) / "Library" / "Caches" / "srcdiff"
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "srcdiff"


def directory():
    """The configured on-disk cache directory, or None when disk caching is off."""
    configured = os.environ.get("SRCDIFF_CACHE_DIR")
    if not settings["cache"] or (configured or "").lower() == "off":
        return None
    return Path(configured) if configured else default_directory()


# an entry's header, as json.dumps(record, sort_keys=True) writes it (without making an
# encoder for each entry)
_HEADER = json.JSONEncoder(sort_keys=True)


class _Refused(Exception):
    """The cache directory or an entry must not be used; the message says why."""


def _check_owner_and_mode(info, what):
    if os.name != "posix":  # Windows: no POSIX owner or mode bits; the directory is per-user
        return
    if info.st_uid != os.geteuid():
        raise _Refused(f"another user (uid {info.st_uid}) owns it")
    if info.st_mode & 0o022:
        raise _Refused(f"other users can write {what} (mode {stat.S_IMODE(info.st_mode):o})")


def _open_directory(root, create):
    """A descriptor of the cache directory `root` after checking it (None where the platform
    has no dir_fd: Windows). Raises _Refused saying why it is unusable, FileNotFoundError if
    it is missing and not to be created (it is created only when missing: trying to each
    time cost a store four system calls, and two exceptions)."""
    try:
        return _checked_directory(root)
    except FileNotFoundError:
        if not create:
            raise
    try:
        os.makedirs(root.parent, exist_ok=True)
        os.mkdir(root, 0o700)
    except FileExistsError:
        pass  # (made meanwhile, by another process: checked as any other)
    except OSError as exc:
        raise _Refused(f"it cannot be created ({exc.strerror})") from None
    return _checked_directory(root)


def _checked_directory(root):
    """_open_directory's descriptor of `root`, which exists (else FileNotFoundError)."""
    if not _AT:
        info = os.lstat(root)
        if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
            raise _Refused("it is a symbolic link or not a directory")
        _check_owner_and_mode(info, "into it")
        return None
    try:
        fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW)
    except FileNotFoundError:
        raise
    except OSError as exc:
        if os.path.islink(root):
            raise _Refused("it is a symbolic link") from None
        raise _Refused(f"it cannot be opened ({exc.strerror})") from None
    try:
        _check_owner_and_mode(os.fstat(fd), "into it")
    except BaseException:
        os.close(fd)
        raise
    return fd


class _Session(threading.local):
    opened = None  # in a session: False, or the (path, descriptor) of the directory opened


_session = _Session()


@contextlib.contextmanager
def session():
    """Within it (a transform, with a load and a store for each function it makes), the cache
    directory is opened and checked once, not at each load and store."""
    if _session.opened is not None:
        yield
        return
    _session.opened = False
    try:
        yield
    finally:
        opened, _session.opened = _session.opened, None
        if opened and opened[1] is not None:
            os.close(opened[1])


@contextlib.contextmanager
def _usable_directory(create=False):
    """(path, descriptor or None) of the cache directory, checked; (None, None) when disk
    caching is off, the directory is missing (and not to be created) or it is refused (with
    one warning per directory and process). In a session, the one opened first."""
    if _session.opened:
        yield _session.opened
        return
    root, fd = directory(), None
    if root is not None:
        try:
            fd = _open_directory(root, create)
        except FileNotFoundError:
            root = None
        except _Refused as refused:
            if str(root) not in _refused:
                _refused.add(str(root))
                warnings.warn(
                    f"srcdiff: not using the cache directory {root}: {refused}; "
                    "running uncached (set SRCDIFF_CACHE_DIR to a directory of "
                    "your own that only you can write, or to 'off')",
                    stacklevel=_outside_srcdiff(),
                )
            root = None
    if _session.opened is False and root is not None:
        _session.opened = root, fd  # (closed as the session ends)
        yield root, fd
        return
    try:
        yield root, fd
    finally:
        if fd is not None:
            os.close(fd)


def refusal():
    """Why the configured cache directory is not used, or None (it is used, missing or off)."""
    root = directory()
    try:
        fd = None if root is None else _open_directory(root, create=False)
    except (FileNotFoundError, _Refused) as exc:
        return None if isinstance(exc, FileNotFoundError) else str(exc)
    if fd is not None:
        os.close(fd)
    return None


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


def clear_memory():
    """Forget the in-memory entries, and with them the copies specialisation made of their
    functions (numbered in the order a process makes them): a fresh process's state."""
    _memory.clear()


def path_for(key):
    root = directory()
    return None if root is None else root / f"{key}.py"


def _open(root, dir_fd, name, flags, mode=0o600):
    if dir_fd is not None:
        return os.open(name, flags, mode, dir_fd=dir_fd)
    return os.open(root / name, flags, mode)


def _read_trusted(root, dir_fd, name, limit=-1):
    """The bytes of entry file `name` (at most `limit` of them), opened once and checked on
    that descriptor: a regular file of this user's that no one else can write. Raises _Refused
    saying why not, or FileNotFoundError."""
    try:
        fd = _open(root, dir_fd, name, _OPEN_FLAGS)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise FileNotFoundError(name) from None
        if exc.errno in (errno.ELOOP, errno.EMLINK):
            raise _Refused("it is a symbolic link") from None
        raise _Refused(f"cannot read it ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise _Refused("it is not a regular file")
        _check_owner_and_mode(info, "it")
        return f.read(limit)


def load(key):
    """(source, meta) of a trusted on-disk entry for `key`, or None."""
    with _usable_directory() as (root, dir_fd):
        return None if root is None else _load_entry(root, dir_fd, key)


def _load_entry(root, dir_fd, key):
    path = root / f"{key}.py"
    try:
        data = _read_trusted(root, dir_fd, path.name)
    except FileNotFoundError:
        return None
    except _Refused as refused:
        return _reject(path, str(refused))
    try:
        header, body = data.decode("utf-8").split("\n", 1)
        record = json.loads(header[len(MAGIC) :]) if header.startswith(MAGIC) else None
    except (ValueError, UnicodeDecodeError):
        record = None
    if not isinstance(record, dict) or record.get("key") != key:
        return _reject(path, "its header is missing or belongs to another key")
    # Authenticity comes from the checks made on the descriptor the text was read from: only
    # this user (or root, who could as well edit srcdiff itself) can have written a file this
    # user owns, that no one else may write, in a directory no one else may write. A keyed
    # MAC would add nothing, since its key would be a file with that same protection. The
    # digest guards against accidents: a torn write, an edit by hand.
    if record.get("sha256") != digest(key, body):
        return _reject(path, "its contents do not match its recorded hash")
    stats["disk_hits"] += 1
    return body, record.get("meta", {})


def _reject(path, why):
    stats["disk_rejects"] += 1
    warnings.warn(
        f"srcdiff: ignoring cache entry {path}: {why}; regenerating it",
        stacklevel=_outside_srcdiff(),
    )
    return None


def _outside_srcdiff():
    """The stacklevel of the first caller outside srcdiff (and contextlib), for warnings."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and (
        os.path.dirname(frame.f_code.co_filename) == package
        or frame.f_code.co_filename == contextlib.__file__
    ):
        frame, level = frame.f_back, level + 1
    return level


def store(key, source, meta):
    """Write an entry atomically; a cache that cannot be written is skipped silently."""
    record = {"key": key, "sha256": digest(key, source), "meta": meta}
    data = (MAGIC + _HEADER.encode(record) + "\n" + source).encode("utf-8")
    with _usable_directory(create=True) as (root, dir_fd):
        if root is None:
            return None
        name, temp = f"{key}.py", f".tmp-{secrets.token_hex(8)}.py"
        try:
            fd = _open(root, dir_fd, temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW)
        except OSError:
            return None
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            if dir_fd is not None:
                os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
            else:
                os.replace(root / temp, root / name)
        except OSError:
            _unlink(root, dir_fd, temp)
            return None
        return root / name


def _unlink(root, dir_fd, name):
    try:
        os.unlink(name, dir_fd=dir_fd) if dir_fd is not None else os.unlink(root / name)
    except OSError:
        pass


def _entries(root, dir_fd):
    """(name, size) of each file in the directory that is an entry: named by a key (or a
    temporary file left by an interrupted write), this user's, starting with the header."""
    names = os.listdir(dir_fd if dir_fd is not None else root)
    found = []
    for name in sorted(names):
        if not (ENTRY_NAME.fullmatch(name) or TEMP_NAME.fullmatch(name)):
            continue
        try:
            if _read_trusted(root, dir_fd, name, len(MAGIC)) == MAGIC.encode():
                found.append(
                    (
                        name,
                        os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_size
                        if dir_fd is not None
                        else os.lstat(root / name).st_size,
                    )
                )
        except (OSError, _Refused):
            continue
    return found


def entries():
    """(name, size) of each on-disk entry, or None if there is no usable cache directory."""
    with _usable_directory() as (root, dir_fd):
        return None if root is None else _entries(root, dir_fd)


def clear():
    """Forget the in-memory entries and delete the on-disk ones (only files that are entries:
    a key's name and the entry header); returns how many files went."""
    clear_memory()
    with _usable_directory() as (root, dir_fd):
        if root is None:
            return 0
        found = _entries(root, dir_fd)
        for name, _ in found:
            _unlink(root, dir_fd, name)
        return len(found)
