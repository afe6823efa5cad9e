"""Credentials come from the environment or a secrets file outside the repository, never from the
inventory. Nothing here is logged."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dualrail_net.sot.yamlsource import SourceMap, YamlSourceError, load_yaml


class CredentialError(Exception):
    pass


@dataclass(frozen=True)
class Credentials:
    username: str
    key_file: str | None = None
    password: str | None = None

    def __repr__(self) -> str:  # never print a secret by accident
        return f"Credentials(username={self.username!r}, key_file={self.key_file!r}, password={'***' if self.password else None})"


def _read_secrets(path: Path, shown: str) -> dict[str, str]:
    """The secrets file through the bounded YAML reader. Errors name the file and line, never a value."""
    try:
        raw = load_yaml(path, shown, SourceMap()) or {}
    except YamlSourceError as exc:
        raise CredentialError(f"{shown}:{exc.line}: {exc.message}") from None
    allowed = {"username", "key_file", "password"}
    if not isinstance(raw, dict) or not all(k in allowed and isinstance(v, str) for k, v in raw.items()):
        raise CredentialError(f"{shown}: a secrets file maps username, key_file and password to strings")
    return {str(k): str(v) for k, v in raw.items()}


def load_credentials(repo_root: Path | None = None) -> Credentials:
    """DUALRAIL_SSH_USER / DUALRAIL_SSH_KEY / DUALRAIL_SSH_PASSWORD, or DUALRAIL_SECRETS=<yaml file> with
    username/key_file/password. A secrets file inside the repository is refused."""
    secrets = os.environ.get("DUALRAIL_SECRETS")
    data: dict[str, str] = {}
    if secrets:
        path = Path(secrets).resolve()
        root = (repo_root or Path.cwd()).resolve()
        if root in path.parents:
            raise CredentialError(f"{secrets} is inside the repository; keep secrets outside it")
        data = _read_secrets(path, secrets)
    username = os.environ.get("DUALRAIL_SSH_USER", data.get("username", ""))
    key_file = os.environ.get("DUALRAIL_SSH_KEY", data.get("key_file"))
    password = os.environ.get("DUALRAIL_SSH_PASSWORD", data.get("password"))
    if not username or not (key_file or password):
        raise CredentialError("no SSH credentials: set DUALRAIL_SSH_USER and DUALRAIL_SSH_KEY (or "
                              "DUALRAIL_SSH_PASSWORD), or DUALRAIL_SECRETS=<file outside the repo>")
    return Credentials(username, key_file, password)
