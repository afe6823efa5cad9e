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


# What a dict answers as attributes (``d.items``): Jinja's own lookup finds those first.
_DICT_MEMBERS = frozenset(dir(dict))


class FabricEnvironment(jinja2.Environment):
    """Jinja's environment with the same answers, found sooner for the structured config's plain dicts.

    ``{{ port.name }}`` compiles to ``environment.getattr(port, "name")``, which asks Python's
    ``getattr`` first and only on its AttributeError looks the key up; structured configs are plain
    dicts, so every printed field paid for a raised exception. For an exact ``dict`` and a name
    that is not one of dict's own members, ``getattr`` always raises, so looking the key up first
    answers the same (a missing key falls through to Jinja's lookup, which then gives the same
    undefined). ``jinja2.Environment`` is the plain reference (tests/test_render.py holds every
    template's output equal under both)."""

    def getattr(self, obj: object, attribute: str) -> object:
        if type(obj) is dict and attribute not in _DICT_MEMBERS:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


@lru_cache(maxsize=32)
def environment(root: str, fmt: OutputFormat, plain: bool = False) -> jinja2.Environment:
    """``plain``: Jinja's own environment class, the reference for ``FabricEnvironment``."""
    env = (jinja2.Environment if plain else FabricEnvironment)(
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
def template(root: str, name: str, fmt: OutputFormat | None = None, plain: bool = False) -> jinja2.Template:
    """Template ``name`` under ``root``, in the environment of its output format (given by the
    platform's OutputFile, or looked up by the file it renders)."""
    fmt = fmt or format_of_template(name)
    # the same call as everyone else's for the fast environment: lru_cache keys on how it is called,
    # and a render must share one environment (and its finalize memo) per format
    env = environment(root, fmt, plain=True) if plain else environment(root, fmt)
    return env.get_template(name)
