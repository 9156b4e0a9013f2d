"""The memorywire spec: its JSON Schema files, loaded once, and validation against them.

>>> from mnemowire import spec
>>> spec.validate("recall.request", {"agent_id": "a", "query": "peanuts"}) is None
True
"""

from mnemowire.spec._http import ERROR_STATUS, Route, component_name, openapi_document, routes
from mnemowire.spec._inline import inline, inlined_schema
from mnemowire.spec._loader import (
    LATEST,
    Example,
    SpecFiles,
    available_versions,
    capability_names,
    read_spec,
    read_spec_dir,
    version_key,
)
from mnemowire.spec._validate import (
    Validator,
    check,
    compile_files,
    compile_spec,
    loads_strict,
    pointer,
    validate,
    validator,
)

__all__ = [
    "ERROR_STATUS",
    "LATEST",
    "Example",
    "Route",
    "SpecFiles",
    "Validator",
    "available_versions",
    "capability_names",
    "check",
    "compile_files",
    "compile_spec",
    "component_name",
    "inline",
    "inlined_schema",
    "loads_strict",
    "openapi_document",
    "pointer",
    "read_spec",
    "read_spec_dir",
    "routes",
    "validate",
    "validator",
    "version_key",
]
