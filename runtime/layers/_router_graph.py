"""The router's graph side (docs/spec/v0.md#router.fusion), kept apart from ``router.py``;
functions over the router's ``FanOut``: the hop boost over fused hits, from the neighbours its
graph-capable children report, and ``neighbours`` itself, so an outer router can boost with an
inner one's graph."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mnemowire.fusion import hop_boost, hop_distances
from mnemowire.layers._fanout import FanOut
from mnemowire.layers._routing import Outcome, failure, neighbour_answers
from mnemowire.protocol import GraphStore

__all__ = ["boost", "neighbours"]


async def neighbours(
    fan: FanOut, agent_id: str, ids: Sequence[str], *, hops: int
) -> dict[str, dict[str, int]]:
    """The graph-capable children's neighbours of ``ids``, nearest distance first wins; a
    router is a GraphStore so that an outer router can boost with an inner one's graph."""
    answers = await neighbour_answers(
        _graph(fan, skip=set()), agent_id, list(ids), hops, fan.deadline_s
    )
    ok = [a.response for a in answers if a.response is not None]
    if answers and not ok:
        raise failure("neighbours", answers, [a.result() for a in answers])
    merged: dict[str, dict[str, int]] = {}
    for answer in ok:
        for item, near in answer.items():
            mine = merged.setdefault(item, {})
            for other, distance in near.items():
                mine[other] = min(mine.get(other, distance), distance)
    return merged


async def boost(
    fan: FanOut,
    agent_id: str,
    fused: dict[str, float],
    hops: int,
    outcomes: Sequence[Outcome[Any]],
) -> tuple[dict[str, float], dict[str, dict[str, str]]]:
    """The hop boost over ``fused``, and what each graph child did (StoreResult extras)."""
    failed = {o.store for o in outcomes if o.status not in ("ok", "skipped")}
    answers = await neighbour_answers(
        _graph(fan, skip=failed), agent_id, sorted(fused), hops, fan.deadline_s
    )
    notes = {
        a.store: {"graph_status": a.status, **({"graph_error": a.error} if a.error else {})}
        for a in answers
    }
    known = [a.response for a in answers if a.response is not None]
    return hop_boost(fused, hop_distances(fused, known, hops)), notes


def _graph(fan: FanOut, *, skip: set[str]) -> list[Any]:
    """The children declaring ``graph`` that answer ``neighbours`` (those in ``skip``
    left out)."""
    return [
        child
        for child in fan.children
        if "graph" in fan.capabilities[child.name]
        and isinstance(child, GraphStore)
        and child.name not in skip
    ]
