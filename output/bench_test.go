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

// reply5KB is a 5 KB reply: prose, a Go block of braces, then a fenced
// array of 40 findings.
func reply5KB() []byte {
	var r strings.Builder
	r.WriteString("I read the change. The handler:\n\n```go\nfunc h() error {\n\tif err != nil { return err }\n}\n```\n\nThe findings:\n\n```json\n{\"items\": [\n")
	for i := range 40 {
		if i > 0 {
			r.WriteString(",\n")
		}
		r.WriteString(`  {"severity": "blocking", "line": 42, "file": "server/handler.go", "note": "the error is dropped"}`)
	}
	r.WriteString("\n]}\n```\n\nThat is all.")
	return []byte(r.String())
}

// BenchmarkSpecParse5KB: a 5 KB reply read, its container, extra keys
// and every item checked, and the value written in schema order.
// Target (issue 20): under 100 µs.
func BenchmarkSpecParse5KB(b *testing.B) {
	s, err := Compile("review", []byte(`{"type":"object","properties":{"file":{"type":"string"},"line":{"type":"integer"},"severity":{"enum":["blocking","nit"]},"note":{"type":"string"}},"required":["file","line","severity"]}`))
	if err != nil {
		b.Fatal(err)
	}
	reply := reply5KB()
	sp := Spec{Name: "review", Schema: s, Container: Array}
	if _, err := sp.Parse(reply); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sp.Parse(reply); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSpecParseTolerant5KB: the same reply with its JSON loosened
// (unquoted keys, single quotes, trailing commas), repaired.
func BenchmarkSpecParseTolerant5KB(b *testing.B) {
	s, err := Compile("review", []byte(`{"type":"object","properties":{"file":{"type":"string"},"line":{"type":"integer"},"severity":{"enum":["blocking","nit"]},"note":{"type":"string"}},"required":["file","line","severity"]}`))
	if err != nil {
		b.Fatal(err)
	}
	loose := strings.NewReplacer(`"severity"`, "severity", `"line"`, "line", `"blocking"`, "'blocking'", "\n]}", ",\n]}").Replace(string(reply5KB()))
	reply := []byte(loose)
	sp := Spec{Name: "review", Schema: s, Container: Array, Tolerant: true}
	if _, err := sp.Parse(reply); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sp.Parse(reply); err != nil {
			b.Fatal(err)
		}
	}
}

// hostileArray is a reply of about size bytes: {"x": [1,1,1,...]}.
func hostileArray(size int) []byte {
	b := make([]byte, 0, size+16)
	b = append(b, `{"x": [1`...)
	for len(b) < size-2 {
		b = append(b, ",1"...)
	}
	return append(b, "]}"...)
}

// hostileDeep is a reply of about size bytes: [[[[...]]]], half of it
// opening brackets.
func hostileDeep(size int) []byte {
	b := make([]byte, 0, size)
	for range size / 2 {
		b = append(b, '[')
	}
	for range size / 2 {
		b = append(b, ']')
	}
	return b
}

// BenchmarkExtractHostile2MiB: Extract on 2 MiB replies built to cost
// the most per byte, a flat array of a million numbers and brackets a
// million deep (issue 19: they cost some 60 bytes of allocation per byte
// of reply), and Spec.Parse on the same, tolerant. Target: under 16
// bytes per byte.
func BenchmarkExtractHostile2MiB(b *testing.B) {
	for _, c := range []struct {
		name  string
		reply []byte
	}{{"array", hostileArray(2 << 20)}, {"deep", hostileDeep(2 << 20)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.reply)))
			b.ReportAllocs()
			for b.Loop() {
				Extract(c.reply, c.reply[0])
			}
		})
		b.Run("spec-parse-"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.reply)))
			b.ReportAllocs()
			sp := Spec{Tolerant: true}
			for b.Loop() {
				_, _ = sp.Parse(c.reply)
			}
		})
	}
}
