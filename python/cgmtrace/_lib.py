"""ctypes declarations of libcgmtrace.so: the structures and functions of
include/cgm/trace.h, events.h, x86rec.h, x86view.h and x86cursor.h that the
reader uses, laid out as those headers lay them out."""

import ctypes
import os
from ctypes import (POINTER, Structure, c_char, c_char_p, c_int, c_long, c_size_t,
                    c_uint8, c_uint16, c_uint32, c_uint64, c_void_p)

SONAME = "libcgmtrace.so.1"
STREAM_NAME_MAX = 64
EVENT_FIELDS_MAX = 10
X86_REGS_MAX = 16

STREAM_X86_THREAD = 1
STREAM_GPU_WORKGROUP = 2
STREAM_GPU_WAVEFRONT = 3
STREAM_SECTION = 4


class StreamInfo(Structure):
    _fields_ = [("id", c_uint32), ("kind", c_uint16), ("thread_id", c_uint64),
                ("launch_id", c_uint32), ("group", c_uint32 * 3), ("wavefront", c_uint32),
                ("name", c_char * STREAM_NAME_MAX)]


class StreamTotals(Structure):
    _fields_ = [("records", c_uint64), ("instructions", c_uint64), ("raw_bytes", c_uint64),
                ("compressed_bytes", c_uint64), ("chunks", c_uint64)]


class ReaderStream(Structure):
    _fields_ = [("info", StreamInfo), ("totals", StreamTotals), ("closed", c_int)]


class Event(Structure):
    _fields_ = [("type", c_uint8), ("f", c_uint64 * EVENT_FIELDS_MAX)]


class X86Static(Structure):
    _fields_ = [("addr", c_uint64), ("len", c_uint8), ("cls", c_uint8), ("op", c_uint16),
                ("nmem", c_uint8), ("bytes", c_uint8 * 15), ("uops", c_uint8),
                ("loads", c_uint8), ("stores", c_uint8), ("mem_size", c_uint16),
                ("nsrc", c_uint8), ("ndst", c_uint8), ("src", c_uint8 * X86_REGS_MAX),
                ("dst", c_uint8 * X86_REGS_MAX)]


class X86Access(Structure):
    _fields_ = [("addr", c_uint64), ("size", c_uint32), ("insn", c_uint8), ("write", c_uint8)]


class X86Insn(Structure):
    _fields_ = [("ip", c_uint64), ("st", POINTER(X86Static)), ("record", c_uint64),
                ("index", c_uint32), ("naccess", c_uint32), ("nevent", c_uint32),
                ("acc", POINTER(X86Access)), ("ev", POINTER(Event))]


class X86Columns(Structure):
    _fields_ = [("cap_insn", c_size_t), ("cap_acc", c_size_t),
                ("ip", POINTER(c_uint64)), ("naccess", POINTER(c_uint32)),
                ("nevent", POINTER(c_uint32)), ("acc_addr", POINTER(c_uint64)),
                ("acc_size", POINTER(c_uint32)), ("acc_write", POINTER(c_uint8)),
                ("n_insn", c_size_t), ("n_acc", c_size_t), ("need_acc", c_size_t)]


def _candidates():
    """Where the library may be: $CGMTRACE_LIB, then beside the package in
    the build tree (BUILD/python/cgmtrace -> BUILD/lib) or an installed one
    (PREFIX/lib/python3/dist-packages/cgmtrace -> PREFIX/lib), then the
    dynamic loader's search path."""
    if os.environ.get("CGMTRACE_LIB"):
        yield os.environ["CGMTRACE_LIB"]
    here = os.path.dirname(os.path.abspath(__file__))
    for up in (("..", "..", "lib"), ("..", "..", "..")):
        path = os.path.normpath(os.path.join(here, *up, SONAME))
        if os.path.exists(path):
            yield path
    yield SONAME


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            errors.append(str(e))
    raise ImportError("cgmtrace: cannot load %s (%s); set CGMTRACE_LIB to its path"
                      % (SONAME, "; ".join(errors)))


lib = _load()


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


reader_open = _fn("cgm_reader_open", c_void_p, c_char_p, c_char_p, c_size_t)
reader_close = _fn("cgm_reader_close", None, c_void_p)
reader_version = _fn("cgm_reader_version", c_uint32, c_void_p)
reader_file_bytes = _fn("cgm_reader_file_bytes", c_uint64, c_void_p)
reader_complete = _fn("cgm_reader_complete", c_int, c_void_p)
reader_damage = _fn("cgm_reader_damage", c_char_p, c_void_p)
reader_stream_count = _fn("cgm_reader_stream_count", c_size_t, c_void_p)
reader_stream = _fn("cgm_reader_stream", POINTER(ReaderStream), c_void_p, c_size_t)
reader_find_section = _fn("cgm_reader_find_section", c_long, c_void_p, c_char_p)
reader_read_section = _fn("cgm_reader_read_section", c_int, c_void_p, c_char_p, c_size_t,
                          POINTER(POINTER(c_uint8)), POINTER(c_size_t), c_char_p, c_size_t)
stream_kind_name = _fn("cgm_stream_kind_name", c_char_p, c_uint16)
trace_verify = _fn("cgm_trace_verify", c_int, c_char_p, c_char_p, c_size_t)

riter_open = _fn("cgm_riter_open", c_void_p, c_void_p, c_size_t)
riter_next = _fn("cgm_riter_next", c_int, c_void_p, POINTER(POINTER(c_uint8)), POINTER(c_size_t))
riter_position = _fn("cgm_riter_position", c_uint64, c_void_p)
riter_error = _fn("cgm_riter_error", c_char_p, c_void_p)
riter_close = _fn("cgm_riter_close", None, c_void_p)

event_name = _fn("cgm_event_name", c_char_p, c_uint8)
event_field_count = _fn("cgm_event_field_count", c_int, c_uint8)
event_field_name = _fn("cgm_event_field_name", c_char_p, c_uint8, c_int)
event_field_kind = _fn("cgm_event_field_kind", c_char, c_uint8, c_int)
event_decode = _fn("cgm_event_decode", c_int, POINTER(c_uint8), c_size_t, POINTER(Event))

x86_view_open = _fn("cgm_x86_view_open", c_void_p, c_void_p, c_char_p, c_size_t)
x86_view_close = _fn("cgm_x86_view_close", None, c_void_p)
x86_view_disasm = _fn("cgm_x86_view_disasm", c_char_p, c_void_p, c_uint64)
x86_class_name = _fn("cgm_x86_class_name", c_char_p, c_uint32)

x86_cursor_open = _fn("cgm_x86_cursor_open", c_void_p, c_void_p, c_void_p, c_size_t,
                      c_char_p, c_size_t)
x86_cursor_close = _fn("cgm_x86_cursor_close", None, c_void_p)
x86_cursor_next = _fn("cgm_x86_cursor_next", c_int, c_void_p, POINTER(X86Insn))
x86_cursor_error = _fn("cgm_x86_cursor_error", c_char_p, c_void_p)
x86_cursor_fill = _fn("cgm_x86_cursor_fill", c_int, c_void_p, POINTER(X86Columns))

libc_free = ctypes.CDLL(None).free
libc_free.argtypes = [c_void_p]
libc_free.restype = None
