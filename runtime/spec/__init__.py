"""The memorywire spec: its JSON Schema files, loaded once, and validation against them.

>>> from mnemowire import spec
>>> spec.validate("recall.request", {"agent_id": "a", "query": "peanuts"}) is None
True
"""

from mnemowire.spec._inline import inline, inlined_schema
from mnemowire.spec._loader import (
    LATEST,
    Example,
    SpecFiles,
    available_versions,
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
    "LATEST",
    "Example",
    "SpecFiles",
    "Validator",
    "available_versions",
    "check",
    "compile_files",
    "compile_spec",
    "inline",
    "inlined_schema",
    "loads_strict",
    "pointer",
    "read_spec",
    "read_spec_dir",
    "validate",
    "validator",
    "version_key",
]
