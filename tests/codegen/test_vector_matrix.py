"""The spec examples are the cross-language vectors: Python, TypeScript and Go must each accept
every valid one and report exactly the annotated (path, rule) set for every invalid one.

The matrix (vector x language -> accept/reject) is printed, so a CI log shows it at a glance.
"""

from __future__ import annotations

import json
from typing import Any

from mnemowire import spec

from .conftest import ROOT, _run, go

Verdicts = dict[tuple[str, str], tuple[bool, frozenset[tuple[str, str]]]]
EXAMPLES_DIR = ROOT / "spec" / spec.read_spec().version / "examples"


def _parse(output: str) -> Verdicts:
    verdicts: Verdicts = {}
    for line in output.splitlines():
        row: dict[str, Any] = json.loads(line)
        pairs = frozenset((str(p), str(r)) for p, r in row["errors"])
        verdicts[(row["message"], row["name"])] = (not pairs, pairs)
    return verdicts


def test_all_three_languages_agree_with_every_annotation(
    ts_vectors: list[str], go_env: dict[str, str]
) -> None:
    examples = list(spec.read_spec().examples())
    python: Verdicts = {}
    for example in examples:
        errors = spec.validator(example.message).errors(example.instance)
        pairs = frozenset((d["path"], d["rule"]) for d in errors)
        python[(example.message, example.name)] = (not pairs, pairs)
    languages = {
        "python": python,
        "ts": _parse(_run([*ts_vectors, f"../../spec/{spec.LATEST}/examples"])),
        "go": _parse(go(go_env, "run", "./cmd/vectors", str(EXAMPLES_DIR))),
    }
    rows = [f"{'vector':<58} {'expect':<7} " + " ".join(f"{lang:<7}" for lang in languages)]
    wrong = []
    for example in examples:
        key = (example.message, example.name)
        expected = (example.valid, frozenset(example.errors))
        cells = []
        for language, verdicts in languages.items():
            verdict = verdicts.get(key)
            ok = verdict == expected
            cells.append(("accept" if verdict and verdict[0] else "reject") + ("" if ok else "!"))
            if not ok:
                wrong.append(f"{language} {key}: {verdict} != {expected}")
        label = f"{example.message}/{example.name}"
        rows.append(
            f"{label:<58} {'accept' if example.valid else 'reject':<7} "
            + " ".join(f"{cell:<7}" for cell in cells)
        )
    print("\n".join(rows))
    assert len(examples) == len(languages["ts"]) == len(languages["go"])
    assert not wrong, "\n".join(wrong)
