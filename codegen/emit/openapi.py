"""The HTTP binding's OpenAPI 3.1 document (``generated/openapi/openapi.json``), every version
in one: built by ``mnemowire.spec.openapi_document``, which the server serves too, so the
file on disk, what ``mnemowire serve`` answers at ``/openapi.json`` and the spec cannot drift."""

from __future__ import annotations

import json
from collections.abc import Sequence

from mnemowire.codegen._output import GeneratedFile
from mnemowire.spec import SpecFiles, openapi_document

__all__ = ["PATH", "emit_document"]

PATH = "openapi/openapi.json"


def emit_document(versions: Sequence[SpecFiles]) -> GeneratedFile:
    """The document for ``versions`` (oldest first)."""
    document = openapi_document(versions)
    return GeneratedFile(PATH, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
