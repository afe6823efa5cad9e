"""The Jinja2 environment: strict (an undefined variable is an error, not an empty string) and
compiled once per process."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import jinja2

DEFAULT_TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def templates_dir() -> Path:
    return Path(os.environ.get("DUALRAIL_TEMPLATES", DEFAULT_TEMPLATES))


@lru_cache(maxsize=8)
def environment(root: str) -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(root),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,
    )


@lru_cache(maxsize=64)
def template(root: str, name: str) -> jinja2.Template:
    return environment(root).get_template(name)
