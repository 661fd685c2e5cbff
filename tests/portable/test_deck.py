"""dicepod.rules.deck: the ordered deck (draw, draw a named card, remove, reshuffle) and the
draw bag, with undo by refolding.
Portable: runs under CPython (pytest) and real MicroPython (tests/mp_runner.py)."""

import gc

from checks import raises, skip
from seeded import Seeded, scripted

from dicepod.rules import deck


def _deck_of(cards):
    d = deck.Deck(16)
    for card in cards:
        d.add(card)
    return d


def _top(d, n):
    """The top n cards of the draw pile, top first."""
    return tuple(d.pile[d.n_pile - 1 - i] for i in range(min(n, d.n_pile)))


def _snap(d):
    return (
        [d.pile[i] for i in range(d.n_pile)],
        [d.discard[i] for i in range(d.n_discard)],
        [d.removed[i] for i in range(d.n_removed)],
    )


# A tiny fold over deck events, the way the game modules use the primitive.
def _apply(d, bag, event):
    kind, data = event
    if kind == "shuffle":
        d.reshuffle(data)
    elif kind == "draw":
        if d.draw() != data[0]:
            raise ValueError("not the top card")
    elif kind == "take":
        d.draw_card(data[0])
    elif kind == "remove":
        d.remove(data[0])
    elif kind == "bag_draw":
        bag.take(data[0])
    elif kind == "bag_put":
        bag.put(data[0])
    else:
        raise ValueError("unknown")


def _fold(events):
    d = _deck_of((1, 2, 3, 4, 5, 6, 7, 7))
    bag = deck.Bag(3)
    bag.put(0, 4)
    bag.put(1, 2)
    bag.put(2, 1)
    for event in events:
        _apply(d, bag, event)
    return d, bag


def _state(events):
    d, bag = _fold(events)
    return _snap(d), list(bag.counts), bag.total


def _session(source, steps):
    """Build a scripted session of deck and bag events with their commands; return events."""
    events = []
    d, bag = _fold(events)
    for _ in range(steps):
        choice = source.randbelow(8)
        if not d.n_pile or choice == 0:
            event = ("shuffle", deck.shuffle_order(d, source.randbelow))
        elif choice <= 2:
            event = ("draw", (d.top(),))
        elif choice <= 4:
            event = ("take", (d.pile[source.randbelow(d.n_pile)],))
        elif choice <= 6 and d.n_discard and d.n_removed < 3:
            event = ("remove", (d.discard[0],))
        elif bag.total and choice == 7:
            event = ("bag_draw", (deck.bag_pick(bag, source.randbelow),))
        else:
            event = ("bag_put", (source.randbelow(3),))
        _apply(d, bag, event)
        events.append(event)
    return events


def test_draw_a_named_card_and_remove():
    d = _deck_of((1, 2, 3))
    assert d.n_pile == 0 and d.n_discard == 3
    d.reshuffle((3, 1, 2))  # top first
    assert d.top() == 3 and _top(d, 5) == (3, 1, 2)
    assert d.draw() == 3
    assert d.n_discard == 1 and d.discard[0] == 3
    d.draw_card(2)  # the players drew the real card: any card of the draw pile
    assert _top(d, 3) == (1,) and list(d.discard[: d.n_discard]) == [3, 2]
    d.remove(3)
    assert d.n_removed == 1 and d.size() == 3
    d.reshuffle((2, 1))
    assert _top(d, 3) == (2, 1) and d.n_removed == 1


def test_errors_leave_the_deck_unchanged():
    d = _deck_of((1, 2, 2))
    d.reshuffle((2, 1, 2))
    before = _snap(d)
    assert raises(d.reshuffle, (2, 2, 2))
    assert raises(d.reshuffle, (2, 1))
    assert raises(d.draw_card, 9)
    assert raises(d.remove, 1)
    assert _snap(d) == before
    empty = deck.Deck(2)
    assert raises(empty.draw)
    assert raises(empty.draw_card, 1)
    empty.add(1)
    empty.add(2)
    assert raises(empty.add, 3)  # full
    assert empty.top() == -1


def test_shuffle_order_is_fisher_yates_on_both_piles():
    d = _deck_of((1, 2, 3, 4))
    # Fisher-Yates from the end: i=3 takes j=0, i=2 takes j=2 (stays), i=1 takes j=0.
    order = deck.shuffle_order(d, scripted([0, 2, 0]))
    cards = [1, 2, 3, 4]
    cards[3], cards[0] = cards[0], cards[3]
    cards[1], cards[0] = cards[0], cards[1]
    assert order == tuple(cards)
    d.reshuffle(order)
    assert _top(d, 4) == order


def test_fisher_yates_is_uniform():
    source = Seeded(11)
    counts = {}
    d = _deck_of((1, 2, 3))
    for _ in range(3000):
        order = deck.shuffle_order(d, source.randbelow)
        counts[order] = counts.get(order, 0) + 1
    assert len(counts) == 6
    for value in counts.values():
        assert 400 < value < 600, counts


def test_bag_draw_return_and_pick():
    bag = deck.Bag(3)
    bag.put(0, 2)
    bag.put(2)
    assert bag.total == 3 and list(bag.counts) == [2, 0, 1]
    assert bag.kind_at(0) == 0 and bag.kind_at(1) == 0 and bag.kind_at(2) == 2
    assert deck.bag_pick(bag, scripted([2])) == 2
    bag.take(2)
    assert raises(bag.take, 2)
    assert raises(bag.put, 3)
    bag.take(0)
    bag.take(0)
    assert deck.bag_pick(bag, scripted([])) == -1  # empty: nothing drawn, no randomness


def test_undo_every_step_restores_exact_order_and_contents():
    events = _session(Seeded(5), 150)
    kinds = set(e[0] for e in events)
    assert "shuffle" in kinds and "bag_draw" in kinds and "take" in kinds and "remove" in kinds
    live_d, live_bag = _fold(())
    states = [_state(())]
    for event in events:
        _apply(live_d, live_bag, event)
        states.append((_snap(live_d), list(live_bag.counts), live_bag.total))
    for k in range(len(events) + 1):
        assert _state(events[:k]) == states[k], k
    # Undo of a shuffle: refolding without it gives back the order before it, exactly.
    for k in range(len(events)):
        if events[k][0] == "shuffle":
            assert _state(events[:k]) == states[k]
            assert _state(events[: k + 1])[0][0] == list(reversed(events[k][1]))


def test_folding_allocates_nothing():
    if not hasattr(gc, "mem_alloc"):
        skip("no gc.mem_alloc (CPython): the MicroPython run measures it")
    d = _deck_of((1, 2, 3, 4, 5, 6))
    bag = deck.Bag(3)
    bag.put(1, 5)
    order = (6, 5, 4, 3, 2, 1)
    gc.collect()
    before = gc.mem_alloc()
    for _ in range(20):
        d.reshuffle(order)
        d.draw()
        d.draw()
        d.draw_card(2)
        bag.take(1)
        bag.put(1)
        bag.kind_at(3)
    assert gc.mem_alloc() - before == 0, gc.mem_alloc() - before


def result_session():
    events = _session(Seeded(9), 300)
    d, bag = _fold(events)
    return [list(e[1]) for e in events[-20:]], _snap(d), list(bag.counts)
