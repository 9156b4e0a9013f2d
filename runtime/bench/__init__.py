"""Benchmarks: measured numbers with the machine, date and command that produced them."""

from mnemowire.bench._env import environment
from mnemowire.bench.validation import run_validation

__all__ = ["environment", "run_validation"]
