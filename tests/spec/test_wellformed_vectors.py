"""A vector (a long list of floats) is checked in one pass (``_wellformed._finite_floats``), and
must be judged exactly as the member-by-member walk judges it: every NaN or infinity wherever
it sits, a member that is not a float, and finite numbers whose sum overflows."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from mnemowire.spec._wellformed import wellformed_problems

VECTOR = [0.25 * (i % 7) - 0.5 for i in range(384)]


def at(index: int, value: Any) -> list[Any]:
    changed = list(VECTOR)
    changed[index] = value
    return changed


@pytest.mark.parametrize("index", [0, 1, 200, 383])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_nan_or_infinity_anywhere_in_a_vector_is_named(index: int, bad: float) -> None:
    problems = wellformed_problems({"vector": at(index, bad)}, 8)
    assert [(p["path"], p["rule"]) for p in problems] == [(f"/vector/{index}", "json")]


def test_a_vector_of_finite_floats_or_with_ints_is_json() -> None:
    assert wellformed_problems({"vector": VECTOR}, 8) == []
    assert wellformed_problems({"vector": at(5, 3)}, 8) == []  # an int among floats
    assert wellformed_problems({"vector": [1e308] * 10}, 8) == []  # its sum overflows


def test_a_member_that_is_not_a_json_number_is_named() -> None:
    problems = wellformed_problems({"vector": at(9, np.float32(0.5))}, 8)
    assert [(p["path"], p["rule"]) for p in problems] == [("/vector/9", "json")]
    inf_and_minus_inf = at(3, math.inf)
    inf_and_minus_inf[4] = -math.inf
    found = wellformed_problems({"vector": inf_and_minus_inf}, 8)
    assert sorted(p["path"] for p in found) == ["/vector/3", "/vector/4"]
