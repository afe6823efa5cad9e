"""What verification could not judge: every line a parser neither models nor knows to be
irrelevant is reported as a warning with file and line, never ignored in silence (the clean example
has none). Routing lines of frr.conf (CONFIG-UNMODELLED) and the servers' nccl.env and sysctl.conf
lines (HOST-UNMODELLED)."""

from __future__ import annotations

from pathlib import Path

from dualrail_net.verify.checks import BASE, ROUTING, TOPOLOGY, Context, check, finding
from dualrail_net.verify.findings import Finding, Severity
from dualrail_net.verify.parsers.files import UnreadableFile, read_text


@check("HOST-UNMODELLED", "every line of nccl.env and sysctl.conf is understood", reads={BASE, TOPOLOGY})
def host_unmodelled(ctx: Context) -> list[Finding]:
    out = []
    for name, srv in ctx.snap.servers.items():
        for file, line, text in srv.unmodelled:
            out.append(finding([name], "", f"servers/{name}/{file}:{line}: not understood: {text[:80]}",
                               "verify cannot judge what this line does", Severity.WARNING))
    return out


@check("CONFIG-UNMODELLED", "every routing line of every switch is one the model reads (or knows does not matter)",
       reads={ROUTING, TOPOLOGY})
def config_unmodelled(ctx: Context) -> list[Finding]:
    """A warning per routing line the parsers do not model (``neighbor X shutdown``, ``aggregate-address``,
    ``set ...`` in a route-map, another address family ...): the verdict does not cover it."""
    out = []
    for name, dev in ctx.snap.devices.items():
        if not dev.unmodelled:
            continue
        meta = ctx.snap.meta(name)
        where = _line_numbers(ctx.snap.root / meta.dir, meta.files, dev.unmodelled) if meta else {}
        for text in dev.unmodelled:
            place = where.get(text)
            loc = f"{meta.dir}/{place[0]}:{place[1]}" if meta and place else name
            out.append(finding([name], ctx.device_plane.get(name) or "", f"{loc}: not modelled: {text[:100]}",
                               "verify cannot judge what this line does to routing", Severity.WARNING))
    return out


def _line_numbers(folder: Path, files: list[str], texts: list[str]) -> dict[str, tuple[str, int]]:
    """Where each text first stands (file, 1-based line), among the device's files."""
    wanted = set(texts)
    found: dict[str, tuple[str, int]] = {}
    for file in files:
        try:
            lines = read_text(folder / file).split("\n")
        except (OSError, UnreadableFile):
            continue
        for number, line in enumerate(lines, 1):
            text = line.strip()
            if text in wanted and text not in found:
                found[text] = (file, number)
    return found
