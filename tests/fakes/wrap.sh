#!/usr/bin/env bash
# Runs its arguments as a CHILD (not exec), the way `npm run` or `npx tsx` put the real
# adapter one level down: the runner must end the grandchild too.
"$@"
status=$?
echo "wrap.sh: the adapter exited with $status" >&2
exit $status
