"""A mnemowire server as a store (``http://`` and ``https://`` URLs): the client side of
``mnemowire serve``."""

from mnemowire.adapters.http.store import TOKEN_VARIABLE, HttpStore

__all__ = ["TOKEN_VARIABLE", "HttpStore"]
