"""Write a protocol-1 adapter (SPEC.md section 13) for the journal-conformance kit.

    from journal_conformance_adapter import serve, Rejected

    def validate(data, req):            # data: the exact input bytes; req.op, req.profile
        return {"event_count": count(data)}

    serve(validate=validate, name="my-journal", version="1.0")

serve() speaks persistent mode (13.1) on stdin/stdout, or one-shot mode (13.2) when the
process is started with an operation name as its first argument. Standard library only.
"""

import base64
import binascii
import json
import os
import re
import sys
import traceback

__all__ = ["serve", "handle_line", "handshake", "check_operation", "Rejected", "Unsupported",
           "InvalidRequest", "Request", "PROTOCOL", "OPERATIONS", "PROFILES"]

PROTOCOL = 1
OPERATIONS = ("validate", "replay", "fingerprint", "branch", "canonical",
              "tree_inspect", "tree_apply", "store_apply")
PROFILES = ("core", "trace-0.1", "yoagent-0.26")


class Rejected(Exception):
    """Raise (or return) from a handler to reject the input: an O-ERR-1 error reply."""

    def __init__(self, code, message="", line=None, sequence=None, index=None, column=None,
                 event_id=None, **extra):
        super().__init__(message or code)
        self.code = code
        self.error = {"code": code, "message": message or ""}
        for k, v in (("line", line), ("sequence", sequence), ("index", index),
                     ("column", column), ("event_id", event_id)):
            if v is not None:
                self.error[k] = v
        self.error.update(extra)

    @classmethod
    def from_object(cls, obj):
        """From an O-ERR-1 dict (null members are dropped)."""
        r = cls(obj["code"], obj.get("message") or "")
        r.error = {k: v for k, v in obj.items() if v is not None}
        r.error.setdefault("message", "")
        return r


class Unsupported(Exception):
    """Raise from a handler to answer {"id":N,"unsupported":true} (A-SKIP-1)."""


class InvalidRequest(Exception):
    """Raise from a handler when the request itself is malformed (A-REQ-1)."""


class Request:
    """What a handler gets besides the input bytes."""

    __slots__ = ("id", "op", "profile")

    def __init__(self, id, op, profile):
        self.id, self.op, self.profile = id, op, profile

    def __repr__(self):
        return "Request(id=%r, op=%r, profile=%r)" % (self.id, self.op, self.profile)


# ------------------------------------------------------------------ operations

def _int(v, lo, hi):
    return type(v) is int and lo <= v <= hi


_I64 = (-(1 << 63), (1 << 63) - 1)
_U64 = (0, (1 << 64) - 1)
_TREE_STEPS = {
    "append": {"message": lambda v: True, "timestamp": lambda v: _int(v, *_U64)},
    "seek": {"id": lambda v: type(v) is str},
    "checkpoint": {"label": lambda v: type(v) is str},
    "seek_checkpoint": {"label": lambda v: type(v) is str},
    "append_new": {"history": lambda v: type(v) is list, "timestamp": lambda v: _int(v, *_U64)},
    "save_load": {},
}
_STORE_STEPS = {
    "append": {"line": lambda v: type(v) is str},
    "append_batch": {"lines": lambda v: type(v) is list and all(type(x) is str for x in v)},
    "restart": {}, "checkpoint": {}, "replay": {}, "replay_from_checkpoint": {},
}


def _only(obj, allowed, where):
    for k in obj:
        if k not in allowed:
            return "%s: unknown member %r" % (where, k)
    return None


def _steps(steps, kinds, where):
    if type(steps) is not list:
        return "%s must be an array" % where
    for n, s in enumerate(steps):
        at = "%s[%d]" % (where, n)
        if type(s) is not dict or type(s.get("step")) is not str or s["step"] not in kinds:
            return "%s: not a known step" % at
        members = kinds[s["step"]]
        bad = _only(s, ("step",) + tuple(members), at)
        if bad:
            return bad
        for m, ok in members.items():
            if m not in s:
                return "%s: %s needs %s" % (at, s["step"], m)
            if not ok(s[m]):
                return "%s: %s has the wrong type" % (at, m)
    return None


def check_operation(op):
    """None when `op` is a well-formed protocol-1 operation object (run.schema.json), else why not."""
    if type(op) is not dict or type(op.get("op")) is not str:
        return "`op` must be an object with a string `op`"
    name = op["op"]
    if name in ("validate", "canonical", "tree_inspect"):
        return _only(op, ("op",), name)
    if name in ("replay", "fingerprint"):
        if "until" in op and not _int(op["until"], *_I64):
            return "%s: until must be a 64-bit integer" % name
        return _only(op, ("op", "until"), name)
    if name == "branch":
        if not _int(op.get("at"), *_I64):
            return "branch: at must be a 64-bit integer"
        if type(op.get("branch_id")) is not str:
            return "branch: branch_id must be a string"
        return _only(op, ("op", "at", "branch_id"), name)
    if name == "tree_apply":
        return _only(op, ("op", "ops"), name) or _steps(op.get("ops"), _TREE_STEPS, "ops")
    if name == "store_apply":
        return _only(op, ("op", "steps"), name) or _steps(op.get("steps"), _STORE_STEPS, "steps")
    return "unknown operation %r" % (name,)


# ------------------------------------------------------------------ serving

class _Config:
    def __init__(self, handlers, name, version, language, homepage, profiles, log):
        for k, f in handlers.items():
            if k not in OPERATIONS:
                raise TypeError("serve(): %r is not an operation of protocol 1 (%s)"
                                % (k, ", ".join(OPERATIONS)))
            if f is not None and not callable(f):
                raise TypeError("serve(): handler %s must be callable" % k)
        for p in profiles:
            if p not in PROFILES:
                raise TypeError("serve(): unknown profile %r" % (p,))
        self.handlers = handlers
        self.operations = [o for o in OPERATIONS if handlers.get(o) is not None]
        self.profiles = list(profiles)
        info = {"name": name, "version": version, "language": language}
        if homepage is not None:
            info["homepage"] = homepage
        self.implementation = info
        self.log = _safe_log(log or (lambda m: (sys.stderr.write(m + "\n"), sys.stderr.flush())))

    def handshake(self):
        return {"protocol": PROTOCOL, "implementation": dict(self.implementation),
                "operations": list(self.operations), "profiles": list(self.profiles)}


def _config(handlers, options):
    o = dict(options)
    return _Config(handlers, o.pop("name", "unnamed implementation"), o.pop("version", "0.0.0"),
                   o.pop("language", "python"), o.pop("homepage", None),
                   o.pop("profiles", ("core",)), o.pop("log", None))


def handshake(handlers, **options):
    """The handshake serve() would send for these handlers (a dict by operation name)."""
    return _config(handlers, options).handshake()


def _err(rid, code, message):
    return {"id": rid, "error": {"code": code, "message": message}}


# ------------------------------------------------------------------ user code
#
# Whatever a handler raises or returns, serve() answers and goes on: an exception whose
# __str__, __repr__, class name or __notes__ raise, a BaseException that is not an
# Exception (SystemExit, GeneratorExit, a subclass of its own), a result or a Rejected that
# cannot be written. Only KeyboardInterrupt ends serving (status 2), as it does between
# requests: it is the operator's interrupt, not the implementation's failure.

def _attempt(f, fallback):
    try:
        return f()
    except KeyboardInterrupt:
        raise
    except BaseException:
        return fallback


def _text(e):
    """str(e), else repr(e), else None; never raises."""
    for f in (str, repr):
        t = _attempt(lambda: f(e), None)
        if type(t) is str:
            return t
    return None


def _describe(e):
    """'Name: text' for any exception; never raises (the class's own __name__, even when a
    metaclass overrides it)."""
    name = _attempt(lambda: type.__dict__["__name__"].__get__(type(e)), None) or "an exception"
    text = _text(e)
    if text is None:
        return "%s (its str() and repr() raise)" % name
    return "%s: %s" % (name, text) if text else name


def _traceback(e):
    t = _attempt(traceback.format_exc, None)
    return t if type(t) is str else "%s (its traceback cannot be formatted)\n" % _describe(e)


def _safe_log(log):
    def safe(m):
        try:
            log(m)
        except KeyboardInterrupt:
            raise
        except BaseException:
            pass                     # the diagnostics channel failed; the protocol goes on
    return safe


def _rejected_error(r):
    """A plain copy of a Rejected's O-ERR-1 dict, or None when it cannot be written."""
    def copy():
        e = json.loads(_dumps(r.error))
        return e if type(e) is dict and type(e.get("code")) is str else None
    return _attempt(copy, None)


def _internal(cfg, rid, op, what, e):
    cfg.log("handler %s %s:\n%s" % (op["op"], what, _traceback(e)))
    return _err(rid, "internal_error", _describe(e))


def _call(cfg, op, profile, data, rid):
    try:
        r = cfg.handlers[op["op"]](data, Request(rid, op, profile))
        if isinstance(r, Rejected):
            error = _rejected_error(r)
            if error is None:
                raise TypeError("the handler returned a Rejected whose error cannot be written")
            return {"id": rid, "error": error}
        if r is None:
            raise TypeError("handler %s returned None (return a JSON value)" % op["op"])
        return {"id": rid, "result": r}
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # a bug in the implementation, or a Rejected/Unsupported
        return _reply_to_raised(cfg, op, rid, e)


def _reply_to_raised(cfg, op, rid, e):
    try:
        if isinstance(e, Rejected):
            error = _rejected_error(e)
            if error is not None:
                return {"id": rid, "error": error}
            return _internal(cfg, rid, op, "raised a Rejected whose error cannot be written", e)
        if isinstance(e, Unsupported):
            return {"id": rid, "unsupported": True}
        if isinstance(e, InvalidRequest):
            return _err(rid, "invalid_request", _text(e) or "invalid request")
    except KeyboardInterrupt:
        raise
    except BaseException:
        pass                         # isinstance itself can raise (a __class__ property)
    return _internal(cfg, rid, op, "raised", e)


def _well_formed(text):
    """A message without lone surrogates (U+FFFD instead): a message is free text, and a
    lone surrogate escape makes the reply a JSON text the runner refuses (C-STR-3)."""
    return _SURROGATE.sub("\ufffd", text) if isinstance(text, str) else text


_SURROGATE = re.compile("[\ud800-\udfff]")


def _encode(cfg, reply):
    """The reply as one ASCII line; one that cannot be written becomes internal_error."""
    err = reply.get("error") if isinstance(reply, dict) else None
    if isinstance(err, dict) and "message" in err:
        err["message"] = _well_formed(err["message"])
    try:
        return _dumps(reply)
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        why = "the result is not JSON: %s" % _describe(e)
        cfg.log(why)
        return _dumps(_err(reply.get("id"), "internal_error", why))


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def _no_duplicates(pairs):
    # A repeated member is an error (C-KEY-2), not last-wins as json.loads would make it;
    # the keys are compared decoded, so "c\u006dd" repeats "cmd".
    obj = {}
    for k, v in pairs:
        if k in obj:
            raise ValueError("duplicate member %s" % json.dumps(k))
        obj[k] = v
    return obj


def _loads(raw):
    return json.loads(raw, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)


def _handle(cfg, raw):
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            return _err(None, "invalid_request", "the request line is not UTF-8")
    try:
        msg = _loads(raw)
    except (ValueError, RecursionError) as e:
        return _err(None, "invalid_request", "the request is not JSON: %s" % e)
    if type(msg) is not dict:
        return _err(None, "invalid_request", "the request is not a JSON object")
    rid = msg.get("id")
    if not (type(rid) is int and rid >= 1):
        rid = None
    cmd = msg.get("cmd")
    if cmd == "start":
        if msg.get("protocol") != PROTOCOL:
            cfg.log("runner asked for protocol %r; this adapter speaks %d" % (msg.get("protocol"), PROTOCOL))
        return cfg.handshake()
    if cmd == "stop":
        return None
    if cmd == "run":
        if rid is None:
            return _err(None, "invalid_request", "run: id must be a positive integer")
        op = msg.get("op")
        if type(op) is dict and type(op.get("op")) is str and op["op"] not in cfg.operations:
            return {"id": rid, "unsupported": True}          # not offered, or unknown (A-SKIP-1)
        bad = check_operation(op)
        if bad:
            return _err(rid, "invalid_request", bad)
        profile = msg.get("profile", "core")
        if type(profile) is not str:
            return _err(rid, "invalid_request", "run: profile must be a string")
        if profile not in cfg.profiles:
            return {"id": rid, "unsupported": True}
        b64 = msg.get("input_base64")
        try:
            if type(b64) is not str:
                raise ValueError("not a string")
            data = base64.b64decode(b64.encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError) as e:
            return _err(rid, "invalid_request", "run: input_base64 is not base64: %s" % e)
        return _call(cfg, op, profile, data, rid)
    return _err(rid, "invalid_request", "unknown cmd %r" % (cmd,))


def handle_line(raw, handlers, **options):
    """Answer one persistent-mode request line (str or bytes, without its newline) for these
    handlers (a dict by operation name): the reply dict, or None for stop."""
    return _handle(_config(handlers, options), raw)


def _dumps(v):
    # ensure_ascii: the reply is plain ASCII whatever the strings hold.
    return json.dumps(v, separators=(",", ":"), allow_nan=False)


class _Protocol:
    """The real stdout, kept for the protocol; fd 1 and sys.stdout point at stderr meanwhile."""

    def __init__(self):
        sys.stdout.flush()
        self.out = os.fdopen(os.dup(1), "wb")
        self.saved_fd = os.dup(1)
        self.saved_stdout = sys.stdout
        os.dup2(2, 1)                  # print(), C extensions and child processes: stderr
        sys.stdout = sys.stderr

    def write(self, line):
        self.out.write(line)
        self.out.flush()

    def close(self):
        sys.stdout = self.saved_stdout
        os.dup2(self.saved_fd, 1)
        os.close(self.saved_fd)
        self.out.close()


def _persistent(cfg, inp, write):
    while True:
        raw = inp.readline()
        if not raw:
            return 0
        raw = raw.rstrip(b"\n")
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if not raw.strip():
            continue
        try:
            reply = _handle(cfg, raw)
        except KeyboardInterrupt:
            raise
        except BaseException as e:   # a last resort: _handle answers everything itself
            reply = _err(None, "internal_error", _describe(e))
        if reply is None:
            return 0
        write(_encode(cfg, reply).encode("ascii") + b"\n")


USAGE = ("usage: ADAPTER                (persistent protocol 1 on stdin/stdout)\n"
         "       ADAPTER OP [--until N] [--at N] [--branch-id ID] [--ops JSON] [--steps JSON]"
         " [--profile P] < INPUT\n")
_INT = re.compile(r"-?[0-9]+")


def parse_oneshot_args(argv):
    """A-ONESHOT-1 arguments to (operation object, profile); InvalidRequest on usage errors."""
    op = {"op": argv[0]}
    profile = "core"
    i = 1
    while i < len(argv):
        flag = argv[i]
        if flag.startswith("--") and "=" in flag:
            flag, value = flag.split("=", 1)
            i += 1
        else:
            if i + 1 >= len(argv):
                raise InvalidRequest("%s needs a value" % flag)
            value = argv[i + 1]
            i += 2
        if flag in ("--until", "--at"):
            if not _INT.fullmatch(value):
                raise InvalidRequest("%s needs an integer, got %r" % (flag, value))
            op[flag[2:]] = int(value)
        elif flag == "--branch-id":
            op["branch_id"] = value
        elif flag in ("--ops", "--steps"):
            try:
                op[flag[2:]] = _loads(value)
            except (ValueError, RecursionError) as e:
                raise InvalidRequest("%s is not JSON: %s" % (flag, e))
        elif flag == "--profile":
            profile = value
        else:
            raise InvalidRequest("unknown option %r" % flag)
    return op, profile


def _oneshot(cfg, argv, inp, write):
    if argv[0] in ("-h", "--help"):
        write(USAGE.encode())
        return 0
    try:
        op, profile = parse_oneshot_args(argv)
    except InvalidRequest as e:
        cfg.log("%s\n%s" % (e, USAGE))
        return 2
    if op["op"] not in cfg.operations or profile not in cfg.profiles:
        cfg.log("unsupported operation or profile: %s %s" % (op["op"], profile))
        return 3
    bad = check_operation(op)
    if bad:
        cfg.log(bad)
        return 2
    reply = _call(cfg, op, profile, inp.read(), None)
    if reply.get("unsupported"):
        return 3
    if "error" in reply and reply["error"]["code"] in ("internal_error", "invalid_request"):
        cfg.log(reply["error"]["message"])
        return 2
    try:
        text = _dumps(reply["result"] if "result" in reply else reply["error"])
    except KeyboardInterrupt:
        raise
    except BaseException as e:
        cfg.log("the result is not JSON: %s" % _describe(e))
        return 2
    write(text.encode("ascii") + b"\n")
    return 0 if "result" in reply else 1


def serve(validate=None, replay=None, fingerprint=None, branch=None, canonical=None,
          tree_inspect=None, tree_apply=None, store_apply=None, *, name="unnamed implementation",
          version="0.0.0", language="python", homepage=None, profiles=("core",), argv=None,
          stdin=None, stdout=None, log=None, hygiene=True, exit=True):
    """Serve the given handlers as a protocol-1 adapter.

    Each handler is called as handler(data: bytes, req: Request) and returns a JSON value,
    or returns/raises Rejected; raising Unsupported skips the check. Only the handlers given
    are offered in the handshake, with `profiles` (default core only).

    argv defaults to sys.argv[1:]: an operation name first means one-shot mode. stdin and
    stdout (binary streams) default to the process's; with hygiene (the default, real stdout
    only) everything else written to stdout while serving (print, fd 1) goes to stderr.
    Returns the exit status, or exits with it when exit is true (the default).
    """
    handlers = {"validate": validate, "replay": replay, "fingerprint": fingerprint,
                "branch": branch, "canonical": canonical, "tree_inspect": tree_inspect,
                "tree_apply": tree_apply, "store_apply": store_apply}
    cfg = _Config({k: v for k, v in handlers.items() if v is not None}, name, version, language,
                  homepage, profiles, log)
    if hasattr(sys, "set_int_max_str_digits") and 0 < sys.get_int_max_str_digits() < 4300:
        sys.set_int_max_str_digits(4300)
    argv = sys.argv[1:] if argv is None else list(argv)
    inp = stdin if stdin is not None else sys.stdin.buffer
    proto = None
    if stdout is not None:
        def write(b):
            stdout.write(b)
            stdout.flush()
    elif hygiene:
        proto = _Protocol()
        write = proto.write
    else:
        def write(b):
            sys.stdout.buffer.write(b)
            sys.stdout.buffer.flush()
    try:
        status = _oneshot(cfg, argv, inp, write) if argv else _persistent(cfg, inp, write)
    except KeyboardInterrupt:
        status = 2
    finally:
        if proto is not None:
            proto.close()
    if exit:
        sys.exit(status)
    return status
