"""Tools beside the library, for tests, benchmarks, demos and CI: never imported by the
kernel, the layers or the adapters (``python -m mnemowire.apps.tools.postgres``: a throwaway local
PostgreSQL with pgvector, trust auth and, with ``--fast``, no fsync)."""
