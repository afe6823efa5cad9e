"""``python3 -m dualrail_net``: the same as the ``dualrail`` command."""

import sys

from dualrail_net.cli import main

sys.exit(main())
