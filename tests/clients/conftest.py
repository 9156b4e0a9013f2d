"""The toolchain fixtures of the bindings' own tests (npm ci, an offline Go environment)."""

from tests.codegen.conftest import go_env, npm

__all__ = ["go_env", "npm"]
