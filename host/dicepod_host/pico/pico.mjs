// The emulated dicepod: MicroPython's real rp2 firmware in rp2040js 1.4.1, with the parts the
// library lacks (../shared/rp2/README.md lists them) and the circuit of hardware/WIRING.md.
//
// Run by host/dicepod_host/pico/__init__.py (the Python API); not a program for people.
//   node pico.mjs --rom BOOTROM --flash IMAGE [--usb-fd N] [--display ssd1306]
// Commands arrive as JSON lines on stdin, replies and events leave as JSON lines on stdout
// (the protocol is in README.md beside this file); diagnostics go to stderr. The process exits
// when stdin closes (its parent died or let go of it), so it never outlives whoever started it.
//
// Every gap is a part of its own (exported for the parts tests): SpiFlash, SsiPeripheral,
// QspiIoPeripheral, VregPeripheral, RoscPeripheral, fixUart, fixI2cAbort, I2cTarget, PinBoard,
// CdcHost; Pico puts them together.

import fs from 'node:fs';
import tty from 'node:tty';
import { BasePeripheral, RP2040, USBCDC } from 'rp2040js';

export const FLASH_SIZE = 2 * 1024 * 1024;
const NS_PER_CYCLE = 8; // clk_sys 125 MHz
const IDLE_NS = 2e6; // a sleep this long (WFI/WFE, unbroken) means the firmware was idle

// --- diagnostics ------------------------------------------------------------------------------

const quietLogger = {
  debug() {},
  info() {},
  warn(component, message) {
    if (process.env.DICEPOD_PICO_DEBUG) process.stderr.write(`[${component}] ${message}\n`);
  },
  error(component, message) {
    process.stderr.write(`[${component}] ${message}\n`);
  },
};

// --- timing: what the silicon takes that rp2040js does not charge ----------------------------

/** W25Q16JV data sheet (rev. H), AC electrical characteristics: tPP, tSE, tBE1, tBE2, tCE, tW in
 *  nanoseconds, typical and maximum. The chip reads BUSY in status register 1 for that long. */
export const W25Q16JV_NS = {
  typical: { program: 0.4e6, erase4k: 45e6, erase32k: 120e6, erase64k: 150e6, chip: 5e9, status: 10e6 },
  max: { program: 3e6, erase4k: 400e6, erase32k: 1600e6, erase64k: 2000e6, chip: 25e9, status: 15e6 },
};

/** The timing models by name: `typical` and `max` (the flash's data-sheet times), `ideal`
 *  (rp2040js alone: no flash busy time, no XIP cache misses, SCL at the programmed counts). */
export function timingModel(name) {
  if (name === 'ideal') return { name, flash: null, xipMissCycles: 0, sclRiseNs: null };
  if (name !== 'typical' && name !== 'max') throw new Error(`unknown timing ${name}`);
  // XIP_MISS_CYCLES and SCL_RISE_NS are held by tests/test_pico_calibration.py
  return { name, flash: W25Q16JV_NS[name], xipMissCycles: XIP_MISS_CYCLES, sclRiseNs: SCL_RISE_NS };
}

// The CPU cycles a miss costs, fitted to the published silicon figures that
// tests/test_pico_calibration.py holds: with this build's code layout a few of the 1,024 sets
// thrash in the interpreter's loop, and a full QSPI line fill's 56+ cycles on each would make
// it far slower than the measured chip.
export const XIP_MISS_CYCLES = 7;
// SCL's rise through the display module's pull-ups (4.7 kOhm): the I2C block counts its high
// period only once it sees SCL high.
export const SCL_RISE_NS = 150;

/** The RP2040's XIP cache: 16 KB, two-way set associative, 8-byte lines. A miss stalls the CPU
 *  for missCycles; the aliases at 0x11.. (no allocate) and 0x12.. / 0x13.. (no cache) as the
 *  chip's. Only the CPU's own reads come here (DMA's do not stall it). */
export class XipCache {
  constructor(missCycles) {
    this.missCycles = missCycles;
    this.tags = new Int32Array(2048).fill(-1); // [set * 2 + way] = line number
    this.lru = new Uint8Array(1024); // the way to replace next in each set
    this.stall = 0; // cycles owed to the CPU since the last instruction
    this.hits = 0;
    this.misses = 0;
  }

  flush() {
    this.tags.fill(-1);
  }

  access(address) {
    const alias = (address >>> 24) & 3;
    const line = (address & 0xffffff) >>> 3;
    if (alias >= 2) {
      this.misses += 1;
      this.stall += this.missCycles;
      return;
    }
    const set = line & 1023;
    const i = set << 1;
    if (this.tags[i] === line) {
      this.lru[set] = 1;
      this.hits += 1;
      return;
    }
    if (this.tags[i + 1] === line) {
      this.lru[set] = 0;
      this.hits += 1;
      return;
    }
    this.misses += 1;
    this.stall += this.missCycles;
    if (alias === 1) return;
    const way = this.lru[set];
    this.tags[i + way] = line;
    this.lru[set] = way ^ 1;
  }

  /** Route the core's own reads (instruction fetches, loads) through the cache. */
  attach(core) {
    for (const name of ['readUint32', 'readUint16', 'readUint8']) {
      const read = core[name].bind(core);
      core[name] = (address) => {
        if (address >>> 26 === 4) this.access(address); // 0x10000000-0x13ffffff
        return read(address);
      };
    }
    const execute = core.executeInstruction.bind(core);
    core.executeInstruction = () => {
      const c = execute();
      const s = this.stall;
      if (!s) return c;
      this.stall = 0;
      core.cycles += s;
      return c + s;
    };
  }
}

// --- flash: a W25Q16-like SPI NOR chip ---------------------------------------------------------

/** SPI NOR flash (W25Q16JV command set). mem is the chip's array (XIP reads see it directly);
 *  onOp(kind, offset, length, busyNs) runs after every erase or page program (its content is
 *  there at once; the chip then reads BUSY for busyNs of `now()`, ignoring all but status reads,
 *  as the real one does while its array is being written). times: W25Q16JV_NS.typical etc. */
export class SpiFlash {
  constructor(mem, uniqueId, times = null, now = () => 0) {
    this.times = times;
    this.now = now;
    this.busyUntil = 0;
    this.onWait = null; // (ns): a status read while busy stalls its reader this long
    this.mem = mem;
    this.size = mem.length;
    this.uniqueId = uniqueId || Uint8Array.from([0xe6, 0x60, 0x58, 0x38, 0x83, 0x2a, 0x4c, 0x2d]);
    this.wel = false;
    this.selected = false;
    this.onOp = null;
    this.ops = 0;
    this._reset();
  }

  _reset() {
    this.cmd = -1;
    this.n = 0; // bytes clocked in this transaction after the command
    this.addr = 0;
    this.page = null; // bytes of a page program, applied when CS rises
  }

  begin() {
    if (this.selected) this.end();
    this.selected = true;
    this._reset();
  }

  get busy() {
    return this.busyUntil > this.now();
  }

  end() {
    if (!this.selected) return;
    this.selected = false;
    const { cmd } = this;
    if (!this.wel || this.busy) return this._reset();
    if (cmd === 0x02 && this.n >= 3 && this.page) {
      const base = this.addr & ~0xff;
      let col = this.addr & 0xff;
      for (const b of this.page) {
        this.mem[base + col] &= b;
        col = (col + 1) & 0xff;
      }
      this._done('program', base, 256, 'program');
    } else if (cmd === 0x20 && this.n >= 3) {
      this._erase(this.addr & ~0xfff, 0x1000, 'erase4k');
    } else if (cmd === 0x52 && this.n >= 3) {
      this._erase(this.addr & ~0x7fff, 0x8000, 'erase32k');
    } else if (cmd === 0xd8 && this.n >= 3) {
      this._erase(this.addr & ~0xffff, 0x10000, 'erase64k');
    } else if (cmd === 0xc7 || cmd === 0x60) {
      this._erase(0, this.size, 'chip');
    } else if (cmd === 0x01) {
      this.wel = false; // write status: nothing to keep (QE reads 1 anyway)
      this._busy('status');
    }
    this._reset();
  }

  _erase(offset, length, time) {
    this.mem.fill(0xff, offset, offset + length);
    this._done('erase', offset, length, time);
  }

  _busy(time) {
    const ns = this.times ? this.times[time] : 0;
    if (ns) this.busyUntil = this.now() + ns;
    return ns;
  }

  _done(kind, offset, length, time) {
    this.wel = false;
    this.ops += 1;
    const ns = this._busy(time);
    if (this.onOp) this.onOp(kind, offset, length, ns);
  }

  /** Clock one byte in; return the byte clocked out. */
  xfer(b) {
    if (!this.selected) return 0xff;
    if (this.cmd < 0) {
      this.cmd = b;
      this.n = 0;
      if (this.busy && b !== 0x05 && b !== 0x35 && b !== 0x15) this.cmd = 0x100; // ignored
      else if (b === 0x06) this.wel = true;
      else if (b === 0x04) this.wel = false;
      return 0xff;
    }
    const i = this.n++;
    switch (this.cmd) {
      case 0x05: // read status 1: BUSY bit 0, WEL bit 1
        if (this.busy && this.onWait) {
          // the reader would poll until BUSY clears: it waits the rest in one stall instead
          this.onWait(this.busyUntil - this.now());
          this.busyUntil = 0;
        }
        return (this.wel ? 0x02 : 0x00) | (this.busy ? 0x01 : 0x00);
      case 0x35: // read status 2: QE = 1 (boot2 then skips its status write)
        return 0x02;
      case 0x15:
        return 0x00;
      case 0x9f:
        return [0xef, 0x40, 0x15][i % 3];
      case 0x4b: // unique id: 4 dummy bytes, then 8 bytes
        return i < 4 ? 0xff : this.uniqueId[(i - 4) % 8];
      case 0xab: // release power-down / device id
        return i < 3 ? 0xff : 0x14;
      case 0x90:
        return i < 3 ? 0xff : i % 2 ? 0x14 : 0xef;
      case 0x03:
      case 0x0b:
      case 0x02:
      case 0x20:
      case 0x52:
      case 0xd8:
        if (i < 3) {
          this.addr = ((this.addr << 8) | b) & (this.size - 1);
          return 0xff;
        }
        if (this.cmd === 0x02) {
          if (!this.page) this.page = [];
          if (this.page.length < 256) this.page.push(b);
          else this.page[(this.page.length++) % 256] = b; // wraps: the last 256 bytes win
          return 0xff;
        }
        if (this.cmd === 0x0b && i === 3) return 0xff; // dummy byte
        if (this.cmd === 0x03 || this.cmd === 0x0b) {
          const v = this.mem[this.addr];
          this.addr = (this.addr + 1) & (this.size - 1);
          return v;
        }
        return 0xff;
      default:
        return 0xff;
    }
  }
}

// --- SSI (XIP_SSI, DW_apb_ssi) with real FIFOs, in front of the flash --------------------------

const SSI_DR0 = 0x60;
const SSI_DR_LAST = 0xec;

export class SsiPeripheral extends BasePeripheral {
  constructor(rp2040, name, flash, qspi) {
    super(rp2040, name);
    this.flash = flash;
    this.qspi = qspi; // chip-select override state (QspiIoPeripheral)
    this.regs = new Map();
    this.rx = [];
    this.ssienr = 0;
    this.lastWasRead = false;
  }

  _ssiSelects() {
    return !this.qspi || this.qspi.ssOverride() === 0;
  }

  readUint32(offset) {
    if (offset >= SSI_DR0 && offset <= SSI_DR_LAST) {
      this.lastWasRead = true;
      return this.rx.length ? this.rx.shift() : 0;
    }
    switch (offset) {
      case 0x08:
        return this.ssienr;
      case 0x20: // TXFLR: bytes leave at once
        return 0;
      case 0x24: // RXFLR
        return this.rx.length;
      case 0x28: {
        // SR: TFNF | TFE | RFNE | RFF, never BUSY
        let sr = 0x2 | 0x4;
        if (this.rx.length) sr |= 0x8;
        if (this.rx.length >= 16) sr |= 0x10;
        return sr;
      }
      case 0x58:
        return 0x51535049;
      case 0x5c:
        return 0x3430312a;
      default:
        return this.regs.get(offset) || 0;
    }
  }

  writeUint32(offset, value) {
    if (offset >= SSI_DR0 && offset <= SSI_DR_LAST) {
      if (this._ssiSelects()) {
        // Boot2 leaves chip-select to the SSI: a write after a read starts a new transaction.
        if (!this.flash.selected || this.lastWasRead) this.flash.begin();
      }
      this.lastWasRead = false;
      const out = this.flash.xfer(value & 0xff);
      if (this.rx.length < 16) this.rx.push(out);
      return;
    }
    if (offset === 0x08) {
      this.ssienr = value & 1;
      if (!this.ssienr) {
        this.rx = [];
        if (this._ssiSelects()) this.flash.end();
      }
      return;
    }
    this.regs.set(offset, value);
  }
}

// --- IO_QSPI: pads' status and the chip-select override -------------------------------------------

export class QspiIoPeripheral extends BasePeripheral {
  constructor(rp2040, name, flash) {
    super(rp2040, name);
    this.flash = flash;
    this.ctrl = new Uint32Array(6);
    this.other = new Map();
  }

  ssOverride() {
    return (this.ctrl[1] >> 8) & 3;
  }

  readUint32(offset) {
    if (offset < 0x30) {
      const pin = offset >> 3;
      if (offset & 4) return this.ctrl[pin];
      // STATUS: SS reads high from its pad (INFROMPAD, bit 17) and towards the chip (bit 19)
      return pin === 1 ? (1 << 17) | (1 << 19) : 0;
    }
    return this.other.get(offset) || 0;
  }

  writeUint32(offset, value) {
    if (offset < 0x30) {
      const pin = offset >> 3;
      if (!(offset & 4)) return;
      const before = pin === 1 ? this.ssOverride() : -1;
      this.ctrl[pin] = value;
      if (pin === 1) {
        const now = this.ssOverride();
        if (now !== before) {
          if (now === 2) this.flash.begin(); // forced low: select
          else if (now === 3 || before === 2) this.flash.end();
        }
      }
      return;
    }
    this.other.set(offset, value);
  }
}

// --- VREG_AND_CHIP_RESET, ROSC ----------------------------------------------------------------

export class VregPeripheral extends BasePeripheral {
  constructor(rp2040, name, chipReset = 0) {
    super(rp2040, name);
    this.regs = [0xb1, 0x91, chipReset];
  }

  readUint32(offset) {
    return offset <= 8 ? this.regs[offset >> 2] : 0;
  }

  writeUint32(offset, value) {
    if (offset === 0 || offset === 4) this.regs[offset >> 2] = value;
    // CHIP_RESET (0x8): its flags are read-only; the PSM_RESTART_FLAG write is ignored
  }
}

/** ROSC with RANDOMBIT (0x1c) from a seeded generator (xorshift32), other registers kept. */
export class RoscPeripheral extends BasePeripheral {
  constructor(rp2040, name, seed) {
    super(rp2040, name);
    this.state = (seed >>> 0) || 0x2545f491;
    // Unwritten registers read as rp2040js's unimplemented ROSC did (all ones: enabled,
    // stable), which the SDK's pico_rand accepts.
    this.regs = new Map();
  }

  readUint32(offset) {
    if (offset === 0x1c) {
      let x = this.state;
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      this.state = x >>> 0;
      return this.state & 1;
    }
    return this.regs.has(offset) ? this.regs.get(offset) : 0xffffffff;
  }

  writeUint32(offset, value) {
    this.regs.set(offset, value);
  }
}

// --- SIO: the inter-core FIFO of a chip whose core 1 never runs -----------------------------------

/** Core 0's side of the inter-core FIFO, with core 1 reduced to its reset handshake: when core 1
 *  is let out of reset (PSM FRCE_OFF.PROC1 cleared, what the SDK's multicore_reset_core1() does on
 *  every soft reset) its boot ROM pushes a 0, which the SDK waits for. Without it a soft reset
 *  (Ctrl-D, mpremote) hung; rp2040js answered every FIFO access with a warning and all ones.
 *  Words core 0 writes go nowhere (core 1 and _thread are not emulated). */
export function fixSioFifo(sio, psm) {
  const rx = [];
  const read = sio.readUint32.bind(sio);
  const write = sio.writeUint32.bind(sio);
  // FIFO_ST: VLD (bit 0) when a word waits, RDY (bit 1) always
  sio.readUint32 = (offset) => {
    if (offset === 0x50) return (rx.length ? 1 : 0) | 2;
    if (offset === 0x58) return rx.length ? rx.shift() : 0;
    return read(offset);
  };
  sio.writeUint32 = (offset, value) => {
    if (offset !== 0x50 && offset !== 0x54) write(offset, value);
  };
  const psmWrite = psm.writeUint32.bind(psm);
  psm.writeUint32 = (offset, value) => {
    const wasOff = offset === 0x04 && psm.frceOff & (1 << 16);
    psmWrite(offset, value);
    if (wasOff && !(psm.frceOff & (1 << 16))) {
      rx.length = 0; // core 1's ROM drains its mailbox and answers 0
      rx.push(0);
      psm.rp2040.core.eventRegistered = true; // its SEV wakes core 0's WFE
    }
  };
}

// --- UART: TXINTR only when the transmit FIFO has emptied (bytes leave at once) ----------------

const UARTTXINTR = 1 << 5;
export function fixUart(uart) {
  const raise = () => uart.rp2040.setInterrupt(uart.irq, !!(uart.interruptStatus & uart.interruptMask));
  uart.checkInterrupts = raise;
  const write = uart.writeUint32.bind(uart);
  uart.writeUint32 = (offset, value) => {
    write(offset, value);
    if (offset === 0x0 /* UARTDR */) {
      uart.interruptStatus |= UARTTXINTR;
      raise();
    }
  };
}

// --- I2C: TX_EMPTY after an abort; bus timing ---------------------------------------------------

const R_TX_EMPTY = 1 << 4;
export function fixI2cAbort(i2c) {
  const abort = i2c.abort.bind(i2c);
  i2c.abort = (reason) => {
    abort(reason);
    i2c.setInterrupts(R_TX_EMPTY);
  };
}

// --- the pins: levels from every driver, pad pulls, external pull-ups --------------------------

export const FUNC_I2C = 3;

/** Computes every GPIO's level from the chip's output, the host's open-drain or push-pull drive,
 *  external pull-ups and the pad's own pulls; feeds it back as the pin's input. */
export class PinBoard {
  constructor(mcu, onEdge) {
    this.mcu = mcu;
    this.onEdge = onEdge || null;
    const n = mcu.gpio.length;
    this.host = new Array(n).fill(null); // null | 0 | 1: what the host drives
    this.pullLow = new Array(n).fill(0); // open-drain pullers holding the line low (count)
    this.externalPullUp = new Array(n).fill(false);
    this.level = new Array(n).fill(0);
    this.watch = new Set();
    this.listeners = new Array(n).fill(null).map(() => []);
    for (let i = 0; i < n; i++) {
      mcu.gpio[i].addListener(() => this.update(i));
    }
  }

  compute(i) {
    const pin = this.mcu.gpio[i];
    const pulledLow = this.pullLow[i] > 0 || this.host[i] === 0;
    if (pin.outputEnable) {
      return pin.outputValue && !pulledLow ? 1 : 0;
    }
    if (pulledLow) return 0;
    if (this.host[i] === 1) return 1;
    if (this.externalPullUp[i]) return 1;
    if (pin.pullupEnabled && !pin.pulldownEnabled) return 1;
    if (pin.pulldownEnabled && !pin.pullupEnabled) return 0;
    return this.level[i]; // floating or bus keeper: stays where it was
  }

  update(i) {
    const level = this.compute(i);
    const pin = this.mcu.gpio[i];
    if (level !== this.level[i]) {
      this.level[i] = level;
      if (this.onEdge && this.watch.has(i)) this.onEdge(i, level);
      for (const f of this.listeners[i]) f(level);
    }
    if (pin.rawInputValue !== !!level) pin.setInputValue(!!level);
  }

  updateAll() {
    for (let i = 0; i < this.level.length; i++) this.update(i);
  }

  drive(i, value) {
    this.host[i] = value;
    this.update(i);
  }
}

// --- I2C targets: the display, seen by the I2C block and by bit-banged code ---------------------

/** A display controller at one address: the hardware block's callbacks (with wire timing: nine
 *  SCL periods a byte) and a bit-level state machine on the pins for bit-banged scan(). */
export class I2cTarget {
  constructor(mcu, i2c, pins, sda, scl, address, onTransaction) {
    this.mcu = mcu;
    this.i2c = i2c;
    this.pins = pins;
    this.sda = sda;
    this.scl = scl;
    this.address = address;
    this.onTransaction = onTransaction;
    this.bytes = null;
    this.t0 = 0;
    this.bitBang = { state: 'idle', bits: 0, byte: 0, acking: false, write: true, data: [] };
    this.wire = true; // model the bus time of each byte
    this.sclRiseNs = null; // null: SCL at the programmed counts alone
    this.pending = null;
    this.alarm = mcu.clock.createAlarm(() => {
      const f = this.pending;
      this.pending = null;
      if (f) f();
    });
    i2c.onStart = () => this._later(1, () => i2c.completeStart());
    i2c.onConnect = (addr, mode) => {
      const ack = addr === this.address;
      if (ack) {
        this.bytes = [];
        this.t0 = mcu.clock.nanos;
        this.reading = mode === 1;
      }
      this._later(9, () => i2c.completeConnect(ack));
    };
    i2c.onWriteByte = (value) => {
      if (this.bytes) this.bytes.push(value);
      this._later(9, () => i2c.completeWrite(true));
    };
    i2c.onReadByte = () => this._later(9, () => i2c.completeRead(0x00));
    i2c.onStop = () => {
      this._later(1, () => {
        this._finish();
        i2c.completeStop();
      });
    };
    pins.externalPullUp[sda] = true;
    pins.externalPullUp[scl] = true;
    pins.listeners[sda].push(() => this._edge());
    pins.listeners[scl].push(() => this._edge());
    this.lastSda = 1;
    this.lastScl = 1;
  }

  bitNanos() {
    const i2c = this.i2c;
    const clk = this.mcu.clkSys || 125e6; // the I2C block runs on clk_sys
    const high = i2c.sclHighPeriod || 6;
    const low = i2c.sclLowPeriod || 13;
    if (this.sclRiseNs == null) return ((high + low) * 1e9) / clk;
    // DW_apb_i2c as in the RP2040 data sheet: SCL high lasts HCNT + SPKLEN + 7 cycles counted
    // from when the block sees SCL high (after its rise), low LCNT + 1 cycles.
    const spk = i2c.spikelen || 1;
    return ((high + spk + 7 + low + 1) * 1e9) / clk + this.sclRiseNs;
  }

  _later(bits, f) {
    if (!this.wire) return f();
    this.pending = f;
    this.alarm.schedule(Math.max(1, Math.round(bits * this.bitNanos())));
  }

  _finish() {
    if (this.bytes) {
      const data = this.bytes;
      this.bytes = null;
      if (!this.reading) this.onTransaction(this.address, data, this.t0, this.mcu.clock.nanos);
    }
  }

  // Bit-banged I2C on the pins (the rp2 port's scan() and zero-length writes).
  _edge() {
    const sda = this.pins.level[this.sda];
    const scl = this.pins.level[this.scl];
    const bb = this.bitBang;
    const sdaFell = this.lastSda && !sda;
    const sdaRose = !this.lastSda && sda;
    const sclRose = !this.lastScl && scl;
    const sclFell = this.lastScl && !scl;
    this.lastSda = sda;
    this.lastScl = scl;
    if (scl && sdaFell && !bb.acking) {
      // START (or repeated start)
      this._bbFinish();
      bb.state = 'addr';
      bb.bits = 0;
      bb.byte = 0;
      bb.data = [];
      return;
    }
    if (scl && sdaRose && !bb.acking && bb.state !== 'idle') {
      this._bbFinish(); // STOP
      bb.state = 'idle';
      return;
    }
    if (bb.state === 'idle' || bb.state === 'ignore') return;
    if (sclRose && !bb.acking && bb.bits < 8) {
      bb.byte = ((bb.byte << 1) | sda) & 0xff;
      bb.bits += 1;
    } else if (sclFell && bb.bits === 8 && !bb.acking) {
      let ack = false;
      if (bb.state === 'addr') {
        ack = bb.byte >> 1 === this.address;
        bb.write = !(bb.byte & 1);
        bb.state = ack ? (bb.write ? 'data' : 'ignore') : 'ignore';
        bb.t0 = this.mcu.clock.nanos;
      } else {
        ack = true;
        bb.data.push(bb.byte);
      }
      if (ack) {
        bb.acking = true;
        this.pins.pullLow[this.sda] += 1;
        this.pins.update(this.sda);
        this.lastSda = this.pins.level[this.sda];
      } else {
        bb.bits = 0;
        bb.byte = 0;
      }
    } else if (sclFell && bb.acking) {
      bb.acking = false;
      bb.bits = 0;
      bb.byte = 0;
      this.pins.pullLow[this.sda] -= 1;
      this.pins.update(this.sda);
      this.lastSda = this.pins.level[this.sda];
    }
  }

  _bbFinish() {
    const bb = this.bitBang;
    if (bb.state === 'data' && bb.write) {
      this.onTransaction(this.address, bb.data, bb.t0 || 0, this.mcu.clock.nanos, true);
    }
    bb.data = [];
    if (bb.acking) {
      bb.acking = false;
      this.pins.pullLow[this.sda] -= 1;
      this.pins.update(this.sda);
    }
  }
}

// --- USB: a CDC host that NAKs an OUT transfer until it has data, and an IN one while full -------

const EP0_IN_BUFFER_CONTROL = 0x80; // in the USB DPRAM; endpoint n's is 8 * n further
const BUF_AVAILABLE = 1 << 10;

export class CdcHost extends USBCDC {
  /** full(): the PC side takes no more bytes for now (its tty buffer is full). */
  constructor(usb, full = () => false) {
    super(usb);
    this.pendingRead = null;
    this.usb.onEndpointRead = (endpoint, size) => {
      if (endpoint !== this.outEndpoint) return;
      this.pendingRead = size;
      this._serve();
    };
    // rp2040js completes every IN transfer at once; while full() one on the data endpoint is
    // held (its buffer stays AVAILABLE, as a PC that NAKs), so TinyUSB's TX FIFO fills and the
    // firmware sees the stream not writable. release() completes it.
    this.full = full;
    this.heldIn = false;
    const updated = usb.DPRAMUpdated.bind(usb);
    usb.DPRAMUpdated = (offset, value) => {
      if (this.inEndpoint > 0 && offset === EP0_IN_BUFFER_CONTROL + 8 * this.inEndpoint &&
          value & BUF_AVAILABLE && this.full()) {
        this.heldIn = true;
        return;
      }
      updated(offset, value);
    };
  }

  /** Complete the held IN transfer, if any, once the PC side takes bytes again. */
  release() {
    if (!this.heldIn || this.full()) return;
    this.heldIn = false;
    const offset = EP0_IN_BUFFER_CONTROL + 8 * this.inEndpoint;
    this.usb.DPRAMUpdated(offset, this.usb.rp2040.usbDPRAMView.getUint32(offset, true));
  }

  _serve() {
    if (this.pendingRead == null || this.txFIFO.empty) return;
    const buffer = new Uint8Array(Math.min(this.pendingRead, this.txFIFO.itemCount));
    for (let i = 0; i < buffer.length; i++) buffer[i] = this.txFIFO.pull();
    this.pendingRead = null;
    this.usb.endpointReadDone(this.outEndpoint, buffer);
  }

  send(bytes) {
    for (const b of bytes) {
      if (this.txFIFO.full) return false;
      this.txFIFO.push(b);
    }
    this._serve();
    return true;
  }

  get room() {
    return this.txFIFO.size - this.txFIFO.itemCount;
  }
}

// --- the board ---------------------------------------------------------------------------------

/** The circuit of hardware/WIRING.md (tests/test_board_wiring.py compares it with board.py). */
export const WIRING = {
  I2C_ID: 0,
  SDA: 4,
  SCL: 5,
  OLED_ADDR: 0x3c,
  BUTTONS: { UP: 10, DOWN: 11, OK: 12, BACK: 13 }, // to ground; the pads' pull-ups hold them high
  PIEZO: 15, // PWM7 B
  VBUS_SENSE: 24, // high while USB power is present
  VSYS_ADC: 29, // ADC3: VSYS through the Pico's 200k/100k divider
};
export const BUTTONS = WIRING.BUTTONS;
const { SDA, SCL, PIEZO, VBUS_SENSE } = WIRING;
const VSYS_CHANNEL = WIRING.VSYS_ADC - 26;

/** One emulated dicepod: the chip, its flash image, the display, buttons, power and USB. */
export class Pico {
  constructor(opts) {
    this.opts = opts;
    this.rom = opts.rom; // Uint8Array
    this.flashMem = new Uint8Array(FLASH_SIZE);
    this.flashMem.set(opts.flash.subarray(0, FLASH_SIZE));
    this.emit = opts.emit || (() => {});
    this.flashFd = opts.flashFd ?? null;
    this.vbus = opts.vbus ?? 1;
    this.vsysMv = opts.vsysMv ?? 5000 - 250;
    this.seed = opts.seed ?? 1;
    this.scratch = null;
    this.reason = 0;
    this.powerCutAfter = null; // stop after this many more flash operations
    this.stopReason = null;
    this.off = false;
    this.awakeCycles = 0;
    this.sleepCycles = 0;
    this.flashOps = 0;
    this.usbOut = null; // function(bytes) for the USB serial's device -> host bytes
    this.usbFull = () => false; // true while the host takes no more of them
    this.pendingPresses = [];
    this.boots = 0;
    this.waitStart = -1; // clock time the current WFI/WFE began (-1: awake)
    this.lastIdle = 0; // emulated ns when the CPU last ended an idle sleep (>= IDLE_NS)
    // The ends of the last two idle sleeps that did end (not one still going on). Two ends
    // after a pin edge mean the firmware has handled it: the first wake's loop pass read the
    // pins, the second came after that pass was over (however long its drawing took).
    this.lastWake = 0;
    this.prevWake = 0;
    this.timeBase = 0; // emulated nanoseconds before this chip was built (across resets)
    this.timing = timingModel(opts.timing || 'ideal');
    this.flashBusyNs = 0; // flash busy time started so far (erases, programs)
    this.build(false);
  }

  get nanos() {
    return this.timeBase + this.mcu.clock.nanos;
  }

  build(watchdog) {
    const old = this.mcu;
    if (old) this.timeBase += old.clock.nanos;
    const mcu = new RP2040();
    mcu.logger = quietLogger;
    mcu.loadBootrom(new Uint32Array(this.rom.buffer, this.rom.byteOffset, this.rom.length >> 2));
    // The chip's flash array is 16 MB in rp2040js; ours is the first 2 MB of it.
    mcu.flash.set(this.flashMem);
    const mem = mcu.flash.subarray(0, FLASH_SIZE);
    const flash = new SpiFlash(mem, this.opts.uniqueId, this.timing.flash, () => mcu.clock.nanos);
    flash.onOp = (kind, offset, length, busyNs) => this._flashOp(kind, offset, length, mem, busyNs);
    this.xip = null;
    if (this.timing.xipMissCycles) {
      this.xip = new XipCache(this.timing.xipMissCycles);
      this.xip.attach(mcu.core);
      // Polling BUSY costs the emulator as many instructions as the wait lasts: the same time
      // passes as one stall of the instruction that read the status.
      flash.onWait = (ns) => {
        this.xip.stall += Math.ceil(ns / NS_PER_CYCLE);
      };
    }
    const qspi = new QspiIoPeripheral(mcu, 'IO_QSPI', flash);
    mcu.peripherals[0x18000] = new SsiPeripheral(mcu, 'SSI', flash, qspi);
    mcu.peripherals[0x40018] = qspi;
    mcu.peripherals[0x40064] = new VregPeripheral(mcu, 'VREG_AND_CHIP_RESET', watchdog ? 0 : 0x100);
    mcu.peripherals[0x40060] = new RoscPeripheral(mcu, 'ROSC', this.seed + this.boots);
    // QSPI_SS: a real pad resets with input enabled and pull-up; the flash's CS line reads high.
    mcu.qspi[1].padValue = 0x5a;
    mcu.qspi[1].setInputValue(true);
    fixSioFifo(mcu.sio, mcu.peripherals[0x40010]);
    for (const uart of mcu.uart) fixUart(uart);
    for (const i2c of mcu.i2c) fixI2cAbort(i2c);
    if (watchdog && this.scratch) {
      mcu.peripherals[0x40058].scratchData.set(this.scratch);
      mcu.peripherals[0x40058].reason = this.reason;
    }
    mcu.peripherals[0x40058].onWatchdogTrigger = () => {
      const wd = mcu.peripherals[0x40058];
      this.scratch = Uint32Array.from(wd.scratchData);
      this.reason = wd.reason;
      this.stopReason = 'watchdog';
    };
    this.mcu = mcu;
    this.waitStart = -1;
    this.flash = flash;
    this.flashView = mem;
    this.pins = new PinBoard(mcu, (pin, level) =>
      this.emit({ ev: 'pin', t: this.nanos, pin, level }),
    );
    for (const p of [...Object.values(BUTTONS), PIEZO, VBUS_SENSE]) this.pins.watch.add(p);
    this.display = new I2cTarget(mcu, mcu.i2c[WIRING.I2C_ID], this.pins, SDA, SCL, WIRING.OLED_ADDR, (addr, data, t0, t1, bb) =>
      this.emit({ ev: 'i2c', addr, t0: this.timeBase + t0, t1: this.timeBase + t1, data: Buffer.from(data).toString('hex'), bb: !!bb }),
    );
    this.display.sclRiseNs = this.timing.sclRiseNs;
    // Buttons: open contacts (the pad pull-up decides); VBUS sense from the Pico's divider.
    this.pins.host[VBUS_SENSE] = this.vbus ? 1 : 0;
    mcu.adc.channelValues[VSYS_CHANNEL] = this._vsysCounts();
    this.pins.updateAll();
    // USB: the PC's CDC host.
    this.cdc = new CdcHost(mcu.usbCtrl, () => this.usbFull());
    this.cdc.onSerialData = (buffer) => {
      if (this.usbOut) this.usbOut(buffer);
    };
    this.cdc.onDeviceConnected = () => this.emit({ ev: 'usb', t: this.nanos, connected: true });
    // Boot from the ROM's reset vector, as the chip does.
    mcu.core.reset();
    this.boots += 1;
    this.lastI2c = 0;
    // presses scheduled for later keep their times on the new chip
    const presses = this.pendingPresses;
    this.pendingPresses = [];
    for (const p of presses) this._schedule(p.at, p.pin, p.level);
  }

  _vsysCounts() {
    return Math.max(0, Math.min(4095, Math.round((this.vsysMv / 3 / 3300) * 4095)));
  }

  setVbus(on) {
    this.vbus = on ? 1 : 0;
    this.pins.drive(VBUS_SENSE, this.vbus);
  }

  setVsys(mv) {
    this.vsysMv = mv;
    this.mcu.adc.channelValues[VSYS_CHANNEL] = this._vsysCounts();
  }

  _flashOp(kind, offset, length, mem, busyNs = 0) {
    this.flashOps += 1;
    this.flashBusyNs += busyNs;
    // the SDK flushes the XIP cache after every erase and program
    if (this.xip) this.xip.flush();
    if (this.flashFd != null) fs.writeSync(this.flashFd, mem, offset, length, offset);
    this.flashMem.set(mem.subarray(offset, offset + length), offset);
    this.emit({ ev: 'flash', t: this.nanos, kind, offset, length, n: this.flashOps, busy_ns: busyNs });
    if (this.powerCutAfter != null) {
      this.powerCutAfter -= 1;
      if (this.powerCutAfter <= 0) {
        this.powerCutAfter = null;
        this.stopReason = 'power_cut';
      }
    }
  }

  /** Schedule a pin level (0 pressed, null released) at emulated time `at` (ns, absolute). */
  _schedule(at, pin, level) {
    const clock = this.mcu.clock;
    const item = { at, pin, level };
    const alarm = clock.createAlarm(() => {
      const i = this.pendingPresses.indexOf(item);
      if (i >= 0) this.pendingPresses.splice(i, 1);
      this.pins.drive(pin, level);
    });
    this.pendingPresses.push(item);
    alarm.schedule(Math.max(0, at - this.nanos));
  }

  /** A finger on a button: contact bounce on press and release, held for holdMs. */
  press(pin, holdMs, bounce, atNs) {
    let t = Math.max(atNs ?? this.nanos, this.nanos);
    const start = t;
    const edges = [];
    if (bounce) {
      // a few make/break bounces of 0.1-0.8 ms before the contact settles (typical tactile switch)
      for (const d of [0, 150e3, 400e3, 700e3, 1000e3, 1300e3]) edges.push([start + d, edges.length % 2 ? null : 0]);
      t = start + 1500e3;
      edges.push([t, 0]);
    } else {
      edges.push([t, 0]);
    }
    const up = start + holdMs * 1e6;
    if (bounce) {
      for (const d of [0, 200e3, 500e3, 900e3]) edges.push([up + d, edges.length % 2 ? 0 : null]);
      edges.push([up + 1200e3, null]);
    } else {
      edges.push([up, null]);
    }
    for (const [at, level] of edges) this._schedule(at, pin, level);
    return { start, end: edges[edges.length - 1][0] };
  }

  pwm(gpio) {
    const slice = (gpio >> 1) & 7;
    const ch = this.mcu.pwm.channels[slice];
    const b = gpio & 1;
    const top = ch.top;
    const div = (ch.div >> 4) + (ch.div & 15) / 16 || 256;
    const phaseCorrect = !!(ch.csr & 2);
    const cc = b ? ch.cc >>> 16 : ch.cc & 0xffff;
    const enabled = !!(ch.csr & 1) && this.mcu.gpio[gpio].functionSelect === 4;
    const freq = this.mcu.clkSys / div / (top + 1) / (phaseCorrect ? 2 : 1);
    return { enabled, freq, top, level: cc, duty: Math.min(1, cc / (top + 1)) };
  }

  /** Run until emulated time `untilNs` (absolute) or a stop; returns the stop reason or null. */
  runTo(untilNs) {
    const core = this.mcu.core;
    const clock = this.mcu.clock;
    const limit = untilNs - this.timeBase;
    while (clock.nanos < limit) {
      if (this.stopReason) break;
      if (core.waiting) {
        if (this.waitStart < 0) this.waitStart = clock.nanos;
        let jump = limit - clock.nanos;
        if (clock.nextAlarm) jump = Math.min(jump, Math.max(0, clock.nextAlarm.nanos - clock.nanos));
        clock.tick(jump);
        this.sleepCycles += jump / NS_PER_CYCLE;
        continue;
      }
      if (this.waitStart >= 0) {
        // The CPU slept (WFI/WFE) this long without a break: the firmware was idle.
        if (clock.nanos - this.waitStart >= IDLE_NS) {
          this.lastIdle = this.timeBase + clock.nanos;
          this.prevWake = this.lastWake;
          this.lastWake = this.lastIdle;
        }
        this.waitStart = -1;
      }
      if (this.allocs) {
        // the `allocs` command: each entry into the firmware's gc_alloc counted, with the
        // bytes it asks for (its first argument, r0)
        const watch = this.allocs;
        for (let i = 0; i < 4096 && !core.waiting && !this.stopReason; i++) {
          if (core.PC === watch.pc) {
            watch.calls += 1;
            watch.bytes += core.registers[0];
            if (watch.depth) {
              // who asked: the return addresses on the stack (as profile's callers)
              const chain = [(core.LR & ~1) >>> 0];
              const sp = core.SP;
              for (let k = 0; k < 96 && chain.length < watch.depth; k++) {
                const w = this.mcu.readUint32(sp + 4 * k) >>> 0;
                if ((w & 1) && w >= 0x10000100 && w < 0x10200000) chain.push(w & ~1);
              }
              const key = chain.join(',');
              watch.by.set(key, (watch.by.get(key) || 0) + core.registers[0]);
            }
          }
          const c = core.executeInstruction();
          clock.tick(c * NS_PER_CYCLE);
          this.awakeCycles += c;
        }
        continue;
      }
      if (this.profile) {
        // PC sampling (the `profile` command): one sample every profile.every cycles
        const prof = this.profile;
        for (let i = 0; i < 4096 && !core.waiting && !this.stopReason; i++) {
          const pc = core.PC;
          const c = core.executeInstruction();
          clock.tick(c * NS_PER_CYCLE);
          this.awakeCycles += c;
          prof.left -= c;
          if (prof.left <= 0) {
            prof.left += prof.every;
            if (!prof.until || this.timeBase + clock.nanos <= prof.until) {
              prof.hist.set(pc, (prof.hist.get(pc) || 0) + 1);
              if (prof.lo <= pc && pc < prof.hi) {
                // who called it: the first words on the stack that look like return addresses
                // into the flash's code (a heuristic: a stale one can show up)
                const sp = core.SP;
                const chain = [];
                for (let k = 0; k < 96 && chain.length < prof.depth; k++) {
                  const w = this.mcu.readUint32(sp + 4 * k) >>> 0;
                  if ((w & 1) && w >= 0x10000100 && w < 0x10200000) chain.push(w & ~1);
                }
                const key = chain.join(',');
                prof.callers.set(key, (prof.callers.get(key) || 0) + 1);
              }
            }
          }
        }
        continue;
      }
      for (let i = 0; i < 4096 && !core.waiting && !this.stopReason; i++) {
        const c = core.executeInstruction();
        clock.tick(c * NS_PER_CYCLE);
        this.awakeCycles += c;
      }
    }
    if (this.waitStart >= 0 && clock.nanos - this.waitStart >= IDLE_NS) {
      this.lastIdle = this.timeBase + clock.nanos; // still asleep at the end of the run
    }
    const reason = this.stopReason;
    this.stopReason = null;
    return reason;
  }
}

// --- the process: commands on stdin, replies and events on stdout -------------------------------

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) out[a.slice(2)] = argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[++i] : true;
  }
  return out;
}

function main() {
  const args = parseArgs(process.argv.slice(2));
  const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
  const rom = new Uint8Array(fs.readFileSync(args.rom));
  const flashFd = fs.openSync(args.flash, 'r+');
  const image = Buffer.alloc(FLASH_SIZE, 0xff);
  fs.readSync(flashFd, image, 0, FLASH_SIZE, 0);
  const pico = new Pico({
    rom,
    flash: new Uint8Array(image.buffer, image.byteOffset, FLASH_SIZE),
    flashFd,
    seed: Number(args.seed || 1),
    uniqueId: args.uid ? Uint8Array.from(Buffer.from(String(args.uid), 'hex')) : undefined,
    vbus: args.vbus === undefined ? 1 : Number(args.vbus),
    timing: args.timing || 'ideal',
    emit: out,
  });

  // USB serial <-> the pty's master side (fd given by the parent), or nothing.
  let usbIn = null;
  let usbReceived = 0; // bytes the PC side has written into the pty so far
  const usbBacklog = [];
  if (args['usb-fd'] !== undefined) {
    const fd = Number(args['usb-fd']);
    usbIn = new tty.ReadStream(fd);
    usbIn.setRawMode?.(true);
    // Device -> PC bytes, one write at a time on a worker thread (libuv leaves a pty master
    // blocking). Past USB_HOLD bytes waiting, the chip's IN transfers are held, as by a PC whose
    // tty buffer is full: a slow reader loses nothing; EAGAIN is tried again; any other error
    // means the pty is gone, and its bytes are dropped so that the chip plays on.
    const USB_HOLD = 4096;
    let pendingOut = 0;
    let writing = false;
    let gone = false;
    const outQueue = [];
    pico.usbFull = () => !gone && pendingOut >= USB_HOLD;
    const pumpOut = () => {
      if (writing || gone || !outQueue.length) return;
      const chunk = Buffer.concat(outQueue.splice(0));
      writing = true;
      fs.write(fd, chunk, (err, n) => {
        writing = false;
        const again = err && (err.code === 'EAGAIN' || err.code === 'EINTR');
        if (err && !again) {
          gone = true;
          outQueue.length = 0;
          pendingOut = 0;
        } else {
          const done = again ? 0 : n;
          pendingOut -= done;
          if (done < chunk.length) outQueue.unshift(chunk.subarray(done));
        }
        pico.cdc.release();
        if (again) setTimeout(pumpOut, 2);
        else pumpOut();
      });
    };
    pico.usbOut = (buffer) => {
      if (gone || pendingOut > 65536) return; // (a safety net: the hold keeps it far below)
      pendingOut += buffer.length;
      outQueue.push(Buffer.from(buffer));
      pumpOut();
    };
    usbIn.on('data', (chunk) => {
      usbReceived += chunk.length;
      usbBacklog.push(...chunk);
      feedUsb();
    });
    usbIn.on('error', () => {});
  } else {
    pico.usbOut = (buffer) => out({ ev: 'usb_out', t: pico.nanos, data: Buffer.from(buffer).toString('hex') });
  }
  function feedUsb() {
    if (!usbBacklog.length || !pico.cdc.initialized) return;
    const n = Math.min(usbBacklog.length, pico.cdc.room);
    if (n > 0) pico.cdc.send(usbBacklog.splice(0, n));
  }

  // Running: one job at a time (a `run` to a time or a condition, or `go` until `halt`).
  let job = null;
  const CHUNK_NS = 2e6;
  function step() {
    if (!job) return;
    const now = pico.nanos;
    let target = now + CHUNK_NS;
    if (job.until != null) target = Math.min(target, job.until);
    if (job.realtime) {
      let wall = job.emu0 + Number(process.hrtime.bigint() - job.wall0);
      // Busy code runs slower than a Pico: emulated time falls behind the wall clock. Never
      // catch up by more than 50 ms at once, or the device's own timeouts would pass too fast.
      if (wall - now > 50e6) {
        job.emu0 -= wall - now - 50e6;
        wall = now + 50e6;
      }
      if (wall < target) target = wall;
      if (target <= now) {
        setTimeout(step, 1);
        return;
      }
    }
    if (pico.off) {
      // a powered-off chip: time passes, nothing runs
      job.stopped = 'off';
    } else {
      const reason = pico.runTo(target);
      if (reason === 'watchdog') {
        out({ ev: 'reset', t: pico.nanos, cause: 'watchdog' });
        pico.build(true);
      } else if (reason === 'power_cut') {
        pico.off = true;
        out({ ev: 'power', t: pico.nanos, on: false, flash_ops: pico.flashOps });
        job.stopped = 'power_cut';
      }
    }
    feedUsb();
    const t = pico.nanos;
    if (!job.stopped && job.until != null && t >= job.until) job.stopped = 'time';
    if (!job.stopped && job.idle && pico.lastIdle > job.idleAfter) job.stopped = 'idle';
    if (!job.stopped && job.handled && pico.prevWake > job.idleAfter) job.stopped = 'handled';
    if (!job.stopped && job.edgePin != null && pico.pins.level[job.edgePin] !== job.edgeFrom) job.stopped = 'edge';
    if (!job.stopped && job.ticks && pico.pins.level[job.ticks.done] !== job.ticks.from) {
      // a lockstep tick is over (the chip toggled the done pin): the next one, or the end
      job.ticks.n += 1;
      if (pico.heapArea) noteHeap();
      if (job.ticks.n >= job.ticks.masks.length) job.stopped = 'ticks';
      else startTick(job.ticks);
    }
    if (!job.stopped && job.ticks && pico.nanos >= job.ticks.until) job.stopped = 'time';
    if (!job.stopped && job.frame) {
      const last = pico.lastDataI2c;
      if (last && last > job.startNs && t - last >= job.quietNs) job.stopped = 'frame';
    }
    if (job.stopped) {
      const done = job;
      job = null;
      const extra = done.ticks ? { ticks: done.ticks.n, held: done.ticks.held, level: done.ticks.level } : {};
      reply(done.id, { stopped: done.stopped, t, last_i2c: pico.lastDataI2c || 0, ...extra });
      return;
    }
    setImmediate(step);
  }

  // Lockstep ticks (the `run` command's `ticks`): what tests/pico_sessions.py's Player does
  // for one tick, done here for each mask of a list, so a test's press costs one command: the
  // buttons in the mask held (their pins driven low, the others let go), the go pin toggled,
  // then the chip runs until it toggles the done pin (tests/pico_lockstep.py: one App.tick).
  // The heap's free bytes as gc.mem_free() counts them (py/gc.c: 16 bytes a block, a block
  // free when its two bits in the allocation table are 0), read from the RAM without running
  // the chip: gc.mem_free() on the chip walks the whole table, a large share of a pass.
  const FREE_IN_BYTE = Uint8Array.from({ length: 256 },
    (_, b) => [0, 2, 4, 6].filter((s) => ((b >> s) & 3) === 0).length);
  function heapFree() {
    const { atb, len } = pico.heapArea;
    const at = atb - 0x20000000;
    const table = pico.mcu.sram;
    let n = 0;
    for (let i = at; i < at + len; i++) n += FREE_IN_BYTE[table[i]];
    return n * 16;
  }
  function noteHeap() {
    const free = heapFree();
    if (free < pico.heapLow) pico.heapLow = free;
  }

  function startTick(t) {
    const mask = t.masks[t.n];
    for (let i = 0; i < t.buttons.length; i++) {
      const bit = 1 << i;
      if ((mask ^ t.held) & bit) pico.pins.drive(t.buttons[i], mask & bit ? 0 : null);
    }
    t.held = mask;
    t.level ^= 1;
    pico.pins.drive(t.go, t.level);
    t.from = pico.pins.level[t.done];
    t.until = pico.nanos + t.maxNs;
  }

  // Track the last display data write (for run-until-frame).
  const emitI2c = pico.emit;
  pico.emit = (ev) => {
    if (ev.ev === 'i2c' && ev.addr === 0x3c && ev.data.startsWith('40')) pico.lastDataI2c = ev.t1;
    emitI2c(ev);
  };

  function status() {
    return {
      t: pico.nanos,
      awake_cycles: pico.awakeCycles,
      sleep_cycles: pico.sleepCycles,
      flash_ops: pico.flashOps,
      flash_busy_ns: pico.flashBusyNs,
      xip_hits: pico.xip ? pico.xip.hits : 0,
      xip_misses: pico.xip ? pico.xip.misses : 0,
      boots: pico.boots,
      off: pico.off,
      usb: pico.cdc.initialized,
      usb_received: usbReceived,
      usb_held: pico.cdc.heldIn, // an IN transfer waits for the PC to read (backpressure)
      last_idle: pico.lastIdle,
      prev_wake: pico.prevWake,
    };
  }

  function reply(id, data) {
    out({ id, ok: true, ...data, status: status() });
  }

  function handle(msg) {
    const { id, cmd } = msg;
    switch (cmd) {
      case 'run': {
        if (job) throw new Error('already running');
        const until = msg.ms != null ? pico.nanos + msg.ms * 1e6 : null;
        job = {
          id,
          until,
          realtime: !!msg.realtime,
          frame: !!msg.frame,
          idle: !!msg.idle,
          handled: !!msg.handled,
          idleAfter: msg.idle_after != null ? msg.idle_after : pico.nanos,
          quietNs: (msg.quiet_ms ?? 3) * 1e6,
          edgePin: msg.edge_pin ?? null,
          edgeFrom: msg.edge_pin != null ? pico.pins.level[msg.edge_pin] : null,
          startNs: pico.nanos,
          emu0: pico.nanos,
          wall0: process.hrtime.bigint(),
        };
        if (msg.ticks) {
          job.ticks = {
            masks: msg.ticks,
            n: 0,
            buttons: msg.buttons,
            go: msg.go_pin,
            done: msg.done_pin,
            held: msg.held,
            level: msg.level,
            maxNs: (msg.tick_ms ?? 20000) * 1e6,
          };
          if (!msg.ticks.length) job.stopped = 'ticks';
          else startTick(job.ticks);
        }
        setImmediate(step);
        return;
      }
      case 'halt': {
        if (job) {
          const done = job;
          job = null;
          reply(done.id, { stopped: 'halt', t: pico.nanos, last_i2c: pico.lastDataI2c || 0 });
        }
        return reply(id, {});
      }
      case 'press': {
        const pin = BUTTONS[msg.button] ?? msg.pin;
        if (pin == null) throw new Error(`no button ${msg.button}`);
        const at = msg.at != null ? msg.at : null;
        return reply(id, pico.press(pin, msg.hold_ms ?? 80, !!msg.bounce, at));
      }
      case 'pin': {
        pico.pins.drive(msg.pin, msg.level ?? null);
        return reply(id, { level: pico.pins.level[msg.pin] });
      }
      case 'level':
        return reply(id, { level: pico.pins.level[msg.pin], levels: pico.pins.level });
      case 'vbus':
        pico.setVbus(msg.on);
        return reply(id, {});
      case 'vsys':
        pico.setVsys(msg.mv);
        return reply(id, {});
      case 'pwm':
        return reply(id, pico.pwm(msg.pin));
      case 'usb_send':
        usbBacklog.push(...Buffer.from(msg.data, 'hex'));
        feedUsb();
        return reply(id, {});
      case 'power_cut':
        if (msg.after_flash_ops != null) {
          pico.powerCutAfter = msg.after_flash_ops;
          return reply(id, {});
        }
        pico.off = true;
        out({ ev: 'power', t: pico.nanos, on: false, flash_ops: pico.flashOps });
        return reply(id, {});
      case 'power_on':
        pico.off = false;
        pico.powerCutAfter = null;
        pico.scratch = null;
        pico.build(false);
        out({ ev: 'power', t: pico.nanos, on: true });
        return reply(id, {});
      case 'wire':
        pico.display.wire = !!msg.on;
        return reply(id, {});
      case 'status':
        return reply(id, {});
      case 'profile': {
        // {every: cycles} starts PC sampling (or restarts it); {every: 0} stops; until (emulated
        // ns, as events' t0/t1) drops the samples after it. Each reply returns the samples since
        // the last one as [[pc, count], ...] and clears them; with lo/hi (a function's code),
        // also its samples' callers as [["addr,addr,...", count], ...] (depth of them).
        const old = pico.profile;
        const samples = old ? [...old.hist.entries()] : [];
        const callers = old ? [...old.callers.entries()] : [];
        pico.profile = msg.every ? {
          every: msg.every, left: msg.every, until: msg.until || 0, hist: new Map(),
          lo: msg.lo || 0, hi: msg.hi || 0, depth: msg.depth || 4, callers: new Map(),
        } : null;
        return reply(id, { samples, callers });
      }
      case 'allocs': {
        // {pc: gc_alloc's address} starts counting the heap allocations (not with `profile` on);
        // {pc: 0} stops. Each reply returns the calls and bytes since the last one.
        const old = pico.allocs;
        const counts = old ? { calls: old.calls, bytes: old.bytes, by: [...old.by.entries()] }
          : { calls: 0, bytes: 0, by: [] };
        pico.allocs = msg.pc ? { pc: msg.pc, calls: 0, bytes: 0, depth: msg.depth || 0, by: new Map() } : null;
        return reply(id, counts);
      }
      case 'heap': {
        // {atb, len}: count the heap's free bytes after every lockstep tick from now on (the
        // lowest kept); each reply gives the free bytes now and the lowest since the last call.
        if (msg.atb) pico.heapArea = { atb: msg.atb, len: msg.len };
        if (!pico.heapArea) throw new Error('no heap watched: give its atb and len first');
        const free = heapFree();
        const low = Math.min(pico.heapLow ?? free, free);
        pico.heapLow = free;
        return reply(id, { free, low });
      }
      case 'peek': {
        const words = [];
        for (let i = 0; i < (msg.count || 1); i++) words.push(pico.mcu.readUint32(msg.addr + 4 * i) >>> 0);
        return reply(id, { words });
      }
      case 'exit':
        reply(id, {});
        process.exit(0);
        return;
      default:
        throw new Error(`unknown command ${cmd}`);
    }
  }

  let buffered = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk) => {
    buffered += chunk;
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (!line.trim()) continue;
      let msg;
      try {
        msg = JSON.parse(line);
        handle(msg);
      } catch (err) {
        out({ id: msg && msg.id, ok: false, error: String(err && err.stack ? err.stack : err) });
      }
    }
  });
  // Whoever started us has gone: stop at once (never outlive the parent).
  process.stdin.on('end', () => process.exit(0));
  process.stdin.on('error', () => process.exit(0));
  out({ ev: 'ready', status: status() });
}

if (import.meta.url === `file://${process.argv[1]}`) main();
