"""Which words of a content a change removes and adds, for every application that shows a
change (the CLI's pretty review, the reviewer UI): one bounded diff, so content an agent
chose cannot make a reviewer's page or terminal spend minutes on it."""

from __future__ import annotations

import re
from difflib import SequenceMatcher

__all__ = ["DIFF_BUDGET", "Span", "word_diff"]

#: tokens: words and the whitespace between them (a line break included)
_TOKENS = re.compile(r"\s+|\S+")
#: token pairs the diff may weigh: SequenceMatcher is quadratic in the tokens; 1,000 a side
#: took 0.09 s here (2 vCPUs), 4,000 a side 2.3 s, and two 5,000-word contents with nothing in
#: common did not end in 600 s. A longer change is marked whole between the start and the end
#: both sides share.
DIFF_BUDGET = 1_000_000

#: a run of text and whether the change touches it
Span = tuple[str, bool]


def word_diff(before: str, after: str) -> tuple[list[Span], list[Span]]:
    """``before`` and ``after`` as runs of text, each marked changed when the other side
    lacks it: what a reviewer sees struck through, and highlighted."""
    old, new = _TOKENS.findall(before), _TOKENS.findall(after)
    shared = min(len(old), len(new))
    head = 0
    while head < shared and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < shared - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    old_mid, new_mid = old[head : len(old) - tail], new[head : len(new) - tail]
    if len(old_mid) * len(new_mid) <= DIFF_BUDGET:
        ops = SequenceMatcher(None, old_mid, new_mid, autojunk=False).get_opcodes()
    else:
        ops = [("replace", 0, len(old_mid), 0, len(new_mid))]
    left: list[Span] = [("".join(old[:head]), False)]
    right: list[Span] = [("".join(new[:head]), False)]
    for tag, i1, i2, j1, j2 in ops:
        left.append(("".join(old_mid[i1:i2]), tag != "equal"))
        right.append(("".join(new_mid[j1:j2]), tag != "equal"))
    left.append(("".join(old[len(old) - tail :]), False))
    right.append(("".join(new[len(new) - tail :]), False))
    return _joined(left), _joined(right)


def _joined(spans: list[Span]) -> list[Span]:
    """Empty runs dropped, neighbours of one kind joined."""
    out: list[Span] = []
    for text, changed in spans:
        if not text:
            continue
        if out and out[-1][1] == changed:
            out[-1] = (out[-1][0] + text, changed)
        else:
            out.append((text, changed))
    return out
