#!/usr/bin/env bash
# Fetches the ScrapingHub article-extraction-benchmark (181 article pages with hand-made
# ground truth) into .bench-data/aeb/ for `npm run bench:quality`.
#
#   scripts/fetch-aeb.sh [SOURCE]
#
# SOURCE is a git URL or a local git directory (default: the public repository).
# Only ground-truth.json, html/, README.rst and LICENSE are written: the other
# extractors' outputs (output/) and their code are not what the benchmark scores.
# The clone is bare and files come out through `git archive` of the named paths.
# Running it again is a no-op when the data is already at the source's commit.
set -euo pipefail

SOURCE="${1:-https://github.com/scrapinghub/article-extraction-benchmark.git}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$REPO_ROOT/.bench-data/aeb"
PATHS=(ground-truth.json html README.rst LICENSE)

# git ignores --depth for a plain local path; a file:// URL makes the clone shallow.
if [[ -d "$SOURCE" ]]; then
  SOURCE="file://$(cd "$SOURCE" && pwd)"
fi

commit="$(git ls-remote "$SOURCE" HEAD | cut -f1)"
if [[ -z "$commit" ]]; then
  echo "fetch-aeb: no HEAD at $SOURCE" >&2
  exit 1
fi
if [[ -f "$DEST/COMMIT" && "$(cat "$DEST/COMMIT")" == "$commit" ]]; then
  echo "fetch-aeb: $DEST already holds the benchmark at $commit; nothing to do"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# Without blobs, then a sparse checkout of the named paths: the other extractors' outputs (output/) are most of
# the repository's bytes, and checkout fetches the blobs it needs in one request. A local source serves the
# filter and those blobs only when its upload-pack is told to allow them (a hosted one allows them already, and
# ignores --upload-pack).
echo "fetch-aeb: shallow clone of $SOURCE, without blobs"
UPLOAD_PACK="git -c uploadpack.allowFilter=true -c uploadpack.allowAnySHA1InWant=true upload-pack"
git clone --quiet --no-checkout --depth 1 --filter=blob:none --upload-pack="$UPLOAD_PACK" "$SOURCE" "$tmp/repo"
git -C "$tmp/repo" config remote.origin.uploadpack "$UPLOAD_PACK"
git -C "$tmp/repo" sparse-checkout set --no-cone "${PATHS[@]/#//}"
git -C "$tmp/repo" checkout --quiet

# Build the new copy next to the old one, then swap, so a failed run leaves the old copy whole.
staging="$DEST.new"
rm -rf "$staging"
mkdir -p "$staging"
for name in "${PATHS[@]}"; do cp -R "$tmp/repo/$name" "$staging/"; done
git -C "$tmp/repo" rev-parse HEAD >"$staging/COMMIT"

rm -rf "$DEST"
mv "$staging" "$DEST"
pages="$(find "$DEST/html" -name '*.html.gz' | wc -l)"
truths="$(node -e 'console.log(Object.keys(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))).length)' "$DEST/ground-truth.json")"
echo "fetch-aeb: wrote $DEST at $(cat "$DEST/COMMIT"): $pages pages, $truths ground truths, README.rst, LICENSE"
