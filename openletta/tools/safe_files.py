"""Opening files for the local tools so that what was checked is what is opened.

Every directory on the way is opened with ``O_NOFOLLOW``, from ``/`` down, so a symbolic
link swapped in after the path was resolved is refused rather than followed; a file is
written through a new temporary file (``O_EXCL``) renamed over it, which replaces a link
put in its place instead of writing through it. Only regular files are read: a FIFO, a
socket or a device is refused before it is opened, and opened with ``O_NONBLOCK`` so that
one swapped in meanwhile cannot block.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from pathlib import Path

from openletta.tools.base import ToolInputError

#: A new file's permissions before the umask (the system applies it, as for any new file).
NEW_FILE_MODE = 0o666
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: How a directory on the way is opened: only to look names up in (``O_PATH`` on Linux), so a
#: directory one may pass through but not list (mode ``0711``) is no obstacle.
_LOOKUP = getattr(os, "O_PATH", os.O_RDONLY) | _DIRECTORY
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: What opening a link with ``O_NOFOLLOW`` (or a file as a directory) fails with.
_SWAPPED = {errno.ELOOP, errno.ENOTDIR, getattr(errno, "EMLINK", errno.ELOOP)}


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in a few words."""
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def refuse_irregular(path: Path, mode: int) -> None:
    """Raise :class:`ToolInputError` unless ``mode`` is a regular file's."""
    if not stat.S_ISREG(mode):
        raise ToolInputError(f"{path} is {kind_of(mode)}, not a regular file; only regular "
                             "files can be read.")


def _changed(path: Path) -> ToolInputError:
    return ToolInputError(f"{path} changed while the call ran (a symbolic link appeared on "
                          "its way): nothing was done. Check the path, then call again.")


@contextlib.contextmanager
def opened_directory(directory: Path, *, create: bool = False) -> Iterator[int]:
    """A descriptor of ``directory`` (absolute, links resolved), opened one component at a
    time without following a link; missing ones are made with ``create``."""
    handle = os.open("/", _LOOKUP)
    try:
        for part in directory.parts[1:]:
            try:
                inner = os.open(part, _LOOKUP | _NOFOLLOW, dir_fd=handle)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, dir_fd=handle)
                inner = os.open(part, _LOOKUP | _NOFOLLOW, dir_fd=handle)
            os.close(handle)
            handle = inner
        yield handle
    except OSError as error:
        if error.errno in _SWAPPED:
            raise _changed(directory) from error
        raise
    finally:
        os.close(handle)


def read_regular(path: Path, target: Path, max_bytes: int) -> bytes:
    """The bytes of the regular file ``target`` (``path`` resolved), for messages called
    ``path``; :class:`ToolInputError` for anything else, or over ``max_bytes``."""
    refuse_irregular(path, os.stat(target).st_mode)
    with opened_directory(target.parent) as directory:
        try:
            handle = os.open(target.name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK,
                             dir_fd=directory)
        except OSError as error:
            if error.errno in _SWAPPED:
                raise _changed(path) from error
            raise
    with os.fdopen(handle, "rb") as stream:
        status = os.fstat(handle)
        refuse_irregular(path, status.st_mode)
        if status.st_size > max_bytes:
            raise ToolInputError(f"{path} is too large to read ({status.st_size:,} bytes): "
                                 "search it with Grep, or look at part of it with Bash (head, "
                                 "tail, sed -n).")
        os.set_blocking(handle, True)
        return stream.read()


def replace_file(target: Path, data: bytes) -> None:
    """Put ``data`` in ``target`` (absolute, links resolved) at once: a new file beside it,
    renamed over it; an existing file's permissions are kept."""
    with opened_directory(target.parent, create=True) as directory:
        try:
            existing = os.stat(target.name, dir_fd=directory, follow_symlinks=False)
        except FileNotFoundError:
            existing = None
        if existing is not None and stat.S_ISLNK(existing.st_mode):
            raise _changed(target)
        if existing is not None and not stat.S_ISREG(existing.st_mode):
            raise ToolInputError(f"{target} is {kind_of(existing.st_mode)}, not a regular "
                                 "file: nothing was written.")
        handle, temporary = _temporary_beside(target.name, directory)
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
                if existing is not None:
                    os.fchmod(stream.fileno(), stat.S_IMODE(existing.st_mode))
            os.replace(temporary, target.name, src_dir_fd=directory, dst_dir_fd=directory)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary, dir_fd=directory)
            raise


def _temporary_beside(name: str, directory: int) -> tuple[int, str]:
    """A new, empty file next to ``name`` in ``directory``, open for writing."""
    while True:
        temporary = f".{name}.{secrets.token_hex(6)}.tmp"
        with contextlib.suppress(FileExistsError):
            return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW,
                           NEW_FILE_MODE, dir_fd=directory), temporary
