"""Packages are discovered, never listed by hand: each top-level folder is one part of the one
import root ``mnemowire`` (ROOTS), and every folder under it with an ``__init__.py`` is a
package of that part. The rest of the build is declared in pyproject.toml."""

from setuptools import find_packages, setup

#: the import name of each top-level folder
ROOTS = {
    "mnemowire": "runtime",
    "mnemowire.adapters": "adapters",
    "mnemowire.codegen": "codegen",
    "mnemowire.conformance": "conformance",
    "mnemowire.models": "generated/python",
    "mnemowire.schemas": "spec",
}


def packages() -> list[str]:
    return [
        name
        for root, folder in ROOTS.items()
        for name in (root, *(f"{root}.{found}" for found in find_packages(where=folder)))
    ]


if __name__ == "__main__":
    setup(package_dir=ROOTS, packages=packages())
