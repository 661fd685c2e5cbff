"""board.py, hardware/WIRING.md and hardware/diagram.json describe the same circuit, pin for
pin: the three are parsed independently and compared."""

import ast
import json
import re

from harness import FIRMWARE, ROOT

HARDWARE = ROOT / "hardware"
BOARD = FIRMWARE / "dicepod" / "board.py"

# The Pico's 40 header pins (pin 1 = GP0, USB connector up; Raspberry Pi Pico datasheet).
PICO_HEADER = (
    "GP0 GP1 GND GP2 GP3 GP4 GP5 GND GP6 GP7 GP8 GP9 GND GP10 GP11 GP12 GP13 GND GP14 GP15 "
    "GP16 GP17 GND GP18 GP19 GP20 GP21 GND GP22 RUN GP26 GP27 GND GP28 ADC_VREF 3V3 3V3_EN GND "
    "VSYS VBUS"
).split()
# Board-internal signals of a Pico / Pico 2 (no header pin).
PICO_INTERNAL = {"GP23", "GP24", "GP25", "GP29"}


def _wokwi_name(physical):
    """Wokwi's name for a header pin: GP4, 3V3, and GND.n for the n-th ground pin."""
    name = PICO_HEADER[physical - 1]
    if name == "GND":
        return "GND.%d" % PICO_HEADER[:physical].count("GND")
    return name


def _board_constants():
    tree = ast.parse(BOARD.read_text())
    consts = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id.isupper():
                consts[target.id] = ast.literal_eval(node.value)
    return consts, ast.get_docstring(tree)


def _board_table(doc):
    """Rows of the pin table in board.py's docstring: {signal: (GPIO, pin or None)}."""
    rows = {}
    for line in doc.splitlines():
        m = re.match(r"\s+(\S+(?: \S+)?(?: / 3)?)\s{2,}(GP\d+)\s+(\d+|\(internal\))\s", line)
        if m:
            pin = int(m.group(3)) if m.group(3).isdigit() else None
            rows[m.group(1)] = (m.group(2), pin)
    return rows


def _wiring_rows():
    """Rows of WIRING.md's connections table as dicts."""
    text = (HARDWARE / "WIRING.md").read_text()
    section = text.split("## Connections", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        rows.append(dict(zip(header, cells)))
    return rows


def _diagram():
    return json.loads((HARDWARE / "diagram.json").read_text())


def _wires(diagram):
    return {frozenset((c[0], c[1])) for c in diagram["connections"]}


def test_header_pin_names_match_wokwi():
    assert _wokwi_name(3) == "GND.1" and _wokwi_name(18) == "GND.4"
    assert _wokwi_name(38) == "GND.8" and _wokwi_name(6) == "GP4" and _wokwi_name(36) == "3V3"


def test_board_constants_match_its_own_table():
    consts, doc = _board_constants()
    table = _board_table(doc)
    expected = {
        "I2C0 SDA": consts["SDA"],
        "I2C0 SCL": consts["SCL"],
        "UP": consts["BUTTON_PINS"][0],
        "DOWN": consts["BUTTON_PINS"][1],
        "OK": consts["BUTTON_PINS"][2],
        "BACK": consts["BUTTON_PINS"][3],
        "PIEZO": consts["PIEZO"],
        "VBUS sense": consts["VBUS_SENSE"],
        "VSYS / 3": consts["VSYS_ADC"],
    }
    assert set(table) == set(expected), table
    for signal, gpio in expected.items():
        name, pin = table[signal]
        assert name == "GP%d" % gpio, signal
        if pin is None:
            assert name in PICO_INTERNAL, signal
        else:
            assert PICO_HEADER[pin - 1] == name, (signal, pin)
    # I2C0 owns GP4/GP5 (and GP0/1, 8/9, 12/13, 16/17, 20/21): SDA even, SCL odd, same block.
    assert consts["I2C_ID"] == 0 and consts["SDA"] % 4 == 0 and consts["SCL"] == consts["SDA"] + 1


def test_wiring_table_matches_board():
    _consts, doc = _board_constants()
    table = _board_table(doc)
    rows = {r["Signal"]: r for r in _wiring_rows()}
    for signal, (gpio, pin) in table.items():
        row = rows[signal]
        assert row["GPIO"] == gpio, signal
        if pin is None:
            assert row["Pico pin"] == "internal" and row["Wokwi pin"] == "-", signal
        else:
            assert int(row["Pico pin"]) == pin, signal
            assert row["Wokwi pin"] == "pico:" + gpio, signal
    # Every GPIO row of the wiring table is in board.py too.
    for signal, row in rows.items():
        if row["GPIO"].startswith("GP"):
            assert signal in table, signal


def test_wiring_table_pins_are_consistent():
    for row in _wiring_rows():
        if row["Pico pin"] in ("internal",):
            assert row["GPIO"] in PICO_INTERNAL
            continue
        physical = int(row["Pico pin"])
        assert PICO_HEADER[physical - 1] == row["GPIO"], row
        assert row["Wokwi pin"] == "pico:" + _wokwi_name(physical), row


def test_diagram_has_exactly_the_wiring_table_connections():
    diagram = _diagram()
    wired = _wires(diagram)
    expected = set()
    for row in _wiring_rows():
        if row["Wokwi pin"] != "-":
            expected.add(frozenset((row["Wokwi pin"], row["Goes to"])))
    assert wired == expected, wired ^ expected


def test_diagram_parts_and_pin_names():
    diagram = _diagram()
    parts = {p["id"]: p["type"] for p in diagram["parts"]}
    assert parts == {
        "pico": "wokwi-pi-pico",
        "oled": "board-ssd1306",
        "btn_up": "wokwi-pushbutton",
        "btn_down": "wokwi-pushbutton",
        "btn_ok": "wokwi-pushbutton",
        "btn_back": "wokwi-pushbutton",
        "bz1": "wokwi-buzzer",
    }
    # Pin names each Wokwi part has (Wokwi part reference pages).
    names = {
        "wokwi-pi-pico": {_wokwi_name(n) for n in range(1, 41)},
        "board-ssd1306": {"GND", "VCC", "SCL", "SDA"},
        "wokwi-pushbutton": {"1.l", "2.l", "1.r", "2.r"},
        "wokwi-buzzer": {"1", "2"},
    }
    for conn in diagram["connections"]:
        for end in conn[:2]:
            part, pin = end.split(":", 1)
            assert pin in names[parts[part]], end


def test_diagram_buttons_and_display_are_wired_like_board():
    consts, _doc = _board_constants()
    wired = _wires(_diagram())
    for pin, part in zip(consts["BUTTON_PINS"], ("btn_up", "btn_down", "btn_ok", "btn_back")):
        assert frozenset(("pico:GP%d" % pin, part + ":1.l")) in wired
        # The other leg goes to a ground pin.
        grounds = [w for w in wired if part + ":2.l" in w]
        assert len(grounds) == 1
        (other,) = [e for e in grounds[0] if e != part + ":2.l"]
        assert other.startswith("pico:GND."), other
    assert frozenset(("pico:GP%d" % consts["SDA"], "oled:SDA")) in wired
    assert frozenset(("pico:GP%d" % consts["SCL"], "oled:SCL")) in wired
    assert frozenset(("pico:3V3", "oled:VCC")) in wired
    assert frozenset(("pico:GP%d" % consts["PIEZO"], "bz1:2")) in wired
    oled = [p for p in _diagram()["parts"] if p["id"] == "oled"][0]
    assert int(oled["attrs"]["i2cAddress"], 16) == consts["OLED_ADDR"]


def test_emulated_pico_board_matches_board():
    """The emulated Pico (host/dicepod_host/pico) is wired as board.py says: its pico.mjs
    WIRING table and the Python API's button and piezo pins."""
    import subprocess

    from pico_support import need_pico

    from dicepod_host import pico

    need_pico()
    code = "import { WIRING } from '%s'; console.log(JSON.stringify(WIRING));" % (
        pico.NODE_PROGRAM.as_uri()
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", code],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(pico.CHECKOUT),
        check=True,
    ).stdout
    wiring = json.loads(out)
    consts, _doc = _board_constants()
    names = ("UP", "DOWN", "OK", "BACK")
    assert wiring["I2C_ID"] == consts["I2C_ID"]
    assert (wiring["SDA"], wiring["SCL"]) == (consts["SDA"], consts["SCL"])
    assert wiring["OLED_ADDR"] == consts["OLED_ADDR"]
    assert tuple(wiring["BUTTONS"][n] for n in names) == consts["BUTTON_PINS"]
    assert tuple(pico.BUTTONS[n] for n in names) == consts["BUTTON_PINS"]
    assert wiring["PIEZO"] == pico.PIEZO == consts["PIEZO"]
    assert wiring["VBUS_SENSE"] == consts["VBUS_SENSE"]
    assert wiring["VSYS_ADC"] == consts["VSYS_ADC"]
