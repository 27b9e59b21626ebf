"""A test adapter exercising every path of serve(); it prints to stdout on purpose."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from journal_conformance_adapter import serve, Rejected, Unsupported  # noqa: E402


def validate(data, req):
    print("print() inside a handler")
    os.write(1, b"a raw write to fd 1\n")
    sys.stdout.write("sys.stdout.write\n")
    if data.startswith(b"\xef\xbb\xbf"):
        return Rejected("unexpected_bom", line=1)
    return {"event_count": len([x for x in data.split(b"\n") if x]), "bytes": len(data)}


def fingerprint(data, req):
    raise Unsupported()


def branch(data, req):
    raise Rejected("sequence_out_of_range", sequence=req.op["at"])


def canonical(data, req):
    raise RuntimeError("boom")


serve(validate=validate, replay=lambda data, req: {"until": req.op.get("until"), "profile": req.profile},
      fingerprint=fingerprint, branch=branch, canonical=canonical,
      name="fixture", version="1.2.3")
