"""The Jinja2 environments: strict (an undefined variable is an error, not an empty string), one per
output format so that every printed value passes that format's escaping rule (``escape.py``), and
compiled once per process."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import jinja2

from dualrail_net.render.escape import OutputFormat, format_of_template, make_finalize, make_join

DEFAULT_TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def templates_dir() -> Path:
    return Path(os.environ.get("DUALRAIL_TEMPLATES", DEFAULT_TEMPLATES))


@lru_cache(maxsize=32)
def environment(root: str, fmt: OutputFormat) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(root),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,
        finalize=make_finalize(fmt),
    )
    env.filters["join"] = make_join(fmt)
    return env


@lru_cache(maxsize=64)
def template(root: str, name: str, fmt: OutputFormat | None = None) -> jinja2.Template:
    """Template ``name`` under ``root``, in the environment of its output format (given by the
    platform's OutputFile, or looked up by the file it renders)."""
    return environment(root, fmt or format_of_template(name)).get_template(name)
