// A stand-in board: MicroPython's WebAssembly port as a serial device on stdin/stdout, with
// its event-driven REPL (replInit / replProcessChar), so mpremote can talk to it like a Pico.
// standin.py runs this under Node with stdin/stdout bridged to a pty (the "serial port").
//
// What differs from a Pico's REPL, and what this script does about it:
// - no raw-paste mode: a raw-paste request (Ctrl-E "A" Ctrl-A) is answered "R\x00"
//   ("understood, not supported") so mpremote falls back to the plain raw REPL;
// - Emscripten errno numbers (ENOENT is 44, not 2): every "OSError: N" the board prints is
//   written as a Pico would, "OSError: [Errno 2] ENOENT";
// - a soft reset (Ctrl-D at the prompt) restarts the REPL with a fresh interpreter state.
//
// Usage: node standin.mjs MICROPYTHON_MJS_PATH [HEAP_BYTES]

const mjs = process.argv[2];
const heapsize = Number(process.argv[3] || 192 * 1024);

// Never let Node print an uncaught error (it would dump the whole minified module).
const die = (err) => {
  process.stderr.write(`standin: ${err && err.message ? err.message : err}\n`);
  process.exit(1);
};
process.on("uncaughtException", die);
process.on("unhandledRejection", die);

const { loadMicroPython } = await import(new URL(`file://${mjs}`).href);

let out = [];
const mp = await loadMicroPython({
  heapsize,
  linebuffer: false,
  stdout: (bytes) => {
    for (const b of bytes) out.push(b);
  },
});

// Emscripten's errno numbers (what this port's OSError carries) -> [Linux number, name]: a Pico
// prints "OSError: [Errno 2] ENOENT", and mpremote maps errors by those names and numbers.
const ERRNO = new Map([
  [63, [1, "EPERM"]], [44, [2, "ENOENT"]], [71, [3, "ESRCH"]], [27, [4, "EINTR"]],
  [29, [5, "EIO"]], [60, [6, "ENXIO"]], [1, [7, "E2BIG"]], [45, [8, "ENOEXEC"]],
  [8, [9, "EBADF"]], [12, [10, "ECHILD"]], [6, [11, "EAGAIN"]], [48, [12, "ENOMEM"]],
  [2, [13, "EACCES"]], [21, [14, "EFAULT"]], [10, [16, "EBUSY"]], [20, [17, "EEXIST"]],
  [75, [18, "EXDEV"]], [43, [19, "ENODEV"]], [54, [20, "ENOTDIR"]], [31, [21, "EISDIR"]],
  [28, [22, "EINVAL"]], [41, [23, "ENFILE"]], [33, [24, "EMFILE"]], [59, [25, "ENOTTY"]],
  [22, [27, "EFBIG"]], [51, [28, "ENOSPC"]], [70, [29, "ESPIPE"]], [69, [30, "EROFS"]],
  [34, [31, "EMLINK"]], [64, [32, "EPIPE"]], [37, [36, "ENAMETOOLONG"]], [52, [38, "ENOSYS"]],
  [55, [39, "ENOTEMPTY"]], [32, [40, "ELOOP"]], [138, [95, "EOPNOTSUPP"]],
]);

function mapErrno(text) {
  // one pass, so a mapped number is never mapped again
  return text.replace(/OSError: (?:\[Errno (\d+)\]|(\d+))/g, (m, a, b) => {
    const linux = ERRNO.get(Number(a ?? b));
    return linux ? `OSError: [Errno ${linux[0]}] ${linux[1]}` : m;
  });
}

function flush() {
  if (!out.length) return;
  const bytes = Buffer.from(out);
  out = [];
  const text = bytes.toString("latin1");
  process.stdout.write(text.includes("OSError") ? Buffer.from(mapErrno(text), "latin1") : bytes);
}

function reset() {
  mp.replInit();
  flush();
}

// Input: bytes from the pty. A raw-paste request is intercepted; everything else goes to the REPL.
let pending = []; // bytes held while a possible raw-paste request is incomplete
function feed(b) {
  if (pending.length || b === 0x05) {
    pending.push(b);
    if (pending.length === 1) return;
    if (pending.length === 2 && pending[1] === 0x41) return;
    if (pending.length === 3 && pending[1] === 0x41 && pending[2] === 0x01) {
      pending = [];
      out.push(0x52, 0x00); // "R\x00": raw paste understood but not supported
      return;
    }
    const held = pending;
    pending = [];
    for (const c of held) processChar(c);
    return;
  }
  processChar(b);
}

function processChar(c) {
  let result = 0;
  try {
    result = mp.replProcessChar(c);
  } catch (err) {
    process.stderr.write(`standin: ${err.type || ""} ${err.message || err}\n`);
  }
  if (result) {
    // Ctrl-D at the friendly prompt: a soft reset, as on a Pico
    out.push(...Buffer.from("MPY: soft reboot\r\n"));
    reset();
  }
}

process.stdin.on("data", (chunk) => {
  for (const b of chunk) feed(b);
  flush();
});
process.stdin.on("end", () => process.exit(0));

reset();
