"""Pure game logic, one module per game. Knows nothing of cameras or pixels (no cv2 here).

``GAMES`` maps each game's name (as used on the command line, in JSON and in PPN ``GameType``) to the
module that implements it; :func:`game_module` imports it on demand.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from rules.base import RulesError

#: Game name -> module implementing it.
GAMES: dict[str, str] = {
    "easy-slider": "rules.easy_slider",
    "slides-of-action": "rules.slides_of_action",
    "plans-of-action": "rules.plans_of_action",
    "martian-shuffleboard": "rules.martian_shuffleboard",
    "epic-funhouse": "rules.epic_funhouse.suite",
}

#: Epic Funhouse room name -> module.
ROOMS: dict[str, str] = {
    "slide-jam": "rules.epic_funhouse.slide_jam",
    "magic-mirror": "rules.epic_funhouse.magic_mirror",
    "catwalk": "rules.epic_funhouse.catwalk",
    "roll-out-the-barrels": "rules.epic_funhouse.roll_out_the_barrels",
    "whack-a-dummy": "rules.epic_funhouse.whack_a_dummy",
    "trampo-land": "rules.epic_funhouse.trampo_land",
}


def game_module(name: str) -> ModuleType:
    """The rules module of a game or Epic Funhouse room, by its name; a clear error for an unknown one."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    path = GAMES.get(key) or ROOMS.get(key)
    if path is None:
        known = ", ".join(list(GAMES) + list(ROOMS))
        raise RulesError(f"unknown game {name!r}: known games are {known}")
    return importlib.import_module(path)
