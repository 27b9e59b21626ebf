"""A test adapter whose handlers misbehave in every way user code can; the input names the
misbehaviour. serve() must answer each request and keep serving."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from journal_conformance_adapter import serve, Rejected  # noqa: E402


class StrRaises(Exception):
    def __str__(self):
        raise RuntimeError("__str__ raised")


class StrAndReprRaise(Exception):
    def __str__(self):
        raise StrAndReprRaise()

    def __repr__(self):
        raise RuntimeError("__repr__ raised")


class NotAnException(BaseException):
    pass


class _NameRaises(type):
    @property
    def __name__(cls):
        raise RuntimeError("__name__ raised")


class NameRaises(Exception, metaclass=_NameRaises):
    pass


class NotesRaise(Exception):
    @property
    def __notes__(self):
        raise RuntimeError("__notes__ raised")


class StrIsNotAString(Exception):
    def __str__(self):
        return 42


class ErrorRaises(Rejected):
    @property
    def error(self):
        raise StrRaises()


def _bad_notes():
    e = ValueError("x")
    e.__notes__ = 42           # not a list: traceback formatting itself fails (3.11)
    return e


def _exit():
    sys.exit(3)


HOSTILE = {
    "str-raises": StrRaises,
    "str-and-repr-raise": StrAndReprRaise,
    "base-exception": NotAnException,
    "system-exit": _exit,
    "generator-exit": GeneratorExit,
    "name-raises": NameRaises,
    "notes-raise": NotesRaise,
    "bad-notes": _bad_notes,
    "str-not-a-string": StrIsNotAString,
    "rejected-error-raises": lambda: ErrorRaises("sequence_gap"),
    "rejected-bad-member": lambda: Rejected("sequence_gap", line=object()),
}


def validate(data, req):
    name = data.decode()
    if name == "ok":
        return {"event_count": 1}
    v = HOSTILE[name]()
    if isinstance(v, BaseException):
        raise v
    raise v


def replay(data, req):
    """Results that cannot be written, in hostile ways."""
    kind = data.decode()
    if kind == "deep":
        v = []
        for _ in range(100000):
            v = [v]
        return v
    if kind == "huge-int":
        return 10 ** 5000          # over the 4300-digit limit of int -> str
    if kind == "object":
        return {"x": object()}
    if kind == "nan":
        return float("nan")
    if kind == "returned-rejected-raises":
        return ErrorRaises("sequence_gap")
    return "fine"


serve(validate=validate, replay=replay, name="hostile", version="0")
