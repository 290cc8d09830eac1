"""Files the installed program needs, shipped inside the package (``importlib.resources``).

The venue screen's page (``screen/`` in the checkout) installs as ``cueboard.web`` and the
example keymaps and configurations (``examples/``) as ``cueboard.examples``: the
package-dir mapping of ``pyproject.toml``, as for ``engine/`` and ``hw/``. A wheel installs
them unpacked, and an editable install finds them in the checkout, so each is a folder on
disk either way.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

__all__ = ["examples_dir", "screen_dir"]


def _folder(package: str) -> Path:
    root = files(package)
    if not isinstance(root, Path) or not root.is_dir():
        raise FileNotFoundError(f"{package}: the package's files are not a folder on disk ({root!r}); "
                                "install cueboard unpacked (pip install does)")
    return root


def screen_dir() -> Path:
    """The venue screen's page: index.html, screen.js, screen.css, vendor/ ..."""
    return _folder("cueboard.web")


def examples_dir() -> Path:
    """The example configurations, keymaps (``keymaps/``) and logs."""
    return _folder("cueboard.examples")
