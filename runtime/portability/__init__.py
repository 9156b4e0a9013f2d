"""Carrying memory across stores (docs/portability.md): the archive file format, the moves
that write and read it through spec v0.3's export_records, import_records and scopes, and the
files other tools' users hold (the MCP memory server's graph, mem0's get_all, OpenMemory's
backup) read in, and one of them written out."""

from mnemowire.portability._archive import FORMAT, FORMAT_VERSION, Archive, ArchiveWriter, Page
from mnemowire.portability._foreign import FOREIGN_FORMATS, Foreign, read_foreign
from mnemowire.portability._move import (
    Progress,
    Report,
    export_archive,
    export_mcp_memory,
    import_archive,
    import_foreign,
    migrate,
)

__all__ = [
    "FOREIGN_FORMATS",
    "FORMAT",
    "FORMAT_VERSION",
    "Archive",
    "ArchiveWriter",
    "Foreign",
    "Page",
    "Progress",
    "Report",
    "export_archive",
    "export_mcp_memory",
    "import_archive",
    "import_foreign",
    "migrate",
    "read_foreign",
]
