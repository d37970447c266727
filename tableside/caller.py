"""Easy Slider's Caller: the deal read out, "Done!" calls judged and scored, standings, playoffs, "Slide!".

The rules (Setup 1-5, Game Play 4-11, the "Slide!" variant) as a small engine that speaks through a ``say``
callable, so that ``tableside call easy-slider`` (keyboard, camera, timers) and the tests drive the same code:

* :meth:`Caller.deal` makes the round's set-up (:class:`rules.easy_slider.Setup`, reproducible from the seed:
  round 1 uses the seed itself, later rounds and playoffs the seed plus the round number) and
  :meth:`Caller.read_out` reads it in the seed's order: the four pawns as drawn ("Red"), the five coins as
  drawn ("Ace"), then the tiles as flipped, row by row in one breath each ("Blue 5, Green Null, ..."), and
  "Go!". ``pause`` is called between calls so players keep up (the CLI sleeps ``--pace`` seconds).
* :meth:`Caller.key` takes a key press line: a player's number or name, optionally followed by the verdict
  (``y``/``ok``/``correct`` or ``n``/``fumble``). Without a verdict the board is judged by the camera when the
  player's board is read (``boards``: the latest reading of every board, in reading order = seating order),
  else the Caller asks and the next line answers. The :class:`~rules.easy_slider.Match` scores it: the points
  now (players still solving), the fumble bonus at the round's end, the standings after each round, a playoff
  round for tied leaders, the winner.
* The "Slide!" variant: :meth:`Caller.slide_call` is called at each "Slide!" after the first with every board's
  position then; :func:`rules.easy_slider.check_slide_call` says whether each board made exactly one slide
  since the previous call, and the Caller names the boards that did not.

Everything said is also kept in :attr:`Caller.said`; :attr:`Caller.events` keeps (kind, details) pairs.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import rules.easy_slider as es
from rules.base import RulesError
from rules.pieces import spoken_name
from tableside import phrases

__all__ = ["Caller", "KeyPress", "parse_key", "player_names", "round_seed"]

_YES = {"y", "yes", "ok", "correct", "right", "c", "+"}
_NO = {"n", "no", "fumble", "wrong", "f", "x", "-"}


def player_names(players: int | str | Sequence[str]) -> list[str]:
    """``3`` -> Player 1..3; ``"Ann,Bob"`` -> the names; a list as given."""
    if isinstance(players, int):
        if players < 1:
            raise RulesError("Easy Slider needs at least one player")
        return [f"Player {i}" for i in range(1, players + 1)]
    if isinstance(players, str):
        text = players.strip()
        if text.isdigit():
            return player_names(int(text))
        return [p.strip() for p in text.split(",") if p.strip()]
    return [str(p) for p in players]


def round_seed(seed: int | str, number: int) -> int | str:
    """The deal's seed of round ``number`` (1-based): the seed itself for round 1."""
    if number == 1:
        return seed
    return seed + number - 1 if isinstance(seed, int) else f"{seed}:{number}"


@dataclass(frozen=True)
class KeyPress:
    """A parsed key press line: the player, and the verdict when typed with it (None: judge or ask)."""

    player: str
    correct: bool | None = None


def parse_key(line: str, players: Sequence[str]) -> KeyPress:
    """Read ``2``, ``2 y``, ``Ann n``, ``ann fumble`` ... (player by number or name, any case)."""
    words = line.strip().split()
    if not words:
        raise RulesError("type a player's number (or name), then Enter")
    verdict: bool | None = None
    if len(words) > 1 and words[-1].lower() in _YES | _NO:
        verdict = words[-1].lower() in _YES
        words = words[:-1]
    who = " ".join(words)
    if who.isdigit():
        n = int(who)
        if not 1 <= n <= len(players):
            raise RulesError(f"there is no player {n}: players are 1 to {len(players)}")
        return KeyPress(players[n - 1], verdict)
    for p in players:
        if p.lower() == who.lower():
            return KeyPress(p, verdict)
    raise RulesError(f"there is no player called {who!r}: players are {', '.join(players)}")


class Caller:
    """The Caller of an Easy Slider match (see the module docstring).

    ``players``: names in seating order (boards are matched to players in reading order). ``rounds``: the
    agreed number. ``seed``: the deals' seed (None: a random one, kept in :attr:`seed` so the match can be
    replayed). ``say``: speaks one announcement. ``pause``: called between the Caller's calls.
    """

    def __init__(self, players: Sequence[str], rounds: int = 3, seed: int | str | None = None,
                 say: Callable[[str], Any] = print, pause: Callable[[], Any] | None = None) -> None:
        self.players = list(players)
        self.match = es.Match(self.players, rounds)
        self.seed = seed if seed is not None else random.SystemRandom().randrange(1_000_000)
        self._say = say
        self._pause = pause or (lambda: None)
        self.said: list[str] = []
        self.events: list[tuple[str, Any]] = []
        self.deals: list[es.Setup] = []
        self.asking: str | None = None  # the player whose board the Caller asked about
        self._called_now: dict[str, int] = {}
        self._slide_before: dict[str, es.State] | None = None
        # the pawns, coins and tiles already read out while the Caller reveals them
        self._revealed: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
        self.revealed_state: es.State | None = None

    # --------------------------------------------------------------------------------------------- output

    def say(self, text: str) -> None:
        self.said.append(text)
        self._say(text)

    # ---------------------------------------------------------------------------------------------- rounds

    @property
    def round_number(self) -> int:
        """The round being played (or about to be dealt), 1-based; playoffs count on."""
        return self.match.rounds_played + 1

    @property
    def playoff(self) -> bool:
        return self.match._current_playoff  # noqa: SLF001 - Match keeps it; it has no public accessor

    def deal(self) -> es.Setup:
        """The set-up of the current round (rules, Setup 1-5)."""
        setup = es.Setup.from_seed(round_seed(self.seed, self.round_number))
        self.deals.append(setup)
        self.events.append(("deal", {"round": self.round_number, "seed": setup.seed}))
        return setup

    def read_out(self, setup: es.Setup) -> None:
        """Say the deal in the seed's order: pawns as drawn, coins as drawn, the tiles row by row, then "Go!"."""
        title = "Playoff round" if self.playoff else f"Round {self.round_number}"
        self.say(f"{title}. Pawns")
        for suit in setup.pawns:
            self._pause()
            self.say(phrases.pawn_drawn(suit))
        self._pause()
        self.say("Coins")
        for rank in setup.coins:
            self._pause()
            self.say(phrases.coin_drawn(rank))
        self._pause()
        self.say("Tiles")
        for row in range(es.SIZE):
            tiles = setup.tiles[row * es.SIZE: (row + 1) * es.SIZE]
            self._pause()
            self.say(phrases.tile_row(tiles))
        self._pause()
        self.say(phrases.caller_signal())
        self._called_now = {}

    def reveal(self, pawns: Sequence[Any], coins: Sequence[Any], tiles: Mapping[es.Cell, Any]) -> bool:
        """The camera on the Caller's board: what is revealed so far (``pawns`` by row and ``coins`` by column,
        None where nothing is seen yet; face-up ``tiles`` by cell). Says what is new, in the rules' order (pawns
        as drawn, coins as drawn, tiles flipped in reading order; a piece seen out of order waits for the ones
        before it). A piece once said stays said (a later look that misses it changes nothing). True once the
        whole board is revealed (then "Go!"; :attr:`revealed_state` is the board as said)."""
        said_pawns, said_coins, said_tiles = self._revealed
        if not said_pawns and not said_coins and not said_tiles:
            self._called_now = {}
        while len(said_pawns) < 4 and len(said_pawns) < len(pawns) and pawns[len(said_pawns)] is not None:
            said_pawns.append(pawns[len(said_pawns)])
            self.say(phrases.pawn_drawn(said_pawns[-1]))
        if len(said_pawns) == 4:
            while len(said_coins) < 5 and len(said_coins) < len(coins) and coins[len(said_coins)] is not None:
                said_coins.append(coins[len(said_coins)])
                self.say(phrases.coin_drawn(said_coins[-1]))
        if len(said_pawns) == 4 and len(said_coins) == 5:
            while len(said_tiles) < 24 and es.CELLS[len(said_tiles)] in tiles:
                tile = tiles[es.CELLS[len(said_tiles)]]
                said_tiles.append(tile)
                self.say(phrases.tile_flipped(tile.suit, tile.rank))
        if len(said_tiles) < 24:
            return False
        self.revealed_state = es.State.from_layout([*said_tiles, None], said_pawns, said_coins)
        self.events.append(("revealed", self.revealed_state.to_dict()))
        self._revealed = ([], [], [])
        self.say(phrases.caller_signal())
        return True

    def start_next(self) -> bool:
        """Begin the next round or the playoff after a finished round; False when the match is over."""
        if self.match.is_over():
            return False
        regular = sum(1 for r in self.match.results if not r.playoff)
        if regular < self.match.rounds_agreed:
            self.match.start_round()
        else:
            self.match.start_playoff()
        self._slide_before = None
        return True

    # ------------------------------------------------------------------------------------------ Done calls

    def key(self, line: str, boards: Sequence[Any] | None = None) -> str | None:
        """A key press line. Returns None when handled, or the question asked (the board could not be judged:
        the next line must answer y or n). ``boards``: the latest reading of each board in reading order (a
        rules State, a :class:`~tableside.tracker.Reading`, or None when a board cannot be read)."""
        text = line.strip()
        if self.asking is not None:
            word = text.lower()
            if word in _YES | _NO:
                player, self.asking = self.asking, None
                self.done(player, word in _YES, announce=False)
                return None
            return self._ask(self.asking)
        press = parse_key(text, self.players)
        if self.match.round_over:
            raise RulesError("the round is over")
        if press.player not in self.match.still_playing():
            raise RulesError(f"{press.player} is not solving a board now")
        if press.correct is not None:
            self.done(press.player, press.correct)
            return None
        board = self._board_of(press.player, boards)
        if board is None:
            self.say(phrases.done_called(press.player))
            self.asking = press.player
            return self._ask(press.player)
        self.done(press.player, None, board)
        return None

    def _ask(self, player: str) -> str:
        question = f"Is {phrases.who(player)}'s board correct? (y or n)"
        self.events.append(("ask", player))
        return question

    def _board_of(self, player: str, boards: Sequence[Any] | None) -> es.State | None:
        if not boards:
            return None
        index = self.players.index(player)
        if index >= len(boards):
            return None
        board = boards[index]
        state = getattr(board, "state", board)
        if getattr(board, "uncertain", None):
            return None
        return state if isinstance(state, es.State) else None

    def done(self, player: str, correct: bool | None, board: es.State | None = None, announce: bool = True) -> int:
        """A "Done!" call: judged by ``correct`` or, when None, by ``board``'s Done check; scored; said
        (``announce``: say "X calls Done!" first; False when it was said before the Caller asked)."""
        check = board.done_check() if board is not None else None
        ok = check.correct if check is not None else bool(correct)
        if announce:
            self.say(phrases.done_called(player))
        points = self.match.done(player, ok)
        self._called_now[player] = points
        self.events.append(("done", {"player": player, "correct": ok, "points": points}))
        if ok:
            self.say(phrases.board_correct(player))
        elif check is not None and check.wrong_cells:
            first = check.wrong_cells[0]
            wanted = "a Null tile" if first.wanted is None else spoken_name(first.wanted.suit, first.wanted.rank)
            self.say(phrases.fumble(first.cell.row, first.cell.col, wanted))
        else:
            self.say(f"Fumble: {phrases.who(player)}'s board is not correct")
        self.say(phrases.points_awarded(player, points))
        if self.match.round_over:
            self._round_end()
        return points

    def _round_end(self) -> None:
        result = self.match.results[-1]
        if result.last is not None:
            self.say(f"{phrases.who(result.last)} is the last one solving")
        for player in result.players:
            bonus = result.points[player] - self._called_now.get(player, 0)
            if bonus > 0:
                self.say(phrases.bonus_points(player, bonus))
        title = "The playoff round is over" if result.playoff else phrases.round_over(self.match.rounds_played)
        self.say(title)
        self.say(phrases.standings(self.match.totals()))
        self.events.append(("round", {"points": dict(result.points), "totals": self.match.totals()}))
        regular = sum(1 for r in self.match.results if not r.playoff)
        if regular >= self.match.rounds_agreed:
            tied = self.match.tied_leaders()
            if len(tied) > 1:
                self.say(phrases.playoff(tied))
            else:
                self.say(phrases.winner(tied))

    # -------------------------------------------------------------------------------------- "Slide!" calls

    def slide_call(self, boards: Mapping[str, es.State | None]) -> dict[str, es.SlideVerdict]:
        """At a "Slide!" call: judge the slides made since the previous call (every board must have made exactly
        one), say who did not, and remember these boards for the next call. Boards that cannot be read now
        (None) are skipped this time. Returns the verdicts."""
        playing = set(self.match.still_playing())
        now = {p: s for p, s in boards.items() if s is not None and p in playing}
        verdicts: dict[str, es.SlideVerdict] = {}
        if self._slide_before is not None:
            before = {p: s for p, s in self._slide_before.items() if p in now}
            verdicts = es.check_slide_call(before, {p: now[p] for p in before})
            for player in self.players:
                verdict = verdicts.get(player)
                if verdict is not None and not verdict.ok:
                    self.say(f"{phrases.who(player)}: {verdict.reason}")
            self.events.append(("slide-check", {p: str(v) for p, v in verdicts.items()}))
        self._slide_before = {**(self._slide_before or {}), **now}
        self.say(phrases.slide_signal())
        return verdicts
