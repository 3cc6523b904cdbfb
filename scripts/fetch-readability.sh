#!/usr/bin/env bash
# Fetches the test pages of Mozilla's Readability (real pages, each with the article its reader view shows)
# into .bench-data/readability/ for `npm run bench:quality`.
#
#   scripts/fetch-readability.sh [SOURCE]
#
# SOURCE is a git URL or a local git directory (default: the public repository).
# Only test/test-pages/<case>/source.html, expected.html and expected-metadata.json are read, through
# `git archive` of a bare clone, and written as html/<case>.html.gz, expected/<case>.html and
# metadata/<case>.json, with LICENSE.md. Every case is written; bench:quality scores those whose expected
# text is not English, the language told from that text (bench/language.ts), never from a lang attribute.
# Running it again is a no-op when the data is already at the source's commit.
set -euo pipefail

SOURCE="${1:-https://github.com/mozilla/readability.git}"
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DEST="$REPO_ROOT/.bench-data/readability"
PAGES=test/test-pages

# git ignores --depth for a plain local path; a file:// URL makes the clone shallow.
if [[ -d "$SOURCE" ]]; then
  SOURCE="file://$(cd "$SOURCE" && pwd)"
fi

commit="$(git ls-remote "$SOURCE" HEAD | cut -f1)"
if [[ -z "$commit" ]]; then
  echo "fetch-readability: no HEAD at $SOURCE" >&2
  exit 1
fi
if [[ -f "$DEST/COMMIT" && "$(cat "$DEST/COMMIT")" == "$commit" ]]; then
  echo "fetch-readability: $DEST already holds the pages at $commit; nothing to do"
  exit 0
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "fetch-readability: shallow bare clone of $SOURCE"
git clone --quiet --bare --depth 1 "$SOURCE" "$tmp/repo.git"
mkdir -p "$tmp/raw"
git --git-dir="$tmp/repo.git" archive HEAD "$PAGES" LICENSE.md | tar -x -C "$tmp/raw"

# Build the new copy next to the old one, then swap, so a failed run leaves the old copy whole.
staging="$DEST.new"
rm -rf "$staging"
mkdir -p "$staging/html" "$staging/expected" "$staging/metadata"
for dir in "$tmp/raw/$PAGES"/*/; do
  name="$(basename "$dir")"
  [[ -f "$dir/source.html" && -f "$dir/expected.html" ]] || continue
  gzip -c "$dir/source.html" >"$staging/html/$name.html.gz"
  cp "$dir/expected.html" "$staging/expected/$name.html"
  if [[ -f "$dir/expected-metadata.json" ]]; then cp "$dir/expected-metadata.json" "$staging/metadata/$name.json"; fi
done
cp "$tmp/raw/LICENSE.md" "$staging/LICENSE.md"
git --git-dir="$tmp/repo.git" rev-parse HEAD >"$staging/COMMIT"

rm -rf "$DEST"
mv "$staging" "$DEST"
pages="$(find "$DEST/html" -name '*.html.gz' | wc -l)"
echo "fetch-readability: wrote $DEST at $(cat "$DEST/COMMIT"): $pages cases (source, expected article, metadata), LICENSE.md"
