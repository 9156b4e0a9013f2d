"""The behaviour every store shares (tests/adapters/_semantics.py), run on a sqlite-vec store
reached over HTTP: what a store does must survive the wire, error envelopes included."""

from tests.adapters._semantics import *  # noqa: F403  (pytest collects the imported tests)
