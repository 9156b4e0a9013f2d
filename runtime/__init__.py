"""mnemowire: the memorywire agent-memory wire format, made real.

Importing the package is cheap: it loads no schema, no database driver and no model. The pieces
live in submodules (``mnemowire.spec`` validates messages against the JSON Schemas, ...).
"""

from mnemowire._version import __version__

__all__ = ["__version__"]
