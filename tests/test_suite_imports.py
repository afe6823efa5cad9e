"""The suite imports its shared helpers as the top-level module ``conftest``, never as ``tests.conftest``.

``tests/`` is no package (no ``__init__.py``), so ``tests.conftest`` resolves through a namespace
package, and a regular package named ``tests`` in site-packages wins over any namespace package:
pybatfish 2026.9 and textfsm 2.1 install one, and with them every module that imported
``tests.conftest`` failed to collect (a fresh machine's CI, measured)."""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).parent
SHADOWED = re.compile(r"^\s*(from\s+tests(\.|\s)|import\s+tests\b)", re.MULTILINE)


def test_no_test_module_imports_through_the_tests_name() -> None:
    offenders = [path.name for path in sorted(HERE.glob("*.py")) if SHADOWED.search(path.read_text())]
    assert offenders == []


def test_the_pattern_sees_both_forms() -> None:
    assert SHADOWED.search("x = 1\n    from tests.conftest import built_variant\n")
    assert SHADOWED.search("import tests\n")
    assert not SHADOWED.search("from conftest import built_variant\n# see tests/golden\n")
