#!/usr/bin/env bash
# A one-shot adapter that keeps printing a little, forever: the timeout must fire anyway.
while true; do printf 'x'; sleep 0.01; done
