"""ui.screen.wrap: a text that fits is returned as its one line without being split into
words (no strings made), and every text wraps exactly as the word-by-word rule does.
Portable: runs under CPython and MicroPython."""

from seeded import Seeded

from dicepod.ui.screen import wrap


def _words(text, width):
    """The word-by-word rule itself: a trailing newline sends any text through it (the
    newline's own empty last line dropped)."""
    return wrap(text + "\n", width)[:-1]


def test_wrap_is_the_word_by_word_rule():
    rng = Seeded(7)
    alphabet = "ab c  de\nfgh ij"
    for _ in range(600):
        text = "".join(alphabet[rng.randbelow(len(alphabet))] for _ in range(rng.randbelow(40)))
        for width in (1, 5, 16, 20, 21):
            assert wrap(text, width) == _words(text, width), (text, width)


def test_a_text_that_fits_is_its_own_line():
    for text, width in (("Two 6s as", 20), ("Rows per half", 13), ("", 16), ("a  b ", 5)):
        assert wrap(text, width) == [text]
    assert wrap(" lead", 20) == ["lead"]  # (the rule drops a leading space)
    assert wrap("Kept dice alone score", 20) == ["Kept dice alone", "score"]
