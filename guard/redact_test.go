package guard

import (
	"strings"
	"testing"
)

// Test credentials are built at run time so that no string in this file
// looks like a live key to a secret scanner.
func fake(prefix string, n int) string {
	const chars = "aB3dE5gH7jK9mN1pQ2sT4vW6yZ8"
	var b strings.Builder
	b.WriteString(prefix)
	for i := 0; i < n; i++ {
		b.WriteByte(chars[i%len(chars)])
	}
	return b.String()
}

func TestRedactDefaults(t *testing.T) {
	pem := "-----BEGIN RSA PRIVATE KEY-----\n" + fake("", 64) + "\n" + fake("", 40) + "\n-----END RSA PRIVATE KEY-----"
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + fake("", 43)
	tests := []struct {
		label, in, want string
	}{
		{"openai-key", "key " + fake("sk-", 48) + " here", "key [REDACTED:openai-key] here"},
		{"openai-key", "OPENAI_API_KEY=" + fake("sk-proj-", 60), "OPENAI_API_KEY=[REDACTED:openai-key]"},
		{"anthropic-key", "use " + fake("sk-ant-api03-", 80) + ".", "use [REDACTED:anthropic-key]."},
		{"google-api-key", "k=" + fake("AIza", 35) + ";", "k=[REDACTED:google-api-key];"},
		{"github-token", fake("ghp_", 36), "[REDACTED:github-token]"},
		{"github-token", "token: " + fake("gho_", 36), "token: [REDACTED:github-token]"},
		{"github-token", fake("github_pat_11", 70), "[REDACTED:github-token]"},
		{"aws-access-key", "id AKIA" + strings.ToUpper(fake("", 16)) + " ok", "id [REDACTED:aws-access-key] ok"},
		{"slack-token", fake("xoxb-1234-", 24), "[REDACTED:slack-token]"},
		{"stripe-key", fake("sk_live_", 24) + " and " + fake("rk_live_", 24), "[REDACTED:stripe-key] and [REDACTED:stripe-key]"},
		{"jwt", "jwt=" + jwt, "jwt=[REDACTED:jwt]"},
		{"bearer-token", "Authorization: Bearer " + fake("", 32), "Authorization: Bearer [REDACTED:bearer-token]"},
		{"bearer-token", "authorization: bearer " + jwt, "authorization: bearer [REDACTED:bearer-token]"},
		{"private-key", "key:\n" + pem + "\nafter", "key:\n[REDACTED:private-key]\nafter"},
		{"private-key", "-----BEGIN OPENSSH PRIVATE KEY-----\n" + fake("", 70) + "\n(cut off)", "[REDACTED:private-key]"},
		{"private-key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\nx\n-----END PGP PRIVATE KEY BLOCK-----!", "[REDACTED:private-key]!"},
		{"url-password", "postgres://app:" + fake("", 12) + "@db.internal:5432/x", "postgres://app:[REDACTED:url-password]@db.internal:5432/x"},
		{"url-password", "see https://bob:hunter2@example.com/a", "see https://bob:[REDACTED:url-password]@example.com/a"},
		{"email", "write to jane.doe+tag@mail.example.co.uk today", "write to [REDACTED:email] today"},
		{"phone", "call (415) 555-2671 or +1 415 555 2671", "call [REDACTED:phone] or [REDACTED:phone]"},
		{"phone", "ring 415-555-2671.", "ring [REDACTED:phone]."},
		{"phone", "UK +44 20 7946 0958, DE +49 151 12345678", "UK [REDACTED:phone], DE [REDACTED:phone]"},
	}
	r := Default()
	for _, tt := range tests {
		got, counts := r.Redact(tt.in)
		if got != tt.want {
			t.Errorf("%s: Redact(%q) =\n%q\nwant\n%q", tt.label, tt.in, got, tt.want)
		}
		if n := strings.Count(tt.want, Placeholder(tt.label)); counts.Get(tt.label) != n || counts.Total() != n {
			t.Errorf("%s: counts %v, want %s=%d", tt.label, counts, tt.label, n)
		}
	}
}

// TestRedactProse checks that ordinary prose, code and identifiers pass
// unchanged.
func TestRedactProse(t *testing.T) {
	for _, s := range []string{
		"We use sk-learn-compatible-estimators for the baseline model.",
		"task-management-system-design-notes and desk-reservation-service-v2",
		"The Bearer authentication scheme sends a bearer token in a header.",
		"Release v1.2.3 on 2025-06-01 at 12:30:45; build 20250601.1 took 1234567890 ns.",
		"Serve on 192.168.100.200:8080 and 10.0.0.1; UUID 123e4567-e89b-12d3-a456-426614174000.",
		"sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"go install golang.org/x/tools@v0.26.0 and npm i @scope/pkg@1.2.3; @Override; user@localhost",
		"func main() { x := map[string]int{\"a\": 1}; fmt.Println(x[\"a\"] + 100 - 200) }",
		"Scores: 100 200 300 4000 and 12 345 678.",
		"Keep responses under 500 tokens; priority (1) to (5); see https://example.com/docs#x.",
		"The key starts with AKIA but is not a key: AKIA-example.",
		"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
		"eyJ alone, or eyJhbGciOi without dots",
		"stripe test helpers: sk_test_helpers_for_payment",
		"xoxo kisses, xox-nope",
		"price +1 234",
	} {
		got, counts := Default().Redact(s)
		if got != s || counts != nil {
			t.Errorf("Redact changed prose:\n%q\n%q (%v)", s, got, counts)
		}
	}
}

func TestRedactSecretsKeepsPersonal(t *testing.T) {
	in := "mail jane@example.com, call 415-555-2671, key " + fake("sk-", 30)
	got, counts := Default().RedactSecrets(in)
	want := "mail jane@example.com, call 415-555-2671, key [REDACTED:openai-key]"
	if got != want || counts.String() != "openai-key=1" {
		t.Errorf("RedactSecrets = %q %v", got, counts)
	}
	got, counts = Default().Redact(in)
	want = "mail [REDACTED:email], call [REDACTED:phone], key [REDACTED:openai-key]"
	if got != want || counts.String() != "email=1 openai-key=1 phone=1" {
		t.Errorf("Redact = %q %v", got, counts)
	}
}

func TestRedactOverlap(t *testing.T) {
	// The bearer pattern and the JWT pattern both match the token; it is
	// replaced once, under the earlier pattern's label.
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0." + fake("", 43)
	got, counts := Default().Redact("Bearer " + jwt)
	if got != "Bearer [REDACTED:bearer-token]" || counts.String() != "bearer-token=1" {
		t.Errorf("got %q %v", got, counts)
	}
	// A custom pattern overlapping a built-in one: the union is replaced,
	// so no part of either survives.
	r, err := NewRedactor([]Pattern{{Label: "ticket", Regexp: `TICKET-[0-9]+-sk`}}, true)
	if err != nil {
		t.Fatal(err)
	}
	in := "TICKET-42-" + fake("sk-", 30) + " end"
	got, counts = r.Redact(in)
	if got != "[REDACTED:ticket] end" || counts.String() != "ticket=1" {
		t.Errorf("got %q %v", got, counts)
	}
}

func TestRedactNoMatchReturnsInput(t *testing.T) {
	in := "nothing to see"
	got, counts := Default().Redact(in)
	if got != in || counts != nil {
		t.Errorf("got %q %v", got, counts)
	}
	empty, err := NewRedactor(nil, false)
	if err != nil {
		t.Fatal(err)
	}
	secret := fake("sk-", 40)
	if got, counts := empty.Redact(secret); got != secret || counts != nil {
		t.Errorf("empty redactor changed %q to %q", secret, got)
	}
	var nilR *Redactor
	if got, _ := nilR.Redact(secret); got != secret {
		t.Error("nil redactor changed text")
	}
}

func TestNewRedactorCustom(t *testing.T) {
	r, err := NewRedactor([]Pattern{
		{Label: "employee-id", Regexp: `\bEMP-\d{6}\b`},
		{Label: "email", Regexp: `[a-z]+@corp\.example`, Personal: true}, // replaces the built-in
		{Label: "api-secret", Regexp: `api_secret=(?P<secret>\w+)`},
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{}
	for _, p := range r.Patterns() {
		labels = append(labels, p.Label)
	}
	wantLabels := "private-key url-password bearer-token basic-auth aws-secret-key anthropic-key openai-key google-api-key github-token gitlab-token huggingface-token npm-token aws-access-key slack-token stripe-key jwt card-number email phone iban ssn employee-id api-secret"
	if strings.Join(labels, " ") != wantLabels {
		t.Errorf("labels = %v", labels)
	}
	got, counts := r.Redact("EMP-123456 bob@corp.example ann@other.example api_secret=abc123 EMP-1234567")
	want := "[REDACTED:employee-id] [REDACTED:email] ann@other.example api_secret=[REDACTED:api-secret] EMP-1234567"
	if got != want || counts.String() != "api-secret=1 email=1 employee-id=1" {
		t.Errorf("got %q %v", got, counts)
	}

	only, err := NewRedactor([]Pattern{{Label: "employee-id", Regexp: `\bEMP-\d{6}\b`}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := only.Redact("EMP-123456 " + fake("sk-", 30)); !strings.HasPrefix(got, "[REDACTED:employee-id] sk-") {
		t.Errorf("without defaults: %q", got)
	}
}

// A built-in pattern passed back in keeps its extra checks.
func TestNewRedactorKeepsBuiltinChecks(t *testing.T) {
	r, err := NewRedactor(DefaultPatterns(), false)
	if err != nil {
		t.Fatal(err)
	}
	prose := "We use sk-learn-compatible-estimators here."
	if got, _ := r.Redact(prose); got != prose {
		t.Errorf("check lost: %q", got)
	}
	key := fake("sk-", 30)
	if got, _ := r.Redact(key); got != "[REDACTED:openai-key]" {
		t.Errorf("key kept: %q", got)
	}
}

func TestNewRedactorErrors(t *testing.T) {
	_, err := NewRedactor([]Pattern{
		{Label: "", Regexp: `x`},
		{Label: "Bad Label", Regexp: `x`},
		{Label: "ok", Regexp: `a+`},
		{Label: "ok", Regexp: `b+`},
		{Label: "broken", Regexp: `(unclosed`},
		{Label: "greedy", Regexp: `a*`},
		{Label: "blank", Regexp: ``},
	}, true)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`pattern 1 (""): the label must be 1 to 32 lower-case letters`,
		`pattern 2 ("Bad Label"): the label must be`,
		`pattern "ok": the label is used by an earlier pattern`,
		`pattern "broken": the regexp does not compile (error parsing regexp: missing closing ): ` + "`(unclosed`" + `): fix the expression`,
		`pattern "greedy": the regexp matches empty text`,
		`pattern "blank": the regexp is empty`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("missing %q in:\n%v", want, err)
		}
	}
}

func TestCounts(t *testing.T) {
	var c Counts
	c.Add("phone", 1)
	c.Add("email", 2)
	c.Add("jwt", 0)
	c.Add("phone", 3)
	c.Merge(Counts{{"aws-access-key", 1}, {"email", 1}})
	if c.String() != "aws-access-key=1 email=3 phone=4" || c.Total() != 8 || c.Get("email") != 3 || c.Get("jwt") != 0 {
		t.Errorf("counts = %v (total %d)", c, c.Total())
	}
}
