"""Playbooks (YAML in playbooks/): what a rolling run does, readable by a reviewer."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field


class Playbook(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    kind: Literal["config", "firmware"] = "config"
    planes: list[str] = Field(min_length=1, description="order in which planes are changed")
    roles: list[str] = ["leaf", "spine", "super_spine"]
    canary: int = Field(default=1, ge=0, description="leaves changed alone first, in each plane")
    batch_size: int = Field(default=4, ge=1)
    concurrency: int = Field(default=4, ge=1)
    spines_one_at_a_time: bool = True
    drain_spines: bool = True
    drain_settle_seconds: float = Field(default=3.0, ge=0)
    post_check_timeout_seconds: float = Field(default=60.0, gt=0)
    image: str | None = Field(default=None, description="firmware playbooks: the image/version to install")


def load_playbook(path: Path) -> Playbook:
    return Playbook.model_validate(yaml.safe_load(path.read_text()))
