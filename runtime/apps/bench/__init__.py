"""Benchmarks: measured numbers with the machine, date and command that produced them."""

from mnemowire.apps.bench._env import environment
from mnemowire.apps.bench.validation import run_validation

__all__ = ["environment", "run_validation"]
