"""Connecting to Batfish: fast, and with a clear error when no service is there.

pybatfish retries for minutes by default when the coordinator is down (NOTES: ~440 s with
load_questions=False); we cap the retries and say how to start a service instead."""

from __future__ import annotations

import os
import socket
from typing import Any

from dualrail_net.verify.parsers.files import is_decimal

DOCKER_HINT = ("start one with: docker run --name batfish -v batfish-data:/data -p 8888:8888 -p 9996:9996 "
               "batfish/allinone   (then pass --batfish HOST or set BATFISH_HOST)")


class BatfishUnavailable(Exception):
    pass


def batfish_host(explicit: str | None = None) -> str | None:
    return explicit or os.environ.get("BATFISH_HOST") or None


def _port_open(host: str, port: int, timeout: float) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def parse_host(host: str) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT`` or a URL (``http://HOST:PORT/...``) -> (host, port); BatfishUnavailable
    with the accepted forms when it is none of them."""
    text = host.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
    text = text.split("/", 1)[0]
    hostname, _, port_text = text.rpartition(":") if text.count(":") == 1 else (text, "", "")
    if not port_text:
        hostname = text
    if not hostname or not all(c.isalnum() or c in ".-_" for c in hostname) or \
            (port_text and not (is_decimal(port_text) and 0 < int(port_text) < 65536)):
        raise BatfishUnavailable(f"{host!r} is not a Batfish address; use HOST, HOST:PORT or http://HOST:PORT")
    return hostname, int(port_text) if port_text else 9996


def connect(host: str, timeout: float = 3.0) -> Any:
    """A pybatfish Session on ``host``, or BatfishUnavailable within ``timeout`` seconds or so."""
    hostname, port = parse_host(host)
    if not _port_open(hostname, port, timeout):
        raise BatfishUnavailable(f"no Batfish service at {hostname}:{port}; {DOCKER_HINT}")
    from pybatfish.client.options import Options
    Options.max_retries_to_connect_to_coordinator = 1
    Options.max_initial_tries_to_connect_to_coordinator = 1
    Options.request_backoff_factor = 0
    try:
        from pybatfish.client.session import Session
        return Session(host=hostname)
    except Exception as exc:  # requests' ConnectionError and pybatfish's own errors alike
        raise BatfishUnavailable(f"Batfish at {hostname} did not answer ({type(exc).__name__}); {DOCKER_HINT}") from exc
