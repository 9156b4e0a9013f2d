"""The memorywire JSON Schema files, shipped as package data (read them with mnemowire.spec)."""
