"""Create Letta 0.16.8's tables in its PostgreSQL database. Run by the Letta server's own Python
(``mnemowire.apps.tools.letta`` does), with ``LETTA_PG_URI`` set; nothing in mnemowire imports it.

The letta wheel ships no migrations (they live only in letta's git repository), so a fresh
database gets its tables from letta's ORM, plus the two things the migrations make that the
ORM only refers to: the sequence that numbers messages (without it creating an agent fails
with 409 "null value in column sequence_id") and ``archives_agents.created_at`` defaulting to
the time of the insert (the ORM's default is the time letta was imported). Does nothing when
the tables are there.
"""

import sys

from letta.database_utils import get_database_uri_for_context
from letta.settings import settings
from sqlalchemy import create_engine, inspect, text

# the synchronous driver (pg8000) takes no query options such as ?sslmode=disable
engine = create_engine(get_database_uri_for_context(settings.letta_pg_uri, "sync").split("?")[0])
with engine.begin() as connection:
    connection.execute(text("CREATE EXTENSION IF NOT EXISTS vector"))
if inspect(engine).has_table("organizations"):
    sys.exit(0)

from letta.orm import Base  # noqa: E402  (importing it loads every table)

Base.metadata.create_all(engine)
with engine.begin() as connection:
    for statement in (
        "CREATE SEQUENCE IF NOT EXISTS message_seq_id",
        "ALTER TABLE messages ALTER COLUMN sequence_id SET DEFAULT nextval('message_seq_id')",
        "ALTER SEQUENCE message_seq_id OWNED BY messages.sequence_id",
        "ALTER TABLE archives_agents ALTER COLUMN created_at SET DEFAULT now()",
    ):
        connection.execute(text(statement))
print(f"created Letta's {len(Base.metadata.tables)} tables", file=sys.stderr)
