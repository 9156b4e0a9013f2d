"""The reviewer UI's pages: the review queue per agent, one review, a decision, the audit log.

Every page reads and decides through the server's validating boundary (``admitted``), the same
path a JSON client takes: the request validated against the spec, the session's caller admitted
for the agent, a decision only by a reviewer and under the reviewer's own name. The UI adds no
way around the protocol; what it adds is that a refusal about an agent the session may not see
answers 404, as an unknown review does, so a review id tells nobody whose it is.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from mnemowire import spec
from mnemowire.apps.server._app import MemoryServer
from mnemowire.apps.server.ui._audit import ChainCheck, lines_of
from mnemowire.apps.server.ui._cards import card_of, versions_of
from mnemowire.apps.server.ui._sessions import (
    LIFETIME_S,
    LOGIN_COOKIE,
    SESSION_COOKIE,
    Session,
    Sessions,
    matches,
    same_origin,
    set_cookie,
)
from mnemowire.apps.transport import admitted
from mnemowire.errors import MnemowireError, UnauthorizedError
from mnemowire.protocol import AuditedStore

__all__ = ["ReviewerUI"]

HERE = Path(__file__).parent
#: reviews per page
PAGE = 20
#: audit entries per page
AUDIT_PAGE = 50
#: versions on a record's history page
HISTORY_PAGE = 50
#: the closest existing memories shown with a staged remember
RELATED = 3
#: no inline script or style, nothing from elsewhere, no framing: a stored string that slips
#: past escaping still cannot run
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",  # no-referrer would make a browser send `Origin: null`
}
NOT_FOUND = "No such review here: it was decided already, or it is not one you may see."
NO_RECORD = "No such record here: it was erased, or it is not one you may see."
NO_QUEUE = (
    "keeps no review queue; every store in mnemowire does from spec v0.2 on, a router when "
    "all its children do"
)
NO_CONSOLIDATION = (
    "does not consolidate duplicates (sqlite-vec and pgvector do from spec v0.4 on, a router "
    "over them too)"
)
NO_PROMOTION = (
    "does not promote short-term memories (sqlite-vec and pgvector do from spec v0.4 on, a "
    "router over them too)"
)
#: groups on the duplicates page (the plan's largest first), actions on the promotion page
DUPLICATE_GROUPS = 100
#: the page of each operation's dry run
PLAN_PAGES = {"consolidate": "duplicates.html", "promote": "promotion.html"}
NO_HISTORY = (
    "keeps no history of its records (sqlite-vec and pgvector do from spec v0.4 on, a router "
    "over them too)"
)


class Refused(Exception):
    """A page refused: its status and what to tell the reviewer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ReviewerUI:
    """``mnemowire serve --ui``: the pages under ``/ui`` of a running server."""

    def __init__(self, server: MemoryServer) -> None:
        self.server = server
        self.sessions = Sessions(server.tokens)
        self.boundary = server.boundaries[server.versions[-1]]
        self.templates = Jinja2Templates(directory=str(HERE / "templates"))
        self.chain = ChainCheck()

    def routes(self) -> list[BaseRoute]:
        return [
            Mount(
                "/ui",
                routes=[
                    Route("/", self._guarded(self.start), methods=["GET"]),
                    Route("/login", self.login_form, methods=["GET"]),
                    Route("/login", self.login, methods=["POST"]),
                    Route("/logout", self._guarded(self.logout), methods=["POST"]),
                    Route("/reviews", self._guarded(self.queue), methods=["GET"]),
                    Route("/reviews/{review_id}", self._guarded(self.one), methods=["GET"]),
                    Route(
                        "/reviews/{review_id}/decide",
                        self._guarded(self.decide),
                        methods=["POST"],
                    ),
                    Route("/audit", self._guarded(self.audit), methods=["GET"]),
                    Route("/records/{record_id}", self._guarded(self.record), methods=["GET"]),
                    Route("/duplicates", self._guarded(self.duplicates), methods=["GET"]),
                    Route("/promotion", self._guarded(self.promotion), methods=["GET"]),
                    Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
                ],
            )
        ]

    # -- rendering -----------------------------------------------------------------------------

    def page(self, request: Request, template: str, status: int = 200, **context: Any) -> Response:
        response = self.templates.TemplateResponse(
            request, template, {"store": self.server.store.name, **context}, status_code=status
        )
        response.headers.update(HEADERS)
        return response

    def _guarded(self, handle: Any) -> Any:
        """``handle(request, session)`` for a signed-in session; to sign-in otherwise, and
        a refusal as a page (a fragment, for htmx)."""

        async def endpoint(request: Request) -> Response:
            try:
                session = self.sessions.of(request)
            except UnauthorizedError as exc:
                return self.page(request, "error.html", 401, message=str(exc), session=None)
            if session is None:
                back = "/ui/"
                if request.method == "GET":  # back to this very page, its query included
                    back = request.url.path + (f"?{request.url.query}" if request.url.query else "")
                if request.headers.get("hx-request"):
                    return Response(status_code=401, headers={"hx-redirect": "/ui/login"})
                return RedirectResponse(f"/ui/login?{urlencode({'next': back})}", 303)
            try:
                result: Response = await handle(request, session)
                return result
            except Refused as refusal:
                fragment = request.headers.get("hx-request") is not None
                return self.page(
                    request,
                    "_refused.html" if fragment else "error.html",
                    refusal.status,
                    message=refusal.message,
                    session=session,
                )

        return endpoint

    async def _call(
        self,
        session: Session,
        operation: str,
        payload: dict[str, Any],
        *,
        absent: str = NOT_FOUND,
        lacking: str = NO_QUEUE,
    ) -> Any:
        """``operation`` through the boundary as ``session``'s caller; a refusal for an agent
        the session may not see is a 404 (``absent``), like a review that is not there; a
        store that cannot serve it is a 501 saying what it lacks (``lacking``)."""
        agent = str(payload.get("agent_id", ""))
        if not session.sees(agent):
            raise Refused(404, absent)
        try:
            return await self.server.finish(
                admitted(self.boundary, session.caller, operation, payload)
            )
        except MnemowireError as exc:
            if exc.code == "not_found":
                raise Refused(404, absent) from None
            if exc.code == "unsupported":
                raise Refused(501, f"{self.server.store.name} {lacking} ({exc})") from None
            if exc.code == "conflict":
                raise Refused(409, f"Already decided: {exc}") from None
            raise Refused(spec_status(exc.code), _said(exc)) from None

    # -- sign in and out -----------------------------------------------------------------------

    async def login_form(self, request: Request) -> Response:
        nonce = secrets.token_urlsafe(24)
        response = self.page(
            request,
            "login.html",
            needs_token=self.sessions.needs_token,
            nonce=nonce,
            next=_local(request.query_params.get("next")),
            session=None,
        )
        set_cookie(response, request, LOGIN_COOKIE, nonce, 600)
        return response

    async def login(self, request: Request) -> Response:
        form = await request.form()
        nonce = request.cookies.get(LOGIN_COOKIE)
        if not same_origin(request) or not nonce or not matches(nonce, _field(form, "nonce")):
            return self.page(
                request, "error.html", 403, session=None,
                message="This sign-in form was not the server's own, or it expired: open "
                "the sign-in page again.",
            )  # fmt: skip
        token, name = _field(form, "token") or "", (_field(form, "name") or "").strip()
        if not self.sessions.needs_token and not name:
            return self.page(
                request, "login.html", 400, needs_token=False, nonce=nonce, session=None,
                next=_local(_field(form, "next")),
                error="Give the name your decisions are recorded under.",
            )  # fmt: skip
        try:
            session_id, _ = self.sessions.sign_in(token.strip(), name[:256])
        except UnauthorizedError:
            return self.page(
                request, "login.html", 401, needs_token=True, nonce=nonce, session=None,
                next=_local(_field(form, "next")),
                error="That token is not one this server knows.",
            )  # fmt: skip
        response = RedirectResponse(_local(_field(form, "next")), 303)
        set_cookie(response, request, SESSION_COOKIE, session_id, LIFETIME_S)
        response.delete_cookie(LOGIN_COOKIE, path="/ui")
        return response

    async def logout(self, request: Request, session: Session) -> Response:
        await self._form(request, session)
        self.sessions.sign_out(request)
        response = RedirectResponse("/ui/login", 303)
        response.delete_cookie(SESSION_COOKIE, path="/ui")
        return response

    # -- the queue -----------------------------------------------------------------------------

    async def start(self, request: Request, session: Session) -> Response:
        agent = request.query_params.get("agent")
        if agent:
            return RedirectResponse(f"/ui/reviews?{urlencode({'agent': agent})}", 303)
        if len(session.agents) == 1 and "*" not in session.caller.agents:
            return RedirectResponse(f"/ui/reviews?{urlencode({'agent': session.agents[0]})}", 303)
        return self.page(request, "start.html", session=session)

    async def queue(self, request: Request, session: Session) -> Response:
        agent = _required(request.query_params.get("agent"), "agent")
        payload: dict[str, Any] = {"agent_id": agent, "limit": PAGE, "related": RELATED}
        for name in ("cursor", "user_id"):
            if request.query_params.get(name):
                payload[name] = request.query_params[name]
        answer = await self._call(session, "reviews", payload)
        cards = [card_of(review) for review in answer["reviews"]]
        return self.page(
            request,
            "queue.html",
            session=session,
            agent=agent,
            cards=cards,
            next_cursor=answer.get("next_cursor"),
            cursor=request.query_params.get("cursor"),
            user_id=request.query_params.get("user_id"),
        )

    async def one(self, request: Request, session: Session) -> Response:
        agent = _required(request.query_params.get("agent"), "agent")
        review_id = request.path_params["review_id"]
        answer = await self._call(
            session,
            "reviews",
            {"agent_id": agent, "ids": [review_id], "related": RELATED},
        )
        if not answer["reviews"]:
            raise Refused(404, NOT_FOUND)
        card = card_of(answer["reviews"][0])
        return self.page(request, "review.html", session=session, agent=agent, card=card)

    async def decide(self, request: Request, session: Session) -> Response:
        form = await self._form(request, session)
        if not session.may_decide:
            raise Refused(
                403,
                f"{session.reviewer} may read this queue but not decide: an agent must not "
                'approve its own writes; ask the operator for a token marked "reviewer": true',
            )
        agent = _required(_field(form, "agent"), "agent")
        choice = _field(form, "decision")
        payload: dict[str, Any] = {
            "agent_id": agent,
            "review_id": request.path_params["review_id"],
            "reviewer": session.reviewer,
        }
        reason = (_field(form, "reason") or "").strip()
        if reason:
            payload["reason"] = reason
        version = _int(_field(form, "version"))
        if version is not None:  # what the card showed: a swapped staged text is a conflict
            payload["expected_version"] = version
        if choice == "approve":
            payload["approved"] = True
        elif choice == "reject":
            payload["approved"] = False
            payload["hard"] = _field(form, "keep") is None
        elif choice == "merge":
            target = _field(form, "merge_into")
            if not target:
                raise Refused(400, "Choose the existing record to merge this one into.")
            payload.update(approved=True, merge_into=target)
        else:
            raise Refused(400, "Choose approve, reject or merge into.")
        answer = await self._call(session, "decide", payload)
        if request.headers.get("hx-request"):
            return self.page(request, "_decided.html", answer=answer, agent=agent, session=session)
        return RedirectResponse(f"/ui/reviews?{urlencode({'agent': agent})}", 303)

    # -- a record's history ---------------------------------------------------------------------

    async def record(self, request: Request, session: Session) -> Response:
        """A record's versions, oldest first, each against the one before (spec v0.4's
        history), a page at a time."""
        agent = _required(request.query_params.get("agent"), "agent")
        payload: dict[str, Any] = {
            "agent_id": agent,
            "id": request.path_params["record_id"],
            "limit": HISTORY_PAGE,
        }
        if request.query_params.get("cursor"):
            payload["cursor"] = request.query_params["cursor"]
        answer = await self._call(session, "history", payload, absent=NO_RECORD, lacking=NO_HISTORY)
        return self.page(
            request,
            "record.html",
            session=session,
            agent=agent,
            record_id=answer["id"],
            versions=versions_of(answer["entries"]),
            dropped=answer["dropped"],
            next_cursor=answer.get("next_cursor"),
        )

    # -- consolidation -------------------------------------------------------------------------

    async def duplicates(self, request: Request, session: Session) -> Response:
        """The agent's records that say the same thing, as consolidation plans them (spec
        v0.4's consolidate, a dry run: nothing changes). Merging is the operator's
        (``mnemowire consolidate --apply``), and a staged merge comes to the queue."""
        return await self._plan(request, session, "consolidate", "groups", NO_CONSOLIDATION)

    async def promotion(self, request: Request, session: Session) -> Response:
        """What promotion would do to the agent's short-term memories under the spec's default
        rules (spec v0.4's promote, a dry run: nothing changes), each action with the rules
        that decided it. Applying it is the operator's (``mnemowire promote --apply``)."""
        return await self._plan(request, session, "promote", "actions", NO_PROMOTION)

    async def _plan(
        self, request: Request, session: Session, operation: str, listed: str, lacking: str
    ) -> Response:
        """A dry run of ``operation`` over the agent's records (and user's, when named) as its
        page: what it would do (``listed``), nothing changed."""
        agent = _required(request.query_params.get("agent"), "agent")
        payload: dict[str, Any] = {"agent_id": agent, "limit": DUPLICATE_GROUPS}
        user_id = request.query_params.get("user_id")
        if user_id:
            payload["user_id"] = user_id
        answer = await self._call(session, operation, payload, absent=NO_RECORD, lacking=lacking)
        return self.page(
            request,
            PLAN_PAGES[operation],
            session=session,
            agent=agent,
            user_id=user_id,
            scanned=answer["scanned"],
            more=answer.get("more", False),
            **{listed: answer[listed]},
        )

    # -- the audit log -------------------------------------------------------------------------

    async def audit(self, request: Request, session: Session) -> Response:
        store = self.server.store
        if not isinstance(store, AuditedStore):
            raise Refused(
                501,
                f"{store.name} keeps no audit log the UI can read (sqlite-vec, pgvector, mem0, "
                "cognee and letta stores do; a router's children keep their own)",
            )
        agent = request.query_params.get("agent") or None
        if agent is not None and not session.sees(agent):
            raise Refused(404, "No such agent here.")
        try:
            entries = await self.server.finish(store.audit_entries())
        except MnemowireError as exc:
            raise Refused(spec_status(exc.code), _said(exc)) from None
        verdict = await self.chain.verdict(entries)
        before = _int(request.query_params.get("before"))
        lines, older = await asyncio.to_thread(
            lines_of, entries, session.sees, agent, before, AUDIT_PAGE
        )
        return self.page(
            request,
            "audit.html",
            session=session,
            verdict=verdict,
            entries=lines,
            agent=agent,
            older=older,
        )

    # -- forms ---------------------------------------------------------------------------------

    async def _form(self, request: Request, session: Session) -> FormData:
        """A posted form that proves it came from this session's pages."""
        form = await request.form()
        if not same_origin(request) or not session.accepts(_field(form, "csrf")):
            raise Refused(
                403,
                "This form did not come from this server's pages (its CSRF token is missing "
                "or wrong): reload the page and try again.",
            )
        return form


def spec_status(code: str) -> int:
    return spec.ERROR_STATUS.get(code, 500)


def _said(exc: MnemowireError) -> str:
    """An error's message and the fields it names."""
    fields = [
        f"{d.get('path') or '/'}: {d.get('message')}" for d in exc.envelope.get("details", [])
    ]
    return f"{exc}" + (f" ({'; '.join(fields)})" if fields else "")


def _field(form: FormData, name: str) -> str | None:
    value = form.get(name)
    return value if isinstance(value, str) else None


def _required(value: str | None, name: str) -> str:
    if not value:
        raise Refused(400, f"Which agent? Open /ui/ and choose one (the {name} parameter).")
    return value


def _int(value: str | None) -> int | None:
    """A form's or a query's whole number; None for anything else (``isdigit`` alone takes
    '²', and a 5,000-digit number is more than ``int`` parses)."""
    if value and value.isascii() and value.isdigit() and len(value) <= 18:
        return int(value)
    return None


def _local(target: str | None) -> str:
    """Where to go after signing in: a page of this UI, never another site."""
    if target and target.startswith("/ui/") and not target.startswith("//"):
        return target
    return "/ui/"
