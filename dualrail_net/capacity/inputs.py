"""The capacity command's two input files, read like the inventory: bounded YAML reader, strict
schema, every problem one `FILE:LINE: error: ...` line.

Scenario file::

    scenarios:
      - name: spine maintenance in plane A
        fail: [a-spine-1, a-spine-2]
      - name: plane B down
        fail: ["plane:B"]

Model file: the fields of `model.ModelInputs` (every one optional).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from dualrail_net.capacity.failures import FailureSpecError, Scenario, expand_failure
from dualrail_net.capacity.model import ModelInputs
from dualrail_net.resolve.model import Fabric
from dualrail_net.sot.diagnostics import Diagnostic, InputFileError
from dualrail_net.sot.load import read_mapping_file, validation_diagnostics
from dualrail_net.sot.yamlsource import SourceMap



class CapacityInputError(InputFileError):
    """An input file cannot be used; one FILE:LINE line per problem."""


class _ScenarioEntry(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Annotated[str, Field(min_length=1, max_length=120, pattern=r"^[^\x00-\x1f\x7f]+$")]
    fail: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(min_length=1, max_length=10_000)


class _ScenarioFile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    scenarios: list[_ScenarioEntry] = Field(min_length=1, max_length=1000)


def _read(path: Path, what: str) -> tuple[Any, SourceMap]:
    try:
        return read_mapping_file(path, what)
    except InputFileError as exc:
        raise CapacityInputError(exc.diagnostics) from None


def load_scenarios(path: Path, fabric: Fabric) -> list[Scenario]:
    raw, smap = _read(path, "scenario file")
    try:
        parsed = _ScenarioFile.model_validate(raw)
    except ValidationError as exc:
        raise CapacityInputError(validation_diagnostics(exc, smap, raw)) from None
    problems = []
    for i, entry in enumerate(parsed.scenarios):
        for k, spec in enumerate(entry.fail):
            try:
                expand_failure(fabric, spec)
            except FailureSpecError as exc:
                file, line = smap.locate(("scenarios", i, "fail", k))
                problems.append(Diagnostic(file, line, str(exc)))
    if problems:
        raise CapacityInputError(problems)
    return [Scenario(e.name, tuple(e.fail)) for e in parsed.scenarios]


def load_model_inputs(path: Path) -> ModelInputs:
    raw, smap = _read(path, "model file")
    try:
        return ModelInputs.model_validate(raw)
    except ValidationError as exc:
        raise CapacityInputError(validation_diagnostics(exc, smap, raw)) from None
