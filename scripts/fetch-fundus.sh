#!/usr/bin/env bash
# Fetches fundus' parser test pages (news articles in some thirty countries, most not in English, each with
# the text its site's parser reads) into .bench-data/fundus/ for `npm run bench:quality`.
#
#   scripts/fetch-fundus.sh [SOURCE]
#
# SOURCE is a git URL or a local git directory (default: the public repository).
# Only tests/resources/parser/test_data/ is read, through `git archive` of a bare clone. Each country folder
# holds <Publisher>_<YYYY_MM_DD>.html.gz pages, one <Publisher>.json of truths (one entry per parser version,
# V1, V1_1, ..., in the pages' date order) and meta.info (each page's address). scripts/fundus-pairs.mjs pairs
# them and writes html/<country>_<Publisher>_<date>.html.gz and truths.json: {id: {country, publisher, url,
# title, authors, publishedTime, body}}, the body being the summary, then each section's headline and
# paragraphs, blank-line separated (the title is left out, as every set's truth does). A publisher whose
# count of pages and truths differ is left out, with a line saying so. Running it again is a no-op when the
# data is already at the source's commit.
set -euo pipefail

SOURCE="${1:-https://github.com/flairNLP/fundus.git}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$REPO_ROOT/.bench-data/fundus"
DATA=tests/resources/parser/test_data

# git ignores --depth for a plain local path; a file:// URL makes the clone shallow.
if [[ -d "$SOURCE" ]]; then
  SOURCE="file://$(cd "$SOURCE" && pwd)"
fi

commit="$(git ls-remote "$SOURCE" HEAD | cut -f1)"
if [[ -z "$commit" ]]; then
  echo "fetch-fundus: no HEAD at $SOURCE" >&2
  exit 1
fi
if [[ -f "$DEST/COMMIT" && "$(cat "$DEST/COMMIT")" == "$commit" ]]; then
  echo "fetch-fundus: $DEST already holds the pages at $commit; nothing to do"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch-fundus: shallow bare clone of $SOURCE"
git clone --quiet --bare --depth 1 "$SOURCE" "$tmp/repo.git"
mkdir -p "$tmp/raw"
git --git-dir="$tmp/repo.git" archive HEAD "$DATA" LICENSE | tar -x -C "$tmp/raw"

# Build the new copy next to the old one, then swap, so a failed run leaves the old copy whole.
staging="$DEST.new"
rm -rf "$staging"
mkdir -p "$staging/html"
node "$REPO_ROOT/scripts/fundus-pairs.mjs" "$tmp/raw/$DATA" "$staging"
cp "$tmp/raw/LICENSE" "$staging/LICENSE"
git --git-dir="$tmp/repo.git" rev-parse HEAD >"$staging/COMMIT"

rm -rf "$DEST"
mv "$staging" "$DEST"
pages="$(find "$DEST/html" -name '*.html.gz' | wc -l)"
echo "fetch-fundus: wrote $DEST at $(cat "$DEST/COMMIT"): $pages pages with their truths (truths.json), LICENSE"
