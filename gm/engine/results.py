"""The outcome vocabulary shared by the engine, reports and tests."""
from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from gm.engine.orders import Order


class Result(str, Enum):
    SUCCEEDS = "succeeds"
    FAILS = "fails"
    VOID = "void"  # illegal, or not applicable to the position
    CUT = "cut"  # a support that was cut


class OrderResult(NamedTuple):
    order: Order
    result: Result
    reason: str = ""  # why, for anything but SUCCEEDS
