package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkRedact redacts with the built-in patterns and reports MB/s
// (and, on Linux, cpu-MB/s: by the CPU time of the benchmark's thread,
// steadier than MB/s on a machine other work keeps busy):
// clean prose (the common case), prose with secrets in it, the English
// prose of testdata, Go source, and text built to be slow (long runs of
// what the patterns look for). Redaction is linear in the text, so the
// hostile inputs should run within a small factor of prose;
// docs/REDACTION.md records the figures.
func BenchmarkRedact(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 4096 {
		sb.WriteString("Discussed prompt assembly v1; the user wants a v2 layer for conversation state (see section 4). ")
	}
	clean := sb.String()
	dirty := clean[:2000] + " key " + fake("sk-proj-", 48) + " mail ann@example.com call 415-555-2671 " + clean[2000:]
	cases := []struct{ name, text string }{
		{"clean", clean},
		{"secrets", dirty},
	}
	if prose, err := os.ReadFile(filepath.Join("testdata", "prose.txt")); err == nil {
		cases = append(cases, struct{ name, text string }{"prose", string(prose)})
	}
	if code := goSource(1 << 20); code != "" {
		cases = append(cases, struct{ name, text string }{"code", code})
	}
	for _, h := range hostileInputs() {
		cases = append(cases, struct{ name, text string }{"hostile-" + h.name, h.text})
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			r := Default()
			b.SetBytes(int64(len(tc.text)))
			b.ReportAllocs()
			n, cpu := 0, startCPU()
			for b.Loop() {
				r.Redact(tc.text)
				n++
			}
			cpu.report(b, n, len(tc.text))
		})
	}
}

// BenchmarkRedactScaling redacts the same kinds of text at 10 KB, 100 KB
// and 1 MB: with redaction linear in the text, MB/s stays the same as the
// text grows, where a quadratic scanner would slow down tenfold at each
// step.
func BenchmarkRedactScaling(b *testing.B) {
	units := []struct{ name, unit string }{
		{"prose", "Discussed prompt assembly v1; the user wants a v2 layer for conversation state (see section 4). "},
		{"dashed-ones", "1-"},
		{"a-at", "a@"},
		{"token-prefix", "sk-"},
		{"pem-begin", "-----BEGIN"},
	}
	for _, u := range units {
		for _, size := range []int{10 << 10, 100 << 10, 1 << 20} {
			text := strings.Repeat(u.unit, size/len(u.unit)+1)[:size]
			b.Run(fmt.Sprintf("%s/%dKB", u.name, size>>10), func(b *testing.B) {
				r := Default()
				b.SetBytes(int64(len(text)))
				n, cpu := 0, startCPU()
				for b.Loop() {
					r.Redact(text)
					n++
				}
				cpu.report(b, n, len(text))
			})
		}
	}
}

// hostileInputs are 100 KB texts built from what the patterns look for,
// repeated: each would take a scanner that reads runs again quadratic
// time.
func hostileInputs() []struct{ name, text string } {
	const size = 100 << 10
	rep := func(unit string) string {
		return strings.Repeat(unit, size/len(unit)+1)[:size]
	}
	return []struct{ name, text string }{
		{"digits", rep("1234567890")},
		{"dashed-ones", rep("1-")},
		{"spaced-groups", rep("4111 ")},
		{"phone-groups", rep("415-555-2671-")},
		{"plus", rep("+1 ")},
		{"at", rep("@")},
		{"a-at", rep("a@")},
		{"dotted-at", rep("a.b@c.")},
		{"url", rep("://:@")},
		{"scheme-url", rep("a://b:c@")},
		{"pem-begin", rep("-----BEGIN")},
		{"pem-header", rep("-----BEGIN RSA PRIVATE KEY-----")},
		{"pem-end", "-----BEGIN RSA PRIVATE KEY-----" + rep("-----END ")},
		{"bearer", rep("Bearer ")},
		{"authorization", rep("Authorization: ")},
		{"secret", rep("secret_access_key=")},
		{"token-prefix", rep("sk-")},
		{"jwt", rep("eyJ-")},
		{"iban", rep("DE89 ")},
		{"dotted-digits", rep("1.1.")},
	}
}

// goSource returns up to n bytes of the Go standard library's source, or
// "" when it cannot be found.
func goSource(n int) string {
	root := goroot()
	if root == "" {
		return ""
	}
	dir := filepath.Join(root, "src", "net", "http")
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var b strings.Builder
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		b.Write(data)
		if b.Len() >= n {
			return b.String()[:n]
		}
	}
	return b.String()
}
