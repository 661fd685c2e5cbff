"""dicepod.rules.tyranid: Tyranid Attack! levels, decks, bag, wounds, attacks and campaign.
Portable: runs under CPython (pytest) and real MicroPython (tests/mp_runner.py)."""

import json

from checks import check_events, raises
from seeded import Seeded, scripted

from dicepod.rules import tyranid as ty
from dicepod.settings import MissingValue, Settings

# Values a team would enter from its own cards. Test values, not the game's: the rulebook does
# not give them, which is exactly why they are settings.
CARDS = {
    "tyranid.actions_adrix": 4,
    "tyranid.actions_lukas": 3,
    "tyranid.wounded_maximus": 3,
    "tyranid.wounded_adrix": 3,
    "tyranid.wounded_raphael": 2,
    "tyranid.wounded_lukas": 2,
    "tyranid.wounded_vorne": 2,
    "tyranid.res_genestealer": 4,
    "tyranid.res_lictor": 5,
    "tyranid.res_prime": 5,
}


def _settings(extra=None):
    values = dict(CARDS)
    if extra:
        values.update(extra)
    return Settings(ty.SETTINGS, values)


def _snap(g):
    d = g.activation
    return [
        g.phase,
        g.level,
        g.campaign,
        g.round,
        list(g.in_play),
        list(g.status),
        list(g.specials),
        g.current,
        g.actions_left,
        g.last_card,
        g.idle_card,
        [d.pile[i] for i in range(d.n_pile)],
        [d.discard[i] for i in range(d.n_discard)],
        g.infestation_left,
        g.infestation_total,
        g.infestation_out,
        list(g.bag.counts),
        list(g.board),
        g.setup_left,
        g.lictor_square,
        g.last_hit,
        g.console_open,
        g.prime_damage,
        g.prime_destroyed,
        g.result,
        g.reinforced,
        g.campaign_won,
    ]


def _start(level=1, campaign=0, marines=(0, 1, 2, 3), extra=None):
    game = ty.Game(_settings(extra))
    game.apply(("start", (level, campaign) + tuple(marines)))
    return game


def test_level_one_setup():
    game = _start(1)
    assert game.phase == ty.PLAY
    assert list(game.board) == [6, 0, 0]  # a Termagant on each entry square
    assert list(game.bag.counts) == [6, 5, 0]  # the other Termagants and the Genestealers
    assert game.infestation_left == 23  # 24 cards, the briefing card set aside (default)
    assert game.activation.n_discard == 12 and game.needs_shuffle()
    assert list(game.specials) == [1, 1, 1, 1, 0]


def test_infestation_count_settings():
    assert _start(1, extra={"tyranid.briefing_counted": 0}).infestation_left == 24
    assert _start(1, extra={"tyranid.advanced": 2}).infestation_left == 25
    game = _start(2)
    assert game.infestation_left == 28
    assert _start(3).infestation_left == 29


def test_level_two_lictor_roll():
    game = _start(2)
    assert game.phase == ty.PLACING and not game.needs_shuffle()
    assert raises(game.apply, ("place", (0,)))  # the Lictor roll comes first
    game.apply(ty.lictor_roll(scripted([3])))
    assert game.lictor_square == 4 and game.phase == ty.PLAY
    assert list(game.board) == [5, 0, 1]
    assert list(game.bag.counts) == [7, 5, 4]


def test_level_three_draws_six():
    game = _start(3)
    source = Seeded(2)
    for _ in range(6):
        assert game.phase == ty.PLACING
        game.apply(ty.place(game, source.randbelow))
    assert game.phase == ty.PLAY
    assert sum(game.board) == 6 and game.bag.total == 22 - 6


def test_activation_deck_and_rounds():
    game = _start(1, marines=(0, 2, 3, 4))
    order = ty.shuffle(game, scripted([0] * 11))[1]
    assert len(order) == 12 and order.count(ty.TYRANID_CARD) == 4
    for m in (0, 2, 3, 4):
        assert order.count(m) == 2
    game.apply(("shuffle", order))
    assert game.round == 1
    seen = 0
    while not game.needs_shuffle():
        event = ty.activate(game)
        game.apply(event)
        seen += 1
        if game.current >= 0:
            assert game.actions_left == game.actions(game.current)
            if not game.activation.n_pile:
                game.apply(("end_turn", ()))  # the last card's Marine acts first (TY-4)
    assert seen == 12 and game.infestation_left == 23 - 4
    game.apply(ty.shuffle(game, Seeded(1).randbelow))
    assert game.round == 2 and game.activation.n_pile == 12
    assert raises(game.apply, ("activate", (9,)))


def test_marine_turn_actions_and_console():
    game = _start(1)
    game.apply(("shuffle", (0, 1, 2, 3, 5, 5, 5, 5, 0, 1, 2, 3)))
    game.apply(ty.activate(game))
    assert game.current == 0 and game.actions_left == 4  # Maximus: 4 actions
    game.apply(("move", ()))
    game.apply(ty.console(scripted([4])))  # a 5: no
    assert not game.console_open
    game.apply(ty.console(scripted([5])))  # a 6 activates it
    assert game.console_open and game.actions_left == 1
    game.apply(("action", ()))
    assert game.current == -1
    assert raises(game.apply, ("move", ()))
    game.apply(ty.activate(game))  # Adrix: actions from the settings
    assert game.current == 1 and game.actions_left == 4
    game.apply(("end_turn", ()))
    assert game.current == -1


def test_attack_against_resilience_returns_to_bag():
    game = _start(1)
    game.apply(("shuffle", (0, 0, 1, 1, 2, 2, 3, 3, 5, 5, 5, 5)))
    game.apply(ty.activate(game))
    game.apply(ty.attack(ty.TERMAGANT, scripted([1])))  # a 2 misses resilience 3
    assert game.last_hit is False and game.board[0] == 6
    game.apply(ty.attack(ty.TERMAGANT, scripted([2])))  # a 3 destroys it
    assert game.last_hit is True and game.board[0] == 5 and game.bag.counts[0] == 7
    assert raises(game.apply, ("attack", (ty.GENESTEALER, 6)))  # none on the board
    assert raises(game.apply, ("attack", (ty.PRIME, 6)))  # no Prime on level 1


def test_reinforcements_and_empty_bag():
    game = _start(1)
    game.apply(("place", (1,)))
    assert game.board[1] == 1 and game.bag.counts[1] == 4
    game.apply(("return", (1,)))  # the square held a Marine: the counter goes back...
    game.apply(("wound", (2,)))  # ...and the Marine is wounded
    assert game.bag.counts[1] == 5 and game.status[2] == ty.WOUNDED
    assert raises(game.apply, ("place", ()))  # the bag is not empty
    while game.bag.total:
        game.apply(ty.place(game, Seeded(4).randbelow))
    assert ty.place(game, scripted([])) == ("place", ())
    game.apply(("place", ()))  # nothing placed, nothing changed
    assert sum(game.board) == 17


def test_wounds_out_of_action_and_loss():
    game = _start(1)
    game.apply(("shuffle", (0, 0, 1, 1, 2, 2, 3, 3, 5, 5, 5, 5)))
    game.apply(("wound", (0,)))
    game.apply(ty.activate(game))
    assert game.actions_left == 3  # Maximus's wounded side (setting)
    game.apply(("wound", (0,)))
    assert game.status[0] == ty.OUT and game.current == -1 and game.specials[0] == 0
    game.apply(ty.activate(game))  # his second card: nothing happens
    assert game.idle_card and game.current == -1
    assert raises(game.apply, ("wound", (0,)))
    for m in (1, 2, 3):
        game.apply(("wound", (m,)))
        game.apply(("wound", (m,)))
    assert game.phase == ty.OVER and game.result == ty.LOSS


def test_level_one_ends_when_infestation_runs_out():
    game = _start(1, extra={"tyranid.briefing_counted": 1})
    source = Seeded(6)
    while game.infestation_left:
        if game.needs_shuffle():
            game.apply(ty.shuffle(game, source.randbelow))
        elif game.current >= 0:
            game.apply(("end_turn", ()))
        else:
            game.apply(ty.activate(game))
    # the count is 0 but the real deck decides (TY-9): the players say it ran out
    game.apply(("deck_out", ()))
    assert game.infestation_left == 0 and not game.needs_shuffle()
    assert raises(game.apply, ty.activate(game)) if game.activation.n_pile else True
    game.apply(("place", (0,)))  # the last card is still resolved
    assert raises(game.apply, ("exit", (3,)))  # nobody can be out: the console is shut
    game.apply(("exit", (0,)))
    assert game.result == ty.LOSS


def test_level_one_results():
    assert [ty.level_one_result(n) for n in range(5)] == [0, 0, 1, 2, 3]
    for n, result in ((4, ty.MAJOR), (3, ty.MINOR), (2, ty.DRAW), (1, ty.LOSS)):
        game = _start(1)
        game.apply(("shuffle", (0, 1, 2, 3, 5, 5, 5, 5, 0, 1, 2, 3)))
        game.apply(ty.activate(game))
        game.apply(("console", (6,)))
        game.apply(("exit", (n,)))
        assert game.result == result and game.phase == ty.OVER


def _level_three(extra=None):
    game = _start(3, extra=extra)
    for kind in (0, 0, 1, 2, 0, 1):
        game.apply(("place", (kind,)))
    game.apply(("shuffle", (0, 0, 1, 2, 3, 1, 2, 3, 5, 5, 5, 5)))
    game.apply(ty.activate(game))
    return game


def test_prime_damage_three_or_four_with_adrenal_glands():
    game = _level_three()
    assert game.prime_wounds() == 3
    game.apply(("attack", (ty.PRIME, 4)))  # below resilience 5 (setting)
    assert game.prime_damage == 0
    for _ in range(3):
        game.apply(("attack", (ty.PRIME, 5)))
    assert game.prime_destroyed and game.result == ty.WIN
    glands = _level_three({"tyranid.adrenal_glands": 1})
    assert glands.prime_wounds() == 4
    for _ in range(3):
        glands.apply(("attack", (ty.PRIME, 6)))
    assert not glands.prime_destroyed
    glands.apply(ty.activate(glands))  # Maximus again
    glands.apply(("attack", (ty.PRIME, 6)))
    assert glands.prime_destroyed


def test_missing_value_is_named():
    game = ty.Game(Settings(ty.SETTINGS))
    game.apply(("start", (1, 0, 0, 1, 2, 3)))
    game.apply(("shuffle", (1, 0, 2, 3, 5, 5, 5, 5, 0, 1, 2, 3)))
    before = _snap(game)
    try:
        game.apply(ty.activate(game))  # Brother Adrix: the rulebook gives no actions value
    except MissingValue as missing:
        assert missing.args[0] == "tyranid.actions_adrix"
    else:
        raise AssertionError("no MissingValue")
    assert _snap(game) == before  # nothing changed: the card is still on top
    game.apply(("set", ("tyranid.actions_adrix", 4)))
    game.apply(ty.activate(game))
    assert game.current == 1 and game.actions_left == 4


def _win_level_one(game):
    game.apply(ty.shuffle(game, Seeded(1).randbelow))
    while game.activation.top() == ty.TYRANID_CARD or game.status[game.activation.top()]:
        game.apply(ty.activate(game))
    game.apply(ty.activate(game))
    game.apply(("console", (6,)))
    game.apply(("exit", (game.marines_standing(),)))


def test_campaign_survivors_and_one_reinforcement():
    game = _start(1, campaign=1)
    assert raises(game.apply, ("next_level", ()))
    game.apply(("wound", (1,)))
    game.apply(("wound", (2,)))
    game.apply(("wound", (2,)))  # Raphael out of action
    _win_level_one(game)
    assert game.result == ty.MINOR
    assert raises(game.apply, ("next_level", (2,)))  # not the unused Marine
    game.apply(("next_level", (4,)))  # Vorne reinforces
    assert game.level == 2 and game.reinforced
    assert list(game.in_play) == [1, 1, 0, 1, 1]
    assert list(game.status) == [0, 1, 0, 0, 0]  # Adrix is still wounded
    assert list(game.specials) == [2, 2, 0, 2, 1]
    assert game.activation.n_discard == 12
    game.apply(("lictor", (1,)))
    game.apply(("wound", (0,)))
    game.apply(("wound", (0,)))
    game.apply(("result", (ty.WIN,)))
    assert raises(game.apply, ("next_level", (2,)))  # the reinforcement was used
    game.apply(("next_level", ()))
    assert game.level == 3 and list(game.in_play) == [0, 1, 0, 1, 1]
    assert game.activation.n_discard == 10
    for kind in (0, 1, 2, 0, 0, 0):
        game.apply(("place", (kind,)))
    game.apply(("result", (ty.WIN,)))
    assert game.campaign_won
    assert raises(game.apply, ("next_level", ()))


def _play(seed, count, keep=True):
    """A seeded bot plays campaigns through the commands; return (events, live game).
    With keep=False the events are only counted (long sessions: the heap holds the game only)."""
    source = Seeded(seed)
    rb = source.randbelow
    game = ty.Game(_settings())
    events = []
    done = [0]
    last = [None]

    def add(event):
        game.apply(event)
        done[0] += 1
        last[0] = event
        if keep:
            events.append(event)

    add(("new_game", ("tyranid",)))
    add(("set", ("tyranid.advanced", 1)))
    while done[0] < count:
        if game.phase == ty.SETUP or (game.phase == ty.OVER and not _can_continue(game)):
            team = [0, 1, 2, 3, 4]
            team.pop(rb(5))
            add(("start", (1, 1) + tuple(team)))
        elif game.phase == ty.OVER:
            if game.reserve() >= 0 and rb(2):
                add(("next_level", (game.reserve(),)))
            else:
                add(("next_level", ()))
        elif game.phase == ty.PLACING:
            add(ty.lictor_roll(rb) if game.level == 2 else ty.place(game, rb))
        elif game.infestation_out:
            add(("exit", (min(game.marines_standing(), 4) if game.console_open else 0,)))
        elif game.level == 1 and not game.infestation_left and game.current < 0:
            add(("deck_out", ()))
        elif game.level > 1 and game.round > 3 and rb(6) == 0:
            add(("result", (ty.WIN if rb(3) else ty.LOSS,)))
        elif game.needs_shuffle():
            add(ty.shuffle(game, rb))
        elif game.current >= 0:
            choice = rb(6)
            targets = [k for k in range(3) if game.board[k]]
            if game.level == 3 and not game.prime_destroyed:
                targets.append(ty.PRIME)
            if choice <= 1 and targets:
                add(ty.attack(targets[rb(len(targets))], rb))
            elif choice == 2 and game.level == 1 and not game.console_open:
                add(ty.console(rb))
            elif choice == 3 and game.specials[game.current]:
                add(("special", (game.current,)))
            elif choice == 4 and rb(3) == 0:
                add(("end_turn", ()))
            else:
                add(("move", ()))
        else:
            add(ty.activate(game))
            if game.last_card == ty.TYRANID_CARD:
                for _ in range(rb(3)):
                    if game.phase != ty.PLAY:
                        break
                    add(ty.place(game, rb))
                    if game.phase == ty.PLAY and rb(8) == 0:
                        standing = [m for m in range(5) if game.in_play[m] and game.status[m] < 2]
                        placed = last[0][1]
                        if placed and standing:
                            add(("return", placed))
                            add(("wound", (standing[rb(len(standing))],)))
    return events, game


def _can_continue(game):
    return game.campaign and game.level < 3 and game.result in (ty.MINOR, ty.MAJOR, ty.WIN)


def test_whole_campaign_with_undo_at_every_step():
    events, _game = _play(3, 400)
    check_events(events)
    kinds = set(e[0] for e in events)
    for kind in ("start", "shuffle", "activate", "attack", "place", "wound", "next_level"):
        assert kind in kinds, kind
    # Undo of the last event = refold without it: every prefix, folded from scratch, must give
    # exactly the state the live game had after that many events (deck order, bag contents...).
    live = ty.Game(_settings())
    for k in range(len(events) + 1):
        assert _snap(ty.fold(events[:k], _settings())) == _snap(live), k
        if k < len(events):
            live.apply(events[k])


def test_every_setting_key_fits_the_journal():
    for key, default, low, high, label in ty.SETTINGS:
        assert len(key) <= 24 and key.startswith("tyranid.") and low <= high and label
        assert default is None or low <= default <= high
    check_events([("set", (spec[0], spec[2])) for spec in ty.SETTINGS])


def result_campaign():
    events, game = _play(17, 500)
    return [list(e[1]) for e in events[-12:]], _snap(game)


def _decoded(events):
    """The events as the journal gives them back: JSON-decoded, data as lists."""
    return [tuple(json.loads(json.dumps([e[0], list(e[1])]))) for e in events]


def test_fold_of_journal_decoded_events_is_the_same():
    events, game = _play(3, 150)
    assert _snap(ty.fold(_decoded(events), _settings())) == _snap(game)


def test_malformed_events_are_value_errors():
    for event in [
        ("start", ("1", 0, 0, 1, 2, 3)),
        ("wound", 5),
        ("set", ("tyranid.advanced", None)),
        ("bogus", ()),
        ("start",),
        None,
        ("attack", (None, 3)),
    ]:
        game = ty.Game(_settings())
        try:
            game.apply(event)
        except ValueError:
            continue
        raise AssertionError("accepted %r" % (event,))


def test_undo_of_shuffle_and_bag_draw_through_the_journal():
    from dicepod import journalfix

    events, _game = _play(11, 200)
    checked = 0
    for k in range(len(events)):
        if events[k][0] not in ("shuffle", "place"):
            continue
        before = ty.fold(events[:k], _settings())
        undone = ty.fold(journalfix.effective(events[: k + 1] + [("undo", ())]), _settings())
        assert _snap(undone) == _snap(before)
        d, u = before.activation, undone.activation
        assert bytes(d.pile[: d.n_pile]) == bytes(u.pile[: u.n_pile])  # exact order
        assert bytes(before.bag.counts) == bytes(undone.bag.counts)  # exact contents
        checked += 1
    assert checked > 10
