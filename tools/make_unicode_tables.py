#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Generates engine/src/tokenizer/unicode_data.cpp: the Unicode tables the tokenizers need.

Hugging Face tokenizers does not use one Unicode version. Its BERT normalizer and pre-tokenizer classify characters
with the `unicode_categories` crate (Unicode 8.0 data), its NFD and StripAccents use
`unicode-normalization-alignments` (Unicode 9.0), and the GPT-2 pattern runs on Oniguruma (recent Unicode). For
exact ids the tables follow each of them:

  - per code point, flags as runs over the whole code space: letter / number (L*, N*: Python's unicodedata, for
    the GPT-2 pattern); BERT's non-spacing mark (Mn), punctuation (P*) and control (Cc, Cf, Co) per Unicode 8.0;
    any mark (Mn, Mc, Me) per Unicode 9.0 for StripAccents;
  - canonical decompositions, one level, of the characters assigned in Unicode 9.0 (decompositions never change
    once assigned; NFD applies them recursively, Hangul syllables algorithmically);
  - canonical combining classes per Unicode 9.0, as ranges (for NFD's canonical ordering);
  - simple lower-case mappings (Python's unicodedata) as runs {first, count, delta, stride}.

The Unicode 8.0 and 9.0 categories come from the data headers of the `unicodedata2` 8.0.0 and 9.0.0.post4 source
packages (fetched with pip, read by a tiny C program compiled with cc; nothing of them is kept). The versions were
found by probing tokenizers 0.23.3 with characters added in each Unicode version.

Usage: python3 tools/make_unicode_tables.py   (needs pip, network access to PyPI and a C compiler)

`--probed` writes the second file, engine/src/tokenizer/unicode_probed.cpp, without network: tables read off the
pinned Hugging Face `tokenizers` itself (tools/requirements.txt) by feeding it every code point, so they have its
crates' Unicode versions whatever they are:
  - \\w of Rust's regex crate (added-token single_word, the Whitespace pre-tokenizer), probed with Whitespace;
  - Rust's char::is_numeric (the Digits pre-tokenizer), probed with Digits;
  - full canonical and compatibility decompositions (NFD/NFKD of each character, unicode-normalization-alignments
    data) and the primary composites NFC builds, probed with the NFD/NFKD/NFC normalizers;
  - grapheme cluster break classes (UAX #29, for Precompiled), from Python's `regex` module: tokenizers' grapheme
    segmenter cannot be probed directly. The `regex` module's Unicode version is recorded in the file.
Usage: tools/.venv/bin/python tools/make_unicode_tables.py --probed
"""

import subprocess
import sys
import tarfile
import tempfile
import unicodedata
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "engine" / "src" / "tokenizer" / "unicode_data.cpp"
MAX = 0x110000
OLD_VERSIONS = {"8.0.0": ("8.0.0", "unicodedata2/unicodedata_db.h"),
                "9.0.0": ("9.0.0.post4", "unicodedata2/py3/unicodedata_db.h")}

DUMP_C = r"""
#include <stdio.h>
typedef unsigned int Py_UCS4;
typedef struct { const unsigned char category, combining, bidirectional, mirrored, east_asian_width,
                 normalization_quick_check; } _PyUnicode_DatabaseRecord;
typedef struct change_record { const unsigned char bidir_changed, category_changed, decimal_changed,
                               mirrored_changed; const double numeric_changed; } change_record;
#include DB
int main(void) {
    for (Py_UCS4 code = 0; code < 0x110000; ++code) {
        int index = index1[(code >> SHIFT)];
        index = index2[(index << SHIFT) + (code & ((1 << SHIFT) - 1))];
        const _PyUnicode_DatabaseRecord *r = &_PyUnicode_Database_Records[index];
        printf("%s %d\n", _PyUnicode_CategoryNames[r->category], r->combining);
    }
    return 0;
}
"""


def old_ucd(version: str):
    """(categories, combining classes) of every code point in an old Unicode version."""
    package, header = OLD_VERSIONS[version]
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                        f"unicodedata2=={package}", "-d", tmp], check=True)
        with tarfile.open(next(Path(tmp).glob("*.tar.gz"))) as tar:
            tar.extractall(tmp)
        db = next(Path(tmp).glob(f"unicodedata2-{package}")) / header
        (Path(tmp) / "dump.c").write_text(DUMP_C)
        subprocess.run(["cc", "-w", f'-DDB="{db}"', str(Path(tmp) / "dump.c"), "-o", str(Path(tmp) / "dump")],
                       check=True)
        lines = subprocess.run([str(Path(tmp) / "dump")], check=True, capture_output=True, text=True).stdout.split()
    cats, cccs = lines[0::2], [int(x) for x in lines[1::2]]
    assert len(cats) == MAX
    return cats, cccs


def flag_runs(cat8, cat9):
    """Flags: 1 letter, 2 number (now); 4 Mn, 8 P*, 16 Cc/Cf/Co (Unicode 8.0); 32 any mark (Unicode 9.0)."""
    runs, prev = [], None
    for cp in range(MAX):
        now = unicodedata.category(chr(cp))
        flags = (1 if now[0] == "L" else 0) | (2 if now[0] == "N" else 0)
        flags |= 4 if cat8[cp] == "Mn" else 0
        flags |= 8 if cat8[cp][0] == "P" else 0
        flags |= 16 if cat8[cp] in ("Cc", "Cf", "Co") else 0
        flags |= 32 if cat9[cp][0] == "M" else 0
        if flags != prev:
            runs.append((cp, flags))
            prev = flags
    return runs


def decompositions(cat9):
    rows = []
    for cp in range(MAX):
        if cat9[cp] == "Cn":
            continue
        d = unicodedata.decomposition(chr(cp))
        if not d or d.startswith("<"):
            continue
        parts = [int(x, 16) for x in d.split()]
        assert 1 <= len(parts) <= 2, hex(cp)
        rows.append((cp, parts[0], parts[1] if len(parts) == 2 else 0))
    return rows


def combining_ranges(ccc9):
    rows = []
    for cp in range(MAX):
        ccc = ccc9[cp]
        if ccc == 0:
            continue
        if rows and rows[-1][1] == cp - 1 and rows[-1][2] == ccc:
            rows[-1][1] = cp
        else:
            rows.append([cp, cp, ccc])
    return rows


def lower_runs():
    pairs = []
    for cp in range(MAX):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        low = chr(cp).lower()
        if low == chr(cp):
            continue
        if len(low) != 1:
            assert cp == 0x130, hex(cp)  # İ -> i + U+0307, handled in code
            continue
        pairs.append((cp, ord(low) - cp))
    runs = []  # [first, count, delta, stride]
    for cp, delta in pairs:
        if runs and runs[-1][2] == delta:
            first, count, _, stride = runs[-1]
            if count == 1 and cp - first in (1, 2):
                runs[-1][1], runs[-1][3] = 2, cp - first
                continue
            if count > 1 and cp == first + count * stride:
                runs[-1][1] += 1
                continue
        runs.append([cp, 1, delta, 1])
    # Self-check: the runs reproduce every mapping.
    table = {}
    for first, count, delta, stride in runs:
        for i in range(count):
            table[first + i * stride] = first + i * stride + delta
    assert table == {cp: cp + d for cp, d in pairs}
    return runs


def rows_text(items, per_line):
    lines = []
    for i in range(0, len(items), per_line):
        lines.append("    " + " ".join(items[i:i + per_line]))
    return "\n".join(lines)


def runs_of(pred):
    """Starts of alternating runs over the code space, the first run being False."""
    starts, state = [], False
    for cp in range(MAX):
        v = (not 0xD800 <= cp <= 0xDFFF) and pred(cp)
        if v != state:
            starts.append(cp)
            state = v
    return starts


GCB_NAMES = ["Other", "CR", "LF", "Control", "Extend", "ZWJ", "Regional_Indicator", "Prepend", "SpacingMark",
             "L", "V", "T", "LV", "LVT"]


def probed_main():
    import regex
    import tokenizers
    from tokenizers import normalizers, pre_tokenizers
    whitespace, digits = pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=False)
    word = runs_of(lambda cp: len(whitespace.pre_tokenize_str("a" + chr(cp) + "a")) == 1)
    numeric = runs_of(lambda cp: len(digits.pre_tokenize_str("a" + chr(cp) + "a")) == 3)
    nfd, nfkd, nfc = normalizers.NFD(), normalizers.NFKD(), normalizers.NFC()
    canon, compat, comps = [], [], []
    for cp in range(MAX):
        if 0xD800 <= cp <= 0xDFFF or 0xAC00 <= cp <= 0xD7A3:  # Hangul syllables are algorithmic
            continue
        c = chr(cp)
        d, k = nfd.normalize_str(c), nfkd.normalize_str(c)
        if d != c:
            canon.append((cp, [ord(x) for x in d]))
        if k != c:
            compat.append((cp, [ord(x) for x in k]))
        one = unicodedata.decomposition(c)
        if one and not one.startswith("<") and len(one.split()) == 2 and d != c:
            a, b = (chr(int(x, 16)) for x in one.split())
            if nfc.normalize_str(a + b) == c:
                comps.append((ord(a), ord(b), cp))
    comps.sort()
    gcb_re = [(i, regex.compile(r"\p{Grapheme_Cluster_Break=%s}" % n)) for i, n in enumerate(GCB_NAMES) if i]
    pict, linker = regex.compile(r"\p{Extended_Pictographic}"), regex.compile(r"\p{InCB=Linker}")
    consonant, incb_extend = regex.compile(r"\p{InCB=Consonant}"), regex.compile(r"\p{InCB=Extend}")
    gcb_runs, prev = [], None
    for cp in range(MAX):
        c = chr(cp) if not 0xD800 <= cp <= 0xDFFF else None
        v = 0
        if c is not None:
            for i, r in gcb_re:
                if r.match(c):
                    v = i
                    break
            v |= (16 if pict.match(c) else 0) | (32 if linker.match(c) else 0)
            v |= (64 if consonant.match(c) else 0) | (128 if incb_extend.match(c) else 0)
        if v != prev:
            gcb_runs.append((cp, v))
            prev = v
    h = lambda v: f"0x{v:X}"

    def decomposition_table(name, rows):
        index, chars = [], []
        for cp, parts in rows:
            index.append(f"{{{h(cp)},{len(chars)},{len(parts)}}},")
            chars.extend(h(p) + "," for p in parts)
        return (f"const DecompositionIndex k{name}[] = {{\n{rows_text(index, 6)}\n}};\n"
                f"const std::size_t k{name}Count = sizeof(k{name}) / sizeof(k{name}[0]);\n"
                f"const char32_t k{name}Chars[] = {{\n{rows_text(chars, 12)}\n}};\n")

    text = f"""// SPDX-License-Identifier: GPL-3.0-or-later
// GENERATED by tools/make_unicode_tables.py --probed from Hugging Face tokenizers {tokenizers.__version__} (\\w, is_numeric,
// decompositions, compositions) and Python regex {regex.__version__} (grapheme cluster breaks). Do not edit by hand.

#include "unicode_data.h"

namespace attn::tokenizer::ucd {{

const char *const kGraphemeSource = "Python regex {regex.__version__}";

const char32_t kWordRunStarts[] = {{
{rows_text([h(x) + "," for x in word], 12)}
}};
const std::size_t kWordRunStartCount = sizeof(kWordRunStarts) / sizeof(kWordRunStarts[0]);

const char32_t kNumericRunStarts[] = {{
{rows_text([h(x) + "," for x in numeric], 12)}
}};
const std::size_t kNumericRunStartCount = sizeof(kNumericRunStarts) / sizeof(kNumericRunStarts[0]);

{decomposition_table("CanonicalFull", canon)}
{decomposition_table("CompatFull", compat)}
const Composition kCompositions[] = {{
{rows_text([f"{{{h(a)},{h(b)},{h(c)}}}," for a, b, c in comps], 6)}
}};
const std::size_t kCompositionCount = sizeof(kCompositions) / sizeof(kCompositions[0]);

// Grapheme classes: low 4 bits the Grapheme_Cluster_Break value (GraphemeBreak), 16 Extended_Pictographic,
// 32 InCB=Linker, 64 InCB=Consonant, 128 InCB=Extend.
const FlagRun kGraphemeRuns[] = {{
{rows_text([f"{{{h(cp)},{v}}}," for cp, v in gcb_runs], 10)}
}};
const std::size_t kGraphemeRunCount = sizeof(kGraphemeRuns) / sizeof(kGraphemeRuns[0]);

}} // namespace attn::tokenizer::ucd
"""
    out = OUT.parent / "unicode_probed.cpp"
    out.write_text(text, encoding="utf-8")
    print(f"{out}: {len(word)} \\w run starts, {len(numeric)} numeric run starts, {len(canon)} canonical and "
          f"{len(compat)} compatibility decompositions, {len(comps)} compositions, {len(gcb_runs)} grapheme runs")


def main():
    if "--probed" in sys.argv[1:]:
        probed_main()
        return
    cat8, _ = old_ucd("8.0.0")
    cat9, ccc9 = old_ucd("9.0.0")
    flags = flag_runs(cat8, cat9)
    decs = decompositions(cat9)
    cccs = combining_ranges(ccc9)
    lows = lower_runs()
    h = lambda v: f"0x{v:X}"
    text = f"""// SPDX-License-Identifier: GPL-3.0-or-later
// GENERATED by tools/make_unicode_tables.py: letters, numbers and lower case from Python {sys.version.split()[0]}
// unicodedata (Unicode {unicodedata.unidata_version}); BERT's classes from Unicode 8.0; marks, decompositions and
// combining classes from Unicode 9.0 (see the script for why). Do not edit by hand; rerun the script.

#include "unicode_data.h"

namespace attn::tokenizer::ucd {{

const char *const kUnicodeVersion = "{unicodedata.unidata_version}";

// Flags: 1 letter, 2 number, 4 BERT Mn, 8 BERT punctuation, 16 BERT control, 32 mark (see unicode_data.h).
const FlagRun kFlagRuns[] = {{
{rows_text([f"{{{h(cp)},{f}}}," for cp, f in flags], 10)}
}};
const std::size_t kFlagRunCount = sizeof(kFlagRuns) / sizeof(kFlagRuns[0]);

const Decomposition kDecompositions[] = {{
{rows_text([f"{{{h(a)},{h(b)},{h(c)}}}," for a, b, c in decs], 6)}
}};
const std::size_t kDecompositionCount = sizeof(kDecompositions) / sizeof(kDecompositions[0]);

const CombiningRange kCombiningRanges[] = {{
{rows_text([f"{{{h(a)},{h(b)},{c}}}," for a, b, c in cccs], 6)}
}};
const std::size_t kCombiningRangeCount = sizeof(kCombiningRanges) / sizeof(kCombiningRanges[0]);

const LowerRun kLowerRuns[] = {{
{rows_text([f"{{{h(a)}, {n}, {d}, {s}}}," for a, n, d, s in lows], 4)}
}};
const std::size_t kLowerRunCount = sizeof(kLowerRuns) / sizeof(kLowerRuns[0]);

}} // namespace attn::tokenizer::ucd
"""
    OUT.write_text(text, encoding="utf-8")
    print(f"{OUT}: {len(flags)} flag runs, {len(decs)} decompositions, {len(cccs)} combining ranges, "
          f"{len(lows)} lower-case runs")


if __name__ == "__main__":
    main()
