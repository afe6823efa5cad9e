"""Playbooks (YAML in playbooks/): what a rolling run does, readable by a reviewer."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from dualrail_net.sot.diagnostics import InputFileError
from dualrail_net.sot.load import read_mapping_file, validation_diagnostics


class Playbook(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    name: str
    kind: Literal["config", "firmware"] = "config"
    planes: list[str] = Field(min_length=1, description="order in which planes are changed")
    roles: list[str] = ["leaf", "spine", "super_spine"]
    canary: int = Field(default=1, ge=0, description="leaves changed alone first, in each plane")
    batch_size: int = Field(default=4, ge=1)
    concurrency: int = Field(default=4, ge=1, description="devices changed at once within a batch")
    health_concurrency: int = Field(
        default=16, ge=1, le=256,
        description="devices asked at once by a health gate or a post-check (read-only SSH sessions; a "
                    "gate asks every device of a plane after every batch)")
    spines_one_at_a_time: bool = True
    drain_spines: bool = True
    drain_settle_seconds: float = Field(default=3.0, ge=0)
    post_check_timeout_seconds: float = Field(default=60.0, gt=0)
    confirm_timeout_seconds: float = Field(
        default=600.0, gt=0, le=86400,
        description="a commit reverts itself on the device unless confirmed within this time; it must "
                    "outlast the batch's post-checks")
    image: str | None = Field(default=None, description="firmware playbooks: the image/version to install")
    image_urls: dict[str, str] = Field(
        default={}, description="firmware playbooks on real switches: platform -> where its image is, with {version} "
                                "for the image (e.g. http://repo/EOS-{version}.swi); the twin needs none")

    @model_validator(mode="after")
    def _timer_outlasts_checks(self) -> Playbook:
        # at worst the post-checks of a batch run one device after the other, then the plane's
        needed = self.post_check_timeout_seconds * (self.batch_size + 1) + self.drain_settle_seconds
        if self.kind == "config" and self.confirm_timeout_seconds <= needed:
            raise ValueError(f"confirm_timeout_seconds {self.confirm_timeout_seconds:g} must be longer than a batch's "
                             f"post-checks can take ({needed:g} s): a change would revert while it is checked")
        return self


class PlaybookError(InputFileError):
    """The playbook cannot be used; one FILE:LINE line per problem."""


def load_playbook(path: Path) -> Playbook:
    """Read a playbook through the same bounded YAML reader as the inventory (it is reviewed input too)."""
    try:
        raw, smap = read_mapping_file(path, "playbook")
    except InputFileError as exc:
        raise PlaybookError(exc.diagnostics) from None
    try:
        return Playbook.model_validate(raw)
    except ValidationError as exc:
        raise PlaybookError(validation_diagnostics(exc, smap, raw)) from None
