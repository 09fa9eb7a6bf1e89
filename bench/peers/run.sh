#!/usr/bin/env bash
# Every peer comparison in one run (see doc.go): token counting against the
# Go tokenizers and the WASM reference, budgets against Priompt, assembly
# against dotprompt and text/template; prints each peer as a ratio of
# Tessera. The Node.js parts need Node and their packages:
#   (cd ../../tokenizer/testdata/reference && npm ci)
#   (cd priompt && npm ci)
set -euo pipefail
cd "$(dirname "$0")"
count=${COUNT:-5}
wasm=false
if command -v node >/dev/null && [ -d ../../tokenizer/testdata/reference/node_modules ]; then
	go test -run TestWriteTexts -write-texts texts.json . >/dev/null
	wasm=true
fi
# COUNT rounds, each running every benchmark once and then the WASM
# reference, so that a change in the machine's load falls on every
# library alike instead of on whichever ran its samples then.
: >bench.txt
for _ in $(seq "$count"); do
	go test -run '^$' -bench . -benchmem -count 1 . | tee -a bench.txt
	if $wasm; then node wasm.cjs | tee -a bench.txt; fi
done
rm -f texts.json
# Median MB/s per benchmark and its ratio to tessera's, then the table of
# token counting by kind of text.
go run ./ratio bench.txt

# Budgets against Priompt (budget_test.go): refit the inputs with Priompt
# when Node.js and (cd priompt && npm ci) are there, then print the sections
# each keeps and the budget each uses, and the time of one fit by each
# (BenchmarkBudgetFit/INPUT/LIBRARY, ns/op).
if command -v node >/dev/null && [ -d priompt/node_modules ]; then
	go test -run TestWriteBudgetInputs -write-budget-inputs priompt/inputs.json . >/dev/null
	(cd priompt && node fit.cjs inputs.json ../testdata/priompt.json)
	for _ in $(seq "$count"); do (cd priompt && node fit.cjs --bench inputs.json); done >>bench.txt
	rm -f priompt/inputs.json
fi
go test -run TestBudgetAgainstPriompt -v . | sed -n 's/^        //p'
grep '^BenchmarkBudgetFit/' bench.txt | awk '{print $1, $3, $4}' | sort -s -k1,1
