#!/bin/sh
# Regenerates t2s.txt, the traditional-to-simplified table, from ICU's
# Traditional-Simplified transliterator (Debian: apt-get install
# icu-devtools): every ideograph of the CJK Unified Ideographs, its
# extension A and the compatibility block that the transliterator maps
# to one other character, as the pair of the two, with no separator.
set -eu
cd "$(dirname "$0")"
python3 - <<'PY'
import subprocess
chars = [chr(c) for r in ((0x3400, 0x4DC0), (0x4E00, 0xA000), (0xF900, 0xFB00)) for c in range(*r)]
out = subprocess.run(["uconv", "-x", "Traditional-Simplified"], input=("\n".join(chars) + "\n").encode(),
                     capture_output=True, check=True).stdout.decode().split("\n")
pairs = [(a, b) for a, b in zip(chars, out) if a != b and len(b) == 1]
open("t2s.txt.tmp", "w", encoding="utf-8").write("".join(a + b for a, b in pairs))
PY
mv t2s.txt.tmp t2s.txt
