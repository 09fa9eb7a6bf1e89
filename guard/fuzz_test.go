package guard

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// redactSeeds are texts near the edges of the built-in patterns.
var redactSeeds = []string{
	"", "plain prose", "mail a@b.co", "call 415-555-2671", "https://u:p@h",
	"Bearer " + fake("", 30), fake("sk-", 40), "-----BEGIN RSA PRIVATE KEY-----\nabc",
	"+44 20 7946 0958", "[REDACTED:email]", "a@b.co@c.de", "eyJ" + fake("", 10) + ".eyJ" + fake("", 10) + "." + fake("", 20),
	"Bearer\n" + fake("", 25), "a bearer  BEARER " + fake("", 25) + " x", "tel:(415) 555-2671x", "abc415-555-2671",
	"100 200 300 4000 +1 415 555 2671", "ftp://a:b@c https://d:e@f", "x" + fake("sk-", 30) + " " + fake("sk-ant-", 30),
	fake("AIza", 35) + "\t" + "AKIA" + strings.ToUpper(fake("", 16)), "-----BEGIN EC PRIVATE KEY-----\nx\n-----END EC PRIVATE KEY-----\n-----BEGIN",
	"redis://:pw@h", "postgres://app:p@ss@db/x", "x://u:[REDACTED:url-password]@h", "x://u:a[REDACTED:email]b@h",
	"aws_secret_access_key = " + awsExampleSecret, `{"SecretAccessKey":"` + awsExampleSecret + `"}`,
	"Authorization: Basic dXNlcjpwYXNz", "Authorization: Bearer abcdefgh", "4111 1111 1111 1111", "4111111111111111",
	"3782 822463 10005", "DE89 3704 0044 0532 0130 00", "GB82WEST12345698765432", "123-45-6789", "1e+4294967296",
	"+1.7976931348623157e308", "{+123456789, 1}", "1-1-1-1-1-1-1-1-1-1", "4444 4444 4444 4444 4444 4444",
	fake("AIza", 34) + "-", "AIza" + fake("", 3) + "-" + fake("AIza", 35) + " ", fake("ghp_", 36) + "_",
	"hf_" + strings.Repeat("aB", 17), fake("glpat-", 20) + "-", "xoxb-1-" + fake("", 10), "a@b.co-x", "a://b@c:d@e",
	"x://u:a-----BEGIN PRIVATE KEY-----\nk\n-----END PRIVATE KEY-----@h",
}

// FuzzRedact checks that redaction never panics and keeps valid UTF-8
// valid; that its counts match the placeholders it wrote; that every
// match of a built-in pattern is a match of the pattern's expression, so
// the expression describes what is redacted; that redacting the output
// again changes nothing; that RedactSecrets leaves personal data alone;
// and that neither the gate of the built-in patterns (the bytes their
// matches need) nor a custom pattern's literal-prefix shortcut changes
// anything but the speed.
func FuzzRedact(f *testing.F) {
	for _, s := range redactSeeds {
		f.Add(s)
	}
	r := Default()
	custom, err := NewRedactor([]Pattern{
		{Label: "ticket", Regexp: `TCK-[0-9]{3,}`},
		{Label: "session", Regexp: `session=(?P<secret>[0-9a-f]{8,})`},
		{Label: "word-key", Regexp: `\bkey-[a-z]+\b`},
	}, false)
	if err != nil {
		f.Fatal(err)
	}
	// plain runs each custom expression over the whole text.
	plainRules := slices.Clone(custom.rules)
	for i := range plainRules {
		plainRules[i].scope, plainRules[i].need = nil, nil
	}
	plain := newRedactor(plainRules)
	ungated := ungatedDefault()
	f.Fuzz(func(t *testing.T, text string) {
		out, counts := r.Redact(text)
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
		checkHitsMatchExpressions(t, r, text)
		if again, c := r.Redact(out); c != nil {
			t.Fatalf("redacting again changed the output:\n in  %q\n out %q\n then %q %v", text, out, again, c)
		}
		secrets, sc := r.RedactSecrets(text)
		for _, c := range sc {
			if i := slices.IndexFunc(r.rules, func(ru rule) bool { return ru.Label == c.Label }); r.rules[i].Personal {
				t.Fatalf("RedactSecrets(%q) redacted personal data: %q %v", text, secrets, sc)
			}
		}
		if again, c := r.RedactSecrets(secrets); c != nil {
			t.Fatalf("RedactSecrets again changed the output:\n in  %q\n out %q\n then %q %v", text, secrets, again, c)
		}
		if uout, ucounts := ungated.Redact(text); uout != out || ucounts.String() != counts.String() {
			t.Fatalf("the gate changed the result on %q:\n%q %v\nwithout it %q %v", text, out, counts, uout, ucounts)
		}
		cout, ccounts := custom.Redact(text)
		if pout, pcounts := plain.Redact(text); pout != cout || pcounts.String() != ccounts.String() {
			t.Fatalf("scoped and plain custom redaction differ on %q:\n%q %v\n%q %v", text, cout, ccounts, pout, pcounts)
		}
	})
}

// ungatedDefault returns the built-in patterns with no gate: every
// scanner runs on every text.
func ungatedDefault() *Redactor {
	rules := slices.Clone(Default().rules)
	for i := range rules {
		rules[i].need = nil
	}
	return newRedactor(rules)
}

// anchored holds, per built-in rule, its expression anchored at both
// ends with room for the rune before and after the match, so that \b
// sees them.
var anchored = sync.OnceValue(func() map[string][4]*regexp.Regexp {
	m := map[string][4]*regexp.Regexp{}
	for _, d := range defaults {
		var res [4]*regexp.Regexp
		for k := range res {
			lead, trail := "", ""
			if k&1 != 0 {
				lead = `(?s:.)`
			}
			if k&2 != 0 {
				trail = `(?s:.)`
			}
			res[k] = regexp.MustCompile(`^` + lead + `(?:` + d.Regexp + `)` + trail + `$`)
		}
		m[d.Label] = res
	}
	return m
})

// checkHitsMatchExpressions checks every hit of every built-in scanner in
// text against its pattern's expression: the expression must match
// exactly text[from:to], with its "secret" group, if any, exactly the
// part replaced.
func checkHitsMatchExpressions(t *testing.T, r *Redactor, text string) {
	t.Helper()
	for _, ru := range r.rules {
		if ru.find == nil {
			continue
		}
		for _, h := range ru.find(text, nil) {
			if !(0 <= h.from && h.from <= h.start && h.start < h.end && h.end <= h.to && h.to <= len(text)) {
				t.Fatalf("%s: bad hit %+v in %q", ru.Label, h, text)
			}
			lo, hi, k := h.from, h.to, 0
			if lo > 0 {
				_, n := utf8.DecodeLastRuneInString(text[:lo])
				lo -= n
				k |= 1
			}
			if hi < len(text) {
				_, n := utf8.DecodeRuneInString(text[hi:])
				hi += n
				k |= 2
			}
			re := anchored()[ru.Label][k]
			m := re.FindStringSubmatchIndex(text[lo:hi])
			if m == nil {
				t.Fatalf("%s: %q (at %d in %q) does not match %s", ru.Label, text[h.from:h.to], h.from, text, ru.Regexp)
			}
			if ru.secret >= 0 {
				s, e := m[2*ru.secret]+lo, m[2*ru.secret+1]+lo
				if s != h.start || e != h.end {
					t.Fatalf("%s: replaced %q, the expression's secret is %q, in %q", ru.Label, text[h.start:h.end], text[max(s, 0):max(e, 0)], text)
				}
			}
		}
	}
}

// FuzzRedactPlanted plants a secret or personal datum of a known shape,
// generated from seed, between two fuzzed texts, each side on its own
// line, and checks that every byte of it is redacted.
func FuzzRedactPlanted(f *testing.F) {
	for i, s := range redactSeeds {
		for kind := range plantKinds {
			f.Add(s, redactSeeds[(i+kind)%len(redactSeeds)], uint8(kind), uint64(i*31+kind))
		}
	}
	r := Default()
	f.Fuzz(func(t *testing.T, before, after string, kind uint8, seed uint64) {
		k := plantKinds[int(kind)%len(plantKinds)]
		planted, lo, hi := k.make(&splitmix{seed})
		text := before + "\n" + planted + "\n" + after
		lo += len(before) + 1
		hi += len(before) + 1
		pos := lo
		for _, s := range r.spans(text, true) {
			if s.start <= pos && pos < s.end {
				pos = s.end
			}
		}
		if pos < hi {
			out, _ := r.Redact(text)
			t.Fatalf("%s %q survives in\n%q\nas\n%q", k.label, text[lo:hi], text, out)
		}
	})
}

// splitmix is a small deterministic generator.
type splitmix struct{ s uint64 }

func (g *splitmix) next() uint64 {
	g.s += 0x9e3779b97f4a7c15
	z := g.s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (g *splitmix) intn(n int) int { return int(g.next() % uint64(n)) }

func (g *splitmix) pick(options ...string) string { return options[g.intn(len(options))] }

// from returns n bytes of chars.
func (g *splitmix) from(chars string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = chars[g.intn(len(chars))]
	}
	return string(b)
}

// withDigit returns s with a digit at a random place.
func (g *splitmix) withDigit(s string) string {
	b := []byte(s)
	b[g.intn(len(b))] = byte('0' + g.intn(10))
	return string(b)
}

// luhnComplete returns digits with the check digit that makes it pass
// the Luhn check.
func luhnComplete(digits string) string {
	for d := byte('0'); d <= '9'; d++ {
		if luhn(digits + string(d)) {
			return digits + string(d)
		}
	}
	panic("no Luhn digit")
}

// group writes digits in groups of the given sizes, separated by sep.
func group(s string, sep string, sizes ...int) string {
	var parts []string
	for _, n := range sizes {
		if n >= len(s) {
			break
		}
		parts = append(parts, s[:n])
		s = s[n:]
	}
	return strings.Join(append(parts, s), sep)
}

// plantKinds generate secrets and personal data of every built-in shape:
// the text to plant, and the range of it that must be redacted.
var plantKinds = []struct {
	label string
	make  func(g *splitmix) (text string, lo, hi int)
}{
	{"private-key", func(g *splitmix) (string, int, int) {
		kind := g.pick("", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED ")
		s := "-----BEGIN " + kind + "PRIVATE KEY-----\n" + g.from(alnumChars+"+/", 64) + "\n" + g.from(alnumChars+"+/", 1+g.intn(64)) + "=\n-----END " + kind + "PRIVATE KEY-----"
		return s, 0, len(s)
	}},
	{"url-password", func(g *splitmix) (string, int, int) {
		head := g.pick("postgres", "redis", "mysql", "amqp", "https", "mongodb+srv") + "://" + g.pick("", "app", "user.name", "u%40x") + ":"
		pw := g.from(alnumChars+"@:!$%&'()*+,;=[]-._~", 1+g.intn(24))
		return head + pw + "@" + g.pick("db", "10.0.0.5:5432", "h.example.com") + g.pick("", "/x", "?a=b", "#f"), len(head), len(head) + len(pw)
	}},
	{"bearer-token", func(g *splitmix) (string, int, int) {
		head := g.pick("Authorization: Bearer ", `"authorization": "bearer `, "AUTHORIZATION=BEARER ")
		tok := g.from(alnumChars+"._~+/-", 8+g.intn(40)) + g.pick("", "=", "==")
		return head + tok, len(head), len(head) + len(tok)
	}},
	{"bearer-token", func(g *splitmix) (string, int, int) {
		tok := g.withDigit(g.from(alnumChars+"._~+/-", 20+g.intn(40)))
		return "bearer " + tok, 7, 7 + len(tok)
	}},
	{"basic-auth", func(g *splitmix) (string, int, int) {
		head := g.pick("Authorization: Basic ", "authorization:basic ", `"Authorization": "Basic `)
		cred := base64.StdEncoding.EncodeToString([]byte(g.from(alnumChars, 1+g.intn(12)) + ":" + g.from(alnumChars+"!@#", g.intn(20))))
		return head + cred, len(head), len(head) + len(cred)
	}},
	{"aws-secret-key", func(g *splitmix) (string, int, int) {
		head := g.pick("aws_secret_access_key", "AWS_SECRET_ACCESS_KEY", "SecretAccessKey", "aws-secret-key", `"aws_secret_access_key"`) +
			g.pick(" = ", "=", ": ", ":", " => ", ":=") + g.pick("", `"`, "'")
		key := g.from(alnumChars+"/+", 40)
		return head + key, len(head), len(head) + 40
	}},
	{"anthropic-key", func(g *splitmix) (string, int, int) {
		s := "sk-ant-api03-" + g.withDigit(g.from(alnumChars+"_-", 20+g.intn(80)))
		return s, 0, len(s)
	}},
	{"openai-key", func(g *splitmix) (string, int, int) {
		s := g.pick("sk-", "sk-proj-", "sk-svcacct-") + g.withDigit(g.from(alnumChars+"_-", 20+g.intn(140)))
		return s, 0, len(s)
	}},
	{"google-api-key", func(g *splitmix) (string, int, int) {
		s := "AIza" + g.from(alnumChars+"_-", 35)
		return s, 0, len(s)
	}},
	{"github-token", func(g *splitmix) (string, int, int) {
		var s string
		if g.intn(3) == 0 {
			s = "github_pat_" + g.from(alnumChars, 22) + "_" + g.from(alnumChars, 59)
		} else {
			s = g.pick("ghp_", "gho_", "ghu_", "ghs_", "ghr_") + g.from(alnumChars, 36)
		}
		return s, 0, len(s)
	}},
	{"gitlab-token", func(g *splitmix) (string, int, int) {
		s := "glpat-" + g.from(alnumChars+"_-", 20+g.intn(10))
		return s, 0, len(s)
	}},
	{"huggingface-token", func(g *splitmix) (string, int, int) {
		s := "hf_" + g.from(upperChars, 1) + g.from(lowerChars, 1) + g.from(upperChars+lowerChars, 32+g.intn(6))
		return s, 0, len(s)
	}},
	{"npm-token", func(g *splitmix) (string, int, int) {
		s := "npm_" + g.from(alnumChars, 36)
		return s, 0, len(s)
	}},
	{"aws-access-key", func(g *splitmix) (string, int, int) {
		s := g.pick("AKIA", "ASIA") + g.from(upperChars+digitChars, 16)
		return s, 0, len(s)
	}},
	{"slack-token", func(g *splitmix) (string, int, int) {
		s := g.pick("xoxa-", "xoxb-", "xoxe-", "xoxp-", "xoxr-", "xoxs-") + g.withDigit(g.from(alnumChars+"-", 10+g.intn(50)))
		return s, 0, len(s)
	}},
	{"stripe-key", func(g *splitmix) (string, int, int) {
		s := g.pick("sk_live_", "rk_live_", "sk_test_", "rk_test_") + g.withDigit(g.from(alnumChars, 16+g.intn(80)))
		return s, 0, len(s)
	}},
	{"jwt", func(g *splitmix) (string, int, int) {
		s := "eyJ" + g.from(alnumChars+"_-", 8+g.intn(30)) + ".eyJ" + g.from(alnumChars+"_-", 8+g.intn(60)) + "." + g.from(alnumChars+"_-", 16+g.intn(40))
		return s, 0, len(s)
	}},
	{"card-number", func(g *splitmix) (string, int, int) {
		c := cardIssuers[g.intn(len(cardIssuers))]
		n := int(c.lengths[g.intn(len(c.lengths))])
		prefix := c.lo
		if c.hi != c.lo {
			prefix = fmt.Sprint(atoi(c.lo) + g.intn(atoi(c.hi)-atoi(c.lo)+1))
		}
		digits := luhnComplete(prefix + g.from(digitChars, n-len(prefix)-1))
		s := digits
		switch {
		case g.intn(3) == 0:
		case n == 14 || n == 15: // Diners 4-6-4, American Express 4-6-5
			s = group(digits, g.pick(" ", "-"), 4, 6)
		default: // in fours, the last group shorter
			s = group(digits, g.pick(" ", "-"), 4, 4, 4, 4)
		}
		return s, 0, len(s)
	}},
	{"email", func(g *splitmix) (string, int, int) {
		s := g.from(alnumChars, 1) + g.from(alnumChars+"._%+-", g.intn(20)) + "@" + g.from(alnumChars, 1) + g.from(alnumChars+"-", g.intn(10)) +
			g.pick("", "."+g.from(alnumChars, 1+g.intn(8))) + "." + g.from(lowerChars+upperChars, 2+g.intn(6))
		return s, 0, len(s)
	}},
	{"phone", func(g *splitmix) (string, int, int) {
		nxx := func() string { return g.from("23456789", 1) + g.from(digitChars, 2) }
		var s string
		switch g.intn(5) {
		case 0:
			sep := g.pick(" ", "-", ".")
			s = nxx() + sep + nxx() + sep + g.from(digitChars, 4)
		case 1:
			s = "(" + nxx() + ")" + g.pick("", " ") + nxx() + g.pick(" ", "-", ".") + g.from(digitChars, 4)
		case 2:
			sep := g.pick(" ", "-", ".")
			s = "1" + sep + nxx() + sep + nxx() + sep + g.from(digitChars, 4)
		case 3:
			// A country code, then 7 to 12 digits in three groups.
			s = "+" + g.from("123456789", 1) + g.from(digitChars, g.intn(3)) + " " + g.from(digitChars, 2+g.intn(3)) + g.pick(" ", "-") + g.from(digitChars, 3+g.intn(2)) + g.pick(" ", "-") + g.from(digitChars, 2+g.intn(3))
		default:
			s = "+" + g.from("123456789", 1) + g.from(digitChars, 9+g.intn(5))
		}
		return s, 0, len(s)
	}},
	{"iban", func(g *splitmix) (string, int, int) {
		var cc string
		var n int
		for n == 0 {
			cc = g.from(upperChars, 2)
			n = ibanLength(cc, 0)
		}
		bban := g.from(upperChars+digitChars+digitChars+digitChars, n-4)
		for d := 0; d < 100; d++ {
			s := fmt.Sprintf("%s%02d%s", cc, d, bban)
			if ibanChecksum(s) {
				if g.intn(2) == 0 {
					s = group(s, " ", 4, 4, 4, 4, 4, 4, 4, 4)
				}
				return s, 0, len(s)
			}
		}
		panic("no IBAN check digits")
	}},
	{"ssn", func(g *splitmix) (string, int, int) {
		area := fmt.Sprintf("%03d", 1+g.intn(899))
		if area == "666" {
			area = "667"
		}
		s := fmt.Sprintf("%s-%02d-%04d", area, 1+g.intn(99), 1+g.intn(9999))
		return s, 0, len(s)
	}},
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// TestPlantKinds checks that every built-in label has a generator in
// FuzzRedactPlanted, and runs each on a few hundred seeds outside
// fuzzing: the whole secret is redacted, under its label, and redacting
// the result again changes nothing.
func TestPlantKinds(t *testing.T) {
	for _, p := range DefaultPatterns() {
		if !slices.ContainsFunc(plantKinds, func(k struct {
			label string
			make  func(g *splitmix) (string, int, int)
		}) bool {
			return k.label == p.Label
		}) {
			t.Errorf("no generator for %s", p.Label)
		}
	}
	r := Default()
	for _, k := range plantKinds {
		for seed := range uint64(500) {
			s, lo, hi := k.make(&splitmix{seed})
			text := "before\n" + s + "\nafter"
			spans := r.spans(text, true)
			if len(spans) != 1 || spans[0].start > lo+7 || spans[0].end < hi+7 {
				out, _ := r.Redact(text)
				t.Errorf("%s: %q survives as %q", k.label, s[lo:hi], out)
				break
			}
			if got := r.rules[spans[0].rule].Label; got != k.label {
				t.Errorf("%s: %q redacted as %s", k.label, s, got)
				break
			}
			if out, _ := r.Redact(text); !strings.HasPrefix(out, "before\n"+s[:lo]+Placeholder(k.label)) {
				t.Errorf("%s: %q redacted as %q", k.label, s, out)
				break
			} else if again, c := r.Redact(out); c != nil {
				t.Errorf("%s: redacting %q again gives %q", k.label, out, again)
				break
			}
		}
	}
}
