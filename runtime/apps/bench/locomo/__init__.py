"""LoCoMo (Maharana et al., 2024): retrieval on very long multi-session conversations.

The data is CC BY-NC 4.0 and never shipped: ``mnemowire bench locomo --data PATH`` reads the
release's JSON from where the user keeps it. ``_data`` parses it, ``_run`` writes and asks it
through the public API, ``_report`` renders the tables (``mnemowire.apps.bench.plots`` draws
the plot).
"""

from mnemowire.apps.bench.locomo._data import (
    CATEGORIES,
    DEVELOPMENT_HALF,
    HEADLINE_CATEGORIES,
    Conversation,
    LocomoError,
    Question,
    Turn,
    load_locomo,
    parse_locomo,
    session_time,
)
from mnemowire.apps.bench.locomo._report import COLUMNS, markdown
from mnemowire.apps.bench.locomo._run import HELD_BACK, run_locomo, select

__all__ = [
    "CATEGORIES",
    "COLUMNS",
    "DEVELOPMENT_HALF",
    "HEADLINE_CATEGORIES",
    "HELD_BACK",
    "Conversation",
    "LocomoError",
    "Question",
    "Turn",
    "load_locomo",
    "markdown",
    "parse_locomo",
    "run_locomo",
    "select",
    "session_time",
]
