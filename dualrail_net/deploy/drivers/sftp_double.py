"""TEST DOUBLE: the SFTP side of a netmiko session (``conn.remote_conn_pre.open_sftp()``), writing
into a dict of path -> text, for the platform simulators (SONiC, NVUE) whose drivers upload files the
way they do to a real switch (``base.sftp_upload``: write beside, then rename)."""

from __future__ import annotations


class FilesTransport:
    """Stands in for paramiko's transport: ``open_sftp`` gives a client over ``files``."""

    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def open_sftp(self) -> _Sftp:
        return _Sftp(self.files)


class _Sftp:
    def __init__(self, files: dict[str, str]) -> None:
        self.files = files

    def file(self, path: str, mode: str) -> _File:
        return _File(self.files, path)

    def posix_rename(self, old: str, new: str) -> None:
        self.files[new] = self.files.pop(old)

    def close(self) -> None:
        pass


class _File:
    def __init__(self, files: dict[str, str], path: str) -> None:
        self.files, self.path = files, path
        self.parts: list[str] = []

    def __enter__(self) -> _File:
        return self

    def write(self, text: str) -> None:
        self.parts.append(text)

    def __exit__(self, *exc: object) -> None:
        self.files[self.path] = "".join(self.parts)
