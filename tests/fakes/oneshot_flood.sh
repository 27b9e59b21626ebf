#!/usr/bin/env bash
# A one-shot adapter that floods stdout and never exits (`exec yes`).
exec yes
