"""Where rebelote keeps its files, decided in one place.

The data folder is ``$REBELOTE_DATA_DIR`` if set, else the platform's user data folder
(platformdirs: ``$XDG_DATA_HOME/rebelote``, by default ``~/.local/share/rebelote`` on
Linux); the configuration folder likewise (``$XDG_CONFIG_HOME/rebelote``). The server's
database and cookie key, the terminal game's save and the score pad's sheet live there.
"""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_config_dir, user_data_dir

APP = "rebelote"


def data_dir(create: bool = False) -> Path:
    """The data folder (made if ``create``)."""
    path = Path(os.environ.get("REBELOTE_DATA_DIR") or user_data_dir(APP, appauthor=False))
    if create:
        path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    """The configuration folder (the terminal game's remembered setup)."""
    return Path(user_config_dir(APP, appauthor=False))
