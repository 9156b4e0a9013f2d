"""``mnemowire serve --ui``: the reviewer UI (docs/governance.md#ui).

Starlette pages rendered with Jinja2 (every stored string escaped), made live with htmx
(vendored: ``static/htmx.min.js``, htmx.org 2.0.11 from npm, 0BSD, ``static/htmx.LICENSE``),
under a Content-Security-Policy that allows no inline script. Reviewers sign in with their
bearer token; the pages read and decide through the server's validating boundary.
"""

from mnemowire.apps.server.ui._pages import ReviewerUI

__all__ = ["HTMX", "ReviewerUI"]

#: the vendored htmx: its npm release and the sha256 of its ``dist/htmx.min.js`` (checked by
#: the tests, so the file served is the release named)
HTMX = ("htmx.org@2.0.11", "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717")
