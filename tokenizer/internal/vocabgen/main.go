// Command vocabgen converts a tiktoken vocabulary file (one "base64 rank"
// pair per line, ranks 0..n-1 in order) into the compact form the
// tokenizer package embeds: a uvarint count followed by each token's
// uvarint length and bytes, in rank order. It is left uncompressed: it is
// half as large again as its gzip, and the tokenizer reads it in place,
// without decompressing it in every process that counts.
//
// Usage:
//
//	go run ./tokenizer/internal/vocabgen -in o200k_base.tiktoken -out tokenizer/data/o200k_base.bpe
//
// The tokenizer tests check that the embedded data expands back to the
// published file, byte for byte, by its SHA-256.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

func main() {
	in := flag.String("in", "", "tiktoken vocabulary file to read")
	out := flag.String("out", "", "compact vocabulary file to write")
	flag.Parse()
	if *in == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: vocabgen -in FILE.tiktoken -out FILE.bpe")
		os.Exit(2)
	}
	if err := convert(*in, *out); err != nil {
		fmt.Fprintln(os.Stderr, "vocabgen:", err)
		os.Exit(1)
	}
}

func convert(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	var tokens [][]byte
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		b64, rank, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			return fmt.Errorf("%s:%d: want \"base64 rank\"", in, line)
		}
		r, err := strconv.Atoi(rank)
		if err != nil || r != len(tokens) {
			return fmt.Errorf("%s:%d: rank %q out of order: want %d", in, line, rank, len(tokens))
		}
		tok, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", in, line, err)
		}
		tokens = append(tokens, tok)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	var raw bytes.Buffer
	raw.Write(binary.AppendUvarint(nil, uint64(len(tokens))))
	for _, t := range tokens {
		raw.Write(binary.AppendUvarint(nil, uint64(len(t))))
		raw.Write(t)
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".vocab-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(raw.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), out)
}
