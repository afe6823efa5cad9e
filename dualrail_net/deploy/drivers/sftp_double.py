"""TEST DOUBLE: the SFTP side of a netmiko session (``conn.remote_conn_pre.open_sftp()``), writing
into a dict of path -> text, for the platform simulators (SONiC, NVUE) whose drivers upload files the
way they do to a real switch (``base.sftp_upload``: write beside, then rename). A file's mode, when
set, is kept in ``modes`` (and refused once the file has content: a secret must never be readable
by others, so the mode comes before the first byte)."""

from __future__ import annotations


class FilesTransport:
    """Stands in for paramiko's transport: ``open_sftp`` gives a client over ``files``."""

    def __init__(self, files: dict[str, str], modes: dict[str, int] | None = None) -> None:
        self.files = files
        self.modes = {} if modes is None else modes

    def open_sftp(self) -> _Sftp:
        return _Sftp(self.files, self.modes)


class _Sftp:
    def __init__(self, files: dict[str, str], modes: dict[str, int]) -> None:
        self.files, self.modes = files, modes

    def file(self, path: str, mode: str) -> _File:
        self.modes.pop(path, None)
        return _File(self.files, self.modes, path)

    def posix_rename(self, old: str, new: str) -> None:
        self.files[new] = self.files.pop(old)
        if old in self.modes:
            self.modes[new] = self.modes.pop(old)
        else:
            self.modes.pop(new, None)

    def close(self) -> None:
        pass


class _File:
    def __init__(self, files: dict[str, str], modes: dict[str, int], path: str) -> None:
        self.files, self.modes, self.path = files, modes, path
        self.parts: list[str] = []

    def chmod(self, mode: int) -> None:
        if self.parts:
            raise AssertionError(f"{self.path}: mode set after its content was written")
        self.modes[self.path] = mode

    def __enter__(self) -> _File:
        return self

    def write(self, text: str) -> None:
        self.parts.append(text)

    def __exit__(self, *exc: object) -> None:
        self.files[self.path] = "".join(self.parts)
