package output

import (
	"strings"
	"testing"
)

// BenchmarkParse: a 20-item reply in a fenced block with prose around it,
// extracted, compacted and checked against an array schema. Target: under
// 200 µs, so that checking a reply costs far less than receiving it.
func BenchmarkParse(b *testing.B) {
	s, err := Compile("review", []byte(`{"type":"array","items":`+itemSchema+`}`))
	if err != nil {
		b.Fatal(err)
	}
	var r strings.Builder
	r.WriteString("Here are my comments.\n\n```json\n[\n")
	for i := range 20 {
		if i > 0 {
			r.WriteString(",\n")
		}
		r.WriteString(`  {"file": "server/handler.go", "line": 42, "severity": "blocking"}`)
	}
	r.WriteString("\n]\n```\n\nLet me know if you want more detail.")
	reply := []byte(r.String())
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse("review", reply, '[', s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile: compiling the item schema. Target: under 1 ms; a
// template compiles its schema once, when it is parsed.
func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile("review", []byte(itemSchema)); err != nil {
			b.Fatal(err)
		}
	}
}
