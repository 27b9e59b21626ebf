#!/usr/bin/env python3
"""Generate the canonical JSON conformance vectors (conformance/canonical/*.json).

Expected canonical text for every accepted input is produced HERE, by CPython's own
`json.dumps(json.loads(text), ensure_ascii=False, sort_keys=True, separators=(",", ":"))`
(the seed's fingerprint serialisation), never by the Rust reference implementation.

Expected error codes for rejected inputs are written by hand from the rules: Python
accepts several of those inputs (duplicate keys, lone surrogates, NaN, 1E400 -> inf), so
its behaviour cannot be the oracle there. The script only cross-checks that each rejected
input carries exactly the one fault its hand-written code names, and that each accepted
input is admitted by the spec (no fault at all), so a case can never land in the wrong
list silently.

Standard library only; deterministic (same bytes every run). Usage:

    python3 conformance/canonical/build.py          # (re)write the vector files
    python3 conformance/canonical/build.py --check  # exit 1 if a file would change
"""

import base64
import hashlib
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

MAX_DEPTH = 128
MAX_INT_DIGITS = 4300
BOM = "\ufeff"

# Pin Python's own integer-string limit (3.11+) so PYTHONINTMAXSTRDIGITS cannot change
# the output; the guard below checks C-NUM-3 itself on older versions.
if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(MAX_INT_DIGITS)

# ---------------------------------------------------------------------------
# The oracle and the guards
# ---------------------------------------------------------------------------


def python_canonical(text):
    """The seed's serialisation: the expected canonical text."""
    return json.dumps(
        json.loads(text), ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )


class Fault(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def _pairs(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise Fault("duplicate_key")
        seen.add(k)
    return dict(pairs)


def _constant(name):
    raise Fault("invalid_json")  # NaN, Infinity, -Infinity


def _float(s):
    f = float(s)
    if math.isinf(f):
        raise Fault("number_out_of_range")
    return f


def _int(s):
    if len(s.lstrip("-")) > MAX_INT_DIGITS:
        raise Fault("number_out_of_range")
    return int(s)


def _depth(v):
    if isinstance(v, list):
        return 1 + max((_depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((_depth(x) for x in v.values()), default=0)
    return 0


def _has_surrogate(v):
    if isinstance(v, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in v)
    if isinstance(v, list):
        return any(_has_surrogate(x) for x in v)
    if isinstance(v, dict):
        return any(_has_surrogate(k) or _has_surrogate(x) for k, x in v.items())
    return False


def detect_fault(data):
    """The faults Python (with strict hooks) can see in `data`: a sorted list of codes.

    Used only as a consistency guard on the hand-written classification.
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return ["invalid_utf8"]
    if text.startswith(BOM):
        return ["unexpected_bom"]
    try:
        v = json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_constant=_constant,
            parse_float=_float,
            parse_int=_int,
        )
    except Fault as f:
        return [f.code]
    except json.JSONDecodeError:
        return ["invalid_json"]
    except ValueError as e:
        if "Exceeds the limit" in str(e):
            return ["number_out_of_range"]
        raise
    faults = []
    if _depth(v) > MAX_DEPTH:
        faults.append("nesting_too_deep")
    if _has_surrogate(v):
        faults.append("lone_surrogate")
    return faults


# ---------------------------------------------------------------------------
# Case list
# ---------------------------------------------------------------------------

FILES = {}  # file stem -> list of cases, in insertion order
NAMES = set()


def _add(stem, name, description, rules, data, tags, expect, level=None, b64=False):
    assert isinstance(data, bytes)
    key = (stem, name)
    assert key not in NAMES, f"duplicate case name {stem}/{name}"
    NAMES.add(key)
    assert name[0].isascii() and (name[0].islower() or name[0].isdigit()), name
    assert all(c in "abcdefghijklmnopqrstuvwxyz0123456789._-" for c in name), name
    assert description.endswith("."), name
    case = {"name": name, "description": description, "rules": list(rules)}
    if tags:
        case["tags"] = list(tags)
    if level:
        case["level"] = level
    try:
        text = data.decode("utf-8")
        use_b64 = b64 or text.startswith(BOM)
    except UnicodeDecodeError:
        use_b64 = True
    if use_b64:
        case["input_base64"] = base64.b64encode(data).decode("ascii")
    else:
        case["input"] = text
    case["checks"] = [{"op": {"op": "canonical"}, "expect": expect}]
    FILES.setdefault(stem, []).append(case)


def ok(stem, name, inp, description, rules, tags=()):
    """An accepted input; the expected canonical text comes from Python."""
    data = inp.encode("utf-8") if isinstance(inp, str) else inp
    faults = detect_fault(data)
    assert not faults, f"{stem}/{name}: listed as accepted but has faults {faults}"
    out = python_canonical(data.decode("utf-8"))
    raw = out.encode("utf-8")  # strict: fails on a surrogate
    expect = {"result": out, "sha256": hashlib.sha256(raw).hexdigest()}
    _add(stem, name, description, rules, data, tags, expect)


def bad(stem, name, inp, code, description, rules, tags=(), level=None, python_sees=None):
    """A rejected input; `code` (a string or a list of acceptable codes) is hand-written.

    `python_sees` names the fault Python's decoder reports where the spec's precedence
    deliberately differs (C-STR-3: a high surrogate before a malformed escape is lone).
    """
    data = inp.encode("utf-8") if isinstance(inp, str) else inp
    codes = code if isinstance(code, list) else [code]
    faults = detect_fault(data)
    if python_sees is not None:
        assert faults == [python_sees], f"{stem}/{name}: the guard sees {faults}"
    else:
        assert len(faults) == 1 and faults[0] in codes, (
            f"{stem}/{name}: hand-written code {codes} but the guard sees {faults}"
        )
    if seed_departs(data, codes):
        tags = list(tags) + ["departs-from-seed"]
    _add(stem, name, description, rules, data, tags, {"error": {"code": code}}, level)


def seed_departs(data, codes):
    """SPEC.md appendix A.1: whether the seed's serialisation, json.dumps(json.loads(text))
    of the file read as UTF-8 text, answers this rejected input differently: it gives a text
    (Python accepts NaN, duplicate keys, lone surrogates, 1E400 as inf, deep nesting), another
    error (a leading U+FEFF or a malformed escape after a high surrogate is a JSONDecodeError),
    or crashes (RecursionError, the 4300-digit ValueError)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "invalid_utf8" not in codes
    try:
        json.loads(text)
    except json.JSONDecodeError:
        return "invalid_json" not in codes
    except Exception:
        return True
    return True


# --- numbers ---------------------------------------------------------------

N = "numbers"
INT = ["C-NUM-1"]
FLT = ["C-NUM-4", "C-NUM-5"]

for name, inp, desc in [
    ("int-zero", "0", "Zero is the integer 0."),
    ("int-one", "1", "A one-digit integer is copied."),
    ("int-minus-one", "-1", "A negative integer keeps its sign."),
    ("int-42", "42", "A small integer is copied."),
    ("int-2p31", "2147483648", "2^31 is exact."),
    ("int-2p32", "4294967296", "2^32 is exact."),
    ("int-2p53-minus-1", "9007199254740991", "2^53-1, the largest safe double integer, is exact."),
    ("int-2p53", "9007199254740992", "2^53 is exact."),
    ("int-2p53-plus-1", "9007199254740993", "2^53+1 is exact (a double would round it to 2^53)."),
    ("int-minus-2p53-plus-1", "-9007199254740993", "-(2^53+1) is exact."),
    ("int-2p63-minus-1", "9223372036854775807", "i64::MAX is exact."),
    ("int-2p63", "9223372036854775808", "2^63, one past i64::MAX, is exact."),
    ("int-minus-2p63", "-9223372036854775808", "i64::MIN is exact."),
    ("int-minus-2p63-minus-1", "-9223372036854775809", "One below i64::MIN is exact."),
    ("int-2p64-minus-1", "18446744073709551615", "u64::MAX is exact."),
    ("int-2p64", "18446744073709551616", "2^64, one past u64::MAX, is exact (not 1.8446744073709552e+19)."),
    ("int-minus-2p64", "-18446744073709551616", "-2^64 is exact."),
    ("int-2p128", str(2**128), "2^128 is exact."),
    ("int-1e30", str(10**30), "10^30 written as an integer stays an exact integer."),
    ("int-1e30-plus-1", str(10**30 + 1), "10^30+1 is exact."),
    ("int-minus-1e30", str(-(10**30)), "-10^30 is exact."),
    ("int-100-digits", "1234567890" * 10, "A 100-digit integer is exact."),
    ("int-4300-digits", "9" * 4300, "An integer of exactly 4300 digits is admitted and exact."),
    ("int-4300-digits-power", "1" + "0" * 4299, "10^4299 (4300 digits) is admitted and exact."),
    ("int-minus-4300-digits", "-" + "9" * 4300, "The 4300-digit limit counts digits, not the minus sign."),
    ("int-minus-zero", "-0", "The integer literal -0 is the integer 0."),
    ("int-minus-zero-in-array", "[-0,0,-0]", "Every -0 integer inside a container is 0."),
    ("int-minus-zero-in-object", '{"a":-0}', "A -0 member value is 0."),
    ("int-in-array", "[1,-2,30000000000000000000000]", "Integers in an array are exact."),
]:
    ok(N, name, inp, desc, INT + (["C-NUM-2"] if "zero" in name and "minus" in name else []), ["integer"])

for name, inp, desc, extra in [
    ("float-one", "1.0", "A float with a zero fraction keeps one fraction digit.", []),
    ("float-minus-one", "-1.0", "A negative float keeps its sign.", []),
    ("float-zero", "0.0", "Zero as a float is 0.0.", []),
    ("float-minus-zero", "-0.0", "The float -0.0 keeps its sign.", ["neg-zero"]),
    ("float-zero-e0", "0e0", "0e0 is the float 0.0.", []),
    ("float-zero-upper-e", "0E0", "0E0 is the float 0.0.", []),
    ("float-minus-zero-e0", "-0e0", "-0e0 is the float -0.0.", ["neg-zero"]),
    ("float-zero-big-exp", "0.0e10", "Zero times a power of ten is still 0.0.", []),
    ("float-minus-zero-neg-exp", "-0.0e-10", "-0.0e-10 is -0.0.", ["neg-zero"]),
    ("float-1e0", "1e0", "An exponent makes a float even without a fraction.", []),
    ("float-1-upper-e0", "1E0", "An upper-case E makes a float.", []),
    ("float-1e-plus-0", "1e+0", "An explicit plus in the exponent is accepted.", []),
    ("float-1e-minus-0", "1e-0", "A minus zero exponent is accepted.", []),
    ("float-100e-minus-2", "100e-2", "100e-2 is 1.0.", []),
    ("float-0.1e1", "0.1e1", "0.1e1 is 1.0.", []),
    ("float-three", "3.0", "An integral float is printed with .0.", []),
    ("float-hundred", "100.0", "An integral float is printed positionally with .0.", []),
    ("float-1e2-upper-plus", "1E+2", "1E+2 is 100.0.", []),
    ("float-exp-leading-zeros", "1e0002", "Leading zeros in the exponent are accepted.", []),
    ("float-exp-neg-leading-zeros", "1e-02", "A negative exponent with leading zeros is accepted.", []),
    ("float-12.5e-1", "12.5e-1", "12.5e-1 is 1.25.", []),
    ("float-1e-6-times-1e6", "0.000001e6", "0.000001e6 is 1.0.", []),
    ("float-0.5", "0.5", "0.5 is exact.", []),
    ("float-1.5", "1.5", "1.5 is exact.", []),
    ("float-123.456", "123.456", "123.456 prints its shortest digits.", []),
    ("float-0.1", "0.1", "0.1 prints as 0.1, its shortest round-trip digits.", ["shortest"]),
    ("float-0.2", "0.2", "0.2 prints as 0.2.", ["shortest"]),
    ("float-0.3", "0.3", "0.3 prints as 0.3.", ["shortest"]),
    ("float-0.1-plus-0.2", "0.30000000000000004", "The double 0.1+0.2 needs 17 significant digits.", ["shortest"]),
    ("float-0.3-long", "0.30000000000000001", "A long spelling of the double 0.3 prints as 0.3.", ["shortest"]),
    ("float-1.1", "1.1", "1.1 prints as 1.1.", ["shortest"]),
    ("float-2.675", "2.675", "2.675 prints as 2.675 although the double is slightly below.", ["shortest"]),
    ("float-one-third", "0.3333333333333333", "1/3 prints with 16 digits.", ["shortest"]),
    ("float-two-thirds", "0.6666666666666666", "2/3 prints with 16 digits.", ["shortest"]),
    ("float-pi", "3.141592653589793", "Pi prints its 16 shortest digits.", ["shortest"]),
    ("float-e", "2.718281828459045", "e prints its shortest digits.", ["shortest"]),
    ("float-1e-4", "0.0001", "1e-4 is the smallest power of ten printed positionally.", ["exp-boundary"]),
    ("float-1e-4-exp", "1e-4", "1e-4 written with an exponent prints positionally.", ["exp-boundary"]),
    ("float-1.5e-4", "0.00015", "1.5e-4 prints positionally.", ["exp-boundary"]),
    ("float-9.99e-5", "0.0000999", "9.99e-5 is below 1e-4 and prints with an exponent.", ["exp-boundary"]),
    ("float-1e-5", "0.00001", "1e-5 prints as 1e-05: exponent form, sign, two digits.", ["exp-boundary"]),
    ("float-1e-5-exp", "1e-5", "1e-5 prints as 1e-05.", ["exp-boundary"]),
    ("float-1.5e-5", "1.5e-5", "1.5e-5 prints as 1.5e-05.", ["exp-boundary"]),
    ("float-minus-1e-4", "-0.0001", "-1e-4 prints positionally.", ["exp-boundary"]),
    ("float-minus-1e-5", "-0.00001", "-1e-5 prints as -1e-05.", ["exp-boundary"]),
    ("float-below-1e-4", "0.00009999999999999999", "A spelling just below 1e-4 prints with an exponent.", ["exp-boundary"]),
    ("float-1e-7", "1e-7", "1e-7 prints as 1e-07.", []),
    ("float-1e-10", "1e-10", "1e-10 prints as 1e-10.", []),
    ("float-123e-20", "123e-20", "123e-20 prints as 1.23e-18.", []),
    ("float-1e15", "1e15", "1e15 prints positionally as 1000000000000000.0.", ["exp-boundary"]),
    ("float-1e15-positional", "1000000000000000.0", "1e15 written positionally round-trips.", ["exp-boundary"]),
    ("float-1e15-fraction", "1000000000000000.2", "A fraction just above 1e15 prints positionally.", ["exp-boundary"]),
    ("float-below-1e16", "9999999999999998.0", "The largest double below 1e16 prints positionally.", ["exp-boundary"]),
    ("float-rounds-to-1e16", "9999999999999999.0", "9999999999999999.0 rounds to the double 1e16 and prints as 1e+16.", ["exp-boundary"]),
    ("float-1e16", "1e16", "1e16 prints as 1e+16.", ["exp-boundary"]),
    ("float-1e16-positional", "10000000000000000.0", "1e16 written positionally prints as 1e+16.", ["exp-boundary"]),
    ("float-1.2345678901234567e16", "1.2345678901234567e16", "A 17-digit value at 1e16 prints in exponent form.", ["exp-boundary"]),
    ("float-1e17", "1e17", "1e17 prints as 1e+17.", ["exp-boundary"]),
    ("float-1.5e17", "150000000000000000.0", "1.5e17 written positionally prints as 1.5e+17.", ["exp-boundary"]),
    ("float-minus-1e16", "-1e16", "-1e16 prints as -1e+16.", ["exp-boundary"]),
    ("float-1e21", "1e21", "1e21 prints as 1e+21.", []),
    ("float-1e22", "1e22", "1e22 prints as 1e+22.", []),
    ("float-1e23", "1e23", "1e23 prints as 1e+23 (the double is not exactly 10^23).", ["shortest"]),
    ("float-1e100", "1e100", "1e100 prints as 1e+100 (three exponent digits).", []),
    ("float-1e308", "1e308", "1e308 prints as 1e+308.", []),
    ("float-1e-308", "1e-308", "1e-308 (subnormal) prints as 1e-308.", ["subnormal"]),
    ("float-2p53-as-float", "9007199254740992.0", "2^53 as a float prints positionally.", []),
    ("float-2p53-plus-1-rounds-down", "9007199254740993.0", "9007199254740993.0 is a tie and rounds to even, 9007199254740992.0.", ["rounding"]),
    ("float-2p53-plus-3-rounds-up", "9007199254740995.0", "9007199254740995.0 is a tie and rounds to even, 9007199254740996.0.", ["rounding"]),
    ("float-2p53-plus-1-above-tie", "9007199254740993.00000000000000001", "Just above the tie rounds up to 9007199254740994.0.", ["rounding"]),
    ("float-2p53-plus-1-exp", "9.007199254740993e15", "The same tie written with an exponent rounds to even.", ["rounding"]),
    ("float-2p63", "9223372036854775808.0", "2^63 as a float prints as 9.223372036854776e+18.", []),
    ("float-2p64", "18446744073709551616.0", "2^64 as a float prints as 1.8446744073709552e+19.", []),
    ("float-1e30", "1e30", "1e30 as a float prints as 1e+30.", []),
    ("float-1e30-positional", "1000000000000000000000000000000.0", "10^30 written positionally with .0 is a float.", []),
    ("float-max", "1.7976931348623157e308", "The largest double prints as 1.7976931348623157e+308.", ["max"]),
    ("float-max-upper", "1.7976931348623157E+308", "The largest double with an upper-case E.", ["max"]),
    ("float-minus-max", "-1.7976931348623157e308", "The most negative double.", ["max"]),
    ("float-max-rounds-down", "1.7976931348623158e308", "A spelling below the overflow threshold rounds to the largest double.", ["max"]),
    ("float-min-normal", "2.2250738585072014e-308", "The smallest normal double.", ["subnormal"]),
    ("float-max-subnormal", "2.225073858507201e-308", "The largest subnormal double.", ["subnormal"]),
    ("float-max-subnormal-long", "2.2250738585072009e-308", "A 17-digit spelling of the largest subnormal prints its shortest digits.", ["subnormal"]),
    ("float-2.2250738585072011e-308", "2.2250738585072011e-308", "The value that hung old parsers rounds correctly.", ["subnormal", "rounding"]),
    ("float-2.2250738585072012e-308", "2.2250738585072012e-308", "Just above: rounds to the smallest normal double.", ["subnormal", "rounding"]),
    ("float-min-subnormal", "5e-324", "The smallest subnormal double prints as 5e-324.", ["subnormal"]),
    ("float-min-subnormal-long", "4.9406564584124654e-324", "A long spelling of the smallest subnormal prints as 5e-324.", ["subnormal"]),
    ("float-min-subnormal-short", "4.9e-324", "4.9e-324 rounds to the smallest subnormal.", ["subnormal"]),
    ("float-above-half-min-subnormal", "2.4703282292062328e-324", "Just above half the smallest subnormal rounds up to 5e-324.", ["subnormal", "rounding"]),
    ("float-below-half-min-subnormal", "2.4703282292062327e-324", "Just below half the smallest subnormal rounds to 0.0.", ["subnormal", "rounding"]),
    ("float-two-min-subnormal", "1e-323", "1e-323 is two times the smallest subnormal.", ["subnormal"]),
    ("float-underflow", "1e-400", "1e-400 underflows to 0.0 (underflow is not an error).", ["underflow"]),
    ("float-minus-underflow", "-1e-400", "-1e-400 underflows to -0.0.", ["underflow", "neg-zero"]),
    ("float-huge-neg-exp", "1e-99999999999999999999", "An enormous negative exponent underflows to 0.0.", ["underflow"]),
    ("float-huge-exp-digits", "1e0000000000000000000000001", "An exponent with many leading zeros is 1e1.", []),
    ("float-long-mantissa-one", "1.00000000000000000000000000000000000000000001", "A long mantissa rounds correctly to 1.0.", ["rounding"]),
    ("float-long-mantissa-800", "0." + "3" * 800, "An 800-digit mantissa rounds correctly.", ["rounding"]),
    ("float-5000-digit-fraction", "0." + "0" * 4998 + "1", "Floats have no digit limit: 5000 fraction digits underflow to 0.0.", ["underflow"]),
    ("float-300-digit-integer-part", "1" * 300 + ".0", "A float with a 300-digit integer part rounds correctly.", ["rounding"]),
    ("float-in-array", "[1.0,-0.0,1e-7,1e16,0.1]", "Floats inside an array each print as Python repr.", []),
    ("int-and-float-differ", "[1,1.0,-0,-0.0]", "1 and 1.0 stay distinct, -0 becomes 0, -0.0 stays.", ["neg-zero"]),
]:
    rules = list(FLT)
    if "neg-zero" in extra and "int" in name:
        rules = INT + ["C-NUM-2"] + FLT
    ok(N, name, inp, desc, rules, ["float"] + extra)

# Exact ties: the double lies exactly halfway between the two shortest candidates;
# Python's repr picks the even last digit.
for name, inp in [
    ("float-tie-1e15-quarter", "1000000000000000.25"),
    ("float-tie-1e15-plus-1-quarter", "1000000000000001.25"),
    ("float-tie-1e15-three-quarters", "1000000000000000.75"),
    ("float-tie-negative", "-989925179521306.25"),
    ("float-tie-eighth", "197550063265347.125"),
    ("float-tie-eighth-odd", "272410162204752.875"),
    ("float-tie-sixteenth", "9226008541291.8125"),
    ("float-tie-32nd", "1946351401608.65625"),
    ("float-tie-256th", "2401673305.57421875"),
    ("float-tie-exp-spelling", "1.00000000000000025e15"),
]:
    ok(N, name, inp, "A double exactly halfway between two shortest spellings prints the even one.",
       FLT, ["float", "shortest", "tie"])

# Near ties that are not ties (issue 19, mutation campaign of src/canonical.rs): doubles
# m * 2^q with -25 <= q < 0 whose shortest spelling has two candidates of the same length
# that both read back, one closer: repr prints the closer one, never "the even one".
# Found by simulating the mutants `||` as `&&` in round_tie_to_even against repr.
for name, inp in [
    ("float-near-tie-1", "25799798268.786743"),
    ("float-near-tie-2", "2081012632.4647217"),
    ("float-near-tie-3", "3927680.2047228217"),
]:
    ok(N, name, inp, "A double near, not at, a tie of two shortest spellings prints the closer one.",
       FLT, ["float", "shortest", "tie"])

# Powers of two whose rounding interval is lopsided (the double below is half as far as
# the one above): the shortest spelling that reads back has 16 digits, but the NEAREST
# 16-digit decimal does not read back, so a port that tries "%.{p}e" for p = 1, 2, ...
# until one round-trips prints 17 digits. Chosen by comparing that loop with repr over
# every power of two (46 of 2,098 differ); the expected text is Python's.
for k in (-1017, -44, -24, 89, 976):
    a = 2.0 ** k
    assert len(repr(a).split("e")[0].replace(".", "").replace("-", "")) <= 16, a
    ok(N, "float-power-of-two-%s%d" % ("minus-" if k < 0 else "", abs(k)), repr(a),
       "2^%d (%s): a power of two whose shortest spelling is not the nearest one of its length." % (k, repr(a)),
       FLT, ["float", "shortest", "power-of-two"])

# Exponents of two and three digits in the exponent form: at least two digits, never
# padded beyond (repr: 1e-10, 1e-100, 1.5e+300).
for name, inp in [
    ("float-exp-minus-9", "1e-9"),
    ("float-exp-minus-10", "1e-10"),
    ("float-exp-minus-10-mantissa", "-1.5e-10"),
    ("float-exp-minus-99", "1e-99"),
    ("float-exp-minus-100", "1e-100"),
    ("float-exp-plus-100", "1.5e100"),
]:
    ok(N, name, inp, "The exponent has at least two digits and no more padding than that.",
       FLT, ["float", "exp-boundary"])

# --- strings ---------------------------------------------------------------

S = "strings"
SHORT = {0x08: "b", 0x09: "t", 0x0A: "n", 0x0C: "f", 0x0D: "r"}
for cp in range(0x20):
    kind = "a short escape" if cp in SHORT else "lowercase \\u00xx"
    ok(S, f"control-u{cp:04x}", f'"\\u{cp:04X}"',
       f"U+{cp:04X} given as an escape is written as {kind}.", ["C-STR-1"], ["control"])
for c, nm in [("b", "backspace"), ("f", "formfeed"), ("n", "newline"), ("r", "return"), ("t", "tab")]:
    ok(S, f"short-escape-{nm}", f'"a\\{c}b"', f"The short escape \\{c} is kept.", ["C-STR-1"], ["control"])
ok(S, "escape-quote", '"say \\"hi\\""', "A quote is escaped as \\\".", ["C-STR-1"])
ok(S, "escape-backslash", '"a\\\\b"', "A backslash is escaped as \\\\.", ["C-STR-1"])
ok(S, "escape-quote-as-u", '"\\u0022"', "A quote given as \\u0022 is written \\\".", ["C-STR-1"])
ok(S, "escape-backslash-as-u", '"\\u005C"', "A backslash given as \\u005C is written \\\\.", ["C-STR-1"])
ok(S, "escape-solidus", '"a\\/b"', "The escape \\/ reads as / and / is never escaped.", ["C-STR-2"])
ok(S, "raw-solidus", '"</script>"', "A raw / stays raw.", ["C-STR-2"])
ok(S, "escape-solidus-as-u", '"\\u002f"', "U+002F given as \\u002f is written raw.", ["C-STR-2"])
ok(S, "escape-upper-hex-control", '"\\u001F\\u001f"', "Upper- and lower-case hex read the same; output is lowercase.", ["C-STR-1"])
ok(S, "nul-in-middle", '"a\\u0000b"', "A NUL inside a string is written \\u0000.", ["C-STR-1"], ["control"])
ok(S, "all-controls", '"' + "".join(f"\\u{c:04x}" for c in range(0x20)) + '"',
   "All 32 control characters in one string.", ["C-STR-1"], ["control"])
ok(S, "escape-letter-a", '"\\u0041"', "\\u0041 is written as a raw A.", ["C-STR-2"])
ok(S, "escape-space", '"\\u0020"', "\\u0020 is written as a raw space.", ["C-STR-2"])
ok(S, "del-escaped", '"\\u007f"', "U+007F (DEL) is written raw, not escaped.", ["C-STR-2"])
ok(S, "del-raw", '"\x7f"', "A raw U+007F stays raw.", ["C-STR-2"])
ok(S, "c1-u0080", '"\\u0080"', "U+0080 (C1 control) is written raw.", ["C-STR-2"])
ok(S, "c1-u009f", '"\\u009f"', "U+009F (C1 control) is written raw.", ["C-STR-2"])
ok(S, "c1-raw", '"\u0085"', "A raw U+0085 (NEL) stays raw.", ["C-STR-2"])
ok(S, "e-acute-escaped", '"\\u00e9"', "\\u00e9 is written as raw é.", ["C-STR-2"])
ok(S, "e-acute-raw", '"é"', "A raw é stays raw.", ["C-STR-2"])
ok(S, "e-acute-nfd", '"e\u0301"', "A decomposed é (NFD) is kept as is, not normalised.", ["C-STR-2"], ["nfd"])
ok(S, "e-acute-nfd-escaped", '"e\\u0301"', "An escaped combining accent is written raw and not composed.", ["C-STR-2"], ["nfd"])
ok(S, "line-separator-escaped", '"\\u2028"', "U+2028 is written raw.", ["C-STR-2"])
ok(S, "paragraph-separator-escaped", '"\\u2029"', "U+2029 is written raw.", ["C-STR-2"])
ok(S, "line-separator-raw", '"a\u2028b\u2029c"', "Raw U+2028 and U+2029 stay raw.", ["C-STR-2"])
ok(S, "bom-inside-escaped", '"\\ufeff"', "U+FEFF inside a string is written raw.", ["C-STR-2"], ["bom"])
ok(S, "bom-inside-raw", '"\ufeffx"', "A raw U+FEFF inside a string stays raw.", ["C-STR-2"], ["bom"])
ok(S, "u-ffff", '"\\uffff"', "The noncharacter U+FFFF is a scalar value and is written raw.", ["C-STR-2"])
ok(S, "u-fffe", '"\\uFFFE"', "The noncharacter U+FFFE is written raw.", ["C-STR-2"])
ok(S, "u-e000", '"\\ue000"', "The private-use U+E000 is written raw.", ["C-STR-2"])
ok(S, "u-d7ff", '"\\ud7ff"', "U+D7FF, the last code point before the surrogates, is no surrogate: written raw.", ["C-STR-2", "C-STR-3"])
ok(S, "u-d7ff-then-pair-dbff-dc00", '"\\ud7ff\\udbff\\udc00"', "U+D7FF, then the pair of the last high and first low surrogate (U+10FC00).", ["C-STR-2", "C-STR-3"], ["astral"])
ok(S, "u-07ff-u-0800", '"\\u07ff\\u0800"', "The two-byte/three-byte UTF-8 boundary is written raw.", ["C-STR-2"])
ok(S, "astral-raw", '"😀"', "A raw astral character stays raw UTF-8.", ["C-STR-2"], ["astral"])
ok(S, "astral-pair", '"\\ud83d\\ude00"', "A surrogate-pair escape is written as the raw astral character.", ["C-STR-2"], ["astral"])
ok(S, "astral-pair-upper", '"\\uD83D\\uDE00"', "Upper-case surrogate-pair escapes read the same.", ["C-STR-2"], ["astral"])
ok(S, "astral-u10000", '"\\ud800\\udc00"', "U+10000, the first astral code point, from its pair.", ["C-STR-2"], ["astral"])
ok(S, "astral-u10ffff", '"\\udbff\\udfff"', "U+10FFFF, the last code point, from its pair.", ["C-STR-2"], ["astral"])
ok(S, "astral-u10ffff-raw", '"\U0010ffff"', "A raw U+10FFFF stays raw.", ["C-STR-2"], ["astral"])
ok(S, "astral-pairs-adjacent", '"\\ud83d\\ude00\\ud83d\\ude01😂"', "Adjacent pairs and raw astral characters mix.", ["C-STR-2"], ["astral"])
ok(S, "astral-mixed", '"a\\ud834\\udd1eb𝄞c"', "U+1D11E as a pair and raw gives the same bytes.", ["C-STR-2"], ["astral"])
ok(S, "empty", '""', "The empty string.", ["C-STR-2"])
ok(S, "cjk", '"日本語"', "CJK text stays raw.", ["C-STR-2"])
ok(S, "rtl", '"שלום مرحبا"', "Right-to-left text stays raw.", ["C-STR-2"])
ok(S, "zwj-sequence", '"👩\u200d💻"', "A zero-width-joiner emoji sequence stays raw.", ["C-STR-2"], ["astral"])
ok(S, "long-ascii", '"' + "abcdefghij" * 100 + '"', "A 1000-character string is copied.", ["C-STR-2"])
ok(S, "mixed-escapes", '"tab\\there\\nquote\\"slash\\/back\\\\uni\\u00fc\\ud83d\\ude00"',
   "Many escape classes in one string.", ["C-STR-1", "C-STR-2"])
ok(S, "string-in-array", '["\\n","\\u0001","é","\\/"]', "Each string in an array is written canonically.", ["C-STR-1", "C-STR-2"])

# --- keys ------------------------------------------------------------------

K = "keys"
ok(K, "two-reversed", '{"b":1,"a":2}', "Keys are sorted.", ["C-KEY-1"])
ok(K, "already-sorted", '{"a":1,"b":2,"c":3}', "Sorted keys stay sorted.", ["C-KEY-1"])
ok(K, "ten-reversed", "{" + ",".join(f'"k{i}":{i}' for i in range(9, -1, -1)) + "}",
   "Ten keys in reverse order are sorted.", ["C-KEY-1"])
ok(K, "numeric-strings", '{"10":1,"9":2,"1":3,"100":4}', "Numeric-looking keys sort as text, not numbers.", ["C-KEY-1"])
ok(K, "case", '{"a":1,"B":2,"_":3,"A":4,"b":5}', "Upper case sorts before underscore before lower case (code points).", ["C-KEY-1"])
ok(K, "prefix", '{"ab":1,"a":2,"aa":3,"":4}', "A prefix sorts before its extensions; the empty key first.", ["C-KEY-1"])
ok(K, "empty-key", '{"":1}', "The empty key is allowed.", ["C-KEY-1"])
ok(K, "control-key", '{" ":1,"\\u0001":2,"\\t":3}', "Control-character keys sort by code point and are escaped.", ["C-KEY-1", "C-STR-1"])
ok(K, "prefix-nul", '{"a\\u0000":1,"a":2}', "\"a\" sorts before \"a\\u0000\".", ["C-KEY-1", "C-STR-1"])
ok(K, "escaped-key-sorts-by-value", '{"\\u0062":1,"a":2}', "An escaped key sorts by its decoded value.", ["C-KEY-1", "C-STR-2"])
ok(K, "quote-backslash-keys", '{"\\\\":1,"\\"":2,"#":3}', "Keys with quote and backslash sort by code point and are escaped.", ["C-KEY-1", "C-STR-1"])
ok(K, "latin1-after-ascii", '{"z":1,"é":2,"~":3}', "é (U+00E9) sorts after z and ~.", ["C-KEY-1"])
ok(K, "del-vs-c1", '{"\\u0080":1,"\\u007f":2}', "U+007F sorts before U+0080 (one-byte vs two-byte UTF-8).", ["C-KEY-1"])
ok(K, "utf8-length-boundaries", '{"\\u0800":1,"\\u07ff":2,"\\uffff":3,"\\ud800\\udc00":4,"\\u0080":5,"\\u007f":6}',
   "Keys at every UTF-8 length boundary sort by code point.", ["C-KEY-1"], ["astral"])
ok(K, "astral-vs-halfwidth", '{"😀":1,"｡":2}', "U+FF61 sorts before U+1F600 (code point order, not UTF-16).", ["C-KEY-1"], ["astral", "jcs-differs"])
ok(K, "astral-vs-private-use", '{"😀":1,"\\ue000":2}', "U+E000 sorts before U+1F600 (code point order, not UTF-16).", ["C-KEY-1"], ["astral", "jcs-differs"])
ok(K, "astral-vs-ffff", '{"𐀀":1,"\\uffff":2}', "U+FFFF sorts before U+10000.", ["C-KEY-1"], ["astral", "jcs-differs"])
ok(K, "astral-escaped-vs-bmp", '{"\\ud83d\\ude00":1,"\\uff61":2,"\\ue000":3,"a":4}',
   "Escaped astral and BMP keys sort by code point.", ["C-KEY-1"], ["astral", "jcs-differs"])
ok(K, "astral-order", '{"😂":1,"😀":2,"𝄞":3}', "Astral keys sort among themselves by code point.", ["C-KEY-1"], ["astral"])
ok(K, "nfc-vs-nfd", '{"\u00e9":1,"e\u0301":2}', "NFC and NFD spellings are distinct keys, kept and sorted by code point.", ["C-KEY-1"], ["nfd"])
ok(K, "nfc-vs-nfd-escaped", '{"\\u00e9":1,"\\u0065\\u0301":2}', "Escaped NFC and NFD keys are distinct and not normalised.", ["C-KEY-1"], ["nfd"])
ok(K, "case-distinct", '{"a":1,"A":2}', "Keys differing only in case are distinct.", ["C-KEY-1"])
ok(K, "scripts", '{"日":1,"я":2,"α":3,"a":4}', "Latin, Greek, Cyrillic and CJK keys sort by code point.", ["C-KEY-1"])
ok(K, "nested-sorted", '{"b":{"d":1,"c":2},"a":{"f":3,"e":4}}', "Keys are sorted at every level.", ["C-KEY-1"])
ok(K, "objects-in-array", '[{"b":1,"a":2},{"d":3,"c":4}]', "Objects inside arrays are sorted; the array order is kept.", ["C-KEY-1"])
ok(K, "array-not-sorted", '{"a":[3,1,2]}', "Array elements are never sorted.", ["C-KEY-1"])
ok(K, "twenty-keys", "{" + ",".join(f'"k{i:02d}":{i}' for i in (7, 3, 19, 0, 11, 15, 2, 18, 5, 9, 13, 1, 17, 6, 10, 14, 4, 8, 12, 16)) + "}",
   "Twenty distinct keys (beyond small-object shortcuts) are sorted.", ["C-KEY-1"])
ok(K, "sixty-keys", "{" + ",".join(f'"{chr(0x61 + (i * 7) % 26)}{i}":{i}' for i in range(60)) + "}",
   "Sixty distinct keys are all kept and sorted.", ["C-KEY-1"])
ok(K, "key-with-surrogate-pair-and-raw", '{"x\\ud83d\\ude00":1,"x😁":2}', "Astral keys given as a pair and raw sort by code point.", ["C-KEY-1", "C-STR-2"], ["astral"])
ok(K, "event-envelope", '{"type":"x","sequence":0,"session_id":"s","provenance":{"run_id":"r"},"payload":{},"event_id":"e0"}',
   "A journal event's keys are sorted like any other object.", ["C-KEY-1"])

# --- structure ---------------------------------------------------------------

T = "structure"
ok(T, "true", "true", "true is written true.", ["C-LIT-1"])
ok(T, "false", "false", "false is written false.", ["C-LIT-1"])
ok(T, "null", "null", "null is written null.", ["C-LIT-1"])
ok(T, "literals-in-array", "[true,false,null]", "Literals inside an array.", ["C-LIT-1"])
ok(T, "top-level-string", '"x"', "A top-level string is a JSON text.", ["C-SYNTAX-1"])
ok(T, "top-level-number", "7", "A top-level number is a JSON text.", ["C-SYNTAX-1"])
ok(T, "empty-array", "[]", "The empty array.", ["C-WS-1"])
ok(T, "empty-object", "{}", "The empty object.", ["C-WS-1"])
ok(T, "empty-array-spaces", "[ \n\t ]", "Whitespace inside an empty array is dropped.", ["C-WS-1"])
ok(T, "empty-object-spaces", "{ \r\n }", "Whitespace inside an empty object is dropped.", ["C-WS-1"])
ok(T, "nested-empties", "[[],{},[[]],[{}],{\"a\":[]},{\"b\":{}}]", "Empty containers nested in others.", ["C-WS-1"])
ok(T, "whitespace-everywhere", ' \t\n\r{ "a" : [ 1 , 2 , { "b" : null } ] , "c" : "d" } \r\n\t ',
   "All four JSON whitespace characters around every token are dropped.", ["C-WS-1"])
ok(T, "leading-trailing-newline", "\n[1]\n", "Surrounding newlines are dropped.", ["C-WS-1"])
ok(T, "crlf-whitespace", "{\r\n\"a\":1\r\n}\r\n", "CR LF between tokens is whitespace.", ["C-WS-1"])
ok(T, "spaces-in-string-kept", '{ "a b" : " c d " }', "Spaces inside strings are kept, between tokens dropped.", ["C-WS-1"])
ok(T, "mixed-array", '[1,"two",3.0,true,null,{"six":6},[7]]', "An array of every kind of value.", ["C-WS-1", "C-NUM-5"])
ok(T, "event-like", '{"event_id":"e1","session_id":"s","sequence":1,"type":"model.response",'
   '"payload":{"content":"héllo 😀\\n","tokens":12,"score":0.5,"final":true,"tags":[]},'
   '"provenance":{"run_id":"r"}}', "A realistic event object.", ["C-KEY-1", "C-WS-1", "C-NUM-5"])
for n in (1, 2, 64, 127, 128):
    ok(T, f"arrays-depth-{n}", "[" * n + "]" * n, f"{n} nested arrays are admitted.", ["C-DEPTH-1"], ["depth"])
ok(T, "objects-depth-128", '{"a":' * 127 + "{}" + "}" * 127, "128 nested objects are admitted.", ["C-DEPTH-1"], ["depth"])
ok(T, "mixed-depth-128", '[{"a":' * 64 + "0" + "}]" * 64, "128 alternating arrays and objects are admitted.", ["C-DEPTH-1"], ["depth"])
ok(T, "arrays-depth-128-with-value", "[" * 128 + '"deep"' + "]" * 128, "A scalar inside 128 arrays is at depth 128, admitted.", ["C-DEPTH-1"], ["depth"])
ok(T, "arrays-depth-128-spaced", "[ " * 128 + "]\n" * 128, "128 nested arrays with whitespace are admitted.", ["C-DEPTH-1", "C-WS-1"], ["depth"])
ok(T, "wide-array", "[" + ",".join(str(i) for i in range(1000)) + "]", "A 1000-element array keeps its order.", ["C-WS-1"])
ok(T, "siblings-not-depth", "[" + ",".join(["[[[]]]"] * 100) + "]", "Many sibling containers do not add to the depth.", ["C-DEPTH-1"], ["depth"])

# --- rejected ------------------------------------------------------------------

R = "rejected"
PY = "python-accepts"
# syntax (C-SYNTAX-1)
for name, inp, desc, tags in [
    ("nan", "NaN", "NaN is not JSON.", [PY]),
    ("nan-in-array", "[1,NaN]", "NaN inside an array is not JSON.", [PY]),
    ("infinity", "Infinity", "Infinity is not JSON.", [PY]),
    ("minus-infinity", "-Infinity", "-Infinity is not JSON.", [PY]),
    ("infinity-member", '{"a":Infinity}', "Infinity as a member value is not JSON.", [PY]),
    ("empty-input", "", "An empty input holds no JSON value.", []),
    ("whitespace-only", " \n\t", "Whitespace alone holds no JSON value.", []),
    ("trailing-text", "1 2", "Two values in one text are rejected.", []),
    ("trailing-garbage-after-object", '{"a":1}x', "Text after the value is rejected.", []),
    ("trailing-comma-array", "[1,]", "A trailing comma in an array is rejected.", []),
    ("trailing-comma-object", '{"a":1,}', "A trailing comma in an object is rejected.", []),
    ("missing-comma", "[1 2]", "Array elements need a comma.", []),
    ("missing-colon", '{"a" 1}', "A member needs a colon.", []),
    ("unquoted-key", "{a:1}", "Keys must be strings.", []),
    ("number-key", "{1:1}", "Keys must be strings, not numbers.", []),
    ("single-quotes", "'a'", "Single-quoted strings are not JSON.", []),
    ("leading-zero", "01", "A leading zero is not JSON.", []),
    ("minus-leading-zero", "-01", "A leading zero after a minus is not JSON.", []),
    ("leading-plus", "+1", "A leading plus is not JSON.", []),
    ("bare-minus", "-", "A minus without digits is not JSON.", []),
    ("trailing-dot", "1.", "A fraction needs digits.", []),
    ("leading-dot", ".5", "A number must start with a digit.", []),
    ("empty-exponent", "1e", "An exponent needs digits.", []),
    ("exponent-sign-only", "1e+", "An exponent sign needs digits.", []),
    ("hex-number", "0x10", "Hexadecimal numbers are not JSON.", []),
    ("true-capital", "True", "Literals are lower case.", []),
    ("truncated-null", "nul", "A truncated literal is rejected.", []),
    ("unterminated-string", '"abc', "An unterminated string is rejected.", []),
    ("unterminated-array", "[1,2", "An unterminated array is rejected.", []),
    ("unterminated-object", '{"a":1', "An unterminated object is rejected.", []),
    ("raw-newline-in-string", '"a\nb"', "A raw newline inside a string is rejected.", []),
    ("raw-tab-in-string", '"a\tb"', "A raw tab inside a string is rejected.", []),
    ("raw-nul-in-string", '"a\x00b"', "A raw NUL inside a string is rejected.", []),
    ("invalid-escape", '"\\x41"', "\\x is not a JSON escape.", []),
    ("upper-u-escape", '"\\U0041"', "\\U is not a JSON escape.", []),
    ("short-u-escape", '"\\u12"', "A \\u escape needs four hex digits.", []),
    ("non-hex-u-escape", '"\\u00g0"', "A \\u escape needs hex digits.", []),
    ("comment", "[1]//c", "Comments are not JSON.", []),
    ("bom-after-space", " \ufeff[]", "U+FEFF after leading whitespace is not whitespace.", []),
    ("nbsp-whitespace", "[1,\u00a02]", "No-break space is not JSON whitespace.", []),
    ("vertical-tab-whitespace", "[1,\x0b2]", "Vertical tab is not JSON whitespace.", []),
    ("line-separator-whitespace", "[1,\u20282]", "U+2028 is not JSON whitespace.", []),
]:
    bad(R, name, inp, "invalid_json", desc, ["C-SYNTAX-1"], ["syntax"] + tags)
bad(R, "high-surrogate-then-bad-escape", '"\\ud800\\u00zz"', "lone_surrogate",
    "A high surrogate not followed by a complete low-surrogate escape is lone, even when a malformed escape follows.",
    ["C-STR-3"], ["syntax"], python_sees="invalid_json")
bad(R, "high-surrogate-then-short-escape", '"\\ud800\\u12"', "lone_surrogate",
    "A high surrogate followed by a truncated escape is lone.", ["C-STR-3"], ["syntax"], python_sees="invalid_json")
# duplicate keys (C-KEY-2)
for name, inp, desc in [
    ("duplicate-key", '{"a":1,"a":2}', "The same key twice is rejected."),
    ("duplicate-key-same-value", '{"a":1,"a":1}', "A duplicate key is rejected even with an equal value."),
    ("duplicate-key-seed-example", '{"b":1,"a":2,"b":3}', "A duplicate key separated by another member is rejected."),
    ("duplicate-key-escaped", '{"a":1,"\\u0061":2}', "Keys equal after unescaping are duplicates."),
    ("duplicate-key-astral-pair", '{"😀":1,"\\ud83d\\ude00":2}', "A raw astral key and its pair escape are duplicates."),
    ("duplicate-key-nested", '{"x":{"a":1,"a":2}}', "A duplicate in a nested object is rejected."),
    ("duplicate-key-in-array", '[{"a":1},{"b":1,"b":2}]', "A duplicate in an object inside an array is rejected."),
    ("duplicate-empty-key", '{"":1,"":2}', "The empty key twice is rejected."),
    ("duplicate-key-late-in-large-object", "{" + ",".join(f'"k{i}":{i}' for i in range(40)) + ',"k3":0}',
     "A duplicate after forty members is rejected."),
]:
    bad(R, name, inp, "duplicate_key", desc, ["C-KEY-2"], ["duplicate-key", PY])
# lone surrogates (C-STR-3)
for name, inp, desc in [
    ("lone-high-surrogate", '"\\ud800"', "A lone high surrogate escape is rejected."),
    ("lone-high-surrogate-upper", '"\\uD83D"', "A lone high surrogate in upper-case hex is rejected."),
    ("lone-low-surrogate", '"\\udc00"', "A lone low surrogate escape is rejected."),
    ("lone-low-surrogate-max", '"\\udfff"', "The last low surrogate alone is rejected."),
    ("lone-high-surrogate-max", '"\\udbff"', "The last high surrogate alone is rejected."),
    ("high-surrogate-max-then-d7ff", '"\\udbff\\ud7ff"', "The last high surrogate followed by U+D7FF (no low surrogate) is rejected."),
    ("high-surrogate-then-text", '"\\ud83dx"', "A high surrogate followed by a plain character is rejected."),
    ("high-surrogate-then-bmp-escape", '"\\ud83d\\u0041"', "A high surrogate followed by a non-surrogate escape is rejected."),
    ("high-surrogate-twice", '"\\ud83d\\ud83d"', "Two high surrogates are rejected."),
    ("reversed-pair", '"\\ude00\\ud83d"', "A low surrogate before a high one is rejected."),
    ("high-surrogate-at-end", '"abc\\ud800"', "A high surrogate at the end of a string is rejected."),
    ("lone-surrogate-in-key", '{"\\ud800":1}', "A lone surrogate in a key is rejected."),
]:
    bad(R, name, inp, "lone_surrogate", desc, ["C-STR-3"], ["surrogate", PY])
# numbers out of range (C-NUM-3, C-NUM-6)
bad(R, "int-4301-digits", "1" + "0" * 4300, "number_out_of_range", "An integer of 4301 digits is rejected.", ["C-NUM-3"], ["integer"])
bad(R, "int-4301-nines", "9" * 4301, "number_out_of_range", "An integer of 4301 nines is rejected.", ["C-NUM-3"], ["integer"])
bad(R, "int-minus-4301-digits", "-" + "9" * 4301, "number_out_of_range", "A negative integer of 4301 digits is rejected.", ["C-NUM-3"], ["integer"])
bad(R, "int-4301-digits-nested", '{"a":[' + "7" * 4301 + "]}", "number_out_of_range", "A nested 4301-digit integer is rejected.", ["C-NUM-3"], ["integer"])
for name, inp, desc in [
    ("float-1e400", "1E400", "1E400 overflows a double."),
    ("float-1e400-lower", "1e400", "1e400 overflows a double."),
    ("float-minus-1e400", "-1e400", "-1e400 overflows a double."),
    ("float-1e309", "1e309", "1e309 overflows a double."),
    ("float-just-overflows", "1.7976931348623159e308", "The first 17-digit spelling past the rounding threshold overflows."),
    ("float-overflow-positional", "1" + "0" * 309 + ".0", "A 310-digit positional float overflows."),
    ("float-overflow-nested", '{"a":[1.0,2e308]}', "A nested overflowing float is rejected."),
]:
    bad(R, name, inp, "number_out_of_range", desc, ["C-NUM-6"], ["float", PY])
# depth (C-DEPTH-1)
bad(R, "arrays-depth-129", "[" * 129 + "]" * 129, "nesting_too_deep", "129 nested arrays are rejected.", ["C-DEPTH-1"], ["depth"])
bad(R, "objects-depth-129", '{"a":' * 128 + "{}" + "}" * 128, "nesting_too_deep", "129 nested objects are rejected.", ["C-DEPTH-1"], ["depth"])
bad(R, "mixed-depth-129", '[{"a":' * 64 + "[]" + "}]" * 64, "nesting_too_deep", "129 alternating containers are rejected.", ["C-DEPTH-1"], ["depth"])
bad(R, "arrays-depth-200", "[" * 200 + "]" * 200, "nesting_too_deep", "200 nested arrays are rejected.", ["C-DEPTH-1"], ["depth"])
# UTF-8 (W-UTF8-1)
for name, data, desc in [
    ("utf8-ff", b'"\xff"', "The byte 0xFF never occurs in UTF-8."),
    ("utf8-overlong-slash", b'"\xc0\xaf"', "An overlong encoding of / is invalid UTF-8."),
    ("utf8-encoded-surrogate", b'"\xed\xa0\x80"', "A UTF-8-encoded surrogate (CESU-8) is invalid UTF-8."),
    ("utf8-truncated", b'"\xe6\x97"', "A truncated three-byte sequence is invalid UTF-8."),
    ("utf8-lone-continuation", b'"\x80"', "A lone continuation byte is invalid UTF-8."),
    ("utf8-above-10ffff", b'"\xf4\x90\x80\x80"', "A code point above U+10FFFF is invalid UTF-8."),
    ("utf8-outside-string", b"[1,\xff]", "Invalid UTF-8 between tokens is rejected as UTF-8 first."),
    ("utf8-latin1", b'{"caf\xe9":1}', "Latin-1 text is invalid UTF-8."),
]:
    bad(R, name, data, "invalid_utf8", desc, ["W-UTF8-1"], ["utf8"])
# BOM (W-BOM-1)
bad(R, "bom-object", b"\xef\xbb\xbf{}", "unexpected_bom", "A leading UTF-8 BOM is rejected.", ["W-BOM-1"], ["bom"])
bad(R, "bom-number", b"\xef\xbb\xbf1", "unexpected_bom", "A leading BOM before a number is rejected.", ["W-BOM-1"], ["bom"])
bad(R, "bom-twice", b"\xef\xbb\xbf\xef\xbb\xbf[]", "unexpected_bom", "Two leading BOMs are rejected at the first.", ["W-BOM-1"], ["bom"])


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------


def render(cases):
    return json.dumps({"cases": cases}, indent=2, ensure_ascii=False) + "\n"


def main(argv):
    check = "--check" in argv[1:]
    stale = []
    total = 0
    for stem, cases in FILES.items():
        path = os.path.join(HERE, stem + ".json")
        data = render(cases).encode("utf-8")
        total += len(cases)
        if check:
            try:
                with open(path, "rb") as f:
                    if f.read() != data:
                        stale.append(path)
            except FileNotFoundError:
                stale.append(path)
        else:
            with open(path, "wb") as f:
                f.write(data)
        print(f"{stem}.json: {len(cases)} cases", file=sys.stderr)
    print(f"total: {total} cases", file=sys.stderr)
    if stale:
        print("out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
