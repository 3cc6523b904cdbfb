#!/usr/bin/env bash
# Fetches the development split of WCXB, the Web Content eXtraction Benchmark, into
# .bench-data/wcxb/ for `npm run bench:quality`.
#
#   scripts/fetch-wcxb.sh [SOURCE]
#
# SOURCE is a git URL or a local git directory (default: the public repository).
# Only dev/, metadata.json (its dev entries), README.md, LICENSE and evaluate.py are
# written. The held-out test split must stay unseen by anyone tuning extraction, so
# the clone is bare (no work tree) and files come out through `git archive` of the
# named paths only: test/ never lands on disk. Running it again is a no-op when the
# data is already at the source's commit.
set -euo pipefail

SOURCE="${1:-https://github.com/Murrough-Foley/web-content-extraction-benchmark.git}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$REPO_ROOT/.bench-data/wcxb"
PATHS=(dev README.md LICENSE evaluate.py)

# git ignores --depth for a plain local path; a file:// URL makes the clone shallow.
if [[ -d "$SOURCE" ]]; then
  SOURCE="file://$(cd "$SOURCE" && pwd)"
fi

commit="$(git ls-remote "$SOURCE" HEAD | cut -f1)"
if [[ -z "$commit" ]]; then
  echo "fetch-wcxb: no HEAD at $SOURCE" >&2
  exit 1
fi
if [[ -f "$DEST/COMMIT" && "$(cat "$DEST/COMMIT")" == "$commit" ]]; then
  echo "fetch-wcxb: $DEST already holds the dev split at $commit; nothing to do"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch-wcxb: shallow bare clone of $SOURCE"
git clone --quiet --bare --depth 1 "$SOURCE" "$tmp/repo.git"

# Build the new copy next to the old one, then swap, so a failed run leaves the old copy whole.
staging="$DEST.new"
rm -rf "$staging"
mkdir -p "$staging"
git --git-dir="$tmp/repo.git" archive HEAD "${PATHS[@]}" | tar -x -C "$staging"
# metadata.json lists both splits; keep the dev entries only.
git --git-dir="$tmp/repo.git" show HEAD:metadata.json | node -e '
  let raw = "";
  process.stdin.on("data", (chunk) => (raw += chunk));
  process.stdin.on("end", () => {
    const meta = JSON.parse(raw);
    meta.files = Object.fromEntries(Object.entries(meta.files).filter(([, f]) => f.split === "dev"));
    meta.splits = { dev: meta.splits.dev };
    process.stdout.write(JSON.stringify(meta, null, 2) + "\n");
  });' >"$staging/metadata.json"
git --git-dir="$tmp/repo.git" rev-parse HEAD >"$staging/COMMIT"

rm -rf "$DEST"
mv "$staging" "$DEST"
pages="$(find "$DEST/dev/html" -name '*.html.gz' | wc -l)"
truths="$(find "$DEST/dev/ground-truth" -name '*.json' | wc -l)"
echo "fetch-wcxb: wrote $DEST at $(cat "$DEST/COMMIT"): $pages pages, $truths ground-truth files, metadata.json (dev only), README.md, LICENSE, evaluate.py"
