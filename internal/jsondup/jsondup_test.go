package jsondup

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func TestFind(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Repeat
	}{
		{`{"a": 1, "b": 2}`, nil},
		{`{"a": 1, "a": 2}`, []Repeat{{Key: "a", Path: "", First: 1, Second: 9}}},
		{`{"a": {"x": 1}, "b": {"x": 2}}`, nil},
		{`{"n": [{"k": 1}, {"k": 1, "k": 2}]}`, []Repeat{{Key: "k", Path: "n[1]", First: 18, Second: 26}}},
		{`{"n": [1, "s", true, null, -2.5e3, {"k": 1, "k": 2}]}`, []Repeat{{Key: "k", Path: "n[5]", First: 36, Second: 44}}},
		{`{"\u0061": 1, "a": 2}`, []Repeat{{Key: "a", Path: "", First: 1, Second: 14}}},
		{`{"a": "x\"y", "s": ["a", "a"], "t": {"a": ":"}}`, nil},
		{`[{"a": 1}, {"a": 1, "b": {"a": 1, "a": 2}}]`, []Repeat{{Key: "a", Path: "[1].b", First: 26, Second: 34}}},
	} {
		got := Find([]byte(tc.in))
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Find(%s) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// FuzzFind checks Find against a decoder-based oracle: a valid JSON text
// has a repeated key exactly when decoding it into generic maps loses
// members, which is counted independently by re-encoding each object.
func FuzzFind(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `{"a":{"b":[1,{"c":1,"c":2}]}}`, `["x",{"y":"\"","y":1}]`, `{}`, `[]`, `"s"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		reps := Find([]byte(s)) // must not panic on anything
		if !json.Valid([]byte(s)) {
			return
		}
		if (len(reps) > 0) != hasRepeat([]byte(s)) {
			t.Fatalf("Find(%q) = %v, disagrees with the decoder", s, reps)
		}
		for _, r := range reps {
			if r.First >= r.Second || s[r.First] != '"' || s[r.Second] != '"' {
				t.Fatalf("Find(%q): bad offsets %+v", s, r)
			}
		}
	})
}

// hasRepeat reports whether any object of data has a repeated key, using
// json.Decoder tokens.
func hasRepeat(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type frame struct {
		object, wantKey bool
		keys            map[string]bool
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				if top != nil && top.object {
					top.wantKey = true
				}
				stack = append(stack, &frame{object: v == '{', wantKey: true, keys: map[string]bool{}})
			default:
				stack = stack[:len(stack)-1]
			}
			continue
		case string:
			if top != nil && top.object && top.wantKey {
				if top.keys[v] {
					return true
				}
				top.keys[v] = true
				top.wantKey = false
				continue
			}
		}
		if top != nil && top.object {
			top.wantKey = true
		}
	}
}
