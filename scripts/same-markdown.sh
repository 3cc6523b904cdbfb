#!/usr/bin/env bash
# Compares two dumps of `npm run bench:quality` (WEBJOBS_BENCH_DUMP=dir) page by page: the guard for a change of
# main content that must not change its output (a restructuring), or that must change only the pages it names.
#
#   WEBJOBS_BENCH_PEER=0 WEBJOBS_BENCH_ENGINE=http WEBJOBS_BENCH_DUMP=/tmp/before npm run bench:quality   # on main
#   WEBJOBS_BENCH_PEER=0 WEBJOBS_BENCH_ENGINE=http WEBJOBS_BENCH_DUMP=/tmp/after npm run bench:quality    # on the change
#   scripts/same-markdown.sh /tmp/before /tmp/after
#
# Each run serves the pages on a port of its own: the loopback address is read as one. Lists each page whose
# Markdown differs (or that one dump lacks), and exits 1 when any does.
set -euo pipefail
if [[ $# -ne 2 || ! -d "$1" || ! -d "$2" ]]; then
  echo "usage: scripts/same-markdown.sh BEFORE_DIR AFTER_DIR (two WEBJOBS_BENCH_DUMP directories)" >&2
  exit 2
fi
before="$1"
after="$2"
normalise() { sed -E 's#127\.0\.0\.1:[0-9]+#127.0.0.1:PORT#g' "$1"; }
compared=0
differ=0
while IFS= read -r page; do
  compared=$((compared + 1))
  if [[ ! -f "$after/$page" ]]; then
    echo "only before: $page"
    differ=$((differ + 1))
  elif ! cmp -s <(normalise "$before/$page") <(normalise "$after/$page"); then
    echo "differs: $page"
    differ=$((differ + 1))
  fi
done < <(cd "$before" && find . -name '*.md' | sed 's#^\./##' | sort)
while IFS= read -r page; do
  [[ -f "$before/$page" ]] || { echo "only after: $page"; differ=$((differ + 1)); }
done < <(cd "$after" && find . -name '*.md' | sed 's#^\./##' | sort)
echo "same-markdown: $compared pages compared, $differ differ"
[[ $differ -eq 0 ]]
