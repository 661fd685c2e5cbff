"""Players and results: every logged game folded through the same rules the device ran, into a
result record; the league table, win rates and head-to-head over them.

Shell-side (CPython), pure over its inputs: events in (store.events() dicts), records out.
A game is one device's events from its new_game to the next new_game, undo applied (verify's
effective_pairs) and folded by dicepod.rules.modes.module(mode).Game one dicepod.replay.step
each (the app's own events stepped over): the device's replay. What a result holds per mode:

    battle   versus: the best-of-three series; scores = each player's total of current scores
             over the games played; winner = the higher total when the series is over (a tie:
             none); finished = all three games played
    tests    versus: roll-offs; scores = roll-offs won per player; winner = most roll-offs won;
             finished = another game followed on the device (a session of tests has no end)
    tyranid  co-op: the players against the game; result = win (a victory of any size), draw or
             loss; one record per level played (a journal game may hold several: `play` counts
             them); scores = (level,)
    orks     co-op: result = win or loss (grit or reactors lost); one record per game played in
             the journal game; scores = (grit, reactors)
    free     solo: dice rolled; no winner; finished = another game followed

Players: names kept on the PC for each game of a journal (store.players()), else "<device>:P1",
"<device>:P2", ... (the last four hex digits of the device id). Co-op games count for every
player named; a game with no names plays as "<device>:team".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from dicepod import replay
from dicepod.rules import battle, modes, orks, tyranid
from dicepod.settings import MissingValue, Settings
from dicepod_host.verify import effective_pairs

VERSUS = ("battle", "tests")
COOP = ("tyranid", "orks")
_TYRANID_OUTCOMES = {
    tyranid.LOSS: "loss",
    tyranid.DRAW: "draw",
    tyranid.MINOR: "minor victory",
    tyranid.MAJOR: "major victory",
    tyranid.WIN: "victory",
}
_ORKS_OUTCOMES = {
    orks.WON: "victory",
    orks.LOST_GRIT: "grit lost",
    orks.LOST_REACTORS: "reactors lost",
}
# Player names kept on the PC: (device, journal, game) -> names by slot (Store.players()).
Names = dict[tuple[str, str, int], list[str]]
Z95 = 1.959963984540054  # the normal quantile of a two-sided 95 % interval


@dataclass
class Result:
    """One game's result record (see the module docstring)."""

    device: str
    game: int
    mode: str
    play: int = 1  # co-op modes: the how-manyth level or game inside the journal game
    journal: str | None = None  # the device's journal id (protocol "jid"), when it sends one
    started: float | None = None  # PC receive time (Unix seconds) of the first event
    ended: float | None = None  # ... of the last event
    start_ms: int = 0  # the device's clock at the first and the last event
    end_ms: int = 0
    events: int = 0  # effective events (undo applied)
    players: list[str] = field(default_factory=list)
    finished: bool = False
    winner: str | None = None  # versus: a player's name
    result: str | None = None  # co-op: "win", "draw" or "loss" (the players' side)
    scores: list[int] = field(default_factory=list)
    rounds: int = 0  # battle: the games of the series played so far
    outcome: str = ""  # a short human sentence
    problem: str | None = None  # the first event the rules refused, if any

    @property
    def seconds(self) -> float:
        """The game's length on the device's clock, in seconds."""
        return max(0, self.end_ms - self.start_ms) / 1000.0

    def as_dict(self) -> dict[str, Any]:
        """Return the record as a JSON-able dict (with the length in seconds)."""
        out = asdict(self)
        out["seconds"] = self.seconds
        return out


def _label(device: str) -> str:
    return str(device)[-4:]


def own_names(names: Names, res: Result) -> list[str]:
    """The names kept on the PC for a result's game (of its journal), [] when none."""
    return names.get((res.device, res.journal or "", res.game)) or []


def player_names(names: Names, res: Result, count: int) -> list[str]:
    """Return count player names for a result's game (see the module docstring)."""
    own = own_names(names, res)
    return [own[i] if i < len(own) else f"{_label(res.device)}:P{i + 1}" for i in range(count)]


def _journal_of(obj: Mapping[str, Any]) -> tuple[Any, Any]:
    """A device's journal: (device, journal id); a new journal starts its games afresh."""
    return obj["dev"], obj.get("jid", obj.get("journal"))


def _games(
    events: Iterable[Mapping[str, Any]],
) -> Iterable[tuple[list[Mapping[str, Any]], bool]]:
    """Yield (a game's raw event dicts, closed: another game followed on its device)."""
    current: list[Mapping[str, Any]] = []
    for obj in events:
        if not isinstance(obj.get("seq"), int) or not isinstance(obj.get("game"), int):
            continue  # a row edited into something no device sends: verify names it
        kind = obj["event"][0]
        same = current and _journal_of(obj) == _journal_of(current[0])
        if current and (not same or kind == "new_game"):
            yield current, bool(same)
            current = []
        if kind == "new_game" or (current and obj["game"] == current[0]["game"]):
            current.append(obj)
    if current:
        yield current, False


def fold_game(raw: list[Mapping[str, Any]], closed: bool, names: Names) -> list[Result]:
    """Fold one game's raw event dicts into its Results (co-op modes: one per play)."""
    first = raw[0]
    data = first["event"][1]
    mode = str(data[0]) if data else "?"
    base = Result(
        device=str(first["dev"]),
        game=first["game"],
        mode=mode,
        journal=first.get("jid", first.get("journal")),
        started=first.get("received"),
        start_ms=first["ms"] if isinstance(first["ms"], int) else 0,
    )
    by_seq = {o["seq"]: o for o in raw}
    pairs = effective_pairs([(o["seq"], o["event"]) for o in raw])
    try:
        module = modes.module(mode)
        game = module.Game(Settings(module.SETTINGS))
    except (ValueError, ImportError) as err:
        base.problem = f"mode {mode}: {err}"
        _ended(base, raw[-1], len(pairs))
        return [base]
    folder = _FOLDERS.get(mode, _Folder)(game)
    out: list[Result] = []
    current = base
    count = 0
    for seq, event in pairs:
        count += 1
        try:
            if not replay.step(game, event):
                continue
        except (ValueError, MissingValue, TypeError, IndexError, KeyError) as err:
            current.problem = f"seq {seq}: illegal {event[0]} ({err})"
            break
        if folder.after(event):  # a play finished: its record, and the next play begins
            obj = by_seq[seq]
            _ended(current, obj, count)
            folder.finish(current, True, names)
            out.append(current)
            current = Result(
                device=base.device, game=base.game, mode=mode, play=current.play + 1,
                journal=base.journal, started=obj.get("received"),
                start_ms=obj["ms"] if isinstance(obj["ms"], int) else 0,
            )  # fmt: skip
            count = 0
    if out and count == 0 and current.problem is None:
        return out  # nothing after the last finished play
    _ended(current, raw[-1], count)
    folder.finish(current, closed, names)
    if out and not folder.started():
        return out
    out.append(current)
    return out


def _ended(res: Result, obj: Mapping[str, Any], events: int) -> None:
    res.ended = obj.get("received")
    res.end_ms = obj["ms"] if isinstance(obj["ms"], int) else res.start_ms
    res.events = events


class _Folder:
    """What a mode's result takes from its fold (the free roll's: dice rolled)."""

    def __init__(self, game: Any) -> None:
        self.game = game

    def after(self, event: tuple[str, tuple[Any, ...]]) -> bool:
        """Called after each applied event; True when it finished a play (co-op modes)."""
        return False

    def started(self) -> bool:
        """True when a play is under way (co-op: after a finished one, another was started)."""
        return True

    def finish(self, res: Result, closed: bool, names: Names) -> None:
        """Fill the result in."""
        res.players = player_names(names, res, len(own_names(names, res)) or 1)
        res.finished = closed
        dice = getattr(self.game, "dice", 0)
        res.scores = [dice] if isinstance(dice, int) else []
        res.outcome = f"{dice} dice rolled" if isinstance(dice, int) else ""


class _Battle(_Folder):
    def finish(self, res: Result, closed: bool, names: Names) -> None:
        game = self.game
        res.players = player_names(names, res, battle.PLAYERS)
        res.scores = list(game.totals())
        res.finished = game.series_over()
        won = game.series_winner()
        res.winner = res.players[won] if won is not None else None
        played = len(game.results)
        res.rounds = played
        if res.finished:
            res.outcome = (
                f"{res.winner} wins the series {max(res.scores)}-{min(res.scores)}"
                if res.winner
                else "series tied {}-{}".format(*res.scores)
            )
        else:
            res.outcome = f"{played} of {battle.SERIES} games played"


class _Tests(_Folder):
    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.wins = [0] * 6
        self.rolloffs = 0

    def after(self, event: tuple[str, tuple[Any, ...]]) -> bool:
        game = self.game
        if event[0] == "rolloff" and not game.rolloff_in and game.rolloff_winner >= 0:
            self.wins[game.rolloff_winner] += 1  # this throw decided the roll-off
            self.rolloffs += 1
        return False

    def finish(self, res: Result, closed: bool, names: Names) -> None:
        count = self.game.settings.get("tests.players")
        res.players = player_names(names, res, count)
        res.scores = self.wins[:count]
        res.finished = closed
        best = max(res.scores) if res.scores else 0
        leaders = [i for i, w in enumerate(res.scores) if w == best]
        if self.rolloffs and len(leaders) == 1:
            res.winner = res.players[leaders[0]]
        res.outcome = f"{self.rolloffs} roll-off(s)" + (
            f", {res.winner} won most" if res.winner else ""
        )


class _Coop(_Folder):
    outcomes: dict[int, str] = {}
    over = -1  # the mode's OVER phase

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self.was_over = False

    def after(self, event: tuple[str, tuple[Any, ...]]) -> bool:
        over = self.game.phase == self.over
        done = over and not self.was_over
        self.was_over = over
        return done

    def started(self) -> bool:
        return self.game.phase != self.over and self.game.phase != 0

    def finish(self, res: Result, closed: bool, names: Names) -> None:
        game = self.game
        own = own_names(names, res)
        res.players = list(own) if own else [f"{_label(res.device)}:team"]
        code = game.result if game.phase == self.over else None
        res.finished = code is not None
        if code is not None:
            res.result = self.side(code)
            res.outcome = self.outcomes.get(code, str(code))
        else:
            res.outcome = "in play"
        res.scores = self.scores()

    def side(self, code: int) -> str:
        return "win" if code else "loss"

    def scores(self) -> list[int]:
        return []


class _Tyranid(_Coop):
    outcomes = _TYRANID_OUTCOMES
    over = tyranid.OVER

    def side(self, code: int) -> str:
        return {tyranid.LOSS: "loss", tyranid.DRAW: "draw"}.get(code, "win")

    def finish(self, res: Result, closed: bool, names: Names) -> None:
        super().finish(res, closed, names)
        game = self.game
        if game.campaign and res.finished:
            res.outcome = f"campaign level {game.level}: {res.outcome}"
        elif res.finished:
            res.outcome = f"level {game.level}: {res.outcome}"
        res.scores = [game.level]


class _Orks(_Coop):
    outcomes = _ORKS_OUTCOMES
    over = orks.OVER

    def side(self, code: int) -> str:
        return "win" if code == orks.WON else "loss"

    def scores(self) -> list[int]:
        return [self.game.grit, self.game.reactors]


_FOLDERS: dict[str, type[_Folder]] = {
    "battle": _Battle,
    "tests": _Tests,
    "tyranid": _Tyranid,
    "orks": _Orks,
}


def fold_results(events: Iterable[Mapping[str, Any]], names: Names | None = None) -> list[Result]:
    """Return the Result of every game in events (by device, then seq)."""
    names = names or {}
    out: list[Result] = []
    for raw, closed in _games(events):
        out.extend(fold_game(raw, closed, names))
    return out


def results_of(store: Any) -> list[Result]:
    """Return the Result of every game in a Store."""
    return fold_results(store.events(received=True), store.players())


# --- the league table -----------------------------------------------------------------------------


def wilson(wins: float, n: int) -> tuple[float, float]:
    """Return the 95 % Wilson score interval of a rate wins/n ((0, 1) when n is 0): SciPy's
    for whole wins; a draw counts half a win, for which SciPy has no form: the same formula."""
    if n <= 0:
        return 0.0, 1.0
    if float(wins).is_integer():
        from scipy.stats import binomtest

        ci = binomtest(int(wins), n).proportion_ci(confidence_level=0.95, method="wilson")
        return max(0.0, float(ci.low)), min(1.0, float(ci.high))
    p = wins / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def league(results: Iterable[Result]) -> dict[str, Any]:
    """Return {"modes": {mode: [rows]}, "head_to_head": {mode: [rows]}} over the games.

    A row: player, played, won, drawn, lost (finished games: a Battle Game series counts when
    its best of three is over), rate (won + drawn/2 over played) and its 95 % interval, then
    in_progress (the series or sessions under way, not in the rate) and games (battle: the games
    of every series played so far); rows by rate, then games won. Head to head (versus modes):
    per pair of players, each one's wins and the draws of finished games."""
    table: dict[str, dict[str, list[int]]] = {}
    pairs: dict[str, dict[tuple[str, str], list[int]]] = {}
    for r in results:
        if r.problem or r.mode not in VERSUS + COOP:
            continue
        if not r.finished:
            if r.mode == "tests" and not sum(r.scores):
                continue  # a session of tests without a roll-off: no contest yet
            for p in r.players:
                row = table.setdefault(r.mode, {}).setdefault(p, [0] * 6)
                row[4] += 1
                row[5] += r.rounds
            continue
        if r.mode in VERSUS:
            if r.mode == "tests" and not sum(r.scores):
                continue  # a session of tests without a roll-off: no contest
            rows = table.setdefault(r.mode, {})
            for p in r.players:
                row = rows.setdefault(p, [0] * 6)
                row[0] += 1
                row[5] += r.rounds
                if r.winner is None:
                    row[2] += 1
                elif r.winner == p:
                    row[1] += 1
                else:
                    row[3] += 1
            for i, a in enumerate(r.players):
                for b in r.players[i + 1 :]:
                    key = (a, b) if a <= b else (b, a)
                    h = pairs.setdefault(r.mode, {}).setdefault(key, [0, 0, 0])
                    if r.winner == key[0]:
                        h[0] += 1
                    elif r.winner == key[1]:
                        h[1] += 1
                    else:
                        h[2] += 1
        else:
            rows = table.setdefault(r.mode, {})
            for p in r.players:
                row = rows.setdefault(p, [0] * 6)
                row[0] += 1
                index = {"win": 1, "draw": 2}.get(r.result or "", 3)
                row[index] += 1
    modes_out: dict[str, list[dict[str, Any]]] = {}
    for mode, rows in table.items():
        out = []
        for player, (played, won, drawn, lost, going, games) in rows.items():
            score = won + drawn / 2.0
            low, high = wilson(score, played)
            out.append(
                {"player": player, "played": played, "won": won, "drawn": drawn, "lost": lost,
                 "rate": score / played if played else 0.0, "low": low, "high": high,
                 "in_progress": going, "games": games}
            )  # fmt: skip
        out.sort(key=lambda row: (-row["rate"], -row["won"], row["player"]))
        modes_out[mode] = out
    h2h = {
        mode: [
            {"a": a, "b": b, "a_won": x, "b_won": y, "drawn": d, "played": x + y + d}
            for (a, b), (x, y, d) in sorted(rows.items())
        ]
        for mode, rows in pairs.items()
    }
    return {"modes": modes_out, "head_to_head": h2h}
