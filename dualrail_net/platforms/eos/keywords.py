"""EOS's shortened keywords, spelled out: `int Et1` / `shut` / `nei 10.0.0.1 shut` as EOS reads them.

EOS's CLI takes any prefix of a keyword that no other keyword valid at that position shares (an
exact keyword wins over a longer one it prefixes), in any letter case, and a file loaded into a
configuration session goes through the same CLI. Its grammar is not published whole, so the table
below holds, per configuration mode and position, the keywords EOS documents there that matter to
the model and, beside them, the other keywords of that position known to exist (each can make a
prefix ambiguous). Invariants:

* a word is spelled out only where the table lists keywords and no argument, and only when exactly
  one listed keyword starts with it; two or more: EOS refuses the line as ambiguous, and the line
  is left as written (the model then does nothing with it, as EOS does);
* arguments (names, addresses, numbers) are never touched; a position that takes either a keyword or
  an argument takes the word as an exact keyword or else as the argument, as EOS's parser does;
* the table is not EOS's grammar: every line spelled out here is still reported (the caller adds a
  CONFIG-UNMODELLED warning naming both spellings), so a keyword missing from the table cannot turn
  a line EOS refuses into a silent verdict.

The parser reads the file as written first and spells out only when a line was not understood
(a clean file never pays for this).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dualrail_net.verify.parsers.tree import Node


@dataclass
class _Position:
    keywords: dict[str, _Position] = field(default_factory=dict)
    argument: _Position | None = None
    child_mode: str = ""  # the mode of the block a line ending here opens
    numbers: bool = False  # `*+`: one or more numbers here, then this position's keywords
    # `*.`: an address or prefix here (a word that starts with a digit), so a word that does not is
    # still a shortened keyword of the position (`ip route v mgmt ...` is `ip route vrf`)
    address: bool = False


# One pattern per line: words are keywords, `*` an argument, `*+` one or more numbers, `*.` an
# address (a word starting with a digit), `a|b` alternatives, `>MODE` the mode of the block the line
# opens; `:` lists first keywords. A pattern stops where the arguments run free (the rest of a line
# is left as written).
_GRAMMAR: dict[str, str] = {
    "global": """
        : agent alias application arp banner bfd boot class-map clock comment cvx dhcp dns dot1x
        : dynamic email enable end errdisable event-handler event-monitor exit flow hardware hostname
        : ipv6 lacp link-tracking load-balance mac mac-address-table match-list monitor mpls mlag
        : peer-filter platform policy-map port-channel prompt ptp queue-monitor radius-server role
        : schedule service sflow show snmp-server spanning-tree ssh switchport tap tcam terminal trace
        : traffic-policies transceiver username vlan vmtracer vxlan no default
        aaa accounting|root|session
        aaa authentication login|enable|policy|dot1x
        aaa authorization exec|commands|console|config-commands|policy|dynamic|serial-console
        aaa group server tacacs+|radius|ldap *>aaa-group
        control-plane>control-plane
        daemon *>daemon
        interface *>interface
        ip access-list standard *
        ip access-list *
        ip prefix-list *>prefix-list
        ip prefix-list * seq * permit|deny * ge|le|eq * ge|le
        ip prefix-list * permit|deny * ge|le|eq * ge|le
        ip routing vrf
        ip route vrf
        ip route *.
        ip as-path access-list
        ip address-list|community-list|dhcp|domain|domain-list|domain-lookup|domain-name|extcommunity-list
        ip fib|ftp|hardware|host|http|icmp|igmp|large-community-list|load-sharing|multicast-routing
        ip name-server|nat|pim|radius|security|source-route|tacacs|telnet|tftp|verify|virtual-router
        lldp run|timer|timer-reinitialization|holdtime|hold-time|management-address|tlv-select|tlv
        logging vrf * host
        logging host|buffered|console|monitor|trap|format|facility|level|on|persistent|qos|repeat-messages
        logging relogging-interval|source-interface|synchronous|event|policy
        management ssh>mgmt-service
        management api http-commands>mgmt-service
        management api gnmi>mgmt-gnmi
        management api netconf|restconf|models
        management console|cvx|defaults|security|telnet|tech-support|accounts
        ntp server|serve|authenticate|authentication-key|local-interface|trusted-key|qos
        qos map dscp *+ to traffic-class
        qos map traffic-class *+ to tx-queue
        qos map cos|exp
        qos trust|profile|rewrite|random-detect|tx-queue
        route-map *>route-map
        router bgp *>bgp
        router general>router-general
        router isis|ospf|ospfv3|pim|igmp|msdp|multicast|rip|traffic-engineering|l2-vpn|path-selection
        system control-plane>control-plane
        tacacs-server host|key|timeout|policy|qos
        vrf instance|definition *
        vrf forwarding
    """,
    "interface": """
        : arp bfd comment dcbx default description dot1x errdisable exit flowcontrol hardware ipv6 isis
        : l2 l2-protocol lacp link-debounce link-tracking lldp load-interval logging mac mac-address
        : mc-tx-queue mpls mtu no phy pim poe ptp service-policy service-profile sflow shape show shutdown
        : snmp spanning-tree storm-control switchport traffic-loopback transceiver uc-tx-queue
        : unidirectional vrf vrrp
        channel-group * mode active|passive|on
        error-correction encoding reed-solomon|fire-code
        ip access-group * in|out
        ip address * secondary
        ip address|access-group|arp|attached-host|dhcp|directed-broadcast|helper-address|igmp|local-proxy-arp
        ip mtu|multicast|nat|ospf|pim|proxy-arp|rip|verify|virtual-router|load-sharing|unreachables
        priority-flow-control on|pause|watchdog
        priority-flow-control mode on|off
        priority-flow-control priority * no-drop|drop
        qos trust dscp|cos
        qos cos|dscp|rewrite|random-detect|map
        speed auto|forced
        tx-queue *>tx-queue
    """,
    "tx-queue": """
        : comment default exit no shape show
        bandwidth percent|guaranteed
        priority strict
        random-detect drop|count
        random-detect ecn minimum-threshold * bytes|kbytes|mbytes|segments|milliseconds|microseconds maximum-threshold * bytes|kbytes|mbytes|segments|milliseconds|microseconds max-mark-probability|weight
    """,
    "bgp": """
        : aggregate-address comment default default-metric dynamic exit graceful-restart
        : graceful-restart-helper ip ipv4 ipv6 monitoring no rd
        : router-id show shutdown ucmp update
        maximum-paths * ecmp
        network * route-map
        redistribute connected|static|ospf|ospfv3|isis|rip|attached-host|dynamic|user|bgp route-map
        route-target import|export|both
        address-family ipv4>bgp-af
        address-family ipv6|evpn|flow-spec|vpn-ipv4|vpn-ipv6|ipv4-multicast|ipv6-multicast|link-state
        bgp bestpath as-path multipath-relax|ignore
        bgp bestpath med missing-as-worst|always|confed
        bgp bestpath tie-break router-id|cluster-list-length
        bgp bestpath ecmp-fast|skip|d-path|origin-as
        bgp always-compare-med|log-neighbor-changes|listen|missing-policy|additional-paths
        bgp default ipv4-unicast|ipv6-unicast
        bgp advertise-inactive|allowas-in|auto-local-addr|client-to-client|cluster-id|confederation
        bgp control-plane-filter|enforce-first-as|host-routes|next-hop-unchanged|redistribute-internal
        bgp route|route-reflector|transport|aspath-cmp-include-nexthop|asn|fec|convergence
        distance bgp
        neighbor * activate|additional-paths|allowas-in|as-path|auto-local-addr|bfd|default-originate
        neighbor * description|dont-capability-negotiate|ebgp-multihop|enforce-first-as|export-localpref
        neighbor * fall-over|graceful-restart|graceful-restart-helper|idle-restart-timer|import-localpref
        neighbor * link-bandwidth|local-as|local-v4-addr|local-v6-addr|maximum-accepted-routes
        neighbor * maximum-routes|metric-out|missing-policy|next-hop-peer|next-hop-self|next-hop-unchanged
        neighbor * next-hop-v6-addr|out-delay|passive|password|peer|peer-group|remote-as|remote-port
        neighbor * remove-private-as|route-reflector-client|route-to-peer|send-community|shutdown|timers
        neighbor * transport|ttl|update-source|weight|rib-in-pre-policy-retain|soft-reconfiguration
        neighbor * route-map * in|out
        neighbor * prefix-list * in|out
        timers bgp
        vrf *>bgp-vrf
    """,
    "bgp-af": """
        : bgp comment default exit graceful-restart no show
        network * route-map
        redistribute connected|static|ospf|ospfv3|isis|rip|attached-host|dynamic|user|bgp route-map
        neighbor * activate|default-originate|additional-paths|next-hop-unchanged
        neighbor * weight|graceful-restart|rib-in-pre-policy-retain
        neighbor * route-map * in|out
        neighbor * prefix-list * in|out
    """,
    "route-map": """
        : comment continue default description exit no show sub-route-map
        match ip address prefix-list|access-list
        match ip next-hop|resolved-next-hop
        match as|as-path|community|extcommunity|interface|invert-result|ipv6|large-community
        match local-preference|metric|metric-type|route-type|router-id|source-protocol|tag|isis
        match aggregate-role|as-path-length
        set as-path prepend|match
        set community|extcommunity|distance|ip|ipv6|isis|large-community|local-preference|metric
        set metric-type|next-hop|origin|segment-index|tag|weight|bgp
    """,
    "prefix-list": """
        : comment default exit no show
        seq * permit|deny * ge|le|eq * ge|le
        permit|deny * ge|le|eq * ge|le
    """,
    "mgmt-service": """
        : authentication cipher client-alive comment cors default exit fips hostkey idle-timeout ipv6
        : key-exchange log-level login mac no protocol qos server-port shutdown show username
        connection limit
        ip access-group
        vrf *>mgmt-vrf
    """,
    "mgmt-vrf": """
        : comment default exit ipv6 no shutdown show
        ip access-group
    """,
    "mgmt-gnmi": """
        : comment default exit no provider show
        transport grpc *>gnmi-transport
    """,
    "gnmi-transport": """
        : authorization certificate comment default exit no notification port shutdown show ssl vrf
        ip access-group
    """,
    "aaa-group": """
        : comment default exit no server show
    """,
    "control-plane": """
        : comment default exit ipv6 no show
        ip access-group
    """,
    "daemon": """
        : comment command default exec exit heartbeat no oom option show shutdown
    """,
    "router-general": """
        : comment control-functions default exit nexthop-group no router-id show
        vrf *>router-general-vrf
    """,
    "router-general-vrf": """
        : comment default exit no routes show
        leak routes
    """,
}

# the words that may open a line of any mode (the rest is read as in the mode)
_NEGATIONS = ("no", "default")


def _compile(text: str) -> _Position:
    """A mode's table as a tree of positions. A line starting with `:` lists first keywords (each
    a pattern of one word); any other line is one pattern."""
    root = _Position()
    for raw in text.split("\n"):
        words = raw.split()
        patterns = [[w] for w in words[1:]] if words[:1] == [":"] else [words] if words else []
        for pattern in patterns:
            at = [root]  # (alternatives in the middle of a pattern: each continues alike)
            for word in pattern:
                word, _, mode = word.partition(">")
                if word == "*+":
                    for position in at:
                        position.argument = position.argument or _Position(numbers=True)
                    at = [position.argument for position in at if position.argument is not None]
                elif word == "*.":
                    for position in at:
                        position.argument = position.argument or _Position(address=True)
                    at = [position.argument for position in at if position.argument is not None]
                elif word == "*":
                    for position in at:
                        position.argument = position.argument or _Position()
                    at = [position.argument for position in at if position.argument is not None]
                else:
                    at = [position.keywords.setdefault(alternative, _Position())
                          for position in at for alternative in word.split("|")]
                if mode:
                    for position in at:
                        position.child_mode = mode
    return root


# a VRF's block under `router bgp` holds router bgp's statements but no VRF of its own
_GRAMMAR["bgp-vrf"] = _GRAMMAR["bgp"].replace("        vrf *>bgp-vrf\n", "")
_MODES: dict[str, _Position] = {mode: _compile(text) for mode, text in _GRAMMAR.items()}


def _options(at: _Position, options: dict[str, int | None]) -> None:
    """Options after a command's arguments, in any order: each keyword followed by its count of
    arguments, then the next option (a loop back to ``at``); None: its argument runs to the line's
    end (a secret, a key), so nothing after it is spelled."""
    for name, count in options.items():
        if count == 0:
            at.keywords[name] = at
            continue
        position = at.keywords.setdefault(name, _Position())
        for remaining in range(count or 0, 0, -1):
            position.argument = at if remaining == 1 else _Position()
            position = position.argument


def _after(mode: str, *words: str) -> _Position:
    """The position a pattern's words lead to (an argument `*` made where the table stops)."""
    at = _MODES[mode]
    for word in words:
        if word == "*":
            at.argument = at.argument or _Position()
            at = at.argument
        else:
            at = at.keywords[word]
    return at


# the options EOS completes after a command's arguments, where a shortened option changes what the
# model reads (a TACACS+ host's key, a user's role, a secondary address)
_options(_after("global", "tacacs-server", "host", "*"),
         {"key": None, "port": 1, "timeout": 1, "vrf": 1, "single-connection": 0})
_options(_after("global", "username", "*"), {"privilege": 1, "role": 1, "secret": None, "nopassword": 0,
                                             "sshkey": None, "ssh-key": None, "shell": 1})
_after("interface", "ip", "address", "*", "*").keywords["secondary"] = _Position()  # (the netmask form)


@dataclass(frozen=True)
class Spelling:
    line: int
    written: str
    spelled: str  # "" when ambiguous
    ambiguous_word: str = ""
    ambiguous: tuple[str, ...] = ()  # the keywords an ambiguous word could be
    changes: tuple[tuple[str, str], ...] = ()  # (as written, as read) of each word spelled out

    def said(self) -> str:
        """The words spelled out, first (a report may cut a long line's end)."""
        return "; ".join(f"`{written}` read as `{read}`" for written, read in self.changes)


def _negated(words: list[str], root: _Position) -> int:
    """1 when the line opens with `no` or `default` (also `def`, `defa` ..., where no other first
    keyword of the mode shares the prefix): the rest is read as in the mode; else 0."""
    first = words[0].lower() if words else ""
    return int(first in _NEGATIONS or len(first) >= 3 and "default".startswith(first) and
               not any(k.startswith(first) for k in root.keywords if k != "default"))


def _spell_words(words: list[str], mode: str) -> tuple[list[str], str, tuple[str, ...], str]:
    """(the words spelled out, the ambiguous word, the keywords it could be, the mode of the block
    the line opens)."""
    root = _MODES[mode]
    out = list(words)
    at = root
    child_mode = ""
    i = _negated(words, root)
    if i:
        out[0] = "no" if words[0].lower() == "no" else "default"
    while i < len(words):
        word = words[i]
        low = word.lower()
        if at.numbers and low.isdecimal():
            pass  # (a list of numbers: the position stays until its keyword)
        elif low in at.keywords:
            out[i], at = low, at.keywords[low]
        elif at.argument is not None and (low.isdecimal() or not at.argument.numbers) \
                and (low[:1].isdigit() or not at.argument.address):
            at = at.argument
        elif at.keywords:
            could = tuple(sorted(k for k in at.keywords if k.startswith(low)))
            if len(could) != 1:
                return out, (word if could else ""), could, child_mode
            out[i], at = could[0], at.keywords[could[0]]
        else:
            break
        child_mode = at.child_mode or child_mode
        i += 1
    return out, "", (), child_mode


def spelled_as_written(words: list[str], mode: str) -> bool:
    """Whether EOS reads ``words`` as written (no keyword shortened, none ambiguous)."""
    spelled, ambiguous, _, _ = _spell_words(words, mode)
    return spelled == words and not ambiguous


def spell_out(nodes: list[Node], mode: str = "global") -> list[Spelling]:
    """Rewrite every node's words as EOS reads them (in place, the text too); the lines changed
    and the ambiguous words, in file order. (A loop, not recursion: a hostile file nests
    thousands deep.)"""
    notes: list[Spelling] = []
    pending: list[tuple[list[Node], str]] = [(nodes, mode)]
    while pending:
        block, block_mode = pending.pop()
        for node in block:
            words, ambiguous, could, child_mode = _spell_words(node.words, block_mode)
            if ambiguous:
                notes.append(Spelling(node.line, node.text, "", ambiguous, could))
            elif words != node.words:
                notes.append(Spelling(node.line, node.text, " ".join(words),
                                      changes=tuple((a, b) for a, b in zip(node.words, words) if a != b)))
                node.words = words
                node.text = " ".join(words)
            if node.children:  # (a block of a mode the table does not hold, an access list's: as written)
                pending.append((node.children, child_mode if child_mode in _MODES else "none"))
    notes.sort(key=lambda note: note.line)
    return notes


_MODES["none"] = _Position()


def _fit(mode: str, words: list[str]) -> tuple[int, bool]:
    """How far ``words`` follow ``mode``'s table: the keywords it places them on (0: the line is no
    command of the mode: a word at a keyword position takes none of its keywords), and whether
    every one was written in full. A block the table does not know takes no line by its words."""
    if mode == "none":
        return 0, True
    at = _MODES[mode]
    placed, whole = 0, True
    for word in words[_negated(words, at):]:
        low = word.lower()
        if at.numbers and low.isdecimal():
            continue
        if low in at.keywords:
            at, placed = at.keywords[low], placed + 1
        elif at.argument is not None and (low[:1].isdigit() or not at.argument.address):
            at = at.argument
        elif not at.keywords:
            break  # (the table stops here: the rest is the command's own)
        elif could := [k for k in at.keywords if k.startswith(low)]:
            placed, whole = placed + 1, False
            if len(could) > 1:
                break  # (ambiguous here: EOS refuses it in this mode)
            at = at.keywords[could[0]]
        else:
            return 0, True
    return placed, whole


def strays(block: Node, mode: str = "global") -> list[Node]:
    """The lines under ``block`` (a line of ``mode``) that are no command of the mode its line
    opens, nor of the modes its lines open in turn (the table's modes; a block it does not know
    keeps its lines): EOS takes such a line in a mode above or refuses it, so a block with nothing
    for the model must not swallow it in silence. A stray's own lines are its own (not walked)."""
    out = []
    pending = [(block, _spell_words(block.words, mode)[3])]
    while pending:  # (a loop: a hostile file nests thousands deep)
        node, inner = pending.pop()
        if not inner:
            continue  # (a block the table does not know: its lines stay its own)
        for child in node.children:
            if not _fit(inner, child.words)[0]:
                out.append(child)
            elif child.children:
                pending.append((child, _spell_words(child.words, inner)[3]))
    return sorted(out, key=lambda n: n.line)


def renested(nodes: list[Node], exits: Sequence[int] = ()) -> list[tuple[int, int]]:
    """Nest the lines as EOS's CLI does, in place: EOS ignores indentation and reads each line in
    the mode the lines before it entered, moving up to a parent mode when the line is not a command
    of that one. A line goes to the open mode whose table places most of its keywords (written in
    full before shortened; the deepest on a tie); a mode above the one its indentation names takes
    it only with every keyword in full (the table is not EOS's grammar: a command missing from a
    mode's list must not leave its block); a line no open mode takes stays where its indentation
    put it, and a block the table does not know (an access list's) keeps its indented lines.
    ``exits``: the lines (in order) that are `exit`, each of which leaves the innermost open mode
    (at the top it leaves nothing). Returns (line, the line of its new holder, 0 for the top) for
    each line placed elsewhere than its indentation says."""
    order: list[tuple[Node, Node | None]] = []
    pending: list[tuple[Node, Node | None]] = [(node, None) for node in reversed(nodes)]
    while pending:  # (file order: a block's lines follow it; a loop, not recursion)
        node, parent = pending.pop()
        order.append((node, parent))
        pending.extend((child, node) for child in reversed(node.children))
    indented_parent = {id(node): parent for node, parent in order}
    had_lines = {id(node) for node, _ in order if node.children}
    for node, _ in order:
        node.children = []
    nodes.clear()
    open_modes: list[tuple[str, Node | None]] = [("global", None)]
    known = [0]  # the depths in open_modes of modes the table knows (not "none")
    where: dict[int, int] = {}  # id(node) -> its depth in open_modes while it is open
    moved: list[tuple[int, int]] = []
    next_exit = 0
    for node, parent in order:
        while next_exit < len(exits) and exits[next_exit] < node.line:
            next_exit += 1
            if len(open_modes) > 1:
                where.pop(id(open_modes.pop()[1]), None)
                while known and known[-1] >= len(open_modes):
                    known.pop()
        floor, up = 0, parent
        while up is not None and id(up) not in where:
            up = indented_parent[id(up)]
        if up is not None:
            floor = where[id(up)]
        # the open mode whose table places the most of the line's keywords (written in full before
        # shortened), the deepest on a tie (EOS tries the mode the lines above entered first); a
        # mode above the one the indentation names only with every keyword in full (a block the
        # table does not know keeps its lines); no mode: where the indentation puts it
        best, at = (0, False), floor
        for depth in reversed(known):  # (the modes the table knows: a few, however deep the blocks)
            fit = _fit(open_modes[depth][0], node.words)
            if fit[0] and (depth >= floor or fit[1]) and fit > best:
                best, at = fit, depth
        for _, closed in open_modes[at + 1:]:
            where.pop(id(closed), None)
        del open_modes[at + 1:]
        while known and known[-1] > at:
            known.pop()
        holder = open_modes[at][1]
        (nodes if holder is None else holder.children).append(node)
        if holder is not parent:
            moved.append((node.line, 0 if holder is None else holder.line))
        child_mode = _spell_words(node.words, open_modes[at][0])[3]
        if child_mode or id(node) in had_lines:
            where[id(node)] = len(open_modes)
            if child_mode in _MODES:
                known.append(len(open_modes))
            open_modes.append((child_mode if child_mode in _MODES else "none", node))
    return moved

