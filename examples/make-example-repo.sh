#!/usr/bin/env bash
# Build a small git repository for trying `rubricate score`:
#   main            one base commit: config, schema, sample data and an empty package
#   add-wordstats   one head commit: the code, its tests, the README and the deliverable
# Author, committer and dates are fixed, so every run builds the same commits.
# Usage: bash examples/make-example-repo.sh DIR
#   DIR must be absent, empty, or an example repository this script built before (rebuilt).
set -euo pipefail

dest=${1:?usage: make-example-repo.sh DIR}
src="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/deliverable"
base_files=(.github/rubricate.yml schemas/result.schema.json data/sample.txt src/wordstats/__init__.py)
first_subject="Start the wordstats project"

built_here_before() {
  [ -d "$1/.git" ] || return 1
  root=$(git -C "$1" rev-list --max-parents=0 HEAD 2>/dev/null | tail -n 1) || return 1
  [ "$(git -C "$1" log -1 --format=%s "$root" 2>/dev/null)" = "$first_subject" ]
}

if [ -e "$dest" ] && [ -n "$(ls -A "$dest")" ]; then
  if built_here_before "$dest"; then
    rm -rf "$dest"
  else
    echo "make-example-repo.sh: $dest exists and is not an example built by this script;" \
      "choose another DIR or remove it" >&2
    exit 2
  fi
fi
mkdir -p "$dest"
cd "$dest"

export GIT_AUTHOR_NAME="Example Author" GIT_AUTHOR_EMAIL="author@example.org"
export GIT_COMMITTER_NAME="Example Author" GIT_COMMITTER_EMAIL="author@example.org"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
git init -q
git symbolic-ref HEAD refs/heads/main

for file in "${base_files[@]}"; do
  mkdir -p "$(dirname "$file")"
  cp "$src/$file" "$file"
done
printf '# wordstats\n\nWord frequencies of plain-text files.\n' > README.md
git add -A
GIT_AUTHOR_DATE="2024-01-01T10:00:00Z" GIT_COMMITTER_DATE="2024-01-01T10:00:00Z" \
  git commit -q -m "$first_subject"

git checkout -q -b add-wordstats
cp -R "$src/." .
git add -A
GIT_AUTHOR_DATE="2024-01-02T10:00:00Z" GIT_COMMITTER_DATE="2024-01-02T10:00:00Z" \
  git commit -q -m "Add word statistics with tests and the result" \
  -m "Counts words of data/sample.txt and writes the top five to out/result.json."

echo "example repository ready in $dest (branch add-wordstats, based on main)"
echo "score it with: rubricate score --repo $dest"
