#!/usr/bin/env bash
# A one-shot adapter that leaves a background helper holding its stdout open, then
# answers through the Python example and exits: it is judged by its exit. The helper's
# pid goes to $FAKE_PIDFILE.
sleep 300 &
[ -n "${FAKE_PIDFILE:-}" ] && echo $! >> "$FAKE_PIDFILE"
python3 "$(dirname "$0")/../../examples/python/adapter.py" "$@"
