#!/bin/sh
# workerd for the ingest CLI's local bindings, ending with the process that
# started it (MINIFLARE_WORKERD_PATH points here; see cli/local-env.ts).
# Node cannot set PR_SET_PDEATHSIG, and a SIGKILLed parent runs no cleanup:
# a watcher started beside workerd checks every second that workerd's parent
# is still the process that started it (a dead parent's children are handed
# to init at once, even while it is an unreaped zombie) and kills workerd
# when it is not. `exec` keeps workerd's pid and the pipes miniflare gave it
# (stdin, stdout, stderr, the control fd 3).
parent=$PPID
self=$$
(
  exec 0</dev/null 1>/dev/null 2>/dev/null 3>&-
  while [ "$(ps -o ppid= -p "$self" 2>/dev/null | tr -d ' ')" = "$parent" ]; do sleep 1; done
  kill -9 "$self" 2>/dev/null
) &
exec "$ALMANAC_WORKERD" "$@"
