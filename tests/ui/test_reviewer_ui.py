"""The reviewer UI in a real browser: Playwright driving Chromium against a real server and
sqlite-vec store (``nox -s ui``). What a reviewer does (sign in, approve with a reason, reject
and merge by keyboard) changes the store as ``decide`` does; what an attacker tries (a forged
form from another site, another agent's review, markup stored in a memory) changes nothing and
runs nothing; and no page breaks its own Content-Security-Policy."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page, expect, sync_playwright

from mnemowire.adapters.sqlite_vec import SqliteVecStore
from mnemowire.apps.server import MemoryServer
from mnemowire.apps.transport import Tokens
from mnemowire.embedders import HashEmbedder
from tests.server._serving import serving

DANA = "dana-reviewer-token-0123456789"  # reviews agent "assistant"
ERIN = "erin-reviewer-token-0123456789"  # reviews agent "other" only
AGENT = "assistant"
TOKENS = {
    "tokens": [
        {"name": "dana", "token": DANA, "agents": [AGENT], "reviewer": True},
        {"name": "erin", "token": ERIN, "agents": ["other"], "reviewer": True},
    ]
}
#: where `nox -s ui -- screenshots` keeps the screenshots the docs show
SHOTS = os.environ.get("MNEMOWIRE_UI_SCREENSHOTS")


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    executable = os.environ.get("MNEMOWIRE_CHROMIUM", "/usr/bin/chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        yield launched
        launched.close()


@dataclass
class Served:
    url: str
    violations: list[str] = field(default_factory=list)

    def api(self, operation: str, body: dict[str, Any], version: str = "v0.2") -> dict[str, Any]:
        answer = httpx.post(
            f"{self.url}/{version}/{operation}",
            json=body,
            headers={"authorization": f"Bearer {DANA}"},
        )
        assert answer.status_code == 200, answer.text
        result: dict[str, Any] = answer.json()
        return result

    def remember(self, content: str, *, staged: bool = True, **fields: Any) -> str:
        body = {"agent_id": AGENT, "type": "semantic", "content": content, **fields}
        if staged:
            body["approval_required"] = True
        return str(self.api("remember", body)["id"])

    def pending(self) -> list[str]:
        return [r["review_id"] for r in self.api("reviews", {"agent_id": AGENT})["reviews"]]

    def states(self, *ids: str) -> dict[str, str]:
        states = ["active", "pending", "archived", "expired"]
        got = self.api("get", {"agent_id": AGENT, "ids": list(ids), "states": states})
        return {r["id"]: r["state"] for r in got["records"]}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    store = SqliteVecStore(str(tmp_path / "memory.db"), embedder=HashEmbedder(64))
    tokens = Tokens.parse(json.dumps(TOKENS), "test")
    with serving(MemoryServer(store, tokens=tokens), ui=True) as url:
        yield Served(url)


def signed_in(browser: Browser, served: Served, token: str = DANA) -> Page:
    """A fresh browser context signed in with ``token``; every CSP violation it reports is
    kept in ``served.violations``."""
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()

    def watch(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Content-Security-Policy" in message.text:
            served.violations.append(message.text)

    page.on("console", watch)
    page.goto(f"{served.url}/ui/")
    page.get_by_label("Your bearer token").fill(token)
    page.get_by_role("button", name="Sign in").click()
    return page


def shot(page: Page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / name), full_page=True)


def test_a_reviewer_approves_with_a_reason(browser: Browser, served: Served) -> None:
    served.remember("Alice prefers tea in the morning", staged=False)
    served.remember("Alice is allergic to peanuts", staged=False)
    review = served.remember("Alice prefers green tea in the morning")
    page = signed_in(browser, served)
    expect(page.get_by_role("heading", name="Pending writes of assistant")).to_be_visible()
    card = page.locator("article.review", has_text=review)
    expect(card.locator(".related li")).to_have_count(2)
    shot(page, "ui-queue.png")
    card.get_by_placeholder("why (recorded with the decision)").fill("checked with Alice")
    card.get_by_role("button", name="Approve").click()
    expect(card.locator(".decided")).to_have_text(
        "Approved by dana: checked with Alice (1 record changed)"
    )
    assert served.states(review) == {review: "active"}
    assert served.violations == []


def test_reject_and_merge_by_keyboard(browser: Browser, served: Served) -> None:
    kept = served.remember("Bob lives in Lisbon", staged=False)
    rejected = served.remember("Bob hates everyone")
    merged = served.remember("Bob lives in Lisbon, Portugal")
    page = signed_in(browser, served)
    first = page.locator("article.review").first
    expect(first).to_be_focused()  # the first review has focus on arrival
    page.keyboard.press("r")
    expect(page.locator("article.review", has_text=rejected).locator(".decided")).to_contain_text(
        "Rejected by dana"
    )
    second = page.locator("article.review", has_text=merged)
    expect(second).to_be_focused()  # the next review takes focus
    shot(page, "ui-merge.png")
    page.keyboard.press("m")
    expect(second.locator(".decided")).to_contain_text("Merged by dana")
    assert served.pending() == []
    assert served.states(kept, rejected, merged) == {kept: "active"}
    page.keyboard.press("?")
    expect(page.get_by_role("heading", name="Keyboard")).to_be_visible()
    assert served.violations == []


def test_a_staged_merge_shows_before_and_after_with_the_changed_words(
    browser: Browser, served: Served
) -> None:
    canonical = served.remember("Carol works at Acme", staged=False)
    duplicate = served.remember("Carol works at Acme as an engineer", staged=False)
    gone = served.remember("Carol's old phone number", staged=False)
    merge = served.api(
        "merge",
        {"agent_id": AGENT, "canonical": canonical, "duplicates": [duplicate],
         "strategy": "merge_content", "approval_required": True},
    )["review_id"]  # fmt: skip
    forget = served.api("forget", {"agent_id": AGENT, "ids": [gone], "approval_required": True})[
        "review_id"
    ]
    page = signed_in(browser, served)
    card = page.locator("article.review", has_text=merge)
    expect(card.locator(".after ins")).to_contain_text("as an engineer")
    expect(card.locator(".before", has_text=duplicate)).to_contain_text(
        "Carol works at Acme as an engineer"
    )
    expect(card.locator(".after .none").first).to_have_text("(forgotten)")
    expect(page.locator("article.review", has_text=forget).locator(".before")).to_contain_text(
        "Carol's old phone number"
    )
    shot(page, "ui-diff.png")
    card.get_by_role("button", name="Approve").click()
    expect(card.locator(".decided")).to_have_text("Approved by dana (2 records changed)")
    assert served.states(canonical, duplicate) == {canonical: "active"}
    assert served.pending() == [forget]
    assert served.violations == []


def test_stored_markup_is_shown_and_never_run(browser: Browser, served: Served) -> None:
    hostile = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>'
    review = served.remember(hostile)
    page = signed_in(browser, served)
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    card = page.locator("article.review", has_text=review)
    expect(card.locator(".after .content")).to_have_text(hostile)
    card.get_by_placeholder("why (recorded with the decision)").fill(
        "<script>window.pwned=3</script>"
    )
    card.get_by_role("button", name="Reject").click()
    expect(card.locator(".decided")).to_contain_text("<script>window.pwned=3</script>")
    assert page.evaluate("window.pwned") is None
    assert page.locator("article.review script, article.review img").count() == 0
    assert dialogs == []


class _Forger(BaseHTTPRequestHandler):
    """Another site: a page whose form posts a decision to the UI on load."""

    target = ""

    def do_GET(self) -> None:
        body = (
            f'<form id="f" method="post" action="{self.target}">'
            '<input name="agent" value="assistant"><input name="decision" value="approve">'
            '</form><script>document.getElementById("f").submit()</script>'
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


def test_a_forged_form_from_another_site_changes_nothing(browser: Browser, served: Served) -> None:
    review = served.remember("approve me from elsewhere")
    page = signed_in(browser, served)  # the reviewer is signed in, in this browser
    _Forger.target = f"{served.url}/ui/reviews/{review}/decide"
    forger = ThreadingHTTPServer(("127.0.0.2", 0), _Forger)
    thread = threading.Thread(target=forger.serve_forever, daemon=True)
    thread.start()
    try:
        page.goto(f"http://127.0.0.2:{forger.server_address[1]}/")
        page.wait_for_load_state("networkidle")
    finally:
        forger.shutdown()
        forger.server_close()
    assert served.pending() == [review]
    expect(page.locator("body")).not_to_contain_text("Approved")


def test_another_agents_review_is_404(browser: Browser, served: Served) -> None:
    review = served.remember("assistant's private note")
    page = signed_in(browser, served, ERIN)
    answer = page.goto(f"{served.url}/ui/reviews/{review}?agent={AGENT}")
    assert answer is not None
    assert answer.status == 404
    expect(page.locator("p.error")).to_contain_text("No such review here")
    expect(page.locator("body")).not_to_contain_text("private note")
    assert served.pending() == [review]


def test_the_audit_view_shows_the_chain_and_each_decision(browser: Browser, served: Served) -> None:
    review = served.remember("audited")
    page = signed_in(browser, served)
    page.locator("article.review", has_text=review).get_by_role("button", name="Approve").click()
    expect(page.locator(".decided")).to_be_visible()
    page.get_by_role("link", name="Audit log").click()
    expect(page.locator(".chain.ok")).to_contain_text("The hash chain holds: 3 entries")
    rows = page.locator("table.audit tbody tr")
    expect(rows).to_have_count(3)  # newest first: the decision, the approval, the staging
    expect(rows.nth(0)).to_contain_text('"reviewer": "dana"')
    expect(rows.nth(1)).to_contain_text("approve")
    expect(rows.nth(2)).to_contain_text('{"caller": "dana", "pending": true}')  # the token's name
    shot(page, "ui-audit.png")
    assert served.violations == []


def test_a_record_opens_its_history_with_each_change_marked(
    browser: Browser, served: Served
) -> None:
    review = served.remember("Dana's locker is 12")
    page = signed_in(browser, served)
    card = page.locator("article.review", has_text=review)
    card.get_by_role("button", name="Approve").click()
    expect(card.locator(".decided")).to_be_visible()
    update = {"agent_id": AGENT, "id": review, "expected_version": 1,
              "content": "Dana's locker is 14", "reason": "moved lockers"}  # fmt: skip
    served.api("update", update)
    page.get_by_role("link", name="Audit log").click()
    page.locator("table.audit tbody tr").first.get_by_role("link", name=review).click()
    expect(page.get_by_role("heading", name=f"History of {review}")).to_be_visible()
    versions = page.locator("li.version")
    expect(versions).to_have_count(3)  # staged, approved, updated: oldest first
    expect(versions.nth(0).locator(".op")).to_have_text("remember")
    expect(versions.nth(0).locator(".caller")).to_have_text("dana")
    expect(versions.nth(2).locator(".op")).to_have_text("update")
    expect(versions.nth(2).locator("ins")).to_have_text("14")
    expect(versions.nth(2).locator(".reason")).to_have_text("Reason: moved lockers")
    shot(page, "ui-history.png")
    assert served.violations == []


def test_the_duplicates_page_shows_each_group_with_its_evidence(
    browser: Browser, served: Served
) -> None:
    for text in ("Dana drives an electric car.", "dana drives an electric car",
                 "Dana drives a diesel van."):  # fmt: skip
        served.remember(text, staged=False)
    page = signed_in(browser, served)
    page.goto(f"{served.url}/ui/reviews?agent={AGENT}")
    page.get_by_role("link", name="Records that say the same thing").click()
    expect(page.get_by_role("heading", name=f"Duplicates of {AGENT}")).to_be_visible()
    expect(page.locator("section.group")).to_have_count(1)
    duplicate = page.locator("li.duplicate")
    expect(duplicate).to_have_count(1)
    expect(duplicate.locator(".reason")).to_have_text("exact")
    expect(duplicate.locator("blockquote")).to_have_text("dana drives an electric car")
    shot(page, "ui-duplicates.png")
    assert served.violations == []


def test_the_promotion_page_shows_each_action_with_its_reasons(
    browser: Browser, served: Served
) -> None:
    days_ago = int(time.time() * 1000) - 3 * 86_400_000
    lines = [
        {"kind": "record", "state": "active",
         "record": {"id": f"said-{n}", "agent_id": AGENT, "type": "episodic",
                    "content": "Dana cycles to work.", "created_at": days_ago}}
        for n in (1, 2)
    ]  # fmt: skip
    served.api("import_records", {"agents": [AGENT], "records": lines}, version="v0.4")
    page = signed_in(browser, served)
    page.goto(f"{served.url}/ui/reviews?agent={AGENT}")
    page.get_by_role("link", name="Short-term memories to promote").click()
    expect(page.get_by_role("heading", name=f"Promotion of {AGENT}")).to_be_visible()
    action = page.locator("section.action")
    expect(action).to_have_count(1)
    expect(action.locator(".verb")).to_have_text("promote")
    expect(action.locator("blockquote")).to_have_text("Dana cycles to work.")
    expect(action.locator("ul.because li")).to_have_text(["said 2 times, at least 2"])
    shot(page, "ui-promotion.png")
    assert served.violations == []
