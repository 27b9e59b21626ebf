"""journal_ref: an independent Python implementation of SPEC.md v1.

Written from SPEC.md alone (not from the Rust reference), standard library
only, Python 3.8+.  Section numbers and rule ids in the comments refer to
SPEC.md.

Public API (all journal operations take a *binary* stream or a bytes object):

    op_validate(src, profile="core")                 -> {"event_count": N}
    op_replay(src, profile="core", until=None)       -> ReplayState dict
    op_fingerprint(src, profile="core", until=None)  -> hex string
    op_branch(src, profile="core", at=0, branch_id="")  -> SessionBranch dict
    op_canonical(data)                               -> canonical text (str)
    run_operation(op_object, data, profile)          -> ("result", value) | ("error", error_dict)

Errors are raised as JournalError (code, message, line, column, sequence,
event_id); JournalError.to_json() gives the O-ERR-1 object.

Values are plain Python values: dict, list, str, int, float, True/False, None.
"""

import hashlib
import io
import math
import re
from fractions import Fraction

__all__ = [
    "JournalError", "OperationError", "PROFILES", "OPERATIONS",
    "iter_lines", "parse_json", "parse_text", "canonical_text", "format_float",
    "read_journal", "Fingerprinter",
    "op_validate", "op_replay", "op_fingerprint", "op_branch", "op_canonical",
    "run_operation",
]

PROFILES = ("core", "trace-0.1")
OPERATIONS = ("validate", "replay", "fingerprint", "branch", "canonical")

MAX_DEPTH = 128            # C-DEPTH-1
MAX_INT_DIGITS = 4300      # C-NUM-3
I64_MIN = -(1 << 63)
I64_MAX = (1 << 63) - 1
BOM = b"\xef\xbb\xbf"      # W-BOM-1


class JournalError(Exception):
    """An error of section 10, located as J-LOC-1 / O-ERR-1 say."""

    def __init__(self, code, message, line=None, column=None, sequence=None,
                 event_id=None):
        Exception.__init__(self, "%s: %s" % (code, message))
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.sequence = sequence
        self.event_id = event_id

    def to_json(self):
        return {
            "code": self.code,
            "message": self.message,
            "line": self.line,
            "column": self.column,
            "sequence": self.sequence,
            "event_id": self.event_id,
        }


class OperationError(Exception):
    """The operation object itself is malformed (outside O-JSON-1).

    SPEC.md has no error code for this; the adapter reports it with the code
    ``invalid_operation``.
    """


class _ParseError(Exception):
    """Internal: a JSON error at a 0-based byte offset."""

    def __init__(self, code, offset, message):
        Exception.__init__(self, message)
        self.code = code
        self.offset = offset
        self.message = message


def _fits_i64(n):
    return type(n) is int and I64_MIN <= n <= I64_MAX


# ---------------------------------------------------------------------------
# Section 2: wire format
# ---------------------------------------------------------------------------

def _as_stream(src):
    if isinstance(src, (bytes, bytearray, memoryview)):
        return io.BytesIO(bytes(src))
    return src


def iter_lines(src):
    """Yield (line_number, line_bytes) for a binary stream or bytes.

    W-LINE-1: split on 0x0A only (binary readline() only knows b"\\n").
    W-LINE-2: numbered from 1.  W-LINE-3: a final newline is optional; the
    bytes after the last newline are a line iff there is at least one.
    W-CR-1: a CR before the LF stays in the line.
    """
    stream = _as_stream(src)
    lineno = 0
    while True:
        chunk = stream.readline()
        if not chunk:
            return
        lineno += 1
        if chunk.endswith(b"\n"):
            chunk = chunk[:-1]
        yield lineno, bytes(chunk)


def _check_wire_line(raw, lineno):
    """W-BOM-1, W-UTF8-1, W-BLANK-1 in that order."""
    if raw.startswith(BOM):
        raise JournalError("unexpected_bom", "line starts with a UTF-8 byte order mark",
                           line=lineno, column=1)
    try:
        raw.decode("utf-8")  # Python's codec is strict RFC 3629
    except UnicodeDecodeError as exc:
        raise JournalError("invalid_utf8",
                           "invalid UTF-8 byte 0x%02X" % raw[exc.start],
                           line=lineno, column=exc.start + 1)
    if not raw.strip(b" \t\r"):
        raise JournalError("blank_line", "blank line", line=lineno, column=1)


# ---------------------------------------------------------------------------
# Section 3.1: strict JSON parser (iterative, explicit depth counter)
# ---------------------------------------------------------------------------

_WS = re.compile(rb"[ \t\n\r]*")
_WS_BYTES = frozenset(b" \t\n\r")
_SIMPLE_STR = re.compile(rb'"([^"\\\x00-\x1f]*)"')
_NUM = re.compile(rb"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_STR_RUN = re.compile(rb'[^"\\\x00-\x1f]*')
_HEX4 = re.compile(rb"[0-9a-fA-F]{4}")
_LOW_SURROGATE_ESC = re.compile(rb"\\u[dD][c-fC-F][0-9a-fA-F]{2}")
_SIMPLE_ESC = {
    0x22: '"', 0x5C: "\\", 0x2F: "/", 0x62: "\b",
    0x66: "\f", 0x6E: "\n", 0x72: "\r", 0x74: "\t",
}


def _parse_string(buf, pos, n):
    """Parse the string whose opening quote is at pos; return (str, end)."""
    m = _SIMPLE_STR.match(buf, pos)
    if m is not None:  # fast path: no escapes, no control characters
        return m.group(1).decode("utf-8"), m.end()
    pos += 1
    parts = []
    while True:
        end = _STR_RUN.match(buf, pos).end()
        if end > pos:
            # The run stops at an ASCII byte, so it never splits a UTF-8 sequence.
            parts.append(buf[pos:end].decode("utf-8"))
            pos = end
        if pos >= n:
            raise _ParseError("invalid_json", pos, "unterminated string")
        c = buf[pos]
        if c == 0x22:
            return "".join(parts), pos + 1
        if c != 0x5C:
            raise _ParseError("invalid_json", pos,
                              "raw control character U+%04X in string" % c)
        if pos + 1 >= n:
            raise _ParseError("invalid_json", pos + 1, "unterminated escape")
        esc = buf[pos + 1]
        if esc == 0x75:  # \uXXXX
            if not _HEX4.match(buf, pos + 2):
                raise _ParseError("invalid_json", pos + 2,
                                  "\\u must be followed by four hex digits")
            cp = int(buf[pos + 2:pos + 6], 16)
            if 0xD800 <= cp <= 0xDBFF:
                # C-STR-3: must be IMMEDIATELY followed by a \u escape in DC00..DFFF.
                if not _LOW_SURROGATE_ESC.match(buf, pos + 6):
                    raise _ParseError("lone_surrogate", pos,
                                      "high surrogate \\u%04x not followed by a low surrogate escape" % cp)
                low = int(buf[pos + 8:pos + 12], 16)
                parts.append(chr(0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)))
                pos += 12
            elif 0xDC00 <= cp <= 0xDFFF:
                raise _ParseError("lone_surrogate", pos,
                                  "lone low surrogate \\u%04x" % cp)
            else:
                parts.append(chr(cp))
                pos += 6
        else:
            ch = _SIMPLE_ESC.get(esc)
            if ch is None:
                raise _ParseError("invalid_json", pos + 1, "invalid escape")
            parts.append(ch)
            pos += 2


def _parse_number(buf, pos):
    m = _NUM.match(buf, pos)
    if m is None:
        raise _ParseError("invalid_json", pos + 1 if buf[pos] == 0x2D else pos,
                          "invalid number")
    text = m.group()
    if m.group(1) is None and m.group(2) is None:
        # C-NUM-1 integer; C-NUM-2 -0 is 0 (int("-0") == 0); C-NUM-3 digit limit.
        digits = len(text) - (1 if text[:1] == b"-" else 0)
        if digits > MAX_INT_DIGITS:
            raise _ParseError("number_out_of_range", pos,
                              "integer with %d digits (limit %d)" % (digits, MAX_INT_DIGITS))
        return int(text), m.end()
    # C-NUM-4: Python's float() is correctly rounded from all digits;
    # underflow gives (signed) zero.  C-NUM-6: overflow gives inf -> reject.
    value = float(text)
    if math.isinf(value):
        raise _ParseError("number_out_of_range", pos, "float overflows binary64")
    return value, m.end()


def _parse_key(buf, pos, n, container):
    """Parse `"key" ws : ws` inside an object; return (key, pos of the value)."""
    if pos >= n or buf[pos] != 0x22:
        raise _ParseError("invalid_json", pos, "expected a string key")
    key_pos = pos
    key, pos = _parse_string(buf, pos, n)
    if key in container:
        # C-KEY-2: located at the second occurrence (its opening quote).
        raise _ParseError("duplicate_key", key_pos, "duplicate key %r" % key)
    if pos < n and buf[pos] in _WS_BYTES:
        pos = _WS.match(buf, pos).end()
    if pos >= n or buf[pos] != 0x3A:
        raise _ParseError("invalid_json", pos, "expected ':'")
    pos += 1
    if pos < n and buf[pos] in _WS_BYTES:
        pos = _WS.match(buf, pos).end()
    return key, pos


def parse_json(buf, max_depth=MAX_DEPTH):
    """Parse exactly one JSON text from UTF-8 bytes (section 3.1).

    The bytes must already be well-formed UTF-8 (W-UTF8-1 comes first).
    `max_depth` is C-DEPTH-1's 128 for all data of SPEC.md; the adapter
    passes a larger one for its own protocol requests, which wrap data.
    Raises _ParseError(code, offset, message) for the first problem in text
    order.  Never recurses, so any nesting depth is safe.
    """
    n = len(buf)
    pos = _WS.match(buf, 0).end()
    stack = []  # frames: [container, is_object, pending_key]
    while True:
        # ---- one value at pos
        if pos >= n:
            raise _ParseError("invalid_json", pos, "expected a value, found end of input")
        c = buf[pos]
        if c == 0x7B or c == 0x5B:  # { [
            if len(stack) >= max_depth:
                raise _ParseError("nesting_too_deep", pos,
                                  "container at depth %d (limit %d)" % (len(stack) + 1, max_depth))
            is_obj = c == 0x7B
            pos = _WS.match(buf, pos + 1).end()
            if pos < n and buf[pos] == (0x7D if is_obj else 0x5D):
                value = {} if is_obj else []
                pos += 1
            elif is_obj:
                container = {}
                key, pos = _parse_key(buf, pos, n, container)
                stack.append([container, True, key])
                continue
            else:
                stack.append([[], False, None])
                continue
        elif c == 0x22:
            value, pos = _parse_string(buf, pos, n)
        elif c == 0x2D or 0x30 <= c <= 0x39:
            value, pos = _parse_number(buf, pos)
        elif buf.startswith(b"true", pos):
            value, pos = True, pos + 4
        elif buf.startswith(b"false", pos):
            value, pos = False, pos + 5
        elif buf.startswith(b"null", pos):
            value, pos = None, pos + 4
        else:
            raise _ParseError("invalid_json", pos, "unexpected byte 0x%02X" % c)
        # ---- attach the finished value to its parent(s)
        while True:
            if not stack:
                pos = _WS.match(buf, pos).end()
                if pos != n:
                    raise _ParseError("invalid_json", pos, "text after the JSON value")
                return value
            frame = stack[-1]
            container, is_obj = frame[0], frame[1]
            if is_obj:
                container[frame[2]] = value
            else:
                container.append(value)
            if pos < n and buf[pos] in _WS_BYTES:
                pos = _WS.match(buf, pos).end()
            if pos >= n:
                raise _ParseError("invalid_json", pos, "unexpected end of input")
            c = buf[pos]
            if c == 0x2C:
                pos += 1
                if pos < n and buf[pos] in _WS_BYTES:
                    pos = _WS.match(buf, pos).end()
                if is_obj:
                    frame[2], pos = _parse_key(buf, pos, n, container)
                break  # parse the next member/element
            if c == (0x7D if is_obj else 0x5D):
                pos += 1
                stack.pop()
                value = container
                continue
            raise _ParseError("invalid_json", pos,
                              "expected ',' or '%s'" % ("}" if is_obj else "]"))


def _line_col(buf, offset):
    """1-based (line, column) of a byte offset in a multi-line input."""
    line = buf.count(b"\n", 0, offset) + 1
    start = buf.rfind(b"\n", 0, offset) + 1
    return line, offset - start + 1


def parse_text(data, max_depth=MAX_DEPTH):
    """O-CANON-1: parse ONE JSON text (W-BOM-1, W-UTF8-1 on the whole input,
    then section 3.1).  Errors are JournalError with line/column in the input."""
    data = bytes(data)
    if data.startswith(BOM):
        raise JournalError("unexpected_bom", "input starts with a UTF-8 byte order mark",
                           line=1, column=1)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(data, exc.start)
        raise JournalError("invalid_utf8", "invalid UTF-8 byte 0x%02X" % data[exc.start],
                           line=line, column=col)
    try:
        return parse_json(data, max_depth)
    except _ParseError as exc:
        line, col = _line_col(data, exc.offset)
        raise JournalError(exc.code, exc.message, line=line, column=col)


# ---------------------------------------------------------------------------
# Section 3.2: canonical text
# ---------------------------------------------------------------------------

_ESCAPE_RE = re.compile('["\\\\\x00-\x1f]')
_ESCAPE_MAP = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f",
               "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape_char(m):
    ch = m.group()
    return _ESCAPE_MAP.get(ch) or "\\u%04x" % ord(ch)   # C-STR-1


def _canonical_string(s):
    return '"' + _ESCAPE_RE.sub(_escape_char, s) + '"'     # C-STR-2: rest raw


_TEN = Fraction(10)


def _shortest_decimal(a):
    """C-NUM-5 step 2 for a finite a > 0: return (digits, e) with digits the
    shortest round-tripping digit string (no trailing zeros), nearest to the
    exact value among equally short ones, and a == d1.d2...dn x 10^e.

    Fast path: '%.*e' gives the correctly rounded p-digit decimal (ties to
    even).  The first p at which it round-trips is the answer whenever the
    rounding interval of `a` is symmetric: then no farther p-digit decimal
    can round-trip while the nearest does not.  The interval is asymmetric
    only for exact powers of two (mantissa 0.5), which take the exact path.
    """
    if math.frexp(a)[0] == 0.5:
        return _shortest_decimal_exact(a)
    for p in range(1, 18):
        text = "%.*e" % (p - 1, a)
        if float(text) == a:
            mant, exp = text.split("e")
            digits = mant.replace(".", "").rstrip("0")
            return digits, int(exp)
    raise AssertionError("no round-tripping decimal for %r" % a)  # unreachable


def _shortest_decimal_exact(a):
    """_shortest_decimal by exact rational arithmetic, any finite a > 0."""
    x = Fraction(a)
    e10 = int(math.floor(math.log10(a)))
    while _TEN ** e10 > x:
        e10 -= 1
    while _TEN ** (e10 + 1) <= x:
        e10 += 1
    # 10^e10 <= x < 10^(e10+1).  Decimals of at most p significant digits in
    # [10^e10, 10^(e10+1)] are the multiples of 10^(e10-p+1): the two nearest
    # to x are floor and floor+1 on that grid.
    for p in range(1, 18):
        k = e10 - p + 1
        scale = _TEN ** k
        lo = math.floor(x / scale)
        best = None
        for cand in (lo, lo + 1):
            if float("%de%d" % (cand, k)) == a:
                dist = abs(cand * scale - x)
                # Nearest wins.  An exact tie (x halfway between two
                # round-tripping candidates, e.g. 1234567890123456.75) is not
                # decided by SPEC.md; repr (and Ryu) take the even last digit.
                if best is None or dist < best[0] or (dist == best[0] and cand % 2 == 0):
                    best = (dist, cand)
        if best is not None:
            digits = str(best[1])
            exp = k + len(digits) - 1
            return digits.rstrip("0"), exp
    raise AssertionError("no round-tripping decimal for %r" % a)  # unreachable


def format_float(value):
    """C-NUM-5, implemented from the spelled-out rules (tests compare with repr)."""
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if math.isnan(value) or math.isinf(value):
        raise ValueError("not a JSON number: %r" % value)
    sign = "-" if value < 0 else ""
    digits, e = _shortest_decimal(abs(value))
    if -4 <= e < 16:
        if e >= 0:
            whole = digits[:e + 1].ljust(e + 1, "0")
            frac = digits[e + 1:] or "0"
        else:
            whole = "0"
            frac = "0" * (-e - 1) + digits
        return sign + whole + "." + frac
    mant = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return "%s%se%s%02d" % (sign, mant, "+" if e >= 0 else "-", abs(e))


def _write(value, out):
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    else:
        t = type(value)
        if t is str:
            out.append(_canonical_string(value))
        elif t is int:
            out.append(str(value))          # C-NUM-1 (output)
        elif t is float:
            out.append(format_float(value))
        elif t is list:
            out.append("[")
            for i, item in enumerate(value):
                if i:
                    out.append(",")
                _write(item, out)
            out.append("]")
        elif t is dict:
            out.append("{")
            for i, key in enumerate(sorted(value)):   # C-KEY-1: code point order
                if i:
                    out.append(",")
                out.append(_canonical_string(key))
                out.append(":")
                _write(value[key], out)
            out.append("}")
        else:
            raise TypeError("not a JSON value: %r" % (t,))


def canonical_text(value):
    """The canonical text (section 3.2) of a parsed value, as a str."""
    out = []
    _write(value, out)
    return "".join(out)


# ---------------------------------------------------------------------------
# Section 4: envelope (E-ENV-1) and the trace-0.1 profile (P-TRACE-*)
# ---------------------------------------------------------------------------

def _nonempty_str(v):
    return type(v) is str and v != ""


def _check_envelope(v):
    """E-ENV-1, fields in table order; returns an error message or None."""
    if type(v) is not dict:
        return "an event must be a JSON object"
    if not _nonempty_str(v.get("event_id")):
        return "event_id must be present and a non-empty string"
    if not _nonempty_str(v.get("session_id")):
        return "session_id must be present and a non-empty string"
    if type(v.get("sequence")) is not int:
        return "sequence must be present and an integer"
    if not _nonempty_str(v.get("type")):
        return "type must be present and a non-empty string"
    if type(v.get("payload")) is not dict:
        return "payload must be present and an object"
    if type(v.get("provenance")) is not dict:
        return "provenance must be present and an object"
    if not _nonempty_str(v["provenance"].get("run_id")):
        return "provenance.run_id must be present and a non-empty string"
    if "parent_event_id" in v and not _nonempty_str(v["parent_event_id"]):
        return "parent_event_id must be absent or a non-empty string"
    return None


TRACE_TYPES = frozenset([
    "session.start", "session.stop", "session.replay", "session.branch",
    "user.message", "model.request", "model.response", "tool.request",
    "tool.result", "approval.request", "approval.decision", "sandbox.configure",
    "network.decision", "trust.decision", "instruction.accept",
    "instruction.quarantine", "checkpoint.create", "checkpoint.diff",
    "checkpoint.rollback", "file.patch", "context.prune", "context.compact",
    "memory.read", "memory.write", "skill.load", "agent.spawn", "agent.message",
    "agent.stop", "metric.sample", "error",
])
_TRACE_REQUIRED = ("trace_version", "event_id", "session_id", "sequence", "timestamp",
                   "type", "actor", "payload", "provenance", "redaction")
_TRACE_OPTIONAL = ("duration_ms", "parent_event_id")
_ACTOR_KINDS = frozenset(["user", "model", "agent", "tool", "harness", "policy", "environment"])
_HARNESS_MODES = frozenset(["fake", "native", "controlled", "adversarial"])
_REDACTION_STATUS = frozenset(["clean", "redacted", "restricted"])
_STABLE_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_DATE_TIME = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.[0-9]+)?(?:[Zz]|[+-]([0-9]{2}):([0-9]{2}))")


def _pointer(*parts):
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _is_leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _valid_date_time(s):
    """P-TRACE-4."""
    if type(s) is not str:
        return False
    m = _DATE_TIME.fullmatch(s)
    if m is None:
        return False
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    if not 1 <= month <= 12:
        return False
    dim = [31, 29 if _is_leap(year) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
    if not 1 <= day <= dim:
        return False
    if hour > 23 or minute > 59 or second > 60:
        return False
    if m.group(7) is not None and (int(m.group(7)) > 23 or int(m.group(8)) > 59):
        return False
    return True


def _check_members(obj, required, optional, where):
    """Required members (in order) then unknown members; message or None."""
    for name in required:
        if name not in obj:
            return "%s: missing required member" % _pointer(*(where + (name,)))
    allowed = set(required) | set(optional)
    for name in obj:
        if name not in allowed:
            return "%s: member not allowed" % _pointer(*(where + (name,)))
    return None


def _check_trace_profile(v):
    """P-TRACE-1 .. P-TRACE-9 in order; returns an error message or None."""
    msg = _check_members(v, _TRACE_REQUIRED, _TRACE_OPTIONAL, ())     # P-TRACE-1
    if msg:
        return msg
    if not (type(v["trace_version"]) is str and v["trace_version"] == "0.1.0"):
        return '/trace_version: must be "0.1.0"'                         # P-TRACE-2
    if v["sequence"] < 0:
        return "/sequence: must be >= 0"                                 # P-TRACE-3
    if not _valid_date_time(v["timestamp"]):
        return "/timestamp: not an RFC 3339 date-time"                   # P-TRACE-4
    if v["type"] not in TRACE_TYPES:
        return "/type: not one of the trace-0.1 event types"             # P-TRACE-5
    actor = v["actor"]                                                   # P-TRACE-6
    if type(actor) is not dict:
        return "/actor: must be an object"
    for name in ("kind", "id"):
        if name not in actor:
            return "/actor/%s: missing required member" % name
    if not (type(actor["kind"]) is str and actor["kind"] in _ACTOR_KINDS):
        return "/actor/kind: not an allowed actor kind"
    if not _nonempty_str(actor["id"]):
        return "/actor/id: must be a non-empty string"
    if "parent_id" in actor and not _nonempty_str(actor["parent_id"]):
        return "/actor/parent_id: must be a non-empty string"
    msg = _check_members(actor, ("kind", "id"), ("parent_id",), ("actor",))
    if msg:
        return msg
    prov = v["provenance"]                                               # P-TRACE-7
    msg = _check_members(prov, ("agent_id", "snapshot_id", "surface", "harness_mode", "run_id"),
                         ("experiment_id", "model", "provider"), ("provenance",))
    if msg:
        return msg
    for name in ("agent_id", "experiment_id"):
        if name in prov and not (type(prov[name]) is str and _STABLE_ID.fullmatch(prov[name])):
            return "/provenance/%s: must match ^[a-z0-9]+(?:-[a-z0-9]+)*$" % name
    for name in ("snapshot_id", "surface", "run_id"):
        if not _nonempty_str(prov[name]):
            return "/provenance/%s: must be a non-empty string" % name
    if not (type(prov["harness_mode"]) is str and prov["harness_mode"] in _HARNESS_MODES):
        return "/provenance/harness_mode: not an allowed harness mode"
    for name in ("model", "provider"):
        if name in prov and type(prov[name]) is not str:
            return "/provenance/%s: must be a string" % name
    red = v["redaction"]                                                 # P-TRACE-8
    if type(red) is not dict:
        return "/redaction: must be an object"
    msg = _check_members(red, ("status", "fields"), ("notes",), ("redaction",))
    if msg:
        return msg
    if not (type(red["status"]) is str and red["status"] in _REDACTION_STATUS):
        return "/redaction/status: not an allowed status"
    fields = red["fields"]
    if type(fields) is not list:
        return "/redaction/fields: must be an array"
    seen = set()
    for i, item in enumerate(fields):
        if not _nonempty_str(item):
            return "/redaction/fields/%d: must be a non-empty string" % i
        if item in seen:
            return "/redaction/fields/%d: duplicate item" % i
        seen.add(item)
    if "notes" in red and type(red["notes"]) is not str:
        return "/redaction/notes: must be a string"
    if "duration_ms" in v:                                               # P-TRACE-9
        d = v["duration_ms"]
        if type(d) not in (int, float) or d < 0:
            return "/duration_ms: must be a number >= 0"
    return None


# R-TYPE-1: the payload members the reducer reads, per event type.
_READ_FIELDS = {
    "user.message": ("content",),
    "model.response": ("content", "accumulated"),
    "session.stop": ("reason",),
}


def _check_payload_types(v):
    for name in _READ_FIELDS.get(v["type"], ()):
        if name in v["payload"] and type(v["payload"][name]) is not str:
            return "payload.%s of %s must be a string when present" % (name, v["type"])
    return None


# ---------------------------------------------------------------------------
# Section 5: journal invariants, one streaming pass
# ---------------------------------------------------------------------------

def read_journal(src, profile="core"):
    """Validate a journal line by line (J-ORDER-1), yielding (index, event)
    for each event once it has passed every check.  Raises JournalError on
    the first failing check; J-EMPTY-1 after the last line.

    Memory: the set of event ids (J-ID-1, J-PARENT-1) and one line.
    """
    if profile not in PROFILES:
        raise OperationError("unknown profile %r" % (profile,))
    index = 0
    session_id = run_id = None
    ids = set()
    for lineno, raw in iter_lines(src):
        # step 1: wire, then JSON
        _check_wire_line(raw, lineno)
        try:
            v = parse_json(raw)
        except _ParseError as exc:
            raise JournalError(exc.code, exc.message, line=lineno, column=exc.offset + 1)
        # J-LOC-1: sequence if an i64 integer, event_id if a string
        seq = eid = None
        if type(v) is dict:
            if _fits_i64(v.get("sequence")):
                seq = v["sequence"]
            if type(v.get("event_id")) is str:
                eid = v["event_id"]

        def fail(code, message):
            return JournalError(code, message, line=lineno, sequence=seq, event_id=eid)

        msg = _check_envelope(v)                                   # step 2
        if msg:
            raise fail("malformed_event", msg)
        if profile == "trace-0.1":                                 # step 3
            msg = _check_trace_profile(v)
            if msg:
                raise fail("profile_violation", msg)
        msg = _check_payload_types(v)                              # step 4
        if msg:
            raise fail("invalid_payload", msg)
        if v["sequence"] != index:                                 # step 5
            raise fail("sequence_gap", "expected sequence %d, found %d" % (index, v["sequence"]))
        if index == 0:
            session_id = v["session_id"]
            run_id = v["provenance"]["run_id"]
        if v["session_id"] != session_id:
            raise fail("mixed_session", "session_id %r differs from the first event's %r"
                       % (v["session_id"], session_id))
        if v["provenance"]["run_id"] != run_id:
            raise fail("mixed_run", "provenance.run_id %r differs from the first event's %r"
                       % (v["provenance"]["run_id"], run_id))
        if v["event_id"] in ids:
            raise fail("duplicate_event_id", "event_id %r used before" % v["event_id"])
        parent = v.get("parent_event_id")
        if parent is not None and parent not in ids:
            raise fail("unknown_parent", "parent_event_id %r is not an earlier event" % parent)
        ids.add(v["event_id"])
        yield index, v
        index += 1
    if index == 0:
        raise JournalError("empty_journal", "the journal has no events")


# ---------------------------------------------------------------------------
# Sections 6-8: fingerprint, replay, branch
# ---------------------------------------------------------------------------

class Fingerprinter(object):
    """F-FP-1, incrementally: sha256("[" + canon(e0) + "," + ... + "]")."""

    def __init__(self):
        self._h = hashlib.sha256()
        self._n = 0

    def add(self, event):
        self._h.update(b"," if self._n else b"[")
        self._h.update(canonical_text(event).encode("utf-8"))
        self._n += 1

    def hexdigest(self):
        h = self._h.copy()
        h.update(b"]" if self._n else b"[]")
        return h.hexdigest()


def _check_n(name, n):
    if n is None:
        return
    if type(n) is not int:
        raise OperationError("%s must be an integer" % name)


def _range_error(n, count):
    # O-RANGE-1
    return JournalError("sequence_out_of_range",
                        "%d is not a sequence of this journal (0..%d)" % (n, count - 1),
                        sequence=n if _fits_i64(n) else None)


def _selected(index, until):
    return until is None or index <= until


def op_validate(src, profile="core"):
    count = 0
    for _ in read_journal(src, profile):
        count += 1
    return {"event_count": count}


def op_replay(src, profile="core", until=None):
    """Section 6.  Validates the whole journal (R-SEL-1), folds 0..=until."""
    _check_n("until", until)
    state = None
    fp = Fingerprinter()
    count = 0
    for index, ev in read_journal(src, profile):
        count += 1
        if index == 0:
            state = {
                "session_id": ev["session_id"],
                "run_id": ev["provenance"]["run_id"],
                "applied_sequences": [],
                "user_messages": [],
                "assistant_messages": [],
                "tool_results": [],
                "stop_reason": None,
            }
        if not _selected(index, until):
            continue
        fp.add(ev)
        state["applied_sequences"].append(ev["sequence"])
        kind = ev["type"]
        payload = ev["payload"]
        if kind == "user.message":                                   # R-USER-1
            state["user_messages"].append(payload.get("content", ""))
        elif kind == "model.response":                               # R-STREAM-1
            if "content" in payload:
                state["assistant_messages"].append(payload["content"])
            elif payload.get("final") is True:
                state["assistant_messages"].append(payload.get("accumulated", ""))
        elif kind == "tool.result":                                  # R-TOOL-1
            state["tool_results"].append(payload)
        elif kind == "session.stop":                                 # R-STOP-1
            state["stop_reason"] = payload.get("reason", "unknown")
        # R-OTHER-1: anything else only counts in applied_sequences/fingerprint
    if until is not None and not 0 <= until < count:
        raise _range_error(until, count)
    state["fingerprint"] = fp.hexdigest()
    return state


def op_fingerprint(src, profile="core", until=None):
    _check_n("until", until)
    fp = Fingerprinter()
    count = 0
    for index, ev in read_journal(src, profile):
        count += 1
        if _selected(index, until):
            fp.add(ev)
    if until is not None and not 0 <= until < count:
        raise _range_error(until, count)
    return fp.hexdigest()


# B-ID-2: exactly the characters of Python's str.isspace(), spelled out.
_BRANCH_SPACE = frozenset(
    [chr(c) for c in range(0x09, 0x0E)] + [chr(c) for c in range(0x1C, 0x21)]
    + ["\x85", "\xa0", "\u1680"] + [chr(c) for c in range(0x2000, 0x200B)]
    + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"])


def _invalid_branch_id(branch_id):
    return all(ch in _BRANCH_SPACE for ch in branch_id)   # True for "" as well


def op_branch(src, profile="core", at=None, branch_id=None):
    """Section 8; O-ORDER-1: journal errors, then B-ID-1, then O-RANGE-1."""
    if type(at) is not int:
        raise OperationError("at must be an integer")
    if type(branch_id) is not str:
        raise OperationError("branch_id must be a string")
    fp = Fingerprinter()
    inherited = []
    session_id = run_id = None
    count = 0
    for index, ev in read_journal(src, profile):
        count += 1
        if index == 0:
            session_id = ev["session_id"]
            run_id = ev["provenance"]["run_id"]
        if index <= at:
            fp.add(ev)
            inherited.append(ev["event_id"])
    if _invalid_branch_id(branch_id):
        raise JournalError("invalid_branch_id",
                           "branch id is empty or only whitespace: %r" % branch_id)
    if not 0 <= at < count:
        raise _range_error(at, count)
    return {
        "branch_id": branch_id,
        "parent_session_id": session_id,
        "parent_run_id": run_id,
        "fork_sequence": at,
        "inherited_event_ids": inherited,
        "parent_fingerprint": fp.hexdigest(),
    }


def op_canonical(data):
    """O-CANON-1: the canonical text of ONE JSON text."""
    return canonical_text(parse_text(data))


# ---------------------------------------------------------------------------
# Section 9: operation objects
# ---------------------------------------------------------------------------

_OP_MEMBERS = {
    "validate": ((), ()),
    "replay": ((), ("until",)),
    "fingerprint": ((), ("until",)),
    "branch": (("at", "branch_id"), ()),
    "canonical": ((), ()),
}


def run_operation(op, data, profile="core"):
    """Run an O-JSON-1 operation object on input bytes.

    Returns ("result", value) or ("error", O-ERR-1 object).  Raises
    OperationError if the operation object is malformed or the profile unknown.
    """
    if type(op) is not dict or type(op.get("op")) is not str:
        raise OperationError("an operation is an object with a string member 'op'")
    name = op["op"]
    if name not in _OP_MEMBERS:
        raise OperationError("unknown operation %r" % name)
    required, optional = _OP_MEMBERS[name]
    for member in required:
        if member not in op:
            raise OperationError("%s needs member %r" % (name, member))
    for member in op:
        if member != "op" and member not in required and member not in optional:
            raise OperationError("%s does not take member %r" % (name, member))
    for member in ("until", "at"):
        if member in op and type(op[member]) is not int:
            raise OperationError("%s must be an integer" % member)
    if "branch_id" in op and type(op["branch_id"]) is not str:
        raise OperationError("branch_id must be a string")
    if profile not in PROFILES:
        raise OperationError("unknown profile %r" % (profile,))
    try:
        if name == "validate":
            result = op_validate(data, profile)
        elif name == "replay":
            result = op_replay(data, profile, op.get("until"))
        elif name == "fingerprint":
            result = op_fingerprint(data, profile, op.get("until"))
        elif name == "branch":
            result = op_branch(data, profile, op["at"], op["branch_id"])
        else:
            result = op_canonical(data)
    except JournalError as exc:
        return "error", exc.to_json()
    return "result", result
