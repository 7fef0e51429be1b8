"""Reading cgmtrace traces (.cgt) and replay's statistics from Python.

The trace is read by libcgmtrace.so, the project's own reader, through
ctypes: nothing here parses the file. ::

    import cgmtrace
    with cgmtrace.open("prog.cgt") as t:
        for s in t.streams:
            print(s.id, s.kind_name, s.records)
        for ip, accesses, events in t.stream(1000):
            ...                      # accesses: ((addr, size, write), ...)
        for cols in t.stream(1000).arrays():   # NumPy, a chunk at a time
            cols["ip"], cols["acc_addr"]
    stats = cgmtrace.read_stats("stats.json")
    windows = cgmtrace.read_windows("run.jsonl")   # cgmtrace.windows_frame: pandas

Errors of the library (a damaged chunk, a file that is no trace) raise
TraceError with its message, which names the file, the offset and the fault.
"""

import ctypes
from collections import namedtuple

from . import _lib
from .stats import flatten, read_stats, read_windows, windows_frame

__all__ = ["open", "Trace", "Stream", "TraceError", "Access", "Event", "verify",
           "read_stats", "read_windows", "windows_frame", "flatten"]

_ERR_LEN = 1024

Access = namedtuple("Access", "addr size write")
Access.__doc__ = "One memory access: address, size in bytes, write (True) or read."
Event = namedtuple("Event", "name fields")
Event.__doc__ = "An event record: its name and its fields (name -> int) in encoding order."


class TraceError(Exception):
    """A fault the trace library reported; str() is its message."""


def _err_buf():
    return ctypes.create_string_buffer(_ERR_LEN)


def _text(b):
    return b.decode("utf-8", "replace") if b else ""


def _event(ev):
    """Event from a decoded struct cgm_event, signed fields as signed."""
    t = ev.type
    fields = {}
    for i in range(_lib.event_field_count(t)):
        v = ev.f[i]
        if _lib.event_field_kind(t, i) == b"S" and v >= 1 << 63:
            v -= 1 << 64
        fields[_text(_lib.event_field_name(t, i))] = v
    return Event(_text(_lib.event_name(t)), fields)


def decode_event(record):
    """The Event a record (bytes) holds, or None when it is not an event."""
    buf = (ctypes.c_uint8 * len(record)).from_buffer_copy(record)
    ev = _lib.Event()
    if _lib.event_decode(buf, len(record), ctypes.byref(ev)):
        return None
    return _event(ev)


def verify(path):
    """Checks every block, checksum and the index; raises TraceError if not intact."""
    err = _err_buf()
    if _lib.trace_verify(str(path).encode(), err, _ERR_LEN):
        raise TraceError(_text(err.value))


def open(path):  # noqa: A001 (the module's verb, as in gzip.open)
    """Opens a trace; see Trace."""
    return Trace(path)


class Trace:
    """An open trace: its streams, sections and program information."""

    def __init__(self, path):
        self.path = str(path)
        self._r = self._view = None
        err = _err_buf()
        self._r = _lib.reader_open(self.path.encode(), err, _ERR_LEN)
        if not self._r:
            raise TraceError(_text(err.value))
        self.streams = [Stream(self, i) for i in range(_lib.reader_stream_count(self._r))]

    def close(self):
        if self._view:
            _lib.x86_view_close(self._view)
            self._view = None
        if self._r:
            _lib.reader_close(self._r)
            self._r = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _handle(self):
        if not self._r:
            raise ValueError("the trace is closed")
        return self._r

    @property
    def version(self):
        return _lib.reader_version(self._handle())

    @property
    def file_bytes(self):
        return _lib.reader_file_bytes(self._handle())

    @property
    def complete(self):
        """True when the file has its index and trailer."""
        return bool(_lib.reader_complete(self._handle()))

    @property
    def damage(self):
        """Why the file is incomplete ("" when it is complete)."""
        return _text(_lib.reader_damage(self._handle()))

    def stream(self, stream_id):
        """The stream with this id (KeyError when there is none)."""
        for s in self.streams:
            if s.id == stream_id:
                return s
        raise KeyError("%s has no stream %d" % (self.path, stream_id))

    def section(self, name, limit=256 << 20):
        """A section stream's records joined, as bytes."""
        data = ctypes.POINTER(ctypes.c_uint8)()
        n = ctypes.c_size_t()
        err = _err_buf()
        if _lib.reader_read_section(self._handle(), name.encode(), limit, ctypes.byref(data),
                                    ctypes.byref(n), err, _ERR_LEN):
            raise TraceError(_text(err.value))
        try:
            return ctypes.string_at(data, n.value) if n.value else b""
        finally:
            _lib.libc_free(data)

    @property
    def program(self):
        """The "program" section's "key=value" lines as a dict ({} without one)."""
        if _lib.reader_find_section(self._handle(), b"program") < 0:
            return {}
        out = {}
        for line in self.section("program").decode("utf-8", "replace").splitlines():
            key, _, value = line.partition("=")
            out[key] = value
        return out

    def _x86_view(self):
        if not self._view:
            err = _err_buf()
            self._view = _lib.x86_view_open(self._handle(), err, _ERR_LEN)
            if not self._view:
                raise TraceError("%s: %s" % (self.path, _text(err.value)))
        return self._view

    def disasm(self, ip):
        """The instruction at IP as text ("?" when the static table lacks it)."""
        return _text(_lib.x86_view_disasm(self._x86_view(), ip))


class Stream:
    """One stream of a trace: what it is (id, kind, thread or work-group),
    its totals, and its records."""

    def __init__(self, trace, index):
        self._trace = trace
        self._index = index
        s = _lib.reader_stream(trace._r, index).contents
        i, t = s.info, s.totals
        self.id = i.id
        self.kind = i.kind
        self.kind_name = _text(_lib.stream_kind_name(i.kind))
        self.thread_id = i.thread_id
        self.launch_id = i.launch_id
        self.group = tuple(i.group)
        self.wavefront = i.wavefront
        self.name = _text(i.name)
        self.records = t.records
        self.instructions = t.instructions
        self.raw_bytes = t.raw_bytes
        self.compressed_bytes = t.compressed_bytes
        self.chunks = t.chunks
        self.closed = bool(s.closed)

    def __repr__(self):
        return "<cgmtrace.Stream %d %s %s>" % (self.id, self.kind_name,
                                               self.name or self.thread_id)

    def raw_records(self):
        """Every record as (number, bytes), any kind of stream."""
        it = _lib.riter_open(self._trace._handle(), self._index)
        if not it:
            raise MemoryError("cgmtrace: cannot open stream %d" % self.id)
        rec = ctypes.POINTER(ctypes.c_uint8)()
        n = ctypes.c_size_t()
        try:
            while True:
                at = _lib.riter_position(it)
                k = _lib.riter_next(it, ctypes.byref(rec), ctypes.byref(n))
                if k == 0:
                    return
                if k < 0:
                    raise TraceError(_text(_lib.riter_error(it)))
                yield at, ctypes.string_at(rec, n.value)
        finally:
            _lib.riter_close(it)

    def _cursor(self):
        if self.kind != _lib.STREAM_X86_THREAD:
            raise TraceError("stream %d is a %s stream, not an x86 thread" %
                             (self.id, self.kind_name))
        view = self._trace._x86_view()
        err = _err_buf()
        c = _lib.x86_cursor_open(self._trace._handle(), view, self._index, err, _ERR_LEN)
        if not c:
            raise TraceError(_text(err.value))
        return c

    def __iter__(self):
        """An x86 thread's instructions as (ip, accesses, events) tuples:
        accesses ((addr, size, write), ...) in the order made, events the
        Event records that follow the instruction in the stream (a system
        call's after its syscall). Events before the first instruction come
        as one tuple whose ip is None."""
        c = self._cursor()
        x = _lib.X86Insn()
        try:
            while True:
                k = _lib.x86_cursor_next(c, ctypes.byref(x))
                if k == 0:
                    return
                if k < 0:
                    raise TraceError(_text(_lib.x86_cursor_error(c)))
                acc = tuple(Access(a.addr, a.size, bool(a.write))
                            for a in x.acc[:x.naccess]) if x.naccess else ()
                ev = tuple(_event(e) for e in x.ev[:x.nevent]) if x.nevent else ()
                yield (x.ip if x.st else None), acc, ev
        finally:
            _lib.x86_cursor_close(c)

    def arrays(self, chunk=65536):
        """An x86 thread's instructions as NumPy arrays, CHUNK instructions
        at a time: dicts of "ip" (uint64), "naccess" and "nevent" (uint32)
        per instruction, and "acc_addr" (uint64), "acc_size" (uint32) and
        "acc_write" (bool) per access, the accesses in instruction order
        (instruction i's are naccess[i] of them after those before it).
        Events are not in the arrays (iterate the stream for them)."""
        import numpy as np
        c = self._cursor()
        cap_acc = max(4 * chunk, 4096)
        try:
            while True:
                cols = {"ip": np.empty(chunk, np.uint64), "naccess": np.empty(chunk, np.uint32),
                        "nevent": np.empty(chunk, np.uint32),
                        "acc_addr": np.empty(cap_acc, np.uint64),
                        "acc_size": np.empty(cap_acc, np.uint32),
                        "acc_write": np.empty(cap_acc, np.uint8)}
                col = _lib.X86Columns(cap_insn=chunk, cap_acc=cap_acc)
                for name, ctype in (("ip", ctypes.c_uint64), ("naccess", ctypes.c_uint32),
                                    ("nevent", ctypes.c_uint32), ("acc_addr", ctypes.c_uint64),
                                    ("acc_size", ctypes.c_uint32), ("acc_write", ctypes.c_uint8)):
                    setattr(col, name, cols[name].ctypes.data_as(ctypes.POINTER(ctype)))
                k = _lib.x86_cursor_fill(c, ctypes.byref(col))
                if k == 0:
                    return
                if k < 0:
                    raise TraceError(_text(_lib.x86_cursor_error(c)))
                if col.need_acc:
                    cap_acc = col.need_acc
                    continue
                out = {name: cols[name][:col.n_insn] for name in ("ip", "naccess", "nevent")}
                for name in ("acc_addr", "acc_size"):
                    out[name] = cols[name][:col.n_acc]
                out["acc_write"] = cols["acc_write"][:col.n_acc].astype(bool)
                yield out
        finally:
            _lib.x86_cursor_close(c)
