"""Credentials come from the environment or a secrets file outside the repository, never from the
inventory. Nothing here is logged."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from dualrail_net.secretref import PLACEHOLDER
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
    """The secrets file through the bounded YAML reader. Errors name the file and line, never a value.
    Besides username/key_file/password it may hold ``secrets``: name -> value, the values the
    rendered configs name as ``${secret:NAME}`` (user password hashes, AAA keys, SNMP communities);
    they are returned as ``secret:NAME`` keys."""
    try:
        raw = load_yaml(path, shown, SourceMap()) or {}
    except YamlSourceError as exc:
        raise CredentialError(f"{shown}:{exc.line}: {exc.message}") from None
    allowed = {"username", "key_file", "password"}
    named = raw.get("secrets", {}) if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or not all(k in allowed and isinstance(v, str) for k, v in raw.items() if k != "secrets") \
            or not isinstance(named, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in named.items()):
        raise CredentialError(f"{shown}: a secrets file maps username, key_file and password to strings, and "
                              "secrets to a map of names to strings")
    out = {str(k): str(v) for k, v in raw.items() if k != "secrets"}
    out.update({f"secret:{k}": v for k, v in named.items()})
    return out


_PLACEHOLDER = PLACEHOLDER  # the renderer's ``${secret:NAME}`` (dualrail_net/secretref.py)


def named_secrets(repo_root: Path | None = None) -> dict[str, str]:
    """The ``secrets`` map of DUALRAIL_SECRETS (name -> value); {} without a secrets file."""
    secrets = os.environ.get("DUALRAIL_SECRETS")
    if not secrets:
        return {}
    path = Path(secrets).resolve()
    if (repo_root or Path.cwd()).resolve() in path.parents:
        raise CredentialError(f"{secrets} is inside the repository; keep secrets outside it")
    return {k[7:]: v for k, v in _read_secrets(path, secrets).items() if k.startswith("secret:")}


def substitute_secrets(text: str, secrets: dict[str, str], where: str) -> str:
    """``text`` with every ``${secret:NAME}`` replaced by its value; a name without a value, or with
    a value that is not one word of printable ASCII (``_SECRET_VALUE``), is a CredentialError naming
    it (never a value) before anything is pushed."""
    used = {m.group(1) for m in _PLACEHOLDER.finditer(text)}
    missing = sorted(used - set(secrets))
    if missing:
        raise CredentialError(f"{where} needs secret(s) {', '.join(missing)}: add them under `secrets:` in the "
                              "DUALRAIL_SECRETS file")
    unfit = sorted(name for name in used if not _SECRET_VALUE.fullmatch(secrets[name]))
    if unfit:
        # the value is written into the file as it is: a blank ends it early for FRR, EOS (one word)
        # and the TACACS+ client (it reads a line up to its first blank), a quote or backslash ends
        # or escapes NVUE's YAML and SONiC's JSON strings, a newline starts a line of the device's own
        raise CredentialError(f"{where}: secret(s) {', '.join(unfit)} hold a blank, a quote, a backslash, a "
                              "control or non-ASCII character: the value is written into the device's file as "
                              "it is, where that cuts it short or adds to the file; choose values of printable "
                              "ASCII without them")
    return _PLACEHOLDER.sub(lambda m: secrets[m.group(1)], text)


# a secret value that is one word in every file it is written into (substitute_secrets)
_SECRET_VALUE = re.compile(r'[!#-\[\]-~]+')


def redact_secrets(text: str, secrets: dict[str, str]) -> str:
    """``text`` with every secret's value put back as its ``${secret:NAME}`` placeholder: what a
    device echoes (a diff, an error) is journalled and printed without the values pushed to it.
    Longer values first, so one that contains another is replaced whole; values shorter than four
    characters are left (they would match ordinary text)."""
    for name, value in sorted(secrets.items(), key=lambda kv: -len(kv[1])):
        if len(value) >= 4:
            text = text.replace(value, "${secret:" + name + "}")
    return text


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
