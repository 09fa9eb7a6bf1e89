package guard

import (
	"strings"
	"testing"
)

// TestRedactHostileInputs redacts the hostile inputs of BenchmarkRedact
// at 10 KB and at 100 KB. It cannot time them (tests never assert on the
// clock; the benchmarks report MB/s), but it checks what can be checked
// without a clock: the result, that redacting it again changes nothing,
// and that a text with nothing to redact costs the same allocations
// however long it is: the scanners keep no per-byte or per-candidate
// state.
func TestRedactHostileInputs(t *testing.T) {
	r := Default()
	for _, h := range hostileInputs() {
		small := h.text[:10<<10]
		out, counts := r.Redact(h.text)
		if _, again := r.Redact(out); again != nil {
			t.Errorf("%s: redacting again redacts %v", h.name, again)
		}
		t.Logf("%-14s %v", h.name, counts)
		if counts != nil {
			continue
		}
		if _, c := r.Redact(small); c != nil {
			t.Errorf("%s: 10 KB redacts %v, 100 KB nothing", h.name, c)
		}
		if testing.Short() {
			continue
		}
		a1 := testing.AllocsPerRun(3, func() { r.Redact(small) })
		a2 := testing.AllocsPerRun(3, func() { r.Redact(h.text) })
		if a1 != a2 {
			t.Errorf("%s: %v allocations at 10 KB, %v at 100 KB", h.name, a1, a2)
		}
	}
}

// Runs of what the patterns look for, with matches in them, are
// redacted as they should be.
func TestRedactHostileMatches(t *testing.T) {
	key := fake("sk-", 40)
	for _, tc := range []struct {
		name, in string
		want     Counts
	}{
		{"repeated keys", strings.Repeat(key+" ", 1000), Counts{{"openai-key", 1000}}},
		{"glued prefixes", strings.Repeat("sk-", 1000) + key[3:], Counts{{"openai-key", 1}}},
		{"PEM headers", strings.Repeat("-----BEGIN RSA PRIVATE KEY-----", 1000), Counts{{"private-key", 1}}},
		{"e-mails", strings.Repeat("a@b.co ", 1000), Counts{{"email", 1000}}},
		{"e-mails glued", strings.Repeat("a@b.co@", 1000), Counts{{"email", 1000}}},
		{"local parts glued", strings.Repeat("a.", 5000) + "@b.co", Counts{{"email", 1}}},
		{"URLs", strings.Repeat("a://b:c@d ", 1000), Counts{{"url-password", 1000}}},
		{"URLs glued", strings.Repeat("a://b:c@", 1000), Counts{{"url-password", 1000}}},
		{"cards", strings.Repeat("4111 1111 1111 1111\n", 1000), Counts{{"card-number", 1000}}},
		{"phones", strings.Repeat("415-555-2671, ", 1000), Counts{{"phone", 1000}}},
		{"AIza runs", strings.Repeat("AIza-", 1000) + fake("AIza", 35) + " ", Counts{{"google-api-key", 1}}},
	} {
		_, counts := Default().Redact(tc.in)
		if counts.String() != tc.want.String() {
			t.Errorf("%s: counts %v, want %v", tc.name, counts, tc.want)
		}
	}
}

// TestRedactCleanTextAllocatesNothing: text with nothing to redact, but
// with the words some patterns look for ("secret", "bearer"), costs no
// allocation, so redacting every field of a spec stays cheap.
func TestRedactCleanTextAllocatesNothing(t *testing.T) {
	r := Default()
	s := "The deploy of service alpha finished at noon; the secret sauce is patience and a bearer of good news, says Authorization Day."
	if n := testing.AllocsPerRun(100, func() { r.Redact(s) }); n != 0 {
		t.Errorf("Redact of clean text: %v allocations, want 0", n)
	}
}
