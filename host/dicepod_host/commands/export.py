"""`dicepod export DB [--format jsonl|csv] [--device ID] [-o FILE]`: the logged events as JSON
Lines (the USB protocol's own event lines, so `dicepod verify` checks them) or CSV (one row per
event: the same fields, data as a JSON list, plus the PC's receive time)."""

import csv
import json
import sys
import time

from dicepod import protocol
from dicepod_host.errors import UserError
from dicepod_host.store import Store
from dicepod_host.verify import CSV_FIELDS

HELP = "export logged events as JSON Lines or CSV"


def add_arguments(parser):
    """Arguments of `dicepod export`."""
    parser.add_argument("db", metavar="DB", help="the dicepod database written by `dicepod log`")
    parser.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    parser.add_argument("--device", help="only this device's events")
    parser.add_argument("-o", "--output", help="write to this file (default: standard output)")


def write(store, out, fmt, device=None):
    """Write the events of store to the text stream out; return how many."""
    n = 0
    if fmt == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(CSV_FIELDS + ("received",))
        for obj in store.events(device, received=True):
            kind, data = obj["event"]
            when = obj["received"]
            writer.writerow(
                (
                    obj["v"],
                    obj["dev"],
                    obj["seq"],
                    obj["game"],
                    obj["ms"],
                    kind,
                    json.dumps(list(data), separators=(",", ":")),
                    obj["prev"],
                    obj["crc"],
                    time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(when)) if when else "",
                )
            )
            n += 1
        return n
    for obj in store.events(device):
        line = protocol.encode_event(
            obj["dev"], obj["seq"], obj["game"], obj["ms"], obj["event"], obj["prev"]
        )
        # The stored crc is written as stored: a database edited by hand shows up in verify.
        text = line.decode()
        cut = text.rfind(',"crc":"')
        out.write(text[:cut] + ',"crc":"%s"}\n' % obj["crc"])
        n += 1
    return n


def run(args):
    """Export; return 0."""
    store = Store(args.db, create=False)
    try:
        if args.device and args.device not in store.devices():
            raise UserError("no device %s in %s" % (args.device, args.db))
        if args.output:
            try:
                out = open(args.output, "w", encoding="utf-8", newline="")
            except OSError as err:
                raise UserError("cannot write %s: %s" % (args.output, err.strerror or err)) from err
            with out:
                n = write(store, out, args.format, args.device)
            print("exported %d event(s) to %s" % (n, args.output), file=sys.stderr)
        else:
            write(store, sys.stdout, args.format, args.device)
    finally:
        store.close()
    return 0
