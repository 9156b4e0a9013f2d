"""Layers: each wraps a MemoryStore and is one itself (docs/architecture.md#tiers).

``validating`` is the boundary that holds requests and responses to the spec, ``router`` fans
out over several stores, ``memory`` is the facade applications open by URL. A layer never
imports an adapter: it is handed stores.
"""
