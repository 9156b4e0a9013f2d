"""Development sessions. ``nox -s tests`` is the whole suite CI runs; the rest run on their own.

``nox -s tests`` runs pytest and then queues ``lint``, ``typecheck`` and ``spec``, so the one
command in the README checks everything. Add ``-r`` to reuse the virtualenvs between runs.
"""

from __future__ import annotations

import nox

nox.options.sessions = ["tests"]
nox.options.error_on_missing_interpreters = True

SOURCES = ["runtime", "adapters", "codegen", "conformance", "tests", "noxfile.py"]


@nox.session
def tests(session: nox.Session) -> None:
    """The whole test suite, then lint, typecheck and spec."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)
    for name in ("lint", "typecheck", "spec"):
        session.notify(name)


@nox.session
def lint(session: nox.Session) -> None:
    """ruff: style and common bugs."""
    session.install(".[lint]", "--no-deps", "ruff==0.17.6")
    session.run("ruff", "check", *SOURCES)
    session.run("ruff", "format", "--check", *SOURCES)


@nox.session
def typecheck(session: nox.Session) -> None:
    """mypy --strict on the installed package (the folder remapping hides it from mypy in-tree)."""
    session.install(".[test,typecheck]")
    session.run("mypy", "--strict", "-p", "mnemowire")
    session.run("mypy", "--strict", "tests", "noxfile.py")


@nox.session
def spec(session: nox.Session) -> None:
    """Lint the spec in the source tree and check every example against both validators."""
    session.install("-e", ".")
    session.run("mnemowire", "spec", "lint", "--dir", "spec/v0")


@nox.session
def codegen(session: nox.Session) -> None:
    """Regenerate generated/ from the spec; ``nox -s codegen -- --check`` only checks."""
    session.install("-e", ".[codegen]")
    session.run("mnemowire", "codegen", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    """Benchmarks (not tests): print measured numbers with machine, date and command."""
    session.install("-e", ".[local]")
    session.run("mnemowire", "bench", "validation", "--out", "bench-out", *session.posargs)
    session.run("mnemowire", "bench", "embedders", "--out", "bench-out")
