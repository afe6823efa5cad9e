"""The one way a rendered file names a secret: ``${secret:NAME}``, filled in from the secrets file
(outside the repository) when the file is pushed. Rendering writes it, deployment substitutes it,
verification holds every credential of a rendered file to it (a literal value there is a secret in
git)."""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(r"\$\{secret:([A-Za-z0-9_.-]+)\}")


def is_reference(value: str) -> bool:
    """Whether ``value`` is exactly one ``${secret:NAME}`` (what the renderer writes)."""
    return PLACEHOLDER.fullmatch(value) is not None
