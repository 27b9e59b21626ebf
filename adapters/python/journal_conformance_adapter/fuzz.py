"""Fuzz YOUR implementation against the kit's reference (issue 24): a coverage-guided
harness with `atheris` when it is installed (`pip install "journal-conformance-adapter[fuzz]"`),
else a deterministic mutation runner of the standard library.

    # fuzz_mine.py
    from journal_conformance_adapter.fuzz import fuzz
    import my_journal

    fuzz(validate=lambda data, req: {"event_count": my_journal.count(data)})

    python3 fuzz_mine.py -runs=100000 corpus/        # atheris when installed, else the fallback

Every fuzzer input (bytes) is one journal (or JSON text): each handler given is asked every
operation of `operations_for(data)` (the same operations for the same bytes, SPEC.md 9), and
the reference `journal-conformance serve` (one persistent protocol-1 subprocess, SPEC.md
13.1) is asked the same. When the answers differ the harness raises `Mismatch` (an
AssertionError) holding both; a handler that raises anything but `Rejected` or `Unsupported`
is a finding too (the exception is chained). The answers are compared as the kit's
differential phase compares an implementation with the reference (SPEC.md 13.3, 13.6):

- two results: equal JSON values (member order ignored; an integer and a float are different
  values, as are true and 1);
- two errors: the same `code`, then `line`, `sequence` and `index` wherever the reference's
  error gives them (not null); `message` and `column` are never compared;
- a result and an error: always a difference. `Unsupported` from the handler skips the check.

The fallback takes libFuzzer's command line (`-runs=N -seed=S -max_len=N -dict=FILE
-artifact_prefix=P`, then corpus directories or files), so one command line works with and
without atheris; `--no-atheris` (or JOURNAL_CONFORMANCE_FUZZ=stdlib) forces the fallback.
It runs every corpus input once, then N inputs made by stacking 1 to 4 mutations (byte and
line edits, dictionary tokens, splices) of a corpus input with `random.Random(seed)`: the
same arguments give the same inputs and the same outcome. It exits 0 when nothing differed,
1 on the first difference (written to `<artifact_prefix>crash-<sha1>` as libFuzzer does),
2 on a usage error or when the reference cannot be started.

The reference is `reference=` (a path or an argv list), else $JOURNAL_CONFORMANCE, else
`journal-conformance` on PATH. It is one process for the whole run, closed at exit; on Linux
it is also started with PR_SET_PDEATHSIG so that it never outlives the harness, even when a
fuzzer ends the process with _exit or a signal; in any case it exits at the end of its
input, which the harness's exit closes. Standard library only (atheris is optional).
"""

import atexit
import base64
import hashlib
import json
import os
import random
import shlex
import signal
import subprocess
import sys

from . import OPERATIONS, PROFILES, Rejected, Request, Unsupported, _dumps, _loads, _rejected_error

__all__ = ["fuzz", "Checker", "ReferenceProcess", "ReferenceUnavailable", "Mismatch",
           "operations_for", "same_answer", "forwarding_handlers", "run_fallback", "mutate", "instrument_imports", "read_dict", "main_args"]

JOURNAL_OPS = ("validate", "replay", "fingerprint", "branch", "canonical", "tree_inspect")
"""The operations the harness asks: those whose only argument is the input (and `until`,
`at`, `branch_id`, derived from it). tree_apply and store_apply take step lists, which a byte
string does not give: fuzz them through `journal-conformance test --properties N`."""


class ReferenceUnavailable(Exception):
    """The reference could not be started or stopped answering."""


class Mismatch(AssertionError):
    """The implementation and the reference answered one operation differently."""

    def __init__(self, message, op=None, profile=None, data=None, expected=None, actual=None):
        super().__init__(message)
        self.op, self.profile, self.data = op, profile, data
        self.expected, self.actual = expected, actual


def fnv1a32(data):
    """FNV-1a, 32 bits: how the arguments are derived from the input (the same in the
    TypeScript and Rust harnesses, so one input means the same operations everywhere)."""
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def operations_for(data, offered=JOURNAL_OPS):
    """The operation objects asked for one input, in order: validate, replay, replay up to
    N, fingerprint, fingerprint up to N, branch at N, canonical, tree_inspect (those offered).
    N = h % 6 - 1 (so -1, out of range, and 0..4), the branch id is "fuzz" but for h >> 8
    % 8 == 0 ("") and == 1 (" \\t", white space): h = fnv1a32(data)."""
    h = fnv1a32(data)
    n = h % 6 - 1
    bid = {0: "", 1: " \t"}.get((h >> 8) % 8, "fuzz")
    ops = [{"op": "validate"}, {"op": "replay"}, {"op": "replay", "until": n},
           {"op": "fingerprint"}, {"op": "fingerprint", "until": n},
           {"op": "branch", "at": n, "branch_id": bid}, {"op": "canonical"}, {"op": "tree_inspect"}]
    return [o for o in ops if o["op"] in offered]


# ------------------------------------------------------------------ the reference

def _reference_argv(reference):
    if reference is None:
        reference = os.environ.get("JOURNAL_CONFORMANCE") or "journal-conformance"
    if isinstance(reference, (list, tuple)):
        return list(reference)
    return [reference, "serve"]


def _die_with_parent():
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)            # PR_SET_PDEATHSIG
    except Exception:                            # not Linux: the closed stdin still ends it
        pass


class ReferenceProcess:
    """`journal-conformance serve` as one persistent protocol-1 subprocess."""

    def __init__(self, reference=None):
        self.argv = _reference_argv(reference)
        self.next_id = 0
        try:
            self.proc = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
        except OSError as e:
            raise ReferenceUnavailable(
                "cannot start the reference %s: %s (give its path with reference=, or set "
                "JOURNAL_CONFORMANCE)" % (shlex.join(self.argv), e)) from None
        atexit.register(self.close)
        hs = self._exchange({"cmd": "start", "protocol": 1})
        if hs.get("protocol") != 1 or type(hs.get("operations")) is not list:
            self.close()
            raise ReferenceUnavailable("%s did not answer the protocol-1 handshake: %r"
                                       % (shlex.join(self.argv), hs))
        self.handshake = hs

    def _exchange(self, request):
        try:
            self.proc.stdin.write(_dumps(request).encode("ascii") + b"\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except (OSError, ValueError) as e:
            line, why = b"", str(e)
        else:
            why = "it exited"
        if not line.endswith(b"\n"):
            status = self.proc.poll()
            self.close()
            raise ReferenceUnavailable("the reference %s stopped answering (%s; status %r)"
                                       % (shlex.join(self.argv), why, status))
        try:
            reply = _loads(line.decode("utf-8"))
        except (ValueError, RecursionError) as e:
            raise ReferenceUnavailable("the reference answered a line that is not JSON: %s" % e)
        if type(reply) is not dict:
            raise ReferenceUnavailable("the reference answered %r" % (reply,))
        return reply

    def answer(self, op, profile, data):
        """("result", VALUE), ("error", ERROR) or ("unsupported", None)."""
        self.next_id += 1
        reply = self._exchange({"cmd": "run", "id": self.next_id, "op": op, "profile": profile,
                                "input_base64": base64.b64encode(data).decode("ascii")})
        if reply.get("id") != self.next_id:
            raise ReferenceUnavailable("the reference answered id %r for %d" % (reply.get("id"), self.next_id))
        if "result" in reply:
            return ("result", reply["result"])
        if reply.get("unsupported") is True:
            return ("unsupported", None)
        err = reply.get("error")
        if type(err) is dict and err.get("code") in ("internal_error", "invalid_request"):
            raise ReferenceUnavailable("the reference answered %s: %s" % (err["code"], err.get("message")))
        return ("error", err)

    def close(self):
        """Stop and reap the process (idempotent)."""
        p = getattr(self, "proc", None)
        if p is None:
            return
        self.proc = None
        try:
            if p.poll() is None:
                try:
                    p.stdin.write(b'{"cmd":"stop"}\n')
                    p.stdin.close()
                except OSError:
                    pass
                try:
                    p.wait(2)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        finally:
            for f in (p.stdin, p.stdout):
                try:
                    f.close()
                except OSError:
                    pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ------------------------------------------------------------------ comparing

def _same_json(a, b):
    ta, tb = type(a), type(b)
    if ta is not tb:
        return False
    if ta is dict:
        return a.keys() == b.keys() and all(_same_json(a[k], b[k]) for k in a)
    if ta is list:
        return len(a) == len(b) and all(_same_json(x, y) for x, y in zip(a, b))
    return a == b


def same_answer(expected, actual):
    """Whether `actual` meets `expected` (both ("result", V) or ("error", E)), as the kit
    judges a check against the reference's answer: None when they agree, else why not."""
    (ek, ev), (ak, av) = expected, actual
    if ek != ak:
        return "%s instead of %s" % (ak, ek)
    if ek == "result":
        return None if _same_json(ev, av) else "the results differ"
    if ev.get("code") != av.get("code"):
        return "error code %r instead of %r" % (av.get("code"), ev.get("code"))
    for field in ("line", "sequence", "index"):
        want = ev.get(field)
        if want is not None and not _same_json(want, av.get(field)):
            return "%s %r instead of %r (code %s)" % (field, av.get(field), want, ev["code"])
    return None


def _show(answer, limit=2000):
    kind, v = answer
    try:
        text = json.dumps({kind: v}, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr({kind: v})
    return text if len(text) <= limit else text[:limit] + "..."


def _show_input(data, limit=600):
    text = repr(bytes(data[:limit]))
    return text + ("... (%d bytes)" % len(data) if len(data) > limit else "")


class Checker:
    """Compare handlers with the reference, one input at a time: `checker(data)`."""

    def __init__(self, handlers, profiles=("core",), reference=None):
        for k, f in handlers.items():
            if k not in OPERATIONS:
                raise TypeError("%r is not an operation of protocol 1" % (k,))
            if k not in JOURNAL_OPS and f is not None:
                raise TypeError("the harness does not fuzz %s (it takes step lists); fuzz it with "
                                "journal-conformance test --properties N" % k)
            if f is not None and not callable(f):
                raise TypeError("handler %s must be callable" % k)
        for p in profiles:
            if p not in PROFILES:
                raise TypeError("unknown profile %r" % (p,))
        self.handlers = {k: f for k, f in handlers.items() if f is not None}
        if not self.handlers:
            raise TypeError("give at least one handler (validate=..., replay=..., ...)")
        self.profiles = tuple(profiles)
        self._reference_spec = reference
        self._reference = None
        self.inputs = self.compared = self.skipped = 0

    @property
    def reference(self):
        if self._reference is None:
            self._reference = ReferenceProcess(self._reference_spec)
        return self._reference

    def close(self):
        if self._reference is not None:
            self._reference.close()
            self._reference = None

    def _mine(self, op, profile, data):
        f = self.handlers[op["op"]]
        try:
            r = f(bytes(data), Request(self.compared + 1, op, profile))
        except Rejected as e:
            r = e
        except Unsupported:
            return ("unsupported", None)
        if isinstance(r, Rejected):
            err = _rejected_error(r)
            if err is None:
                raise TypeError("handler %s gave a Rejected whose error is not JSON" % op["op"])
            return ("error", err)
        if r is None:
            raise TypeError("handler %s returned None (return a JSON value)" % op["op"])
        try:
            return ("result", _loads(_dumps(r)))    # as serve() would send it
        except (TypeError, ValueError, RecursionError) as e:
            raise TypeError("handler %s returned a value that is not JSON: %s" % (op["op"], e))

    def __call__(self, data):
        """Raise Mismatch when an operation's answers differ on `data` (bytes)."""
        data = bytes(data)
        self.inputs += 1
        for profile in self.profiles:
            for op in operations_for(data, self.handlers):
                expected = self.reference.answer(op, profile, data)
                if expected[0] == "unsupported":
                    self.skipped += 1
                    continue
                try:
                    actual = self._mine(op, profile, data)
                except Exception as e:
                    raise Mismatch("%s (profile %s) raised %s: %s\n  input:     %s\n  reference: %s"
                                   % (_dumps(op), profile, type(e).__name__, e, _show_input(data),
                                      _show(expected)), op, profile, data, expected, None) from e
                if actual[0] == "unsupported":
                    self.skipped += 1
                    continue
                self.compared += 1
                why = same_answer(expected, actual)
                if why is not None:
                    raise Mismatch("%s (profile %s): %s\n  input:     %s\n  reference: %s\n  yours:     %s"
                                   % (_dumps(op), profile, why, _show_input(data), _show(expected),
                                      _show(actual)), op, profile, data, expected, actual)


def forwarding_handlers(reference=None, ops=JOURNAL_OPS):
    """Handlers that answer what a SECOND reference process answers: a correct
    implementation, to check a harness (fuzzing it must find nothing). Returns (handlers,
    the ReferenceProcess, to close)."""
    proc = ReferenceProcess(reference)

    def handler(data, req):
        kind, v = proc.answer(req.op, req.profile, data)
        if kind == "unsupported":
            raise Unsupported()
        if kind == "error":
            return Rejected.from_object(v)
        return v
    return {op: handler for op in ops}, proc


# ------------------------------------------------------------------ the fallback

def _unescape_dict(s):
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c == "\\" and i + 1 < len(s):
            n = s[i + 1]
            if n == "x" and i + 3 < len(s):
                out.append(int(s[i + 2:i + 4], 16))
                i += 4
                continue
            out.extend(n.encode("utf-8"))
            i += 2
            continue
        out.extend(c.encode("utf-8"))
        i += 1
    return bytes(out)


def read_dict(path):
    """A libFuzzer dictionary (`"token"` or `name="token"` per line, `\\xNN` escapes)."""
    tokens = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            q = line.find('"')
            if q < 0 or not line.endswith('"') or q == len(line) - 1:
                raise ValueError("%s:%d: not a dictionary entry" % (path, n))
            tokens.append(_unescape_dict(line[q + 1:-1]))
    return tokens


DEFAULT_TOKENS = [b"{", b"}", b"[", b"]", b",", b":", b'"', b"\n", b"\r", b"\t", b" ", b"\x0c",
                  b"\xef\xbb\xbf", b"\xff", b"\\u0000", b"\\ud800", b"NaN", b"Infinity", b"1e400",
                  b"1.0", b"-0", b"null", b"true", b'"a":1,"a":2', b'"sequence":', b'"event_id":',
                  b"[[[[[[[[[[[[[[[[", b"\xc2\xa0", b"\xe2\x80\xa8"]


def mutate(data, rng, tokens, max_len, pool=()):
    """One to four stacked mutations of `data` (bytes), drawn from `rng` (random.Random)."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        m = rng.randrange(9)
        pos = rng.randint(0, len(b))
        if m == 0 and b:                                 # flip a bit
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif m == 1:                                     # insert a byte
            b[pos:pos] = bytes([rng.randrange(256)])
        elif m == 2 and b:                               # delete a range
            del b[pos:pos + rng.randint(1, 16)]
        elif m in (3, 4):                                # insert a token
            b[pos:pos] = rng.choice(tokens)
        elif m == 5 and b:                               # overwrite with a token
            t = rng.choice(tokens)
            b[pos:pos + len(t)] = t
        elif m == 6:                                     # duplicate, drop or swap a line
            lines = bytes(b).split(b"\n")
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            k = rng.randrange(3)
            if k == 0:
                lines.insert(j, lines[i])
            elif k == 1 and len(lines) > 1:
                del lines[i]
            else:
                lines[i], lines[j] = lines[j], lines[i]
            b = bytearray(b"\n".join(lines))
        elif m == 7 and pool:                            # splice with another input
            other = rng.choice(pool)
            b = b[:pos] + other[rng.randint(0, len(other)):]
        elif m == 8 and b:                               # replace a byte by an interesting one
            b[rng.randrange(len(b))] = rng.choice(b'\x00\t\n\r "\\{}[]:,01-.eE\x7f\x80\xff')
    return bytes(b[:max_len])


def _corpus(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, names in os.walk(p):
                dirs.sort()
                files.extend(os.path.join(root, n) for n in sorted(names))
        elif os.path.isfile(p):
            files.append(p)
        else:
            raise ValueError("%s: no such file or directory" % p)
    out = []
    for f in files:
        with open(f, "rb") as fh:
            out.append(fh.read())
    return out


def main_args(argv):
    """libFuzzer-style arguments: (options dict, corpus paths)."""
    opts = {"runs": 10000, "seed": 1, "max_len": 4096, "dict": None, "artifact_prefix": "./"}
    paths = []
    for a in argv:
        if a.startswith("-") and "=" in a and not a.startswith("--"):
            k, v = a[1:].split("=", 1)
            if k in ("runs", "seed", "max_len"):
                try:
                    opts[k] = int(v)
                except ValueError:
                    raise ValueError("-%s needs an integer, got %r" % (k, v))
            elif k in ("dict", "artifact_prefix"):
                opts[k] = v
            # other libFuzzer flags (-max_total_time, -jobs, ...) mean nothing here
        elif a.startswith("-"):
            raise ValueError("unknown option %r" % a)
        else:
            paths.append(a)
    return opts, paths


MINIMAL_SEED = (b'{"event_id":"e0","session_id":"s","sequence":0,"type":"user.message",'
                b'"payload":{"content":"hi"},"provenance":{"run_id":"r"}}\n'
                b'{"event_id":"e1","session_id":"s","sequence":1,"type":"model.response",'
                b'"parent_event_id":"e0","payload":{"content":"hello"},"provenance":{"run_id":"r"}}\n')


def run_fallback(check, argv, log=None):
    """The standard-library runner: replay the corpus, then `-runs` mutations from `-seed`.
    Returns (exit status, the Mismatch or None); never raises on bad arguments."""
    log = log or (lambda m: (sys.stderr.write(m + "\n"), sys.stderr.flush()))
    try:
        opts, paths = main_args(argv)
        pool = _corpus(paths) or [MINIMAL_SEED]
        tokens = read_dict(opts["dict"]) if opts["dict"] else []
    except (OSError, ValueError) as e:
        log("fuzz: %s" % e)
        return 2, None
    tokens = tokens + DEFAULT_TOKENS
    rng = random.Random(opts["seed"])
    n = 0

    def one(data):
        try:
            check(data)
        except Mismatch as m:
            name = opts["artifact_prefix"] + "crash-" + hashlib.sha1(data).hexdigest()
            try:
                with open(name, "wb") as f:
                    f.write(data)
                saved = "input written to %s" % name
            except OSError as e:
                saved = "input not written: %s" % e
            log("fuzz: MISMATCH after %d inputs (seed %d): %s\n%s" % (n, opts["seed"], saved, m))
            return m
        return None

    try:
        for data in pool:
            n += 1
            m = one(data[:opts["max_len"]])
            if m is not None:
                return 1, m
        for _ in range(opts["runs"]):
            n += 1
            m = one(mutate(rng.choice(pool), rng, tokens, opts["max_len"], pool))
            if m is not None:
                return 1, m
    except ReferenceUnavailable as e:
        log("fuzz: %s" % e)
        return 2, None
    log("fuzz: done, %d inputs (%d from the corpus, %d mutations, seed %d), no difference"
        % (n, len(pool), n - len(pool), opts["seed"]))
    return 0, None


# ------------------------------------------------------------------ the entry point

def _atheris():
    if "--no-atheris" in sys.argv or os.environ.get("JOURNAL_CONFORMANCE_FUZZ") == "stdlib":
        return None
    try:
        import atheris
    except ImportError:
        return None
    return atheris


_instrumented = []


def instrument_imports():
    """`with instrument_imports(): import my_journal`: atheris.instrument_imports() when
    atheris is used, else nothing. Modules imported so are instrumented for coverage, and
    fuzz() then instruments nothing else (without it, fuzz() instruments every loaded
    module, atheris.instrument_all(): slower to start, some seconds)."""
    import contextlib
    a = _atheris()
    if a is None:
        return contextlib.nullcontext()
    _instrumented.append(True)
    return a.instrument_imports()


def fuzz(validate=None, replay=None, fingerprint=None, branch=None, canonical=None,
         tree_inspect=None, *, profiles=("core",), reference=None, argv=None, atheris=None,
         instrument=None, exit=True):
    """Fuzz the handlers (the signatures of serve()) against the reference and exit:
    with atheris, else run_fallback. `instrument`: None instruments every loaded module
    unless instrument_imports() was used; True always; False never."""
    handlers = {"validate": validate, "replay": replay, "fingerprint": fingerprint,
                "branch": branch, "canonical": canonical, "tree_inspect": tree_inspect}
    if hasattr(sys, "set_int_max_str_digits") and 0 < sys.get_int_max_str_digits() < 4300:
        sys.set_int_max_str_digits(4300)
    check = Checker({k: v for k, v in handlers.items() if v is not None}, profiles, reference)
    argv = list(sys.argv if argv is None else argv)
    fuzzer = _atheris() if atheris is None else (atheris or None)
    args = [a for a in argv[1:] if a != "--no-atheris"]
    try:
        if fuzzer is None:
            status, _ = run_fallback(check, args)
        else:
            try:
                check.reference                        # fail early, with a message
            except ReferenceUnavailable as e:
                sys.stderr.write("fuzz: %s\n" % e)
                status = 2
            else:
                if instrument or (instrument is None and not _instrumented):
                    fuzzer.instrument_all()
                fuzzer.Setup([argv[0]] + args, check)
                fuzzer.Fuzz()                          # exits the process itself
                status = 0
    finally:
        check.close()
    if exit:
        sys.exit(status)
    return status
