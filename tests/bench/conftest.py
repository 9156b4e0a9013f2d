"""The PostgreSQL the pgvector store's tests start (one per test session and worker), for the
benchmarks that import into it."""

from tests.adapters.pgvector.conftest import pg_dsn, pg_server

__all__ = ["pg_dsn", "pg_server"]
