#!/usr/bin/env python3
"""Plants helper processes that escape a process-group kill, then becomes the adapter.

Usage: escape.py KIND[,KIND...] -- CMD [ARG...]

Each KIND starts one helper, then this process execs CMD (same pid: the adapter the kit
started, in persistent or one-shot mode; one-shot arguments follow CMD). Every helper
ignores SIGTERM and SIGHUP, closes the adapter's pipes, writes its pid to FAKE_PIDFILE
(one line) before CMD starts, and sleeps:

- setsid: a child that calls setsid() (its own session and group); its parent, the
  adapter, stays alive;
- daemon: the classic daemon (fork, setsid, fork, the middle process exits): an orphan
  in its own session, reparented away from the adapter at once;
- daemon-noenv: the same, then it execs `sleep` with an empty environment.
"""
import os
import signal
import sys

kinds = sys.argv[1].split(",")
assert sys.argv[2] == "--", sys.argv
cmd = sys.argv[3:]
pidfile = os.environ["FAKE_PIDFILE"]


def become_helper(ready_w, noenv):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    with open(pidfile, "a") as f:
        f.write("%d\n" % os.getpid())
    os.write(ready_w, b"x")
    os.close(ready_w)
    if noenv:
        os.execve("/bin/sleep", ["sleep", "1000"], {})
    while True:
        signal.pause()


for kind in kinds:
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        os.setsid()
        if kind == "setsid":
            become_helper(w, False)
        assert kind in ("daemon", "daemon-noenv"), kind
        if os.fork() != 0:
            os._exit(0)  # the middle process: the helper is orphaned
        become_helper(w, kind == "daemon-noenv")
    os.close(w)
    # Wait until the helper has written its pid (EOF on an early death fails below).
    assert os.read(r, 1) == b"x", "the %s helper died before it was ready" % kind
    os.close(r)
    if kind != "setsid":
        os.waitpid(pid, 0)  # reap the middle process

os.execvp(cmd[0], cmd)
