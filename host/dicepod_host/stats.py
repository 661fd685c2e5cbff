"""`dicepod stats`'s engine: what logged dice did, against what exact odds say they should.

Shell (reads logs; charts with matplotlib; tail probabilities from SciPy). Over any set of
logs (databases, JSONL or CSV exports; see dicepod_host.verify.load):
- faces and sums: every die the random source produced (dicepod_host.verify.fresh_faces), a roll
  later undone included, because the fairness of the dice is about every roll the device made;
  counts per face, Pearson's chi-square against a fair die (5 degrees of freedom) and its
  p-value, and the sums of 2..SUM_DICE dice rolled together;
The rest uses each game's effective events (undo applied), folded as the device folds them
(dicepod.replay: the undo rule, the app's own events stepped over):
- Battle Game: how often a Battle Roll of six dice held each kind of scoring roll, and how often
  it was a bust, against the exact probabilities (odds module and counting multisets); busts of
  every roll and re-roll against the sum of their exact bust chances (dicepod.rules.odds.bust,
  the same numbers the device shows);
- Tests: per final Target Number, dice rolled and successes against the exact rate
  (dicepod.rules.tn.p_success).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from dicepod import replay
from dicepod.rules import battle, dice, modes, odds, scoring
from dicepod.rules import tn as tests_rules
from dicepod.settings import Settings
from dicepod_host.records import Pair
from dicepod_host.verify import Problem, effective_pairs, fresh_faces

FAIR_DF = 5
SUM_DICE = 6  # sums of 2..SUM_DICE dice rolled together are compared with their exact odds
Z95 = 1.959963984540054  # two-sided 95 %
EVERY_ROLL = "every roll the dice made, {} dice of undone rolls included"


def count_band(n: int, p: float) -> tuple[float, float]:
    """The 95 % band of a count with n trials of chance p (normal approximation)."""
    sd = math.sqrt(n * p * (1 - p))
    return max(0.0, n * p - Z95 * sd), n * p + Z95 * sd


def rate_band(n: int, p: float) -> tuple[float, float]:
    """The 95 % band of a rate over n trials of chance p ((0, 1) when n is 0)."""
    if n <= 0:
        return 0.0, 1.0
    sd = math.sqrt(p * (1 - p) / n)
    return max(0.0, p - Z95 * sd), min(1.0, p + Z95 * sd)


def two_sided_p(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    from scipy.stats import norm

    return float(2 * norm.sf(abs(z)))


def sum_odds(n: int) -> list[float]:
    """Exact P(sum of n fair dice = s) for s in n..6n, as a list of floats (index s - n)."""
    ways = [1]
    for _ in range(n):
        nxt = [0] * (len(ways) + 5)
        for i, w in enumerate(ways):
            for f in range(6):
                nxt[i + f] += w
        ways = nxt
    total = 6**n
    return [w / total for w in ways]


def pooled_chi_square(
    observed: list[int], probs: list[float], total: float, least: float = 5.0
) -> tuple[float, int]:
    """Chi-square of counts against probabilities, neighbouring bins pooled until each expects
    at least `least`; return (chi2, df) (df 0 when fewer than two bins remain)."""
    bins = []
    o_acc = e_acc = 0.0
    for o, p in zip(observed, probs):
        o_acc += o
        e_acc += p * total
        if e_acc >= least:
            bins.append([o_acc, e_acc])
            o_acc = e_acc = 0.0
    if e_acc or o_acc:
        if bins:
            bins[-1][0] += o_acc
            bins[-1][1] += e_acc
        else:
            bins.append([o_acc, e_acc])
    if len(bins) < 2:
        return 0.0, 0
    return chi_square([b[0] for b in bins], [b[1] for b in bins]), len(bins) - 1


# --- exact statistics helpers ---------------------------------------------------------------


def chi_square(observed: Sequence[float], expected: Sequence[float]) -> float:
    """Return Pearson's chi-square of observed counts against expected counts."""
    return sum((o - e) ** 2 / e for o, e in zip(observed, expected) if e > 0)


def p_value(chi2: float, df: float) -> float:
    """Return P(X >= chi2) for a chi-square variable with df degrees of freedom."""
    from scipy.stats import chi2 as chi2_dist

    return float(chi2_dist.sf(chi2, df))


def _battle_roll_odds():
    """Exact P(a six-dice roll holds each kind of scoring roll) and P(bust), as floats."""
    kinds = [0] * len(scoring.KINDS)
    for multiset in dice.multisets(6):
        weight = dice.multinomial(dice.counts(multiset))
        seen = set()
        for combo in scoring.scoring(multiset):
            seen.add(scoring.kind_index(combo))
        for k in seen:
            kinds[k] += weight
    total = 6**6
    num, den = odds.bust(6)
    return [k / total for k in kinds], num / den


# --- collecting ----------------------------------------------------------------------------


class Stats:
    """Counts gathered from games, and the report built from them."""

    def __init__(self) -> None:
        self.games = 0
        self.events = 0
        self.modes = {}
        self.faces = [0] * 7  # faces[1..6]: every die rolled, undone rolls included
        self.undone_dice = 0  # of those, the dice of rolls later undone
        self.battle_rolls = 0  # six-dice Battle Rolls
        self.battle_kinds = [0] * len(scoring.KINDS)
        self.battle_roll_busts = 0
        self.bust_trials = 0  # rolls and re-rolls whose bust chance is known
        self.busts = 0
        self.bust_expected = 0.0
        self.bust_variance = 0.0
        self.tests = {}  # final TN -> [dice, successes]
        self.sums = {}  # N -> {sum of the N dice one event rolled: count}, N in 2..SUM_DICE
        self.device_faces = {}  # device -> faces[1..6]
        self.skipped = []  # notes: games that could not be folded

    def add_game(
        self,
        device: str,
        game_id: int,
        mode: str,
        pairs: list[Pair],
        rolled: list[Pair] | None = None,
    ) -> None:
        """Add one game: its effective (seq, event) pairs, and every pair it logged (rolled:
        undone ones included, for the dice; the effective ones when not given)."""
        self.games += 1
        self.events += len(pairs)
        self.modes[mode] = self.modes.get(mode, 0) + 1
        own = self.device_faces.setdefault(device, [0] * 7)
        effective = {seq for seq, _event in pairs}
        for seq, event in pairs if rolled is None else rolled:
            faces = fresh_faces(mode, event)
            good = 0
            for face in faces:
                if isinstance(face, int) and not isinstance(face, bool) and 1 <= face <= 6:
                    self.faces[face] += 1
                    own[face] += 1
                    good += 1
            if seq not in effective:
                self.undone_dice += good
            if 2 <= good == len(faces) <= SUM_DICE:
                counts = self.sums.setdefault(good, {})
                total = sum(faces)
                counts[total] = counts.get(total, 0) + 1
        # Free roll's loaded die (a class's demonstration): named, its dice never counted as fair.
        loaded = sum(1 for _seq, event in pairs if event[0] == "loaded")
        if loaded:
            self.skipped.append(
                f"device {device} game {game_id}: {loaded} roll(s) of a LOADED die (Free roll's"
                " demonstration), left out of the fairness counts"
            )
        if mode == "battle":
            self._battle(device, game_id, pairs)
        elif mode == "tests":
            self._tests(device, game_id, pairs)

    def _fold(self, mode, device, game_id):
        try:
            module = modes.module(mode)
            return module.Game(Settings(module.SETTINGS))
        except Exception as err:  # a missing or broken rules module: counts only
            self.skipped.append(f"device {device} game {game_id}: {err}")
            return None

    def _battle(self, device, game_id, pairs):
        game = self._fold("battle", device, game_id)
        if game is None:
            return
        for seq, event in pairs:
            kind, data = event
            p = None
            try:
                kcs = game.settings.get(battle.KEPT_CAN_SCORE)
                if kind == "roll" and len(data) == 6:
                    p = odds.bust(6, (), kcs)
                    self.battle_rolls += 1
                    seen = {scoring.kind_index(c) for c in scoring.scoring(data)}
                    for k in seen:
                        self.battle_kinds[k] += 1
                    if not seen:
                        self.battle_roll_busts += 1
                elif kind == "reroll" and data:
                    k = data[0]
                    kept = tuple(data[1 : 1 + k])
                    p = odds.bust(len(data) - 1 - k, kept, kcs)
                replay.step(game, event)  # the app's own events stepped over
            except Exception as err:  # an illegal event ends this game's analysis
                self.skipped.append(f"device {device} game {game_id} seq {seq}: {err}")
                return
            if p is not None:
                q = p[0] / p[1]
                self.bust_trials += 1
                self.bust_expected += q
                self.bust_variance += q * (1 - q)
                if game.phase == battle.BUST:
                    self.busts += 1

    def _tests(self, device, game_id, pairs):
        game = self._fold("tests", device, game_id)
        if game is None:
            return
        for seq, event in pairs:
            kind, data = event
            try:
                replay.step(game, event)  # the app's own events stepped over
            except Exception as err:  # an illegal event ends this game's analysis
                self.skipped.append(f"device {device} game {game_id} seq {seq}: {err}")
                return
            tn = game.tn_final
            if kind == "roll" and tn:
                row = self.tests.setdefault(tn, [0, 0])
                row[0] += len(data)
                row[1] += sum(1 for f in data if tests_rules.is_success(f, tn))

    # --- report ---------------------------------------------------------------------------------

    def report(self) -> dict[str, Any]:
        """Return the statistics as a JSON-able dict."""
        out = {"games": self.games, "events": self.events, "modes": dict(self.modes)}
        out["faces"] = _faces(self.faces[1:])
        out["faces"]["undone"] = self.undone_dice
        out["devices"] = {d: _faces(f[1:]) for d, f in sorted(self.device_faces.items())}
        sums = []
        for n in sorted(self.sums):
            counts = self.sums[n]
            rolls = sum(counts.values())
            probs = sum_odds(n)
            observed = [counts.get(s, 0) for s in range(n, 6 * n + 1)]
            chi2, df = pooled_chi_square(observed, probs, rolls)
            sums.append(
                {"dice": n, "rolls": rolls, "sums": list(range(n, 6 * n + 1)),
                 "counts": observed, "exact": probs,
                 "bands": [list(count_band(rolls, p)) for p in probs],
                 "chi_square": chi2, "df": df, "p_value": p_value(chi2, df) if df else None}
            )  # fmt: skip
        out["sums"] = sums
        if self.battle_rolls or self.bust_trials:
            kind_p, bust_p = _battle_roll_odds()
            rows = []
            for i, name in enumerate(scoring.KINDS):
                rows.append(
                    _rate_row("kind", name, self.battle_kinds[i], self.battle_rolls, kind_p[i])
                )
            rows.append(
                _rate_row("kind", "bust", self.battle_roll_busts, self.battle_rolls, bust_p)
            )
            sd = math.sqrt(self.bust_variance) if self.bust_variance else 0.0
            out["battle"] = {
                "battle_rolls": self.battle_rolls,
                "kinds": rows,
                "busts": {
                    "trials": self.bust_trials,
                    "observed": self.busts,
                    "expected": self.bust_expected,
                    "z": (self.busts - self.bust_expected) / sd if sd else None,
                },
            }
        if self.tests:
            rows = []
            for tn in sorted(self.tests):
                n, hits = self.tests[tn]
                num, den = tests_rules.p_success(tn)
                row = _rate_row("tn", tn, hits, n, num / den)
                row.update(dice=n, successes=hits)
                rows.append(row)
            out["tests"] = rows
        if self.skipped:
            out["notes"] = self.skipped[:50]
        return out


def _faces(counts):
    """Face counts with their fair expectation, 95 % bands and the chi-square test."""
    total = sum(counts)
    faces = {"counts": list(counts), "dice": total}
    if total:
        chi2 = chi_square(counts, [total / 6.0] * 6)
        faces.update(chi_square=chi2, df=FAIR_DF, p_value=p_value(chi2, FAIR_DF))
        faces["fair_at_1pc"] = faces["p_value"] >= 0.01
        faces["expected"] = total / 6.0
        faces["band"] = list(count_band(total, 1 / 6.0))
    return faces


def _rate_row(key, value, hits, n, exact):
    """A rate against its exact chance: the 95 % band a fair device's rate falls in, and the
    two-sided p-value of the difference (normal approximation)."""
    low, high = rate_band(n, exact)
    sd = math.sqrt(exact * (1 - exact) / n) if n else 0.0
    z = (hits / n - exact) / sd if n and sd else None
    return {
        key: value,
        "observed": hits,
        "trials": n,
        "rate": hits / n if n else None,
        "exact": exact,
        "band": [low, high],
        "z": z,
        "p_value": two_sided_p(z) if z is not None else None,
    }


def collect(
    records: Iterable[tuple[Any, Any]], mode: str | None = None, device: str | None = None
) -> Stats:
    """Build Stats from verify.load() records (problems are skipped; run verify for those)."""
    by_device = {}  # (device, journal) -> {seq: event dict}
    for _line, obj in records:
        if isinstance(obj, Problem) or obj.get("type", "event") != "event":
            continue  # a problem, or a database's head and break records
        if device is not None and obj["dev"] != device:
            continue
        by_device.setdefault((obj["dev"], obj.get("jid", "")), {})[obj["seq"]] = obj
    stats = Stats()
    for key in sorted(by_device):
        dev = key[0]
        current = None  # [game id, mode, [(seq, event)]]
        for seq in sorted(by_device[key]):
            obj = by_device[key][seq]
            event = obj["event"]
            if event[0] == "new_game":
                _finish(stats, dev, current, mode)
                current = [obj["game"], event[1][0] if event[1] else "?", []]
            if current is not None and obj["game"] == current[0]:
                current[2].append((seq, event))
        _finish(stats, dev, current, mode)
    return stats


def _finish(stats, device, current, mode):
    if current is None or (mode is not None and current[1] != mode):
        return
    stats.add_game(device, current[0], current[1], effective_pairs(current[2]), current[2])


# --- charts --------------------------------------------------------------------------------------


def _band_bars(ax, xs, observed, expected, bands, width=0.6):
    """Observed bars, the expected value as a line per bar, its 95 % band shaded behind."""
    from matplotlib.patches import Rectangle

    observed = [0 if o is None else o for o in observed]
    for x, e, (low, high) in zip(xs, expected, bands):
        ax.add_patch(Rectangle((x - width / 2, low), width, high - low, color="#f3c7c2", zorder=1))
        ax.plot([x - width / 2, x + width / 2], [e, e], color="#c0392b", linewidth=2, zorder=3)
    ax.bar(list(xs), observed, width=width / 2, color="#4a7ab5", zorder=2, label="logged")
    ax.plot([], [], color="#c0392b", linewidth=2, label="exact (fair dice)")
    ax.add_patch(Rectangle((0, 0), 0, 0, color="#f3c7c2", label="95 % band"))
    ax.set_ylim(0, max(list(observed) + [b[1] for b in bands] + [1e-9]) * 1.15)


def _p(value):
    return "-" if value is None else ("< 0.001" if value < 0.001 else f"{value:.3f}")


def charts(report: dict[str, Any], directory: Path) -> list[Path]:
    """Write PNG charts of a report into directory; return the paths written. Every chart names
    its sample size, shades the 95 % band of what fair dice give and states its test."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory.mkdir(parents=True, exist_ok=True)
    written = []
    faces = report["faces"]
    if faces["dice"]:
        fig, ax = plt.subplots(figsize=(6, 4))
        _band_bars(ax, range(1, 7), faces["counts"], [faces["expected"]] * 6, [faces["band"]] * 6)
        ax.set_xlabel("face")
        ax.set_ylabel("count")
        ax.set_title(
            "Faces of n = {} dice: chi-square {:.2f} ({} df), p = {}\n{}".format(
                faces["dice"], faces["chi_square"], faces["df"], _p(faces["p_value"]), EVERY_ROLL
            ).format(faces.get("undone", 0)),
            fontsize=10,
        )
        ax.legend(loc="lower right", fontsize=8)
        written.append(_save(fig, plt, directory / "faces.png", {"faces": faces}))
    sums = report.get("sums", [])
    if sums:
        fig, axes = plt.subplots(len(sums), 1, figsize=(7, 2.6 * len(sums)), squeeze=False)
        for ax, row in zip(axes[:, 0], sums):
            expected = [q * row["rolls"] for q in row["exact"]]
            _band_bars(ax, row["sums"], row["counts"], expected, row["bands"])
            ax.set_title(
                "Sum of {} dice, n = {} rolls: chi-square {:.2f} ({} df), p = {}".format(
                    row["dice"], row["rolls"], row["chi_square"], row["df"], _p(row["p_value"])
                ),
                fontsize=10,
            )
            ax.set_ylabel("rolls")
        axes[0, 0].legend(loc="upper right", fontsize=8)
        axes[-1, 0].set_xlabel("sum\n" + EVERY_ROLL.format(faces.get("undone", 0)))
        written.append(_save(fig, plt, directory / "sums.png", {"sums": sums}))
    if "battle" in report and report["battle"]["battle_rolls"]:
        rows = report["battle"]["kinds"]
        fig, ax = plt.subplots(figsize=(7, 4))
        _band_bars(ax, range(len(rows)), [r["rate"] for r in rows], [r["exact"] for r in rows],
                   [r["band"] for r in rows])  # fmt: skip
        ax.set_xticks(list(range(len(rows))))
        ax.set_xticklabels([r["kind"].replace("_", " ") for r in rows])
        ax.set_ylabel("share of Battle Rolls")
        busts = report["battle"]["busts"]
        ax.set_title(
            "Battle Rolls, n = {}: scoring rolls and busts\nbusts over n = {} rolls and re-rolls:"
            " {}, expected {:.1f} (z = {})".format(
                report["battle"]["battle_rolls"],
                busts["trials"],
                busts["observed"],
                busts["expected"],
                "-" if busts["z"] is None else "{:.2f}".format(busts["z"]),
            ),
            fontsize=10,
        )
        ax.legend(fontsize=8)
        ax.set_xlabel("moves that counted (undone ones left out)")
        written.append(_save(fig, plt, directory / "battle.png", {"battle": report["battle"]}))
    if "tests" in report:
        rows = report["tests"]
        fig, ax = plt.subplots(figsize=(6, 4))
        _band_bars(ax, range(len(rows)), [r["rate"] for r in rows], [r["exact"] for r in rows],
                   [r["band"] for r in rows])  # fmt: skip
        ax.set_xticks(list(range(len(rows))))
        ax.set_xticklabels(
            ["{}+\nn={}\np={}".format(r["tn"], r["dice"], _p(r["p_value"])) for r in rows]
        )
        ax.set_ylabel("success rate per die")
        ax.set_title(
            "Tests: success rate by Target Number (n = {} dice)".format(
                sum(r["dice"] for r in rows)
            )
        )
        ax.legend(fontsize=8)
        ax.set_xlabel("moves that counted (undone ones left out)")
        written.append(_save(fig, plt, directory / "tests.png", {"tests": rows}))
    return written


def _save(fig, plt, path, values):
    """Save a chart with the numbers it plots as JSON in its PNG "Description" text chunk (so a
    reader, or a test, gets the figures without reading pixels)."""
    fig.tight_layout()
    meta = {"Title": fig.axes[0].get_title(), "Description": json.dumps(values, default=str)}
    fig.savefig(path, dpi=110, metadata=meta)
    plt.close(fig)
    return path
