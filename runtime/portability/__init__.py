"""Carrying memory across stores (docs/portability.md): the archive file format and the moves
that write and read it through spec v0.3's export_records, import_records and scopes."""

from mnemowire.portability._archive import FORMAT, FORMAT_VERSION, Archive, ArchiveWriter, Page
from mnemowire.portability._move import Progress, Report, export_archive, import_archive, migrate

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "Archive",
    "ArchiveWriter",
    "Page",
    "Progress",
    "Report",
    "export_archive",
    "import_archive",
    "migrate",
]
