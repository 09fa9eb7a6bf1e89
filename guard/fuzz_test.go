package guard

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzRedact checks that redaction never panics, keeps valid UTF-8 valid,
// and that its counts match the placeholders it wrote.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{
		"", "plain prose", "mail a@b.co", "call 415-555-2671", "https://u:p@h",
		"Bearer " + fake("", 30), fake("sk-", 40), "-----BEGIN RSA PRIVATE KEY-----\nabc",
		"+44 20 7946 0958", "[REDACTED:email]", "a@b.co@c.de", "eyJ" + fake("", 10) + ".eyJ" + fake("", 10) + "." + fake("", 20),
		"Bearer\n" + fake("", 25), "a bearer  BEARER " + fake("", 25) + " x", "tel:(415) 555-2671x", "abc415-555-2671",
		"100 200 300 4000 +1 415 555 2671", "ftp://a:b@c https://d:e@f", "x" + fake("sk-", 30) + " " + fake("sk-ant-", 30),
		fake("AIza", 35) + "\t" + "AKIA" + strings.ToUpper(fake("", 16)), "-----BEGIN EC PRIVATE KEY-----\nx\n-----END EC PRIVATE KEY-----\n-----BEGIN",
	} {
		f.Add(s)
	}
	r := Default()
	// plain runs every expression over the whole text: the windows and the
	// byte gate must change nothing but the speed.
	plainRules := slices.Clone(r.rules)
	for i := range plainRules {
		plainRules[i].scope, plainRules[i].need, plainRules[i].mask = nil, "", 0
	}
	plain := newRedactor(plainRules)
	f.Fuzz(func(t *testing.T, text string) {
		out, counts := r.Redact(text)
		if pout, pcounts := plain.Redact(text); pout != out || pcounts.String() != counts.String() {
			t.Fatalf("scoped and plain redaction differ on %q:\n%q %v\n%q %v", text, out, counts, pout, pcounts)
		}
		if utf8.ValidString(text) && !utf8.ValidString(out) {
			t.Fatalf("Redact(%q) = %q is not UTF-8", text, out)
		}
		if counts == nil && out != text {
			t.Fatalf("text changed without a count: %q -> %q", text, out)
		}
		for i, c := range counts {
			if c.N <= 0 || i > 0 && counts[i-1].Label >= c.Label {
				t.Fatalf("counts not sorted and positive: %v", counts)
			}
			if strings.Count(out, Placeholder(c.Label)) < c.N {
				t.Fatalf("%s=%d but the output %q holds fewer placeholders", c.Label, c.N, out)
			}
		}
		secrets, sc := r.RedactSecrets(text)
		if sc.Get("email") != 0 || sc.Get("phone") != 0 {
			t.Fatalf("RedactSecrets(%q) redacted personal data: %q %v", text, secrets, sc)
		}
	})
}
