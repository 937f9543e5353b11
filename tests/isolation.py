"""Point HOME, XDG and mycroft.conf locations of this process at a folder.

ovos_config fixes its paths when it is imported, so call this before any OVOS
import (this module imports none)."""
import os


def isolate(root: str):
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        os.environ[key] = os.path.join(root, key.lower())
    os.environ["HOME"] = root
    os.environ["XDG_CONFIG_DIRS"] = os.path.join(root, "etc-xdg")
    os.environ["MYCROFT_SYSTEM_CONFIG"] = os.path.join(root, "etc-mycroft.conf")
    os.environ["OVOS_DISTRIBUTION_CONFIG"] = os.path.join(root, "distribution.conf")
