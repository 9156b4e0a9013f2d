"""Synthetic memories for scale benchmarks: varied sentences from templates, seeded.

Scale runs need tens of thousands of distinct, realistic-looking texts; the quality corpus
(hand-written) is for retrieval quality. Same seed, same texts, on every machine.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    from mnemowire.layers.memory import Memory

__all__ = ["bulk_load", "load_numbered", "synthetic_texts"]

_PEOPLE = [
    "Alice",
    "Bob",
    "Carla",
    "Dan",
    "Eve",
    "Farid",
    "Grace",
    "Hiro",
    "Ines",
    "Jonas",
    "Kemi",
    "Liam",
    "Mara",
    "Nils",
    "Olga",
    "Pedro",
    "Quinn",
    "Rosa",
    "Sami",
    "Tara",
]
_TEMPLATES = [
    "{p} prefers {thing} when {situation}.",
    "{p} mentioned that {thing} was {quality} during {event}.",
    "On {day}, {p} {did} at {place}.",
    "{p} is allergic to {allergen} and avoids {food}.",
    "{p} feels {feeling} about {thing}.",
    "Remember that {p} has a {event} at {place} on {day}.",
    "{p} asked me to {task} before {day}.",
    "{p} works on {project} with {q} and reports to {r}.",
]
_WORDS = {
    "thing": [
        "green tea",
        "an aisle seat",
        "morning meetings",
        "the night train",
        "oat milk",
        "the new laptop",
        "spicy food",
        "quiet rooms",
        "paper notebooks",
        "jazz records",
    ],
    "situation": [
        "travelling for work",
        "it rains",
        "the kids are home",
        "deadlines loom",
        "the weekend starts",
        "the office is noisy",
    ],
    "quality": ["excellent", "disappointing", "too expensive", "surprisingly good", "late"],
    "event": [
        "the quarterly review",
        "a dentist appointment",
        "the team offsite",
        "a job interview",
        "the school play",
        "a marathon",
        "the product launch",
    ],
    "day": [
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "the 3rd of May",
        "New Year's Eve",
        "the first day of spring",
    ],
    "did": [
        "lost a passport",
        "met an old friend",
        "signed the contract",
        "missed the bus",
        "gave a talk",
        "broke a wrist",
        "adopted a cat",
    ],
    "place": [
        "the airport",
        "the library",
        "Lisbon",
        "the gym",
        "the city hall",
        "Kyoto",
        "the hospital",
        "the coffee shop on Main Street",
    ],
    "allergen": ["peanuts", "penicillin", "shellfish", "pollen", "latex", "gluten"],
    "food": ["satay", "prawns", "bread", "trail mix", "pesto"],
    "feeling": ["anxious", "excited", "proud", "frustrated", "relieved", "nostalgic"],
    "task": [
        "book a table",
        "renew the insurance",
        "call the plumber",
        "send the invoice",
        "water the plants",
        "update the slides",
    ],
    "project": [
        "the bridge retrofit",
        "the billing migration",
        "the mobile app",
        "the annual audit",
        "the warehouse move",
    ],
}


def synthetic_texts(count: int, seed: int = 7) -> list[str]:
    """``count`` distinct sentences (a counter keeps them distinct past the combinations)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        template = rng.choice(_TEMPLATES)
        values = {key: rng.choice(options) for key, options in _WORDS.items()}
        people = rng.sample(_PEOPLE, 3)
        text = template.format(p=people[0], q=people[1], r=people[2], **values)
        out.append(f"{text} (note {i})")
    return out


async def load_numbered(
    memory: Memory, agent: str, count: int, dimension: int, *, low_every: int = 0
) -> list[str]:
    """``count`` numbered records of one agent bulk-loaded with random vectors (what the
    record benchmarks measure does not depend on the embedder), 5,000 per call; every
    ``low_every``-th one with confidence 0.05 (0: none). Their ids, in order."""
    rng = np.random.default_rng(0)
    ids: list[str] = []
    for start in range(0, count, 5000):
        n = min(5000, count - start)
        requests: list[dict[str, Any]] = [
            {
                "agent_id": agent,
                "type": "semantic",
                "content": f"memory number {start + i}: the user mentioned item {start + i}",
                "metadata": {"n": start + i, "topic": ("work", "home", "health")[i % 3]},
            }
            for i in range(n)
        ]
        if low_every:
            for i, request in enumerate(requests):
                request["confidence"] = 0.05 if (start + i) % low_every == 0 else 0.9
        vectors = rng.standard_normal((n, dimension)).astype(np.float32)
        ids += await bulk_load(memory, requests, vectors)
    return ids


async def bulk_load(
    memory: Memory, requests: list[dict[str, Any]], vectors: npt.NDArray[np.float32]
) -> list[str]:
    """Remember ``requests`` with their ``vectors`` (row i is request i), 5,000 per call; the
    ids, in order."""
    ids: list[str] = []
    for start in range(0, len(requests), 5000):
        batch = requests[start : start + 5000]
        written = await memory.remember_many(batch, vectors=vectors[start : start + 5000])
        ids += [d.id for d in written]
    return ids
