"""What verification could not judge: every line a parser neither models nor knows to be
irrelevant is reported as a warning with file and line, never ignored in silence (the clean example
has none). Routing lines of frr.conf (CONFIG-UNMODELLED) and the servers' nccl.env and sysctl.conf
lines (HOST-UNMODELLED); files in the device and server folders that the build did not write
(BUILD-FOREIGN-FILE)."""

from __future__ import annotations

from dualrail_net.verify.buildfiles import foreign_entries
from dualrail_net.verify.checks import BASE, ROUTING, TOPOLOGY, Context, check, finding
from dualrail_net.verify.checks.hostnccl import judged_env
from dualrail_net.verify.checks.hosts import judged_sysctl
from dualrail_net.verify.findings import Finding, Severity


@check("HOST-UNMODELLED", "every line of nccl.env and sysctl.conf is understood, and every variable and key is "
       "one verify judges", reads={BASE, TOPOLOGY})
def host_unmodelled(ctx: Context) -> list[Finding]:
    out = []
    for name, srv in ctx.snap.servers.items():
        for file, line, text in srv.unmodelled:
            out.append(finding([name], "", f"servers/{name}/{file}:{line}: not understood: {text[:80]}",
                               "verify cannot judge what this line does", Severity.WARNING))
        entry = ctx.snap.manifest.servers.get(name)
        ports = {p.ifname for p in entry.ports} if entry is not None else set()
        for file, keys, judged in (("nccl.env", srv.env, judged_env),
                                   ("sysctl.conf", srv.sysctl, lambda key: judged_sysctl(key, ports))):
            for key in keys:
                if not judged(key):
                    out.append(finding([name], "", f"servers/{name}/{file}:{srv.line_of.get((file, key), 0)}: "
                                       f"{key} is not judged", "verify does not know what this setting does to the "
                                       "server's traffic", Severity.WARNING))
    return out


@check("CONFIG-UNMODELLED", "every routing line of every switch is one the model reads (or knows does not matter)",
       reads={ROUTING, TOPOLOGY})
def config_unmodelled(ctx: Context) -> list[Finding]:
    """A warning per line the parsers do not model (a `set` in a route-map, another address family,
    an unnumbered neighbor, a line FRR itself would reject ...): the verdict does not cover it."""
    out = []
    for name, dev in ctx.snap.devices.items():
        if not dev.unmodelled:
            continue
        for line, text in dev.unmodelled:
            loc = ctx.snap.where(name, dev.routing_file, line)
            out.append(finding([name], ctx.device_plane.get(name) or "", f"{loc}: not modelled: {text[:100]}",
                               "verify cannot judge what this line does", Severity.WARNING))
    return out


@check("PORTS-UNMODELLED", "every line of every switch's interfaces, qos_features.conf and service files is understood",
       reads={BASE, TOPOLOGY})
def ports_unmodelled(ctx: Context) -> list[Finding]:
    out = []
    for name, dev in ctx.snap.devices.items():
        for file, line, text in dev.base_unmodelled:
            loc = ctx.snap.where(name, file, line)
            out.append(finding([name], ctx.device_plane.get(name) or "", f"{loc}: not modelled: {text[:100]}",
                               "verify cannot judge what this line does", Severity.WARNING))
    return out


@check("BUILD-FOREIGN-FILE", "every entry of the device and server folders is a file the build wrote (verify reads "
       "it, deploy pushes it)", reads={TOPOLOGY})
def build_foreign_file(ctx: Context) -> list[Finding]:
    """A warning per file or folder a deploy's folders hold that the manifest does not list
    (verify/buildfiles.py): it is neither verified nor pushed."""
    owner = {entry.dir: name for name, entry in ctx.snap.manifest.devices.items()}
    owner.update((entry.dir, name) for name, entry in ctx.snap.manifest.servers.items())
    out = []
    for path in foreign_entries(ctx.snap.root, ctx.snap.manifest):
        device = owner.get(path.rstrip("/").rpartition("/")[0])
        out.append(finding([device] if device else [], ctx.device_plane.get(device or "") or "",
                           f"{path}: " + ("no device or server of this build" if path.endswith("/")
                                          else "not a file of this build"),
                           "verify does not read it and deploy does not push it: change the inventory and re-render "
                           "(or move it out of the build)", Severity.WARNING))
    return out
