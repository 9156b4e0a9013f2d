"""Applications: the CLI, the benchmarks, the demo and the tools (docs/architecture.md#tiers).

They sit on top of everything and nothing in the library imports them.
"""
