"""``pgvector://`` URLs: the store's own options, the libpq parameters passed through, the
replica's DSN, and the store's public name (no credentials)."""

from __future__ import annotations

import functools
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from mnemowire.errors import ConfigError
from mnemowire.kit import integer, number, text, url_options
from mnemowire.kit.dedupe import dedupe_option

__all__ = ["URL_OPTIONS", "host", "parse_url", "public_name"]

#: the options of a pgvector:// URL that belong to the store, each with its parser; the others
#: must be libpq connection parameters (``_libpq_keywords``)
URL_OPTIONS = {
    "embedder": text,
    "name": text,
    "schema": text,
    "extension_schema": text,
    "pool_min": integer(minimum=0),
    "pool_max": integer(minimum=1),
    "pool_timeout": number(positive=True),
    "probes": integer(minimum=1),
    "replica": text,
    "policy": text,
    "history_limit": integer(minimum=1),
    "dedupe": dedupe_option,
}


def parse_url(url: str) -> tuple[str, str | None, dict[str, Any]]:
    """``(dsn, replica dsn or None, store options)`` of a pgvector:// URL; a libpq
    ``connect_timeout`` of 10 s unless the URL sets one."""
    parts = urlsplit(url)
    if parts.scheme != "pgvector":
        raise ConfigError(f"not a pgvector URL: {url!r}; use pgvector://user@host:port/database")
    options, libpq = url_options(url, parts.query, URL_OPTIONS, passthrough=_libpq_keywords())
    if not any(key == "connect_timeout" for key, _ in libpq):
        libpq.append(("connect_timeout", "10"))
    dsn = urlunsplit(("postgresql", parts.netloc, parts.path, urlencode(libpq), ""))
    read_dsn = None
    if options.get("replica"):  # same role, database and libpq options, another server
        login = parts.netloc.rpartition("@")[0]
        netloc = f"{login}@{options['replica']}" if login else options["replica"]
        read_dsn = urlunsplit(("postgresql", netloc, parts.path, urlencode(libpq), ""))
    return dsn, read_dsn, options


@functools.cache
def _libpq_keywords() -> frozenset[str]:
    """Every connection parameter the installed libpq knows (``dbname``, ``sslmode``, ...)."""
    from psycopg import pq

    return frozenset(option.keyword.decode() for option in pq.Conninfo.get_defaults())


def host(dsn: str) -> str:
    return urlsplit(dsn).netloc.rpartition("@")[2]


def public_name(dsn: str, schema: str) -> str:
    """``pgvector://host:port/database`` (plus the schema when not public): no user, no
    password, no other connection options."""
    parts = urlsplit(dsn)
    where = parts.netloc.rpartition("@")[2]
    name = f"pgvector://{where}{parts.path}"
    return name if schema == "public" else f"{name}?schema={schema}"
