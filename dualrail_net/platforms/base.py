"""What a platform is: the ``Platform`` protocol every plug-in implements, and the small typed parts
it is made of.

A platform is one package (``dualrail_net/platforms/<name>/`` for the built-in ones, any package for a
third party) that exposes an object satisfying ``Platform`` through the ``dualrail.platforms`` entry
point. Everything the pipeline knows about a platform comes from that object:

* the schema: its name (``fabric.platforms.<role>``, ``firmware.<name>``) and its MTU limit;
* resolve: its port names;
* render: the files it renders (template, file name, output format), the presentation-only values its
  templates need, where its templates live, and which platform renders its twin substitute;
* verify: the parser from its files back to the vendor-neutral model (``verify.model``);
* deploy: its netmiko device type, the paths its files are installed at, its driver;
* Batfish: the snapshot files of one device.

The protocol is checked for every registered platform by ``tests/test_platforms.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from dualrail_net.formats import OutputFormat

if TYPE_CHECKING:
    from dualrail_net.deploy.drivers.base import Driver
    from dualrail_net.verify.model import DeviceConfig


@dataclass(frozen=True)
class OutputFile:
    template: str  # path under the platform's template root
    filename: str  # file name in the device folder
    format: OutputFormat  # the escaping rule its values pass
    twin: bool = True  # part of a twin substitute rendered by this platform (switchd QoS is not)
    # rendered only when the structured config has this key set, a dotted path (the management
    # services exist only with a management section, TACACS+ only when planned); None: always
    needs: str | None = None


@dataclass(frozen=True)
class PlatformParser:
    """How one platform's folder is read back. A platform whose routing configuration is a file of its
    own (frr.conf) reads it in ``routing``, into a DeviceConfig that holds only ROUTING_FIELDS and VRF
    names: verify reads the two parts in two processes (verify/partitioned.py). A one-file platform
    reads everything in ``base``."""

    base: Callable[[str, Path], DeviceConfig]
    routing: Callable[[str, Path], DeviceConfig] | None = None
    # a one-file platform's reader of that file's text (device name, text): the live audit reads
    # the configuration a switch reports running with it, the same reading verify gives its file
    text: Callable[[str, str], DeviceConfig] | None = None


@runtime_checkable
class Platform(Protocol):
    """One network operating system, everything the pipeline needs to know about it."""

    name: str  # as written in the inventory (fabric.platforms.<role>, firmware.<name>)
    max_mtu: int  # the largest interface MTU the platform accepts
    default_maximum_paths: int  # BGP ECMP width when the config says no `maximum-paths`
    # (optional, read with a default of 180, RFC 4271's suggestion) ``default_hold_time``: the BGP hold
    # time, in seconds, the platform offers when the config sets none
    # (optional, read with a default of 0 so that older plug-ins keep working) ``default_receive_limit``:
    # the prefixes a BGP neighbor may send before the session is torn down when the config sets no
    # limit (EOS: 12000); 0: none
    # (optional, read with a default of False) ``priority_is_class``: the platform maps DSCP to a
    # traffic class only, and class N is priority N (what PFC pauses, what it marks): a QoS profile
    # whose class and priority differ cannot be rendered for it (validation refuses the pair)
    # (optional, read with a default of False) ``relaxes_multipath``: BGP takes paths of equal AS-path
    # length through different neighbor ASes into ECMP unless told not to (EOS); the model reads the
    # platform's BGP instances so, and its twin substitute (FRR, which does not) is rendered with
    # `bgp bestpath as-path multipath-relax` to do what the real device does
    # (optional, read with a default of None) ``management_vrf_name``: the name the operating system
    # gives its management VRF, which its services and tools are bound to (Cumulus Linux, NVUE and
    # SONiC: "mgmt"); None: any name the inventory gives (validation refuses another name for a role
    # on a platform that fixes it)
    # (optional, read with a default of None) ``max_ssh_keys_per_user``: how many SSH keys one local
    # account holds (EOS: a primary and a secondary); None: as many as the inventory lists
    # (optional, read with a default of False) ``login_without_password``: a local user rendered
    # without a password logs in with none (EOS `nopassword`): validation asks every user for one
    netmiko_type: str  # netmiko device_type used to reach a device of this platform
    files: tuple[OutputFile, ...]  # what a device of this platform gets, in its folder
    template_root: Path | None  # where its templates are; None: the project's templates/
    twin_substitute: str | None  # the platform whose rendering the twin runs instead; None: itself
    roles: frozenset[str]  # the roles it renders (leaf, spine, super_spine, gateway: a VRF per plane)
    deploy_paths: Mapping[str, str | None]  # where its files live on a device (driver-specific keys)

    def port_name(self, number: int) -> str:
        """Front-panel port ``number`` (1-based) as the platform names it."""
        ...

    def presentation(self, structured: dict[str, Any]) -> dict[str, Any]:
        """Extra platform-specific values for the templates (spellings, ranges; no decisions)."""
        ...

    def parser(self) -> PlatformParser:
        """The reader of a device folder back into the vendor-neutral model."""
        ...

    def driver(self, host: Any, connection: Any) -> Driver:
        """The deploy driver for one nornir host over an open connection."""
        ...

    def batfish_files(self, name: str, folder: Path) -> dict[str, str | bytes]:
        """A device's files in a Batfish snapshot (relative path in the snapshot -> content)."""
        ...


def compress_ports(prefix: str, numbers: list[int]) -> str:
    """[1,2,3,7] -> 'swp1-swp3,swp7' (Cumulus port_set syntax)."""
    ranges: list[str] = []
    nums = sorted(set(numbers))
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        ranges.append(f"{prefix}{nums[i]}" if i == j else f"{prefix}{nums[i]}-{prefix}{nums[j]}")
        i = j + 1
    return ",".join(ranges)
