package layered

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/embed"
)

// FuzzParseVectors checks the vectors file reader on arbitrary bytes: no
// panic; a problem is reported in the file given; a file it accepts has
// vectors of its dimension, and writes back to bytes it reads the same.
func FuzzParseVectors(f *testing.F) {
	setup, err := ParseSetup(memFiles(map[string]string{"layered.yaml": "tools: [{name: a, description: b}]\nskills: [{name: c}]\n"}))
	if err != nil {
		f.Fatal(err)
	}
	v, _, err := EmbedVectors(context.Background(), setup, embed.Hash{Dim: 4}, nil, false, 0, nil)
	if err != nil {
		f.Fatal(err)
	}
	h := strings.Repeat("ab", 32)
	for _, s := range []string{
		string(v.Marshal()),
		"",
		"{}",
		"null",
		`{"embedder":"e","dimension":1}`,
		`{"embedder":"e","dimension":1,"tools":[{"name":"a","sha256":"` + h + `","embedding":[1]}]}`,
		`{"embedder":"e","dimension":2,"tools":[{"name":"a","sha256":"` + h + `","embedding":[1]}]}`,
		`{"embedder":"e","dimension":1,"tools":[{"name":"a","sha256":"` + h + `","embedding":[1e39]}]}`,
		`{"embedder":"e","dimension":1,"injection":[{"sha256":"` + h + `","embedding":[-0]}]} x`,
		`{"embedder":"e","dimension":-1,"skills":[{"name":"","sha256":"","embedding":null}]}`,
		"{\"embedder\":\"\xff\",\"dimension\":1}",
		`[1,2,3]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fast reader agrees with the standard decoder on what it accepts.
		if fast, ok := parseVectorsFast(data); ok {
			var std Vectors
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&std); err != nil || dec.More() {
				t.Fatalf("the fast reader accepts what the decoder refuses: %v", err)
			}
			if !reflect.DeepEqual(*fast, std) {
				t.Fatalf("the fast reader reads\n%+v\nthe decoder\n%+v", *fast, std)
			}
		}
		v, err := ParseVectors("v/vectors.json", data)
		if err != nil {
			if v != nil {
				t.Fatal("vectors returned with an error")
			}
			fuzzCheckErr(t, "v/vectors.json", err)
			return
		}
		for _, list := range [][]NamedVector{v.Tools, v.Skills, v.Injection} {
			for _, nv := range list {
				if len(nv.Embedding) != v.Dimension {
					t.Fatalf("a vector of %d numbers in a file of dimension %d", len(nv.Embedding), v.Dimension)
				}
			}
		}
		if !utf8.ValidString(v.Embedder) {
			return // written back with U+FFFD: another file
		}
		out := v.Marshal()
		back, err := ParseVectors("v/vectors.json", out)
		if err != nil {
			t.Fatalf("written back, not read: %v\n%s", err, out)
		}
		if again := back.Marshal(); string(again) != string(out) {
			t.Fatalf("not the same bytes:\n%s\n%s", out, again)
		}
	})
}
