package jcs

import (
	"math"
	"strings"
	"testing"
)

// TestRFC8785Examples are the examples RFC 8785 publishes: the
// canonicalization example of section 3.2.2, the sorting example of
// section 3.2.3, and the number serialization samples of appendix B.
func TestRFC8785Examples(t *testing.T) {
	in := `{
  "numbers": [333333333.33333329, 1E30, 4.50,
              2e-3, 0.000000000000000000000000001],
  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
  "literals": [null, true, false]
}`
	want := `{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`
	got, err := Transform([]byte(in))
	if err != nil || string(got) != want {
		t.Errorf("3.2.2:\n got %s %v\nwant %s", got, err, want)
	}

	sorting := `{
  "\u20ac": "Euro Sign",
  "\r": "Carriage Return",
  "\ufb33": "Hebrew Letter Dalet With Dagesh",
  "1": "One",
  "\ud83d\ude00": "Emoji: Grinning Face",
  "\u0080": "Control",
  "\u00f6": "Latin Small Letter O With Diaeresis"
}`
	got, err = Transform([]byte(sorting))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, part := range strings.Split(string(got[1:len(got)-1]), `","`) {
		_, v, _ := strings.Cut(part, `":"`)
		order = append(order, strings.Trim(v, `"`))
	}
	wantOrder := []string{"Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis", "Euro Sign", "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh"}
	if strings.Join(order, "|") != strings.Join(wantOrder, "|") {
		t.Errorf("3.2.3: order %q, want %q", order, wantOrder)
	}

	for _, tt := range []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	} {
		if got := FormatNumber(math.Float64frombits(tt.bits)); got != tt.want {
			t.Errorf("%#016x: %s, want %s", tt.bits, got, tt.want)
		}
	}
	for _, bits := range []uint64{0x7fffffffffffffff, 0x7ff0000000000000} {
		if _, err := AppendNumber(nil, math.Float64frombits(bits)); err == nil {
			t.Errorf("%#016x: no error", bits)
		}
	}
}

func TestTransformRefuses(t *testing.T) {
	for _, in := range []string{`{"a":1,"a":2}`, `1e400`, `{"a":1} x`, `[`, "\"\xff\"", strings.Repeat("[", 600) + strings.Repeat("]", 600)} {
		if got, err := Transform([]byte(in)); err == nil {
			t.Errorf("%q: %s, want an error", in, got)
		}
	}
	// Key order and spelling do not change the form.
	a, _ := Transform([]byte(`{"type": "object", "properties": {"b": {"type": "integer"}, "a": {}}}`))
	b, _ := Transform([]byte(`{ "properties" : {"a":{}, "b":{"type":"integer"}}, "type":"object" }`))
	if string(a) != string(b) {
		t.Errorf("%s != %s", a, b)
	}
}

// FuzzTransform: no panic; the canonical form is canonical (a fixed
// point) and valid JSON.
func FuzzTransform(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.50,"x\u0001"]}`, `1E30`, `-0`, `"\ud83d\ude00"`, `{"\u20ac":1,"\r":2}`, `[null,true,false]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Transform(data)
		if err != nil {
			return
		}
		again, err := Transform(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("%q -> %q -> %q %v", data, out, again, err)
		}
	})
}
