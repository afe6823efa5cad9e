"""Reading rendered files: fast, and never through a link."""

from __future__ import annotations

import os
from collections.abc import Container
from pathlib import Path

from dualrail_net.outdir import NotRegular, TooLarge, read_regular


class UnreadableFile(Exception):
    """A rendered file that verification will not read (a symlink, a FIFO, a device, not UTF-8
    text, longer than MAX_FILE_BYTES)."""


# The most a rendered file verify reads may hold: far above any file render writes (the largest,
# the cabling plan of a 100k-GPU fabric, is tens of MB: docs/performance.md), so that a file grown
# by accident or on purpose is refused in one line instead of filling the memory
MAX_FILE_BYTES = 256 << 20


def _too_large(path: Path, exc: TooLarge) -> UnreadableFile:
    return UnreadableFile(f"{path}: error: {exc.size} bytes or more, longer than any file render writes (verify "
                          f"reads at most {MAX_FILE_BYTES >> 20} MiB per file); remove it and re-render")


def read_text(path: Path) -> str:
    """The file's text as Path.read_text gives it (UTF-8, universal newlines); a missing file reads
    as empty. Read with os.read: no exists() call and no text-mode
    file object, which dominate for the tens of thousands of small files of a large fabric."""
    return read_text_noting_cr(path)[0]


def read_text_as_written(path: Path) -> str:
    """The file's text with its carriage returns kept, for a program that splits lines at line feeds
    only and keeps a CR in the line (glibc's res_init reads resolv.conf so: an address that ends
    in one is no address to it)."""
    return read_text_noting_cr(path, translate=False)[0]


def read_text_noting_cr(path: Path, translate: bool = True) -> tuple[str, int]:
    """read_text's text and the line of the file's first carriage return (0: none). A program that
    reads lines itself (ifupdown2, systemd, FRR, opensm) takes CRLF line ends as line ends; a shell
    does not: the CR stays in the line's last word (checks of shell-read files need to know).
    ``translate``: CR line ends made line feeds, as text mode does (else the text as written)."""
    try:
        # O_NOFOLLOW: a link planted in the rendered folder is refused, never read through (it could
        # point at any file on the machine, and findings quote what they read)
        data = read_regular(path, limit=MAX_FILE_BYTES)
    except TooLarge as exc:
        raise _too_large(path, exc) from None
    except NotRegular as exc:
        if exc.link:
            raise UnreadableFile(f"{path}: error: a symlink; verify reads only regular files (remove it and "
                                 "re-render)") from None
        raise UnreadableFile(f"{path}: error: not a regular file; remove it and re-render") from None
    if data is None:
        return "", 0
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:  # (a hand edit or a stray binary: refused in one line, never a traceback)
        line = data.count(b"\n", 0, exc.start) + 1
        raise UnreadableFile(f"{path}:{line}: error: not UTF-8 text (byte 0x{data[exc.start]:02x}); verify reads "
                             "text files only") from None
    if "\r" not in text:
        return text, 0
    first = text.count("\n", 0, text.index("\r")) + 1
    # (what text mode does: \r\n and a lone \r end a line)
    return (text.replace("\r\n", "\n").replace("\r", "\n") if translate else text), first


def read_bytes(path: Path) -> bytes:
    """The file's bytes, through the same guard as read_text (no link followed, no FIFO or device;
    a missing file reads as empty): what leaves the machine (a Batfish snapshot) is only our files."""
    try:
        data = read_regular(path, limit=MAX_FILE_BYTES)
    except TooLarge as exc:
        raise _too_large(path, exc) from None
    except NotRegular as exc:
        what = "a symlink" if exc.link else "not a regular file"
        raise UnreadableFile(f"{path}: error: {what}; dualrail reads only regular files (remove it and re-render)") from None
    return data or b""


MAX_DIGITS = 20  # (2**64 has 20 digits)


def is_decimal(text: str) -> bool:
    """ASCII digits only, at most 20 of them: str.isdigit() is also true for '²' or '٣', which int()
    then refuses (or reads as another number), and int() refuses more than 4,300 digits: a
    hand-edited file must not crash a reader through it (no number a config holds has more than 20)."""
    return text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS


def mask_length(mask: str) -> int | None:
    """'255.255.255.254' (or '31') -> 31; None for what is not a contiguous mask."""
    if is_decimal(mask):
        return int(mask) if int(mask) <= 32 else None
    parts = mask.split(".")
    if len(parts) != 4 or not all(is_decimal(p) and int(p) <= 255 for p in parts):
        return None
    value = 0
    for p in parts:
        value = value << 8 | int(p)
    length = bin(value).count("1")
    return length if value == ((1 << length) - 1) << (32 - length) else None


def options_known(words: list[str], flags: Container[str], valued: Container[str]) -> bool:
    """Whether every word of a line's options is one of ``flags`` or one of ``valued`` followed by
    its value (EOS's and ntpsec's server lines)."""
    index = 0
    while index < len(words):
        if words[index] in valued and index + 1 < len(words):
            index += 2
        elif words[index] in flags:
            index += 1
        else:
            return False
    return True


def refuse_linked_folders(root: Path, folders: list[str]) -> None:
    """UnreadableFile when a folder on the way from ``root`` to one of ``folders`` (relative, as the
    manifest names them) is a symbolic link: each file is opened without following a link, but a
    linked folder above it would still be read through (its files anywhere on the machine). Each
    folder on the way is looked at once."""
    seen: set[str] = set()
    for folder in folders:
        parts = Path(folder).parts
        for depth in range(1, len(parts) + 1):
            step = "/".join(parts[:depth])
            if step in seen:
                continue
            seen.add(step)
            if os.path.islink(root / step):
                raise UnreadableFile(f"{root / step}: error: a symlink; verify reads only the rendered folder's own "
                                     "files (remove it and re-render)")
