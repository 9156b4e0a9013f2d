"""v0 clients against a v0.1 store, in all three languages ([compat.minor]).

A v0 client is the v0 bindings: they are generated here from spec/v0 (the checkout ships the
newest, v0.1), built, and given everything a real v0.1 store answers a v0 client (every
operation's response, the error envelopes, capabilities, health: recorded from the embedded
store, sealed records included) and every valid v0.1 example of a message v0 has. Each must
accept all of it. The other way: every valid v0 request must be a valid v0.1 request, in the
v0.1 bindings of all three languages, so a v0 client's requests reach a v0.1 store.

The matrix (message x language -> accepted/total) is printed for the CI log.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from mnemowire import codegen, spec
from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.embedders import HashEmbedder
from mnemowire.errors import MnemowireError
from mnemowire.kit import to_wire
from mnemowire.layers.memory import Memory

from .conftest import PACKAGE, TIMEOUT, _run, go
from .test_vector_matrix import _parse

SEAL = {"alg": "hmac-sha256", "key_id": "k1", "mac": "ab" * 32}


async def _recorded() -> list[tuple[str, Any]]:
    """What a v0.1 store answers a v0 client, message by message (a v0 client's requests, and
    the v0.1 writes other clients made to the same store, which the v0 client then reads)."""
    out: list[tuple[str, Any]] = []
    store = SqliteVecStore(":memory:", embedder=HashEmbedder(64))
    async with Memory(store) as memory:
        out.append(("capabilities", to_wire(memory.capabilities())))
        out.append(("health", to_wire(await memory.health())))
        sealed = {"agent_id": "a", "id": "s-1", "type": "semantic", "content": "sealed tea",
                  "seal": SEAL, "metadata": {"topic": "drinks"}}  # fmt: skip
        out.append(("remember.response", to_wire(await memory.remember(sealed))))
        plain = {"agent_id": "a", "type": "semantic", "content": "Alice likes green tea"}
        first = await memory.remember(plain)
        out.append(("remember.response", to_wire(first)))
        staged = {**plain, "content": "staged", "approval_required": True}
        out.append(("remember.response", to_wire(await memory.remember(staged))))
        again = await memory.remember({**sealed})
        out.append(("remember.response", to_wire(again)))
        await memory.update(
            {"agent_id": "a", "id": first.id, "expected_version": 1, "content": "green tea!"}
        )
        recall = {"agent_id": "a", "query": "tea", "k": 5, "min_relevance": -1}
        out.append(("recall.response", to_wire(await memory.recall(recall))))
        other = await memory.remember({**plain, "content": "Bob likes green tea"})
        merge = {"agent_id": "a", "canonical": first.id, "duplicates": [other.id]}
        out.append(("merge.response", to_wire(await memory.merge(merge))))
        expire = {"agent_id": "a", "policy": {"confidence_below": 1}, "action": "demote"}
        out.append(("expire.response", to_wire(await memory.expire(expire))))
        out.append(
            ("forget.response", to_wire(await memory.forget({"agent_id": "a", "ids": ["s-1"]})))
        )
        for bad in (
            lambda: memory.remember({"agent_id": "a", "type": "semantic", "content": ""}),
            lambda: memory.remember({**sealed, "content": "other text"}),
            lambda: memory.merge({"agent_id": "a", "canonical": "nope", "duplicates": ["x"]}),
        ):
            with pytest.raises(MnemowireError) as failed:
                await bad()
            out.append(("error", failed.value.envelope))
    return out


def _corpus(folder: Path, items: list[tuple[str, Any]]) -> list[tuple[str, str]]:
    """Write ``items`` as valid examples under ``folder`` (the examples layout)."""
    names = []
    for number, (message, payload) in enumerate(items):
        target = folder / message / "valid"
        target.mkdir(parents=True, exist_ok=True)
        name = f"case-{number:03d}"
        (target / f"{name}.json").write_text(json.dumps(payload), encoding="utf-8")
        names.append((message, name))
    return names


@pytest.fixture(scope="module")
def v0_bindings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The v0 bindings (TypeScript and Go), generated from spec/v0 into a scratch folder."""
    root = tmp_path_factory.mktemp("v0-bindings")
    files = codegen.generate(["ts", "go"], source=spec.read_spec("v0"))
    codegen.write(files, root)
    return root


def _ts_v0(root: Path) -> list[str]:
    package = root / "ts"
    if not (PACKAGE / "node_modules").is_dir():
        _run([shutil.which("npm") or "npm", "ci", "--no-audit", "--no-fund"])
    (package / "node_modules").symlink_to(PACKAGE / "node_modules")
    tsc = PACKAGE / "node_modules" / ".bin" / "tsc"
    subprocess.run(
        [str(tsc), "-p", "tsconfig.json"], cwd=package, check=True, timeout=TIMEOUT,
        capture_output=True,
    )  # fmt: skip
    return [shutil.which("node") or "node", str(package / "dist" / "vectors.js")]


def _verdicts(
    ts: list[str], go_env: dict[str, str], go_module: Path, corpus: Path, version: str
) -> dict[str, dict[tuple[str, str], bool]]:
    python = {}
    for message_dir in corpus.iterdir():
        for case in (message_dir / "valid").iterdir():
            payload = json.loads(case.read_text())
            errors = spec.validator(message_dir.name, version=version).errors(payload)
            python[(message_dir.name, case.stem)] = not errors
    ts_out = subprocess.run(
        [*ts, str(corpus)], capture_output=True, text=True, check=True, timeout=TIMEOUT,
        env={**os.environ},
    ).stdout  # fmt: skip
    go_out = go(go_env, "run", "./cmd/vectors", str(corpus), cwd=go_module)
    return {
        "python": python,
        "ts": {key: ok for key, (ok, _) in _parse(ts_out).items()},
        "go": {key: ok for key, (ok, _) in _parse(go_out).items()},
    }


def _table(verdicts: dict[str, dict[tuple[str, str], bool]]) -> tuple[str, list[str]]:
    messages = sorted({m for lang in verdicts.values() for m, _ in lang})
    rows = [f"{'message':<24} " + " ".join(f"{lang:>10}" for lang in verdicts)]
    wrong = []
    for message in messages:
        cells = []
        for lang, found in verdicts.items():
            mine = {k: ok for k, ok in found.items() if k[0] == message}
            cells.append(f"{sum(mine.values())}/{len(mine)}".rjust(10))
            wrong += [f"{lang} rejects {k}" for k, ok in mine.items() if not ok]
        rows.append(f"{message:<24} " + " ".join(cells))
    return "\n".join(rows), wrong


async def test_v0_clients_in_three_languages_accept_what_a_v0_1_store_sends(
    v0_bindings: Path, go_env: dict[str, str], tmp_path: Path
) -> None:
    v0_messages = set(spec.read_spec("v0").messages)
    items = await _recorded()
    newest = spec.read_spec("v0.1")
    items += [
        (example.message, example.instance)
        for example in newest.examples()
        if example.valid and example.message in v0_messages
        and not example.message.endswith(".request")
        and example.message != "review-decision"  # sent by reviewers, not by stores
    ]  # fmt: skip
    corpus = tmp_path / "from-v0.1-stores"
    names = _corpus(corpus, items)
    verdicts = _verdicts(_ts_v0(v0_bindings), go_env, v0_bindings / "go", corpus, "v0")
    table, wrong = _table(verdicts)
    print("\nv0 clients reading a v0.1 store (accepted/total):\n" + table)
    assert all(len(found) == len(names) for found in verdicts.values())
    assert wrong == []


def test_v0_requests_are_valid_v0_1_requests_in_three_languages(
    ts_vectors: list[str], go_env: dict[str, str], tmp_path: Path
) -> None:
    items = [
        (example.message, example.instance)
        for example in spec.read_spec("v0").examples()
        if example.valid
        and (example.message.endswith(".request") or example.message == "review-decision")
    ]  # fmt: skip
    corpus = tmp_path / "from-v0-clients"
    _corpus(corpus, items)
    ts = [ts_vectors[0], str(PACKAGE / ts_vectors[1])]
    verdicts = _verdicts(ts, go_env, PACKAGE.parent / "go", corpus, "v0.1")
    table, wrong = _table(verdicts)
    print("\nv0 requests under the v0.1 bindings (accepted/total):\n" + table)
    assert wrong == []
