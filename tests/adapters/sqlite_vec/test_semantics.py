"""The behaviour every store shares (tests/adapters/_semantics.py, _semantics_lifecycle.py,
_semantics_keywords.py, _semantics_periods.py, _semantics_replies.py and _semantics_reviews.py),
run on this adapter."""

from tests.adapters._semantics import *  # noqa: F403  (pytest collects the imported tests)
from tests.adapters._semantics_keywords import *  # noqa: F403
from tests.adapters._semantics_lifecycle import *  # noqa: F403
from tests.adapters._semantics_periods import *  # noqa: F403
from tests.adapters._semantics_replies import *  # noqa: F403
from tests.adapters._semantics_reviews import *  # noqa: F403
