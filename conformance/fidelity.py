"""The check of docs/spec/v0.1.md#store.fidelity: each field a remember carries comes back as
the store's ``capabilities.fidelity`` says it keeps it.

One record per memory type the store holds carries every field of that type with a value that
breaks careless encodings (surrounding whitespace, non-ASCII text, an integer past 64 bits and
a float that is not short in decimal in the metadata, a confidence with nine digits), and is
read back by ``get`` when the store declares it, else by recall. A native or encoded field must
come back exactly; a lossy one may change (and a store says how in its documentation); an
unsupported one must make the remember fail with ``unsupported``. The report's header carries
the declaration, which ``mnemowire certify-matrix`` turns into the fidelity table.
"""

from __future__ import annotations

from typing import Any

from mnemowire.conformance._harness import CheckFailed, Harness, check, expect
from mnemowire.kit import fidelity_of, now_ms
from mnemowire.models import Capability

__all__ = ["probes"]

#: ten years: an expiry the check never reaches
_LATER_MS = 10 * 365 * 86_400_000
#: what the seal check covers ([seals.store]); a seal is made with a key the check lacks
_NOT_PROBED = ("seal",)


def probes(agent_id: str, capabilities: set[str], serial: str) -> list[dict[str, Any]]:
    """One remember request per memory type the store holds, every field of it set."""
    common: dict[str, Any] = {
        "agent_id": agent_id,
        "content": "  Ünïcode memo: Alice\u2019s flight\n  leaves at 06:05 \t",
        "metadata": {
            "big": 2**70,
            "sum": 0.1 + 0.2,
            "nested": {"list": [1, None, True, "x"], "empty": {}},
            "ключ": "значение",
        },
        "confidence": 0.123456789,
        "source": " chat:ü/42 ",
        "user_id": " user ü\t42 ",
        "expires_at": now_ms() + _LATER_MS,
    }
    by_type: dict[str, dict[str, Any]] = {
        "semantic": {},
        "episodic": {
            "event_time": 1_779_000_000_123,
            "location": " Gare du Nord, quai 3 ",
            "participants": ["zoë", "alice", " bob "],
        },
        "emotional": {
            "sentiment": "mixed",
            "valence": -0.333333333333,
            "arousal": 0.987654321,
            "emotion": " nostalgie ",
            "target": "Paris",
        },
    }
    out = []
    for kind, fields in by_type.items():
        if kind in capabilities:
            out.append({**common, **fields, "type": kind, "id": f"fidelity-{kind}-{serial}"})
    return out


@check("store.fidelity", section="store.fidelity", spec="v0.1")
async def fidelity(h: Harness) -> None:
    """Every field comes back as the store declares it keeps it (native and encoded: exactly)."""
    kept = fidelity_of(h.store.capabilities())
    base = h.agent()
    agent = base + " ü "  # ids are any text: a backend's scope key must not trim or fold it
    serial = "-".join(base.rsplit("-", 2)[-2:])  # the time and counter: unique across runs
    for request in probes(agent, h.capabilities, serial):
        sent = {
            name: value
            for name, value in request.items()
            if name in ("agent_id", "type", "content") or kept.get(name) != "unsupported"
        }
        if "client_ids" not in h.capabilities:
            sent.pop("id", None)
        record_id = str((await h.call("remember", sent)).id)
        got = await _read_back(h, sent, record_id)
        changed = [
            f"{name}: sent {value!r}, got {got.get(name)!r}"
            for name, value in sent.items()
            if kept[name] in ("native", "encoded")
            and name not in _NOT_PROBED
            and not _same(got.get(name), value)
        ]
        expect(not changed, f"{request['type']} record changed: " + "; ".join(changed))
        for name, how in kept.items():
            if how == "unsupported" and name in request and name not in _NOT_PROBED:
                await _refused(h, {**sent, "id": None, name: request[name]}, name)


async def _read_back(h: Harness, sent: dict[str, Any], record_id: str) -> dict[str, Any]:
    user = {"user_id": sent["user_id"]} if "user_id" in sent else {}
    if Capability.GET in h.capabilities:
        answer = await h.call("get", {"agent_id": sent["agent_id"], **user, "ids": [record_id]})
        expect(answer.records, f"get did not return record {record_id}")
        return dict(answer.records[0].model_dump(mode="json", exclude_none=True))
    hits = await h.recall(sent["agent_id"], sent["content"], types=[sent["type"]], **user)
    found = [hit for hit in hits if hit.id == record_id]
    expect(found, f"record {record_id} was not recalled by its agent")
    # a hit does not name its agent: that its agent's recall found it is the agent read back
    return {"agent_id": sent["agent_id"], **found[0].model_dump(mode="json", exclude_none=True)}


async def _refused(h: Harness, request: dict[str, Any], name: str) -> None:
    request = {k: v for k, v in request.items() if v is not None}
    error = await h.rejected("remember", request)
    if error.code != "unsupported":
        raise CheckFailed(f"a remember with {name} (declared unsupported) failed {error.code}")


def _same(got: Any, sent: Any) -> bool:
    """Equal as JSON values: 1 and 1.0 are one number, True is not 1."""
    if isinstance(sent, bool) or isinstance(got, bool):
        return type(sent) is type(got) and sent == got
    if isinstance(sent, dict):
        return (
            isinstance(got, dict)
            and got.keys() == sent.keys()
            and all(_same(got[k], v) for k, v in sent.items())
        )
    if isinstance(sent, list):
        return (
            isinstance(got, list)
            and len(got) == len(sent)
            and all(_same(g, s) for g, s in zip(got, sent, strict=True))
        )
    return bool(got == sent)
