"""Static IB checks on the rendered files, before opensm ever sees them."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from dualrail_net.manifest import IbPlaneEntry, Manifest
from dualrail_net.render.infiniband import STANDBY_CONF
from dualrail_net.resolve.infiniband import UNICAST_LID_TOP
from dualrail_net.verify.findings import CheckResult, Finding, Severity
from dualrail_net.verify.ib.opensm_defaults import OPENSM_DEFAULTS
from dualrail_net.verify.ib.partitions import Partition, parse_partitions
from dualrail_net.verify.ib.pkeys import fmt, hca_pkey_tables
from dualrail_net.verify.parsers.files import read_text

WHY_OPEN = "opensm drops a file it cannot parse and puts every port in the default partition as a full member"


def _f(check: str, plane: str, message: str, why: str, devices: tuple[str, ...] = ()) -> Finding:
    return Finding(check, Severity.ERROR, devices, plane, message, why)


def run_static(out: Path) -> list[CheckResult]:
    planes = Manifest.load(out).ib_planes
    syntax = CheckResult("IB-PARTITION-SYNTAX", "every partitions.conf parses cleanly under the OpenSM grammar "
                         "(no missing ';', unknown keywords or flags, over-long lines)")
    pkeys = CheckResult("IB-PKEY", "P_Keys name partitions 0x0001-0x7ffe (their low 15 bits) and are unique per "
                        "plane")
    members = CheckResult("IB-MEMBERS", "every member GUID is a port cabled to that plane, every server has "
                          "the same tenant partitions in every plane, and each partition the same flags")
    prefix = CheckResult("IB-SUBNET-PREFIX", "every IB plane has its own subnet prefix and its SM, active, on a "
                         "port of that plane")
    security = CheckResult("IB-SM-SECURITY", "every SM enforces partitions (opensm.conf keeps P_Key enforcement on "
                           "and reads this plane's partitions.conf)")
    unmodelled = CheckResult("IB-OPENSM-UNMODELLED", "every line of opensm.conf (the master's and the standby's) is "
                             "one the checks understand")
    standby = CheckResult("IB-SM-STANDBY", "each plane's standby SM binds to its planned port with a lower priority "
                          "than the master and otherwise runs the master's settings (a failover changes nothing)")
    tables = CheckResult("IB-PKEYS", "every HCA port's P_Key table, as opensm programs it from partitions.conf, "
                         "holds exactly the partitions and membership the inventory says")
    degrading = CheckResult("IB-SM-SETTINGS", "no SM runs a setting that degrades its plane whatever the plan "
                            "(extended link speeds off, links kept below 4x, multicast off under IPoIB partitions, "
                            "new LIDs at every takeover, an SM that ignores its peer, an LMC whose LIDs the unicast "
                            "space cannot hold)")
    routing = CheckResult("IB-ROUTING-FILES", "opensm routes each plane with the planned engine (ftree only at "
                          "LMC 0; some engine at all under no_fallback); the fat-tree "
                          "engine reads this plane's files, whose roots are exactly the plane's spines and compute "
                          "nodes exactly its HCA ports")
    parsed: dict[str, list[Partition]] = {}
    guid_plane = {g: (p, host) for p, meta in planes.items() for host, g in meta.hosts.items()}
    prefixes: dict[str, str] = {}
    for plane, meta in planes.items():
        folder = out / meta.dir
        rel = f"{meta.dir}/partitions.conf"
        res = parse_partitions(read_text(folder / "partitions.conf"))
        for line, msg in res.errors:
            check = syntax
            syntax.findings.append(_f(check.check, plane, f"{rel}:{line}: {msg}", WHY_OPEN))
        parsed[plane] = res.partitions
        seen: dict[int, str] = {}
        names: set[str] = set()
        for part in res.partitions:
            if part.name in names:
                pkeys.findings.append(_f(pkeys.check, plane, f"{rel}:{part.line}: partition {part.name} defined twice",
                                         "opensm merges them"))
            names.add(part.name)
            if part.pkey is None:
                continue
            # opensm takes the low 15 bits as the partition (the top bit is the membership, which
            # the member lines decide: 0x8101 is partition 0x0101, as the simulated SM's tables show)
            low = part.pkey & 0x7FFF
            if part.pkey > 0xFFFF:
                pkeys.findings.append(_f(pkeys.check, plane, f"{rel}:{part.line}: {part.name} P_Key "
                                         f"{part.pkey:#x} is wider than 16 bits",
                                         "opensm keeps its low 16 bits: it becomes another partition"))
            elif low in (0, 0x7FFF) and part.name != "Default":
                pkeys.findings.append(_f(pkeys.check, plane, f"{rel}:{part.line}: {part.name} P_Key "
                                         f"{part.pkey:#06x} is partition {low:#06x}, not one of 0x0001-0x7ffe",
                                         "0x0000 is invalid and 0x7fff the default partition every port is in"))
            if low in seen:
                pkeys.findings.append(_f(pkeys.check, plane, f"{rel}:{part.line}: {part.name} P_Key "
                                         f"{part.pkey:#06x} equals {seen[low]}'s", "opensm merges the two partitions"))
            seen[low] = part.name
            for m in part.members:
                if not m.target.startswith("0x"):
                    continue
                owner = guid_plane.get(m.target)
                if owner is None:
                    members.findings.append(_f(members.check, plane, f"{rel}:{m.line}: {part.name}: GUID {m.target} is "
                                               "not a port of any IB plane", "opensm skips unknown GUIDs silently"))
                elif owner[0] != plane:
                    members.findings.append(_f(members.check, plane, f"{rel}:{m.line}: {part.name}: GUID {m.target} is "
                                               f"{owner[1]}'s port in plane {owner[0]}, not cabled to plane {plane}",
                                               "the member would be missing from this plane", (owner[1],)))
        if not res.errors:  # (a file opensm refuses is IB-PARTITION-SYNTAX's: opensm drops it whole)
            tables.findings.extend(_pkey_findings(tables.check, plane, meta, res.partitions))
        master_rel = f"{meta.dir}/{MASTER_FILE}"
        conf = read_text(folder / MASTER_FILE)
        settings, unknown = read_opensm_conf(conf)
        unmodelled.findings.extend(_unmodelled_lines(unmodelled.check, plane, master_rel, unknown))
        security.findings.extend(_insecure(security.check, plane, master_rel, settings))
        ipoib = [part.name for part in res.partitions if "ipoib" in part.flags]
        ports = (len(meta.hosts), len(meta.switches))
        degrading.findings.extend(_degrading(degrading.check, plane, master_rel, settings, ipoib,
                                             meta.sm_standby is not None, ports))
        inactive = inactive_setting(settings)
        if inactive is not None:
            prefix.findings.append(_f(prefix.check, plane, f"{master_rel}:{inactive[0]}: sm_inactive {inactive[1]}",
                                      "the master SM never sweeps: the subnet is run by the standby, or by nobody"))
        part_file = settings.get("partition_config_file")
        wanted = f"{meta.config_dir.rstrip('/')}/partitions.conf"
        if part_file is None or part_file[1] != wanted:
            security.findings.append(_f(security.check, plane, f"{_at(master_rel, settings, 'partition_config_file')}: "
                                        f"partition_config_file is "
                                        f"{part_file[1] if part_file else 'not set'}, not {wanted}",
                                        "the SM would run without this plane's partitions: every port in the default "
                                        "partition, tenants not separated"))
        # (opensm takes a key's last line, as read_opensm_conf keeps it)
        prefix_set, guid_set = settings.get("subnet_prefix"), settings.get("guid")
        value = prefix_set[1].lower() if prefix_set else OPENSM_DEFAULT_PREFIX
        if value in prefixes:
            prefix.findings.append(_f(prefix.check, plane, f"{_at(master_rel, settings, 'subnet_prefix')}: subnet_prefix "
                                      f"{value} is also plane {prefixes[value]}'s",
                                      "two IB planes with one prefix are not separate subnets"))
        elif value != meta.subnet_prefix.lower():
            prefix.findings.append(Finding(prefix.check, Severity.WARNING, (), plane,
                                           f"{_at(master_rel, settings, 'subnet_prefix')}: subnet_prefix "
                                           f"{value if prefix_set else f'not set (opensm: {value})'}, the plan's is "
                                           f"{meta.subnet_prefix}",
                                           "every port's GID takes the prefix the SM gives it, not the plan's"))
        prefixes[value] = plane
        if not guid_set or guid_set[1].lower() not in meta.hosts.values():
            prefix.findings.append(_f(prefix.check, plane, f"{_at(master_rel, settings, 'guid')}: SM guid "
                                      f"{guid_set[1] if guid_set else 'missing'} is not a port of plane {plane}",
                                      "the SM would bind to no port of its plane"))
        standby.findings.extend(_standby_findings(standby.check, out, plane, meta.dir, meta.sm_standby,
                                                  meta.sm_standby_guid, settings, security, unmodelled,
                                                  lambda rel, theirs: degrading.findings.extend(
                                                      _degrading(degrading.check, plane, rel, theirs, ipoib, True,
                                                                 ports))))
        routing.findings.extend(_routing_files(routing.check, folder, plane, meta, settings))
    # Tenant membership must be the same in every plane, server by server.
    by_server: dict[str, dict[str, dict[str, str]]] = defaultdict(dict)
    for plane, parts in parsed.items():
        for part in parts:
            if part.name == "Default":
                continue
            for m in part.members:
                if m.target in guid_plane and guid_plane[m.target][0] == plane:
                    server = guid_plane[m.target][1]
                    by_server[server].setdefault(plane, {})[part.name] = m.membership or part.defmember
    flags: dict[str, dict[str, tuple[int, list[str]]]] = defaultdict(dict)  # partition -> plane -> (line, its flags)
    for plane, parts in parsed.items():
        for part in parts:
            # defmember only gives the members written without a membership theirs: compared member by
            # member above, not as a flag (a partition whose members all say theirs is the same without it)
            flags[part.name][plane] = (part.line, sorted(f.replace(" ", "") for f in part.flags
                                                         if not f.startswith("defmember=")))
    for name, by_plane in sorted(flags.items()):
        if len(by_plane) > 1 and len({tuple(f) for _, f in by_plane.values()}) > 1:
            detail = "; ".join(f"{planes[p].dir}/partitions.conf:{line}: {', '.join(f) or 'none'}"
                               for p, (line, f) in by_plane.items())
            members.findings.append(_f(members.check, "", f"partition {name} has other flags per plane ({detail})",
                                       "the planes give the tenant another IPoIB MTU or service level: a job that "
                                       "moves to the other plane behaves differently"))
    for server, per_plane in sorted(by_server.items()):
        views = {p: per_plane.get(p, {}) for p in planes}
        distinct = {json.dumps(v, sort_keys=True) for v in views.values()}
        if len(distinct) > 1:
            detail = "; ".join(f"{p}: {v or 'none'}" for p, v in views.items())
            members.findings.append(_f(members.check, "", f"{server} has different tenant partitions per plane ({detail})",
                                       "a job that loses one plane would lose its partition too", (server,)))
    return [syntax, pkeys, members, tables, prefix, security, degrading, unmodelled, standby, routing]


def _pkey_findings(check: str, plane: str, meta: IbPlaneEntry, partitions: list[Partition]) -> list[Finding]:
    """The P_Key table opensm would program into each of the plane's HCA ports (ib/pkeys.py)
    against the inventory's (manifest ``expected_pkeys``), port by port."""
    out = []
    host_of = {guid: host for host, guid in meta.hosts.items()}
    got = hca_pkey_tables(partitions, meta.expected_pkeys, meta.sm_guid)
    for guid, want in meta.expected_pkeys.items():
        want_int = {int(k, 16): ("full" if v == "both" else v) for k, v in want.items()}
        table = got.get(guid.lower(), {})
        if table != want_int:
            out.append(_f(check, plane, f"{meta.dir}/partitions.conf: {host_of.get(guid, guid)} ({guid}) would get "
                          f"P_Keys {fmt(table)}, the inventory says {fmt(want_int)}",
                          "the port is in partitions it should not see, or cut off from its own",
                          (host_of[guid],) if guid in host_of else ()))
    return out



def _guids(text: str) -> list[tuple[int, str]]:
    """(line, GUID) of a root_guids.conf / cn_guids.conf: one GUID per line, '#' comments."""
    return [(number, line.split("#", 1)[0].strip().lower()) for number, line in enumerate(text.split("\n"), 1)
            if line.split("#", 1)[0].strip()]


def _routing_files(check: str, folder: Path, plane: str, meta: IbPlaneEntry,
                   settings: dict[str, tuple[int, str]]) -> list[Finding]:
    """With routing_engine ftree, opensm.conf must name this plane's root and compute-node files,
    and those must list the plane's spines and HCA ports: a missing root or a leaf taken for one
    makes ftree fail its topology check and opensm fall back to another engine (no fat-tree
    routing, credit loops possible); a missing compute node is routed as a switch port."""
    engine = settings.get("routing_engine")
    out = _routing_engine(check, plane, meta, engine, (settings.get("lmc", (0, ""))[0], effective_lmc(settings)))
    if engine is None or "ftree" not in engine[1].split(","):
        return out
    for key, name, wanted, what in (
            ("root_guid_file", "root_guids.conf", {s.guid.lower() for s in meta.switches.values() if s.role == "spine"},
             "spine"),
            ("cn_guid_file", "cn_guids.conf", {g.lower() for g in meta.hosts.values()}, "HCA port")):
        setting = settings.get(key)
        expected = f"{meta.config_dir.rstrip('/')}/{name}"
        if setting is None or setting[1] != expected:
            where = f"{meta.dir}/{MASTER_FILE}:{setting[0]}" if setting else f"{meta.dir}/{MASTER_FILE}"
            out.append(_f(check, plane, f"{where}: {key} is {setting[1] if setting else 'not set'}, not {expected}",
                          "ftree reads another file, or guesses the roots itself"))
        path = folder / name
        listed = _guids(read_text(path))  # (a missing file reads as empty)
        have = {guid for _, guid in listed}
        missing = sorted(wanted - have)
        if missing:
            out.append(_f(check, plane, f"{meta.dir}/{name}: the plane's {what}(s) {', '.join(missing[:4])}"
                          f"{' ...' if len(missing) > 4 else ''} not listed", "ftree's view of the fat tree is wrong: "
                          "its topology check fails and opensm routes with another engine"))
        for line, guid in listed:
            if guid not in wanted:
                out.append(_f(check, plane, f"{meta.dir}/{name}:{line}: {guid} is not a {what} of plane {plane}",
                              "ftree's view of the fat tree is wrong: its topology check fails and opensm routes "
                              "with another engine"))
    return out


# the routing engines opensm 3.3 sets up by name (`opensm --help`: "Supported engines"), its
# default minhop, and `no_fallback` (a word of the list, not an engine: minhop is then not tried)
OPENSM_ENGINES = frozenset({"minhop", "updn", "dnup", "file", "ftree", "lash", "dor", "torus-2QoS", "nue", "dfsssp",
                            "sssp"})
NO_FALLBACK = "no_fallback"


def _routing_engine(check: str, plane: str, meta: IbPlaneEntry, engine: tuple[int, str] | None,
                    lmc: tuple[int, int]) -> list[Finding]:
    """The engine opensm routes the plane with against the plan's: a name it cannot set up is an
    error at its line (opensm logs "cannot find or setup routing engine" and goes on with the next,
    or with minhop: measured on ibsim); the first engine it sets up (minhop with none) when it is
    not the plan's is a warning (the plane routes, otherwise than planned); ftree is passed over
    at ``lmc`` (line, LMC) above 0; none at all under no_fallback is an error (nothing routes)."""
    where = f"{meta.dir}/{MASTER_FILE}" + (f":{engine[0]}" if engine else "")
    names = [name for name in (engine[1].split(",") if engine else []) if name]
    out = [_f(check, plane, f"{where}: routing_engine {name[:40]}: opensm has no such engine (it logs \"cannot find "
              "or setup routing engine\" and routes with the next one, or with minhop)",
              "the plane is routed by another algorithm than the one planned")
           for name in names if name not in OPENSM_ENGINES and name != NO_FALLBACK]
    used = next((name for name in names if name in OPENSM_ENGINES), None)
    if lmc[1] and used == "ftree":
        # measured on ibsim: "LMC > 0 is not supported by fat-tree routing", then the next engine
        # of the list, else minhop unless no_fallback (then "No routing engine able to successfully
        # configure switch tables": the subnet never comes up)
        out.append(Finding(check, Severity.WARNING, (), plane,
                           f"{meta.dir}/{MASTER_FILE}:{lmc[0]}: lmc {lmc[1]}: ftree does not route with LMC > 0 "
                           "(opensm: \"LMC > 0 is not supported by fat-tree routing\")",
                           "opensm goes on with the next engine it is given, or minhop"))
        used = next((name for name in names if name in OPENSM_ENGINES and name != "ftree"), None)
    if used is None and NO_FALLBACK not in names:
        used = "minhop"
    if used is None:
        out.append(_f(check, plane, f"{where}: routing_engine {engine[1][:60] if engine else ''}: no engine it names "
                      "routes the plane, and no_fallback keeps opensm from minhop",
                      "opensm logs \"No routing engine able to successfully configure switch tables\" and never "
                      "brings the subnet up (measured on ibsim)"))
    if used is not None and used != meta.routing_engine:
        out.append(Finding(check, Severity.WARNING, (), plane,
                           f"{where}: opensm routes plane {plane} with {used}"
                           f"{'' if engine else ' (no routing_engine line: its default)'}, the plan's engine is "
                           f"{meta.routing_engine}", "the plane's routes are not the ones planned (balance across "
                           "the spines, deadlock freedom on other topologies)"))
    return out


STANDBY_FILE = STANDBY_CONF  # (the file render writes for the standby SM)
MASTER_FILE = "opensm.conf"
# opensm's SM priority when the file sets none or one it refuses (anything but a number 0-15, SMInfo's
# 4-bit field: "Invalid Cached Option Value:sm_priority = 16:Using Default:0"; measured with
# sminfo on ibsim, opensm 3.3.23)
DEFAULT_SM_PRIORITY = 0
MAX_SM_PRIORITY = 15
_C_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*")  # strtoul(s, &end, 0) over the whole word
OPENSM_DEFAULT_PREFIX = "0xfe80000000000000"  # opensm's subnet prefix when the file sets none


def _unmodelled_lines(check: str, plane: str, rel: str, unknown: list[tuple[int, str]]) -> list[Finding]:
    """An opensm.conf's lines of no known key (read_opensm_conf), each a warning at its line."""
    return [Finding(check, Severity.WARNING, (), plane, f"{rel}:{line}: not modelled: {text[:100]}",
                    "verify cannot judge what this setting does") for line, text in unknown]


def _written(settings: dict[str, tuple[int, str]], key: str) -> str:
    """A setting as its file writes it, or `not set` with opensm's default."""
    if key in settings:
        return settings[key][1]
    default = OPENSM_DEFAULTS.get(key)
    return "not set" if default is None else f"not set (opensm: {default})"


def _at(rel: str, settings: dict[str, tuple[int, str]], key: str) -> str:
    """Where a setting of a file is: FILE:LINE, or FILE alone when the file does not set it."""
    line = settings.get(key, (0, ""))[0]
    return f"{rel}:{line}" if line else rel


def opensm_number(value: str) -> int | None:
    """A number as opensm reads one (C's strtoul with base 0 over the whole word: 0x hex, a leading 0
    octal, else decimal); None for anything else (opensm refuses it and keeps its default)."""
    if len(value) > 20 or not _C_NUMBER.fullmatch(value):
        return None
    return int(value, 16) if value[:2] in ("0x", "0X") else int(value, 8) if value.startswith("0") else int(value)


def _priority(settings: dict[str, tuple[int, str]]) -> tuple[int, bool]:
    """The SM priority opensm runs with, and whether it is the file's (False: the file's value is
    refused and opensm runs its default, 0)."""
    if "sm_priority" not in settings:
        return DEFAULT_SM_PRIORITY, True
    number = opensm_number(settings["sm_priority"][1])
    if number is None or number > MAX_SM_PRIORITY:
        return DEFAULT_SM_PRIORITY, False
    return number, True


def _standby_findings(check: str, out: Path, plane: str, folder: str, host: str | None, guid: str,
                      master: dict[str, tuple[int, str]], security: CheckResult,
                      unmodelled: CheckResult,
                      degrading: Callable[[str, dict[str, tuple[int, str]]], object]) -> list[Finding]:
    """The standby's opensm.conf against the plan and the master's: its port, a lower priority, and
    every other setting equal (after a failover the subnet is run by these settings); its lines of
    no known key reported as the master's are."""
    path = out / folder / STANDBY_FILE
    rel = f"{folder}/{STANDBY_FILE}"
    if host is None:
        return [_f(check, plane, f"{rel}: rendered but the plan has no standby SM", "an SM nobody runs")] \
            if path.exists() else []
    if not path.exists():
        return [_f(check, plane, f"{rel}: missing (the plan runs a standby SM on {host})",
                   "the standby host has no configuration: when the master's host fails the plane has no SM", (host,))]
    settings, unknown = read_opensm_conf(read_text(path))
    unmodelled.findings.extend(_unmodelled_lines(unmodelled.check, plane, rel, unknown))
    found = []
    got = settings.get("guid", (0, "missing"))
    if got[1].lower() != guid:
        found.append(_f(check, plane, f"{_at(rel, settings, 'guid')}: guid {got[1]} is not {host}'s port {guid}",
                        "the standby would bind to another port (or none)", (host,)))
    (mine, mine_taken), (theirs, theirs_taken) = _priority(settings), _priority(master)
    master_rel = f"{folder}/{MASTER_FILE}"
    for taken, file_rel, conf, role in ((mine_taken, rel, settings, "standby"),
                                        (theirs_taken, master_rel, master, "master")):
        if not taken:
            found.append(_f(check, plane, f"{file_rel}:{conf['sm_priority'][0]}: sm_priority "
                            f"{conf['sm_priority'][1]} is not a number 0-{MAX_SM_PRIORITY}: opensm runs the "
                            f"{role} at its default, {DEFAULT_SM_PRIORITY}",
                            "the SMs' ranks are not what the plan says", (host,)))
    if mine >= theirs:
        found.append(_f(check, plane, f"{_at(rel, settings, 'sm_priority')}: sm_priority {mine} is not "
                        f"below the master's {theirs} ({_at(master_rel, master, 'sm_priority')}"
                        f"{'' if 'sm_priority' in master else ': opensm default'})",
                        "the standby may win the election and run the subnet from the wrong host", (host,)))
    for key in sorted((set(settings) | set(master)) - {"guid", "sm_priority"} - HOST_SETTINGS):
        # (a line one of them lacks is opensm's default there: the same value written once is no difference)
        if effective(settings, key) != effective(master, key):
            master_at = _at(master_rel, master, key)
            found.append(_f(check, plane, f"{_at(rel, settings, key)}: {key} is {_written(settings, key)}, "
                            f"the master runs {_written(master, key)} ({master_at})",
                            _DIFFERING.get(key, "after a failover the subnet would be run differently"), (host,)))
    security.findings.extend(_insecure(security.check, plane, rel, settings))
    degrading(rel, settings)
    return found


def _insecure(check: str, plane: str, rel: str, settings: dict[str, tuple[int, str]]) -> list[Finding]:
    """An SM's settings that leave partitions unenforced, each as opensm reads its value."""
    return [_f(check, plane, f"{rel}:{setting[0]}: {key} {setting[1]} (must be {secure})", why)
            for key, (secure, why) in SECURE_SETTINGS.items()
            if (setting := settings.get(key)) is not None and opensm_value(key, setting[1]) != secure]


# force_link_width's mask (PortInfo:LinkWidthEnabled): 1x, 4x, 8x, 12x, 2x
_WIDTHS = ((1, "1x"), (2, "4x"), (4, "8x"), (8, "12x"), (16, "2x"))
# force_link_speed_ext's mask (PortInfo:LinkSpeedExtEnabled) as opensm 3.3.23 documents it
_EXT_SPEEDS = ((1, "FDR 14 Gb/s"), (2, "EDR 25 Gb/s"), (4, "HDR 50 Gb/s"))
EXT_SPEEDS_OFF = 30  # "Disable extended link speeds": links train at QDR (10 Gb/s a lane) at most


def _degrading(check: str, plane: str, rel: str, settings: dict[str, tuple[int, str]], ipoib: list[str],
               has_peer: bool, ports: tuple[int, int]) -> list[Finding]:
    """An SM's settings that degrade its plane whatever the plan says, each as opensm runs its value
    (a line the file lacks is opensm's default, which degrades nothing). ``ports``: the plane's HCA
    ports and switches, whose LIDs the SM assigns."""
    found: list[Finding] = []

    def said(key: str, severity: Severity, what: str, why: str) -> None:
        line, value = settings[key]
        found.append(Finding(check, severity, (), plane, f"{rel}:{line}: {key} {value}: {what}", why))

    if has_peer and effective(settings, "ignore_other_sm") == "TRUE":
        said("ignore_other_sm", Severity.ERROR, "this SM ignores the plane's other SM",
             "both SMs may run the subnet as master at once, each reprogramming the ports")
    ext = opensm_number(effective(settings, "force_link_speed_ext") or "0")
    if ext == EXT_SPEEDS_OFF:
        said("force_link_speed_ext", Severity.ERROR, "extended link speeds disabled",
             "FDR and faster links train at QDR, 10 Gb/s a lane, at most")
    elif ext is not None and ext not in (0, 31):
        speeds = [name for bit, name in _EXT_SPEEDS if ext & bit] if ext < 8 else []
        said("force_link_speed_ext", Severity.WARNING,
             f"extended speeds limited to {', '.join(speeds)}" if speeds else "a value the specification reserves",
             "a port that supports a faster speed trains at the fastest one enabled; the plan names no link speed")
    width = opensm_number(effective(settings, "force_link_width") or "0")
    if width is not None and width not in (0, 255):
        if width >= 32:
            said("force_link_width", Severity.WARNING, "a value the specification reserves",
                 "what the ports' width becomes is not known")
        elif not width & 2:
            narrower = [name for bit, name in _WIDTHS if width & bit and name in ("1x", "2x")]
            said("force_link_width", Severity.ERROR, "4x not enabled",
                 f"the plane's 4x ports train at {narrower[-1] if narrower else 'no width they support'}"
                 f"{'' if narrower else ' (the link stays down)'}: a fraction of their bandwidth")
    if ipoib and effective(settings, "disable_multicast") == "TRUE":
        said("disable_multicast", Severity.ERROR, f"no multicast, while partitions {', '.join(ipoib)} run IPoIB",
             "IPoIB resolves addresses over its broadcast group, which the SM no longer creates")
    if effective(settings, "reassign_lids") == "TRUE":
        said("reassign_lids", Severity.ERROR, "this SM reassigns every end node's LID when it starts as master",
             "a failover or an SM restart on the running subnet disrupts its traffic (opensm's manual says so of "
             "-r): connections addressed to the old LIDs break")
    if opensm_number(effective(settings, "sweep_interval") or "10") == 0:
        said("sweep_interval", Severity.WARNING, "periodic sweeps off",
             "the SM then learns of a link or node that goes or comes only from a switch's trap; a trap lost "
             "(they are unacknowledged datagrams) leaves the change unrouted until something else sweeps")
    lmc = effective_lmc(settings)
    short = lid_shortage(lmc, effective(settings, "lmc_esp0") == "TRUE", *ports)
    if short[0] > 0:
        found.append(Finding(check, Severity.ERROR, (), plane, f"{_at(rel, settings, 'lmc')}: lmc {lmc}: "
                             f"{1 << lmc} LID(s) for each of the plane's {ports[0]} HCA ports and {ports[1]} switches: "
                             f"opensm runs out of unicast LIDs, {short[0]}"
                             f"{'' if short[1] == short[0] else f' to {short[1]}'} ports get none",
                             "opensm logs \"OPENSM RAN OUT OF LIDS\" and a port without a LID carries no traffic "
                             "(measured on ibsim)"))
    elif lmc:
        if short[1] > 0:
            said("lmc", Severity.WARNING, f"{1 << lmc} LIDs for each of the plane's {ports[0]} HCA ports: up to "
                 f"{short[1]} ports may get no LID, as the switches' LIDs fall",
                 "each switch placed inside an aligned block takes that block from the HCA ports (measured on ibsim)")
        else:
            said("lmc", Severity.WARNING, f"not the plan's LMC 0: each HCA port takes {1 << lmc} LIDs",
                 "on the running subnet opensm moves every port whose LID is not on a multiple of the new range "
                 "(measured on ibsim): their connections break once")
    return found


MAX_LMC = 7  # opensm refuses more and runs its default, 0 (measured: `lmc 8` gives every port one LID)


def effective_lmc(settings: dict[str, tuple[int, str]]) -> int:
    """The LMC opensm runs: the file's last `lmc` as a number of 0-7, else its default 0."""
    value = opensm_number(effective(settings, "lmc") or "0")
    return value if value is not None and value <= MAX_LMC else 0


def lid_shortage(lmc: int, esp0: bool, hosts: int, switches: int, top: int = UNICAST_LID_TOP) -> tuple[int, int]:
    """How many ports opensm leaves without a LID at this LMC: (fewest, most), as the LIDs the
    subnet already holds fall. Each HCA port (and with lmc_esp0 each switch) takes an aligned block
    of 2^lmc LIDs; block 0 (LIDs 1 to 2^lmc - 1) holds one port's LIDs or switches' single LIDs; a
    switch's single LID shares a block with other switches' or takes a block of its own. opensm
    also keeps below the switches' LinearFDBCap (``top`` is hardware's whole space; ibsim's is
    lower): the tests hold the bounds to the real opensm running out of LIDs on ibsim."""
    size = 1 << lmc
    if lmc == 0:
        short = max(0, hosts + switches - top)
        return short, short
    blocks = (top + 1) // size - 1  # the whole aligned blocks above block 0
    takers, singles = (hosts + switches, 0) if esp0 else (hosts, switches)
    port_in_block0 = takers - 1 + -(-singles // size) - blocks
    singles_in_block0 = takers + -(-max(0, singles - (size - 1)) // size) - blocks
    fewest = min(port_in_block0, singles_in_block0)
    most = takers + singles - blocks
    return max(0, fewest), max(0, most)


def inactive_setting(settings: dict[str, tuple[int, str]]) -> tuple[int, str] | None:
    """An `sm_inactive` line opensm takes as TRUE (the SM never sweeps): (line, value); None otherwise."""
    setting = settings.get("sm_inactive")
    return setting if setting is not None and opensm_value("sm_inactive", setting[1]) == "TRUE" else None


def opensm_value(key: str, value: str) -> str:
    """A setting's value as opensm runs it: a boolean is TRUE only when written `TRUE` (strcmp),
    anything else is FALSE; a part_enforce it does not know is its default, `both` (measured: "Invalid
    Cached Option Value:part_enforce = BOTH, Using Default:both"); a number as the number it is
    (strtoul: hex, octal); other values as written. Booleans and numbers are the settings whose
    default (OPENSM_DEFAULTS) is one."""
    if key in OPENSM_BOOLEANS:
        return "TRUE" if value == "TRUE" else "FALSE"
    if key in OPENSM_NUMBERS and (number := opensm_number(value)) is not None:
        return str(number)  # (`lmc 00` and `lmc 0`, `sm_key 0x01` and `sm_key 1` are one value)
    if key == "part_enforce" and value not in PART_ENFORCE:
        return "both"
    return value


def effective(settings: dict[str, tuple[int, str]], key: str) -> str | None:
    """What an SM runs for ``key``: its file's last line for it as opensm reads the value, else
    opensm's default (None: no value, or a key opensm does not have)."""
    setting = settings.get(key)
    if setting is not None:
        return opensm_value(key, setting[1])
    default = OPENSM_DEFAULTS.get(key)
    return None if default is None else opensm_value(key, default)


# why a setting the two SMs of a plane must share matters beyond a failover
_DIFFERING = {
    # opensm ignores the SMInfo of an SM whose SM_Key is not its own: neither sees the other, and
    # both may run the subnet as master at once
    "sm_key": "each SM ignores the other's SMInfo (a foreign SM_Key): both may run the subnet as master",
}
# where and how much each SM logs, and how it runs as a process: its own host's business (they decide
# nothing about the subnet), so the master and its standby may differ on them
HOST_SETTINGS = frozenset({"log_file", "log_max_size", "force_log_flush", "log_flags", "accum_log_file", "log_prefix",
                           "per_module_logging_file", "dump_files_dir", "daemon", "console", "console_port"})
# opensm.conf settings that keep partitions enforced; opensm's defaults are these values
SECURE_SETTINGS = {
    "no_partition_enforcement": ("FALSE", "with partition enforcement off every port can talk to every partition"),
    "part_enforce": ("both", "switches must drop packets with a foreign P_Key in both directions, not only one"),
}
# allow_both_pkeys is not among them: a port given both memberships of a partition talks as its full
# member, which is what the P_Key model (ib/pkeys.py: `both`, or full and limited entries, count as
# full) already decides reachability by; the master and its standby must still agree on it
# opensm's boolean settings (opts_parse_boolean) and numeric ones (opts_parse_uint*): those whose
# default is one
OPENSM_BOOLEANS = frozenset(key for key, default in OPENSM_DEFAULTS.items() if default in ("TRUE", "FALSE"))
OPENSM_NUMBERS = frozenset(key for key, default in OPENSM_DEFAULTS.items()
                           if default is not None and opensm_number(default) is not None)
PART_ENFORCE = frozenset({"both", "in", "out", "off"})
# every key the rendered opensm.conf sets, or that the checks read
KNOWN_OPENSM_KEYS = frozenset({"guid", "subnet_prefix", "sm_priority", "lmc", "routing_engine", "root_guid_file",
                               "cn_guid_file", "partition_config_file", "no_partition_enforcement", "part_enforce",
                               "allow_both_pkeys", "log_file", "log_max_size", "force_log_flush", "sm_inactive",
                               # IB-SM-SETTINGS's (_degrading)
                               "ignore_other_sm", "force_link_speed_ext", "force_link_width", "disable_multicast",
                               "reassign_lids", "lmc_esp0", "sweep_interval"})


def read_opensm_conf(text: str) -> tuple[dict[str, tuple[int, str]], list[tuple[int, str]]]:
    """opensm.conf: ``key value`` per line ('#' comments). (key -> (line, value) with the last one
    winning, as opensm reads it, for every key, known or not; lines with an unknown key or no
    value)."""
    settings: dict[str, tuple[int, str]] = {}
    unknown: list[tuple[int, str]] = []
    for number, raw in enumerate(text.split("\n"), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        if value.strip():  # (an unknown key too: the master and its standby must still agree on it)
            settings[key] = (number, value.strip())
        if key not in KNOWN_OPENSM_KEYS or not value.strip():
            unknown.append((number, line))
    return settings, unknown
