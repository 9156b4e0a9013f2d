"""Facades for programs written against another memory library: change one import, keep the
program, and its memory goes through mnemowire's validating boundary, review queue and audit
log, on any store URL.

- :mod:`mnemowire.compat.mem0`: ``Memory`` / ``AsyncMemory`` with mem0's method names,
  arguments and answers, for what mem0 serves without an LLM.

docs/integrations.md lists what maps exactly, what maps with a loss, and what is refused.
"""
