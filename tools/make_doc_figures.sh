#!/usr/bin/env bash
# Regenerates docs/screenshots/figures/: every view's default figure as PNG (96 dpi, one pixel per logical
# pixel), the head view also at a journal column's width, and each PDF rendered back to PNG (pdftoppm, from
# Debian's poppler-utils; only this script needs it) so that the vector output is looked at too.
# Usage: tools/make_doc_figures.sh [build/release/app/attnscope-cli]
set -euo pipefail
cd "$(dirname "$0")/.."
cli=${1:-build/release/app/attnscope-cli}
out=docs/screenshots/figures
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
model=sample:induction-gpt2
text="bo he so ve pa va ro na bo he so ve"
views=(grid head:1.2 lines:1 statistics rollout outputs pipeline:1.2 masks:1.2 equivariance:1.2 faithfulness compare
       approx:1.2:window:2 approx:1.2:random-features:64)
for view in "${views[@]}"; do
  name=${view//[:.]/-}
  "$cli" figure --model "$model" --text "$text" --view "$view" --out "$out/$name.png" --dpi 96 --quiet
  "$cli" figure --model "$model" --text "$text" --view "$view" --out "$out/$name.pdf" --quiet
  if command -v pdftoppm > /dev/null; then
    pdftoppm -png -r 96 -singlefile "$out/$name.pdf" "$out/$name.pdf"   # writes NAME.pdf.png
  fi
  rm -f "$out/$name.pdf"
done
# Encoder-decoder views on the translation sample (greedy: no --target-text).
s2s=sample:translation-t5
source="the big dog saw a red cat"
for view in head:enc:1.1 head:dec:1.1 head:cross:1.1 align:1.1 generation:7:1.1; do
  name=${view//[:.]/-}
  "$cli" figure --model "$s2s" --text "$source" --view "$view" --out "$out/$name.png" --dpi 96 --quiet
  "$cli" figure --model "$s2s" --text "$source" --view "$view" --out "$out/$name.pdf" --quiet
  if command -v pdftoppm > /dev/null; then
    pdftoppm -png -r 96 -singlefile "$out/$name.pdf" "$out/$name.pdf"
  fi
  rm -f "$out/$name.pdf"
done
# Vision views on the ViT sample and its red example.
vit=sample:shapes-vit
image=sample_models/shapes-vit/examples/00.png
for view in overlay:1.1 overlay:1.mean overlay:rollout patches:1.mean; do
  name=${view//[:.]/-}
  "$cli" figure --model "$vit" --image "$image" --view "$view" --out "$out/$name.png" --dpi 96 --quiet
  "$cli" figure --model "$vit" --image "$image" --view "$view" --out "$out/$name.pdf" --quiet
  if command -v pdftoppm > /dev/null; then
    pdftoppm -png -r 96 -singlefile "$out/$name.pdf" "$out/$name.pdf"
  fi
  rm -f "$out/$name.pdf"
done
"$cli" figure --model "$model" --text "$text" --view head:1.2 --width 3.5in --out "$out/head-1-2-column.png" --quiet
"$cli" figure --model "$model" --text "$text" --view head:1.2 --scale log --out "$out/head-1-2-log.png" --dpi 96 --quiet
ls -l "$out"
