"""Who uses the reviewer UI, and proof that a form came from it (docs/governance.md#ui.security).

A browser signs in once with its bearer token (or, on a server without tokens, which serves
loopback only, with the name its decisions are recorded under) and gets a **session**: a random
id in an ``HttpOnly``, ``SameSite=Strict`` cookie (``Secure`` over TLS), scoped to ``/ui``, kept
server-side with the caller it stands for, so signing out ends it at once and the token itself
never reaches the page. A script may skip the session and send ``Authorization: Bearer``.

Every form a session posts carries its **CSRF token** (the synchronizer-token pattern: random
per session, compared in constant time), and a browser's ``Origin``, when sent, must be this
server's. The sign-in form, posted before any session exists, is bound to a short-lived cookie
of its own (double submit) so another site cannot sign a browser in as someone else.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request
from starlette.responses import Response

from mnemowire.apps.transport import ANYONE, Caller, Tokens

__all__ = [
    "LIFETIME_S",
    "LOGIN_COOKIE",
    "SESSION_COOKIE",
    "Session",
    "Sessions",
    "matches",
    "same_origin",
    "set_cookie",
]

SESSION_COOKIE = "mnemowire_ui"
LOGIN_COOKIE = "mnemowire_ui_login"
#: a session lasts a working day, then signs in again
LIFETIME_S = 8 * 3600
#: sessions kept at most; the oldest go first (a flood of sign-ins cannot exhaust memory)
MOST_SESSIONS = 10_000


@dataclass(frozen=True)
class Session:
    """A signed-in reviewer: the caller the token stands for, the name decisions are recorded
    under, and the session's CSRF token (empty for a bearer request: no cookie, no CSRF)."""

    caller: Caller
    reviewer: str
    csrf: str = ""
    expires: float = field(default=0.0, compare=False)

    @property
    def may_decide(self) -> bool:
        return self.caller is ANYONE or self.caller.reviewer

    def sees(self, agent_id: str) -> bool:
        return "*" in self.caller.agents or agent_id in self.caller.agents

    def accepts(self, csrf: str | None) -> bool:
        """Whether a posted form proves it came from this session's pages (a bearer request
        needs no proof: a browser never adds that header on its own)."""
        return not self.csrf or matches(self.csrf, csrf)

    @property
    def agents(self) -> list[str]:
        """The agents to list on the start page (none for a caller of every agent)."""
        return sorted(a for a in self.caller.agents if a != "*")


def _key(session_id: str) -> str:
    """Sessions are kept by the digest of their id: a dump of the table is no cookie."""
    return hashlib.sha256(session_id.encode()).hexdigest()


class Sessions:
    """The UI's sessions, in this process's memory (a restart signs everyone out)."""

    def __init__(self, tokens: Tokens | None, clock: Callable[[], float] = time.monotonic) -> None:
        self._tokens = tokens
        self._clock = clock
        self._sessions: dict[str, Session] = {}

    @property
    def needs_token(self) -> bool:
        return self._tokens is not None

    def sign_in(self, token: str, name: str) -> tuple[str, Session]:
        """A new session for ``token`` (or, on a server without tokens, for the reviewer
        ``name``); its id. Raises ``unauthorized`` for an unknown token."""
        if self._tokens is not None:
            caller = self._tokens.authenticate(f"Bearer {token}")
            reviewer = caller.name
        else:
            caller, reviewer = ANYONE, name
        session = Session(caller, reviewer, secrets.token_urlsafe(32), self._clock() + LIFETIME_S)
        session_id = secrets.token_urlsafe(32)
        self._prune()
        self._sessions[_key(session_id)] = session
        return session_id, session

    def sign_out(self, request: Request) -> None:
        session_id = request.cookies.get(SESSION_COOKIE)
        if session_id:
            self._sessions.pop(_key(session_id), None)

    def of(self, request: Request) -> Session | None:
        """The request's session: its bearer token's, else its cookie's (None: sign in)."""
        authorization = request.headers.get("authorization")
        if authorization is not None and self._tokens is not None:
            caller = self._tokens.authenticate(authorization)
            return Session(caller, caller.name)
        session_id = request.cookies.get(SESSION_COOKIE)
        if not session_id:
            return None
        session = self._sessions.get(_key(session_id))
        if session is None or session.expires <= self._clock():
            self._sessions.pop(_key(session_id), None)
            return None
        return session

    def _prune(self) -> None:
        now = self._clock()
        for key in [k for k, s in self._sessions.items() if s.expires <= now]:
            del self._sessions[key]
        while len(self._sessions) >= MOST_SESSIONS:
            del self._sessions[next(iter(self._sessions))]


def matches(expected: str, presented: str | None) -> bool:
    """Whether a posted secret is the one expected, compared in constant time."""
    return presented is not None and hmac.compare_digest(expected.encode(), presented.encode())


def same_origin(request: Request) -> bool:
    """A browser's ``Origin`` (sent with every cross-site POST), when present, is this
    server's own."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    own = f"{request.url.scheme}://{request.url.netloc}"
    return origin == own


def set_cookie(response: Response, request: Request, name: str, value: str, max_age: int) -> None:
    response.set_cookie(
        name,
        value,
        max_age=max_age,
        path="/ui",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
