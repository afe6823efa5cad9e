"""The escaping rule (issue 14): no inventory string reaches a rendered file unescaped.

Two layers, each tested on its own:
* the schema: every string field of the example, replaced by hostile values, is either refused at
  validation (with its file and line) or renders files of exactly the clean structure;
* the templates: every string a template prints, replaced by a hostile value *after* validation (as if
  the schema had a hole), is refused by the format's ``finalize`` or escaped (free text), never printed
  raw. This is the test that fails if a template prints an unescaped field.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml

from conftest import EXAMPLE
from dualrail_net.render import render_fabric
from dualrail_net.render.engine import environment, template, templates_dir
from dualrail_net.render.escape import FORMAT_OF_FILE, OutputFormat, Text, UnsafeValue, format_of_template
from dualrail_net.render.infiniband import IB_FILES, ib_structured
from dualrail_net.platforms import get_platform
from dualrail_net.render.servers import SERVER_FILES, server_structured
from dualrail_net.render.structured import switch_structured
from dualrail_net.resolve import resolve_fabric
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.load import InventoryError, load_inventory
from dualrail_net.sot.validate import validate

HOSTILE = [
    "x\npost-up touch /tmp/pwned", "x\rinjected", "x\x00y", "x # comment", "x ; y", "x'y", 'x"y', "$(id)",
    "`id`", "{{ 7*7 }}", "two words", "x\\", "x?", "x\u2028y", "x\x1b[2J", "x\u202ey",
]


def skeleton(text: str) -> list[str]:
    """The structure of a rendered file: one entry per line, its first token (a comment is '#'/'!').
    An injected line, stanza, key or command changes it; a value changing in place does not."""
    out = []
    for line in text.split("\n"):
        head = line.split(maxsplit=1)
        out.append(head[0][0] if head and head[0][0] in "#!" else (head[0] if head else ""))
    return out


def _lines_of_file(text: str) -> int:
    # what every consumer counts as lines, Python's splitlines included (\x85, \u2028, \x0b, ...)
    return len(text.splitlines())


# ---------------------------------------------------------------------------------------------
# layer 1: the schema


def _string_fields(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], str]]:
    """(path, kind) of every string value ('value') and every mapping key ('key') in ``data``."""
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str):
                yield (*path, key), "key"
            yield from _string_fields(value, (*path, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _string_fields(value, (*path, i))
    elif isinstance(data, str):
        yield path, "value"


def _pattern(path: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(0 if isinstance(p, int) else p for p in path)


def _replace(data: Any, path: tuple[Any, ...], kind: str, hostile: str) -> Any:
    data = copy.deepcopy(data)
    node = data
    for part in path[:-1]:
        node = node[part]
    if kind == "key":
        node[hostile] = node.pop(path[-1])
    else:
        node[path[-1]] = hostile
    return data


def _schema_cases() -> list[tuple[str, tuple[Any, ...], str, str]]:
    cases = []
    n = 0
    for name in ("fabric.yaml", "qos.yaml", "servers.yaml", "infiniband.yaml"):
        data = yaml.safe_load((EXAMPLE / name).read_text())
        seen = set()
        for path, kind in _string_fields(data):
            key = (_pattern(path), kind)
            if key in seen:
                continue
            seen.add(key)
            for k in range(3):  # three hostile values per field, rotating through the list
                cases.append((name, path, kind, HOSTILE[(n + k * 5) % len(HOSTILE)]))
            n += 1
    return cases


SCHEMA_CASES = _schema_cases()


@pytest.fixture(scope="module")
def clean_skeletons(example_fabric: Fabric) -> dict[str, list[str]]:
    return {a.path: skeleton(a.content) for a in render_fabric(example_fabric).artifacts}


@pytest.mark.parametrize("name,path,kind,hostile", SCHEMA_CASES,
                         ids=[f"{c[0]}:{'.'.join(map(str, c[1]))}:{c[2]}:{i}" for i, c in enumerate(SCHEMA_CASES)])
def test_hostile_string_field_is_refused_or_rendered_inert(tmp_path: Path, clean_skeletons: dict[str, list[str]],
                                                           name: str, path: tuple[Any, ...], kind: str,
                                                           hostile: str) -> None:
    root = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, root)
    data = yaml.safe_load((root / name).read_text())
    (root / name).write_text(yaml.safe_dump(_replace(data, path, kind, hostile), allow_unicode=False))
    try:
        loaded = load_inventory(root)
        errors = [d for d in validate(loaded) if d.severity.value == "error"]
    except InventoryError as exc:
        errors = exc.diagnostics
    if errors:
        for d in errors:
            assert "\n" not in d.format() and d.format().isprintable()
        assert any(d.file.endswith(name) and d.line >= 1 for d in errors) or \
            all(d.line >= 1 for d in errors), [d.format() for d in errors]
        return
    # accepted: then it is free text, and every file keeps the clean structure
    rendered = render_fabric(resolve_fabric(loaded.inventory))
    for art in rendered.artifacts:
        if art.path in clean_skeletons and not art.path.endswith((".json", ".csv")):
            assert skeleton(art.content) == clean_skeletons[art.path], (art.path, hostile)
            assert _lines_of_file(art.content) == len(clean_skeletons[art.path]) - 1 or \
                _lines_of_file(art.content) == len(clean_skeletons[art.path]), art.path
            assert all(c.isprintable() or c == "\n" for c in art.content), art.path


def test_free_text_reaches_its_file_escaped(tmp_path: Path) -> None:
    """The one free-text field (a server model's description) is accepted when printable and shows up
    in the servers' files; a description with a newline is refused at validation."""
    root = tmp_path / "inventory"
    shutil.copytree(EXAMPLE, root)
    text = (root / "servers.yaml").read_text()
    (root / "servers.yaml").write_text(text.replace(
        "description: 8-GPU server, 4 dual-port", "description: '8-GPU $(id) `x` # ; \\ server' #", 1))
    fabric = resolve_fabric(load_inventory(root).inventory)
    out = render_fabric(fabric).by_path()["servers/gpu001/interfaces"]
    # ifupdown2 joins the lines around any backslash: it never reaches an interfaces file
    assert "# hgx-hpn-4x2: 8-GPU $(id) `x` # ; _ server" in out and "\\" not in out


# ---------------------------------------------------------------------------------------------
# layer 2: the templates' finalize


def _leaves(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _leaves(value, (*path, key))
    elif isinstance(data, (list, tuple)):
        for i, value in enumerate(data):
            yield from _leaves(value, (*path, i))
    elif isinstance(data, str):
        yield path


def _set(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    data = copy.deepcopy(data)
    node = data
    for part in path[:-1]:
        node = node[part]
    if isinstance(node, tuple):
        raise TypeError("tuple")
    node[path[-1]] = type(node[path[-1]])(value) if isinstance(node[path[-1]], Text) else value
    return data


Context = tuple[str, str, OutputFormat | None, Callable[[dict[str, Any]], dict[str, Any]], dict[str, Any]]


def _contexts(fabric: Fabric) -> Iterator[Context]:
    """(label, template, its format, the presentation function, s) for one device of each kind the
    fabric renders (``p`` is computed again from every hostile ``s``: presentation values are
    printed too)."""
    picked: dict[tuple[str, str, bool], Any] = {}
    for sw in fabric.switches.values():
        picked.setdefault((sw.role, sw.platform, sw.plane is None), sw)
    for sw in picked.values():
        platform = get_platform(sw.platform)
        s = switch_structured(fabric, sw)
        for f in platform.files:
            yield sw.name, f.template, f.format, platform.presentation, s
    srv = fabric.servers[0]
    for tpl, _name in SERVER_FILES:
        yield srv.name, tpl, None, lambda _s: {}, server_structured(fabric, srv)
    plane = next(iter(fabric.ib_planes.values()))
    for tpl, _name in IB_FILES:
        yield plane.name, tpl, None, lambda _s: {}, ib_structured(plane)


def _template_cases(fabric: Fabric) -> list[tuple[Context, tuple[Any, ...], str]]:
    cases = []
    n = 0
    for context in _contexts(fabric):
        seen = set()
        for path in _leaves(context[4]):
            if _pattern(path) in seen:
                continue
            seen.add(_pattern(path))
            cases.append((context, path, HOSTILE[n % len(HOSTILE)]))
            n += 1
    return cases


def _check_every_printed_string(fabric: Fabric) -> tuple[int, int, int]:
    root = str(templates_dir())
    printed = refused = escaped = 0
    for (label, tpl, fmt, present, s), path, hostile in _template_cases(fabric):
        clean = template(root, tpl, fmt).render(s=s, p=present(s))
        try:
            bad_s = _set(s, path, hostile)
        except TypeError:
            continue
        try:
            out = template(root, tpl, fmt).render(s=bad_s, p=present(bad_s))
        except UnsafeValue:
            refused += 1
            continue
        if out == clean:
            continue  # the template does not print this field
        printed += 1
        assert skeleton(out) == skeleton(clean), (label, tpl, path, hostile)
        assert all(c.isprintable() or c == "\n" for c in out), (label, tpl, path)
        escaped += 1
    return printed, refused, escaped


def test_every_printed_string_is_checked_or_escaped(example_fabric: Fabric) -> None:
    printed, refused, escaped = _check_every_printed_string(example_fabric)
    assert refused > 100, refused  # the check really ran over the printed fields
    assert printed == escaped and escaped >= 1  # the free-text field was printed, escaped


@pytest.mark.parametrize("platform", ["sonic", "cumulus-nvue"])
def test_every_printed_string_is_checked_or_escaped_on(platform: str, tmp_path: Path) -> None:
    """The same on every role a newer platform renders (its presentation values included)."""
    from conftest import platform_variant
    roles = {role: platform for role in ("leaf", "spine", "gateway") if role in get_platform(platform).roles}
    fabric = resolve_fabric(load_inventory(platform_variant(tmp_path, **roles)).inventory)
    printed, refused, escaped = _check_every_printed_string(fabric)
    assert refused > 100 and printed == escaped


def test_a_hostile_value_in_any_template_is_refused(tmp_path: Path) -> None:
    """A new template, printing a field with no thought of escaping, still cannot write it raw."""
    for filename, fmt in FORMAT_OF_FILE.items():
        (tmp_path / f"{filename}.j2").write_text("key {{ value }}\n{{ words | join(', ') }}\n")
        env = environment(str(tmp_path), fmt)
        tpl = env.get_template(f"{filename}.j2")
        assert tpl.render(value="swp1", words=["a", "b"]) == "key swp1\na, b\n"
        if fmt is OutputFormat.HTML:
            # a report shows any text, always as text: escaped, never refused and never markup
            import html
            for hostile in HOSTILE:
                out = tpl.render(value=hostile, words=["a", hostile])
                assert out.count(html.escape(hostile)) == 2 and ("<" not in hostile or hostile not in out)
            for wrong in (None, True, object()):
                with pytest.raises(UnsafeValue):
                    tpl.render(value=wrong, words=[])
            continue
        for hostile in HOSTILE:
            with pytest.raises(UnsafeValue):
                tpl.render(value=hostile, words=["a"])
            with pytest.raises(UnsafeValue):
                tpl.render(value="ok", words=["a", hostile])
        for wrong in (None, True, object(), jinja2.Markup("a\nb") if hasattr(jinja2, "Markup") else b"a"):
            with pytest.raises(UnsafeValue):
                tpl.render(value=wrong, words=[])
        escaped = tpl.render(value=Text("free text\nsecond line"), words=[])
        assert escaped.count("\n") == 2
    assert not list(tmp_path.glob("*.tmp"))


def test_templates_cannot_bypass_finalize() -> None:
    root = templates_dir()
    for path in root.rglob("*.j2"):
        text = path.read_text()
        for banned in ("|safe", "| safe", "autoescape", "{% raw", "Markup"):
            assert banned not in text, f"{path}: {banned}"
        name = path.relative_to(root).as_posix()
        fmt = format_of_template(name)
        env = template(str(root), name).environment
        assert env.finalize is not None and env is environment(str(root), fmt)


def test_unknown_output_file_has_no_format() -> None:
    with pytest.raises(UnsafeValue, match="no output format"):
        format_of_template("cumulus/new-file.conf.j2")
    assert format_of_template("server/nccl.env.j2") is OutputFormat.SHELL
