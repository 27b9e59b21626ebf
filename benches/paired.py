#!/usr/bin/env python3
"""Paired timing of two or more kit binaries on one journal, in one run.

    python3 benches/paired.py BIN1,BIN2 "fingerprint --profile core,validate --profile core" FILE [ROUNDS]

Each round runs `openssl dgst -sha256 FILE`, then every command with every binary in turn,
so the binaries share the machine's speed of the moment (on a shared machine it changes by
half from one hour to the next, so only the pairs of one run compare). Prints, per command
and binary, the median wall time, its ratio to openssl's median, and the median CPU time
(user + system of the child). Standard library only.
"""
import os
import resource
import statistics
import subprocess
import sys
import time


def timed(argv):
    """Wall and CPU (user + system) seconds of one child, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def main():
    bins = sys.argv[1].split(",")
    cmds = [c.split() for c in sys.argv[2].split(",")]
    path = sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 7
    res = {}
    for _ in range(rounds):
        res.setdefault("openssl", []).append(timed(["openssl", "dgst", "-sha256", path])[0])
        for c in cmds:
            for b in bins:
                res.setdefault((os.path.basename(b), " ".join(c)), []).append(timed([b] + c + [path]))
    anchor = statistics.median(res.pop("openssl"))
    print("openssl %.3f" % anchor)
    for (binary, cmd), v in res.items():
        wall = statistics.median(x[0] for x in v)
        cpu = statistics.median(x[1] for x in v)
        print("%-32s %-16s wall %.3f %.2fx cpu %.3f" % (cmd, binary, wall, wall / anchor, cpu))


if __name__ == "__main__":
    main()
