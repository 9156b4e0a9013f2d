"""Reading the LoCoMo benchmark from the path a user gives: conversations, turns, questions.

The data is never shipped (CC BY-NC 4.0): these functions read the release's JSON shape
(``data/locomo10.json`` of snap-research/LoCoMo, or any subset of its conversations) and turn it
into what the benchmark writes and asks. A file that does not have that shape is refused with
a :class:`LocomoError` naming the conversation and the field, never a traceback.

Evidence ids are the release's ``dia_id`` strings (``"D3:14"``: session 3, turn 14). A few
questions in the release carry malformed ones ("D8:6; D9:17" in one string, "D:11:26"); every
``D<session>:<turn>`` found in an entry is taken, and ids that name no turn of the conversation
are counted apart (``unknown_evidence``), never silently dropped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = [
    "CATEGORIES",
    "DEVELOPMENT_HALF",
    "HEADLINE_CATEGORIES",
    "Conversation",
    "LocomoError",
    "Question",
    "Turn",
    "load_locomo",
    "parse_locomo",
    "session_time",
]

#: the release numbers categories only; this is the one reading used here and printed with
#: every result (the mem0 paper's, the common one): 5 is the adversarial category, whose
#: premise the conversation does not support
CATEGORIES: Mapping[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
#: the categories the headline numbers average over (the adversarial one is reported apart)
HEADLINE_CATEGORIES = (1, 2, 3, 4)
#: the conversations retrieval was developed on; every other one of the release is held out
DEVELOPMENT_HALF = frozenset({"conv-26", "conv-30", "conv-41", "conv-42", "conv-43"})

_SESSION = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")
# "1:56 pm on 8 May, 2023"
_WHEN = re.compile(
    r"(?P<hour>\d{1,2}):(?P<minute>\d{2})\s*(?P<half>[ap]m)\s+on\s+(?P<day>\d{1,2})\s+"
    r"(?P<month>[A-Za-z]+),?\s+(?P<year>\d{4})",
    re.IGNORECASE,
)


class LocomoError(ValueError):
    """The file is not the LoCoMo release's shape: says where and what."""


@dataclass(frozen=True)
class Turn:
    """One dialogue turn, as the benchmark writes it: one episodic memory."""

    dia_id: str
    session: int
    speaker: str
    #: ``Speaker: text``, and the shared photo's caption where the turn has one
    content: str
    #: the session's date and time, ms since the epoch, read as UTC (the release gives no zone)
    event_time: int


@dataclass(frozen=True)
class Question:
    """One question, with the turns that answer it."""

    #: position in the conversation's ``qa`` list (the report names questions by it, never by
    #: their text: the data stays out of reports that are committed)
    index: int
    text: str
    category: int
    evidence: frozenset[str]
    #: evidence ids naming no turn of the conversation
    unknown_evidence: tuple[str, ...]


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]


def load_locomo(path: Path) -> list[Conversation]:
    """Read and parse a LoCoMo JSON file."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise LocomoError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LocomoError(f"{path} is not JSON: {exc}") from None
    return parse_locomo(data)


def parse_locomo(data: Any) -> list[Conversation]:
    """The conversations of a parsed LoCoMo document (a list of samples)."""
    if not isinstance(data, list) or not data:
        raise LocomoError("expected a non-empty JSON list of conversations (LoCoMo's release)")
    return [_conversation(sample, position) for position, sample in enumerate(data)]


def session_time(text: str) -> int:
    """``"1:56 pm on 8 May, 2023"`` in ms since the epoch, read as UTC."""
    match = _WHEN.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"unrecognised session date {text!r}")
    hour = int(match["hour"]) % 12 + (12 if match["half"].lower() == "pm" else 0)
    try:
        moment = datetime.strptime(
            f"{match['year']} {match['month']} {match['day']} {hour}:{match['minute']}",
            "%Y %B %d %H:%M",
        )
    except ValueError:
        raise ValueError(f"unrecognised session date {text!r}") from None
    return round(moment.replace(tzinfo=UTC).timestamp() * 1000)


def _conversation(sample: Any, position: int) -> Conversation:
    where = f"conversation {position}"
    if not isinstance(sample, Mapping):
        raise LocomoError(f"{where}: expected an object")
    sample_id = str(sample.get("sample_id", position))
    where = f"conversation {sample_id!r}"
    body = sample.get("conversation")
    questions = sample.get("qa")
    if not isinstance(body, Mapping) or not isinstance(questions, list):
        raise LocomoError(f"{where}: needs 'conversation' (an object) and 'qa' (a list)")
    turns = _turns(body, where)
    if not turns:
        raise LocomoError(f"{where}: no session_N holds a turn")
    known = {turn.dia_id for turn in turns}
    return Conversation(
        sample_id=sample_id,
        turns=tuple(turns),
        questions=tuple(_question(q, i, known, where) for i, q in enumerate(questions)),
    )


def _turns(body: Mapping[str, Any], where: str) -> list[Turn]:
    sessions = sorted(
        int(match[1]) for key in body if (match := _SESSION.fullmatch(key)) is not None
    )
    out: list[Turn] = []
    for number in sessions:
        key = f"session_{number}"
        turns = body[key]
        when_text = body.get(f"{key}_date_time")
        if not isinstance(turns, list):
            raise LocomoError(f"{where}: {key} must be a list of turns")
        try:
            when = session_time(str(when_text))
        except ValueError as exc:
            raise LocomoError(f"{where}: {key}_date_time: {exc}") from None
        for turn in turns:
            if not isinstance(turn, Mapping) or not all(
                isinstance(turn.get(field), str) for field in ("speaker", "dia_id", "text")
            ):
                raise LocomoError(f"{where}: {key}: a turn needs speaker, dia_id and text strings")
            out.append(
                Turn(
                    dia_id=turn["dia_id"],
                    session=number,
                    speaker=turn["speaker"],
                    content=_content(turn),
                    event_time=when,
                )
            )
    return out


def _content(turn: Mapping[str, Any]) -> str:
    """What the memory says: the speaker and their words, and the caption of a shared photo."""
    content = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    if isinstance(caption, str) and caption.strip():
        content += f" [shared a photo: {caption.strip()}]"
    return content


def _question(entry: Any, index: int, known: set[str], where: str) -> Question:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("question"), str):
        raise LocomoError(f"{where}: qa[{index}] needs a 'question' string")
    category = entry.get("category")
    if isinstance(category, bool) or not isinstance(category, int) or category not in CATEGORIES:
        raise LocomoError(
            f"{where}: qa[{index}].category is {category!r}; known: {sorted(CATEGORIES)}"
        )
    found = [f"D{s}:{t}" for item in _strings(entry.get("evidence", [])) for s, t in
             _EVIDENCE.findall(item)]  # fmt: skip
    return Question(
        index=index,
        text=entry["question"],
        category=category,
        evidence=frozenset(e for e in found if e in known),
        unknown_evidence=tuple(sorted({e for e in found if e not in known})),
    )


def _strings(value: Any) -> Sequence[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(item) for item in value]
    return []
