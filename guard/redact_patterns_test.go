package guard

import (
	"encoding/base64"
	"strings"
	"testing"
)

// redactCase is a text and what Redact makes of it.
type redactCase struct{ in, want string }

// checkRedact runs Redact over each case and checks the text and that
// the counts hold exactly the placeholders of want; with the built-in
// patterns, it checks too that running every scanner on every text,
// without the gate, finds the same.
func checkRedact(t *testing.T, r *Redactor, cases []redactCase) {
	t.Helper()
	var ungated *Redactor
	if r == Default() {
		ungated = ungatedDefault()
	}
	for _, tc := range cases {
		got, counts := r.Redact(tc.in)
		if ungated != nil {
			if u, uc := ungated.Redact(tc.in); u != got || uc.String() != counts.String() {
				t.Errorf("Redact(%q) = %q %v, but without the gate %q %v", tc.in, got, counts, u, uc)
			}
		}
		if got != tc.want {
			t.Errorf("Redact(%q) =\n  %q\nwant\n  %q", tc.in, got, tc.want)
			continue
		}
		n := strings.Count(tc.want, "[REDACTED:") - strings.Count(tc.in, "[REDACTED:")
		if counts.Total() != n {
			t.Errorf("Redact(%q): counts %v, want %d in all", tc.in, counts, n)
		}
	}
}

// unchanged returns cases whose text Redact must leave as it is.
func unchanged(texts ...string) []redactCase {
	cs := make([]redactCase, len(texts))
	for i, s := range texts {
		cs[i] = redactCase{s, s}
	}
	return cs
}

// awsExampleSecret is the secret access key of AWS's documentation,
// built here so that the file holds no key-shaped string.
var awsExampleSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"

// Passwords in URLs are replaced whole: with an empty user name, and
// with a raw '@' or ':' in them, as net/url reads the URL.
func TestRedactURLPasswordLeaks(t *testing.T) {
	checkRedact(t, Default(), []redactCase{
		{"redis://:secret@cache:6379/0", "redis://:[REDACTED:url-password]@cache:6379/0"},
		{"REDIS_URL=redis://:" + fake("", 20) + "@10.0.0.5", "REDIS_URL=redis://:[REDACTED:url-password]@10.0.0.5"},
		{"postgres://app:p@ss@db/x", "postgres://app:[REDACTED:url-password]@db/x"},
		{"mysql://root:a@b@c:d@db.internal:3306/app", "mysql://root:[REDACTED:url-password]@db.internal:3306/app"},
		{"amqp://guest:pa:ss@mq/", "amqp://guest:[REDACTED:url-password]@mq/"},
		{"https://user@corp.example:hunter2@proxy", "https://user@corp.example:[REDACTED:url-password]@proxy"},
		{`{"dsn":"postgres://u:pw@h/db","owner":"ann@example.com"}`, `{"dsn":"postgres://u:[REDACTED:url-password]@h/db","owner":"[REDACTED:email]"}`},
		{"mongodb+srv://user:" + fake("", 16) + "@host1:1,host2:2/db", "mongodb+srv://user:[REDACTED:url-password]@host1:1,host2:2/db"},
		// One URL's host glued to the next one's scheme: both passwords go.
		{"a://b:c@d://e:f@g", "a://b:[REDACTED:url-password]@d://e:[REDACTED:url-password]@g"},
	})
	checkRedact(t, Default(), unchanged(
		"https://example.com:8443/path?q=1#frag",
		"http://[::1]:8080/debug",
		"https://user@example.com/repo.git",
		"ssh://git@github.com:22/org/repo",
		"://:@ and a://:@b",
		"see http://host:80/a@b",
		"redis://:[REDACTED:url-password]@cache",
	))
}

func TestRedactAWSSecretKey(t *testing.T) {
	k := awsExampleSecret
	other := fake("", 36) + "/+Ab"
	checkRedact(t, Default(), []redactCase{
		{"aws_secret_access_key = " + k, "aws_secret_access_key = [REDACTED:aws-secret-key]"},
		{"AWS_SECRET_ACCESS_KEY: " + k + "\n", "AWS_SECRET_ACCESS_KEY: [REDACTED:aws-secret-key]\n"},
		{"export AWS_SECRET_ACCESS_KEY=" + other, "export AWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]"},
		{`{"aws_secret_access_key": "` + k + `"}`, `{"aws_secret_access_key": "[REDACTED:aws-secret-key]"}`},
		{`{"SecretAccessKey":"` + k + `","SessionToken":"x"}`, `{"SecretAccessKey":"[REDACTED:aws-secret-key]","SessionToken":"x"}`},
		{"cfg := aws.Config{SecretAccessKey: '" + k + "'}", "cfg := aws.Config{SecretAccessKey: '[REDACTED:aws-secret-key]'}"},
		{"aws-secret-key => \"" + k + "\"", "aws-secret-key => \"[REDACTED:aws-secret-key]\""},
		{"MY_AWS_SECRET_ACCESS_KEY:=" + k, "MY_AWS_SECRET_ACCESS_KEY:=[REDACTED:aws-secret-key]"},
	})
	checkRedact(t, Default(), unchanged(
		// The key alone: 40 base64 bytes are also hashes and such.
		k,
		"sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"aws_secret_access_key = "+k[:39],
		"aws_secret_access_key = "+k+"A",
		"aws_secret_access_key = "+k+"==",
		"aws_secret_access_key = ${AWS_SECRET_ACCESS_KEY}",
		"aws_secret_access_key = YOUR_SECRET_ACCESS_KEY_GOES_HERE_1234567",
		"secret_key = "+k,
		"the secret access key is "+k,
	))
}

func TestRedactProviderTokens(t *testing.T) {
	checkRedact(t, Default(), []redactCase{
		{"token " + fake("ghp_", 36) + ".", "token [REDACTED:github-token]."},
		{fake("gho_", 36) + " " + fake("ghu_", 36) + " " + fake("ghs_", 36) + " " + fake("ghr_", 36),
			"[REDACTED:github-token] [REDACTED:github-token] [REDACTED:github-token] [REDACTED:github-token]"},
		{"GH_TOKEN=" + fake("github_pat_11ABCDEFG0", 12) + "_" + fake("", 59), "GH_TOKEN=[REDACTED:github-token]"},
		{"CI_TOKEN=" + fake("glpat-", 20), "CI_TOKEN=[REDACTED:gitlab-token]"},
		{"glpat-" + strings.Repeat("ab_-", 6), "[REDACTED:gitlab-token]"},
		{"HF_TOKEN=hf_" + strings.Repeat("aBcDeFgHiJkLmNoPq", 2), "HF_TOKEN=[REDACTED:huggingface-token]"},
		{"//registry.npmjs.org/:_authToken=" + fake("npm_", 36), "//registry.npmjs.org/:_authToken=[REDACTED:npm-token]"},
		{fake("xoxb-1234-", 24) + " " + fake("xoxp-99-", 30) + " " + fake("xoxe-1-", 30),
			"[REDACTED:slack-token] [REDACTED:slack-token] [REDACTED:slack-token]"},
		{fake("sk_live_", 24) + " " + fake("rk_live_", 24), "[REDACTED:stripe-key] [REDACTED:stripe-key]"},
		{"key=" + fake("AIza", 35) + "&q=1", "key=[REDACTED:google-api-key]&q=1"},
		{"AWS_ACCESS_KEY_ID=AKIA" + strings.ToUpper(fake("", 16)), "AWS_ACCESS_KEY_ID=[REDACTED:aws-access-key]"},
	})
	checkRedact(t, Default(), unchanged(
		fake("ghp_", 35),
		fake("ghp_", 37),
		fake("ghx_", 36),
		"x"+fake("ghp_", 36),
		fake("ghp_", 36)+"_x",
		"github_pat_short",
		fake("glpat-", 19),
		"glpat-tokens are GitLab's personal access tokens",
		"hf_"+strings.Repeat("aBcD", 8)+"a",   // 33
		"hf_"+strings.Repeat("abcdefghij", 4), // no upper case: an identifier
		"hf_hub_download and hf_transfer",
		fake("npm_", 35),
		fake("npm_", 37),
		"npm_config_registry=https://registry.npmjs.org/",
		"xoxo-kisses-and-hugs-from-paris",
		"xoxb-only-words-and-no-digits-here",
		fake("xoxb-", 8),
		fake("pk_live_", 24), // publishable
		fake("sk_live_", 15),
		"sk_live_helpers_without_digits_at_all",
		fake("AIza", 34),
		"AIzaSy is how Google API keys start",
		"AKIA"+strings.ToUpper(fake("", 15)),
		"AKIA"+strings.ToUpper(fake("", 17)),
		"AKIAIOSFODNN7example",
	))
}

func TestRedactPrivateKeys(t *testing.T) {
	body := fake("", 64) + "\n" + fake("", 40)
	for _, kind := range []string{"", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED "} {
		pem := "-----BEGIN " + kind + "PRIVATE KEY-----\n" + body + "\n-----END " + kind + "PRIVATE KEY-----"
		checkRedact(t, Default(), []redactCase{
			{"key:\n" + pem + "\nafter", "key:\n[REDACTED:private-key]\nafter"},
			{`"` + strings.ReplaceAll(pem, "\n", `\n`) + `\n"`, `"[REDACTED:private-key]\n"`},
		})
	}
	checkRedact(t, Default(), []redactCase{
		// Cut off: everything after the header goes.
		{"-----BEGIN RSA PRIVATE KEY-----\n" + body, "[REDACTED:private-key]"},
		// The first END closes the block, and a second block is its own.
		{"-----BEGIN EC PRIVATE KEY-----\nA\n-----END EC PRIVATE KEY-----\nmid\n-----BEGIN PRIVATE KEY-----\nB\n-----END PRIVATE KEY-----",
			"[REDACTED:private-key]\nmid\n[REDACTED:private-key]"},
		// An END of another kind does not close it.
		{"-----BEGIN PRIVATE KEY-----\nA\n-----END CERTIFICATE-----\nB\n-----END PRIVATE KEY-----\nC", "[REDACTED:private-key]\nC"},
	})
	checkRedact(t, Default(), unchanged(
		"-----BEGIN PUBLIC KEY-----\n"+body+"\n-----END PUBLIC KEY-----",
		"-----BEGIN CERTIFICATE-----\n"+body+"\n-----END CERTIFICATE-----",
		"-----BEGIN private key-----",
		"-----BEGIN-----BEGIN-----BEGIN",
	))
}

func TestRedactAuthorizationHeaders(t *testing.T) {
	basic := base64.StdEncoding.EncodeToString([]byte("deploy:" + fake("", 12)))
	checkRedact(t, Default(), []redactCase{
		{"Authorization: Bearer " + fake("", 32), "Authorization: Bearer [REDACTED:bearer-token]"},
		// In the header, a short token or one without digits is still one.
		{"Authorization: Bearer abcdefghij", "Authorization: Bearer [REDACTED:bearer-token]"},
		{`curl -H "authorization: bearer ya29.a0Af_x-yz" url`, `curl -H "authorization: bearer [REDACTED:bearer-token]" url`},
		{`{"Authorization": "Bearer tok_abcdefgh"}`, `{"Authorization": "Bearer [REDACTED:bearer-token]"}`},
		{`req.Header.Set("Authorization", "Bearer abcdefgh12")`, `req.Header.Set("Authorization", "Bearer [REDACTED:bearer-token]")`},
		{"Proxy-Authorization: Bearer abcdefgh12", "Proxy-Authorization: Bearer [REDACTED:bearer-token]"},
		// Elsewhere, a token of 20 or more bytes with a digit.
		{"use BEARER " + fake("", 24) + " for it", "use BEARER [REDACTED:bearer-token] for it"},
		{"Authorization: Basic " + basic, "Authorization: Basic [REDACTED:basic-auth]"},
		{"authorization=basic " + base64.RawStdEncoding.EncodeToString([]byte("u:p1")), "authorization=basic [REDACTED:basic-auth]"},
		{`{"Authorization":"Basic ` + basic + `"}`, `{"Authorization":"Basic [REDACTED:basic-auth]"}`},
		// The token is on the keyword's line: a header ending in
		// "Bearer" does not take the next line for its token (found by
		// FuzzRedactPlanted, which then saw this line's token survive).
		{"AuthoriZAtion,Bearer\nAUTHORIZATION=BEARER wizqzE1Nal78CLfGSxd1w-OeeVTlJf",
			"AuthoriZAtion,Bearer\nAUTHORIZATION=BEARER [REDACTED:bearer-token]"},
		{"Authorization: Bearer a=BEARER " + fake("", 24), "Authorization: Bearer [REDACTED:bearer-token] [REDACTED:bearer-token]"},
	})
	checkRedact(t, Default(), unchanged(
		"Authorization: Bearer <token>",
		"Authorization: Bearer $TOKEN",
		"Authorization: Bearer {{ token }}",
		"Authorization: Bearer short",
		"The Bearer authentication scheme sends a bearer token in a header.",
		"a bearer abcdefghijklmnopqrstuvwxyz",
		"Authorization: Basic <credentials>",
		"Authorization: Basic realm",
		"Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte("no colon here")),
		"Basic "+basic,
		"WWW-Authenticate: Basic realm=\"api\"",
	))
}

// The Luhn check, the issuers' prefixes and lengths and the usual
// groupings decide what is a card number.
func TestRedactCardNumbers(t *testing.T) {
	for _, card := range []string{
		"4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111", // Visa
		"4222222222222",                              // Visa, 13 digits
		"5555 5555 5555 4444", "2223 0031 2200 3222", // Mastercard
		"3782 822463 10005", "371449635398431", // American Express
		"6011 1111 1111 1117", "6011 0009 9013 9424 124", // Discover, 16 and 19
		"3056 9309 0259 04",   // Diners Club
		"3530 1113 3330 0000", // JCB
		"6200 0000 0000 0005", // UnionPay
	} {
		if !luhn(card) {
			t.Fatalf("test card %s fails the Luhn check", card)
		}
		checkRedact(t, Default(), []redactCase{
			{"card " + card + ".", "card [REDACTED:card-number]."},
			{"(" + card + ")", "([REDACTED:card-number])"},
			{card + " exp 12/27", "[REDACTED:card-number] exp 12/27"},
		})
	}
	checkRedact(t, Default(), unchanged(
		"4111 1111 1111 1112",  // fails Luhn
		"4111111111111112",     // fails Luhn
		"1234 5678 9012 3452",  // passes Luhn, no issuer starts with 1
		"9111 1111 1111 1119",  // nor 9
		"4111 1111 1111 111",   // 15 digits: not a Visa length
		"4111-1111 1111-1111",  // mixed separators
		"4111  1111 1111 1111", // double space
		"id4111111111111111",
		"0.4111111111111111",
		"4111111111111111.5",
		"-4111111111111111",
		"0x4111111111111111",
		"4111111111111111e3",
		"12 4111 1111 1111 1111",
		"clobbers: 281470681743360, // R25 F16 F17",
		"1 << 62 == 4611686018427387904",
	))
}

func TestRedactIBANs(t *testing.T) {
	for _, iban := range []string{
		"DE89 3704 0044 0532 0130 00", "DE89370400440532013000",
		"GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432",
		"FR14 2004 1010 0505 0001 3M02 606",
		"NO93 8601 1117 947",
		"BE68 5390 0754 7034",
		"CH93 0076 2011 6238 5295 7",
	} {
		if !ibanChecksum(iban) {
			t.Fatalf("test IBAN %s fails the check", iban)
		}
		checkRedact(t, Default(), []redactCase{
			{"IBAN: " + iban + ", BIC x", "IBAN: [REDACTED:iban], BIC x"},
		})
	}
	checkRedact(t, Default(), unchanged(
		"DE89 3704 0044 0532 0130 01",  // wrong check digits
		"DE88370400440532013000",       // wrong check digits
		"DE89 3704 0044 0532 0130",     // too short for Germany
		"DE8937040044053201300012",     // too long
		"DE89 3704 0044 0532 013 000",  // not in fours
		"XX89 3704 0044 0532 0130 00",  // no such country
		"de89 3704 0044 0532 0130 00",  // lower case
		"ID DE89370400440532013000ABC", // part of a longer token
		"ABCDE89370400440532013000",    // part of a longer token
		"SHA256 E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855",
	))
	// IBANs are personal data: RedactSecrets keeps them.
	in := "pay to DE89 3704 0044 0532 0130 00"
	if got, _ := Default().RedactSecrets(in); got != in {
		t.Errorf("RedactSecrets(%q) = %q", in, got)
	}
}

func TestRedactSSNs(t *testing.T) {
	checkRedact(t, Default(), []redactCase{
		{"SSN 123-45-6789.", "SSN [REDACTED:ssn]."},
		{"ssn=078-05-1120;", "ssn=[REDACTED:ssn];"},
		{"(665-99-0001)", "([REDACTED:ssn])"},
	})
	checkRedact(t, Default(), unchanged(
		"000-12-3456", "666-12-3456", "900-12-3456", "999-99-9999", // areas never issued
		"123-00-4567",  // group 00
		"123-45-0000",  // serial 0000
		"123-45-67890", // too long
		"1123-45-6789",
		"123-45-6789-1",
		"x123-45-6789",
		"2024-01-31",
		"1.123-45-6789",
	))
	in := "SSN 123-45-6789"
	if got, _ := Default().RedactSecrets(in); got != in {
		t.Errorf("RedactSecrets(%q) = %q", in, got)
	}
}

func TestRedactPhoneNumbers(t *testing.T) {
	checkRedact(t, Default(), []redactCase{
		{"call (415) 555-2671 or +1 415 555 2671", "call [REDACTED:phone] or [REDACTED:phone]"},
		{"ring 415-555-2671.", "ring [REDACTED:phone]."},
		{"UK +44 20 7946 0958, DE +49 151 12345678", "UK [REDACTED:phone], DE [REDACTED:phone]"},
		{"tel:+14155552671", "tel:[REDACTED:phone]"},
		{"+44 (0)20 7946 0958", "[REDACTED:phone]"},
		{"+1 (415) 555-2671", "[REDACTED:phone]"},
		{"+1.415.555.2671", "[REDACTED:phone]"},
		{"+33 1 23 45 67 89", "[REDACTED:phone]"},
		{"1-800-555-0199 and 415.555.2671", "[REDACTED:phone] and [REDACTED:phone]"},
		{"phones: 415-555-2671 415-555-2672", "phones: [REDACTED:phone] [REDACTED:phone]"},
		// A number ends with digits: brackets after it are not part of
		// it (FuzzRedact found "+1(0)00000(0)" taken whole).
		{"+1 415 555 2671 (1)", "[REDACTED:phone] (1)"},
		{"+44 (0)20 7946 0958 (home)", "[REDACTED:phone] (home)"},
	})
	checkRedact(t, Default(), []redactCase{
		{"+1 415 555 2671 (1)(2)", "[REDACTED:phone] (1)(2)"},
		{"+44 20 7946 0958 (1234)", "[REDACTED:phone] (1234)"},
		{"+1.415.555.2671 (1)", "[REDACTED:phone] (1)"},
	})
	checkRedact(t, Default(), unchanged("+1(0)00000(0)", "+1(000)0(0)0(0)(0)"))
}

// Numbers that are not personal data stay: versions, dates, times, ids,
// hashes, floats and addresses. The phone pattern used to take float
// exponents ("1e+4294967296") and signed integers for phone numbers.
func TestRedactKeepsOtherNumbers(t *testing.T) {
	checkRedact(t, Default(), unchanged(
		"v1.2.3 and v10.4.12 and go1.26.8 and 1.2.3.4567",
		"released 2024-01-31, 31/01/2024, 01/31/2024 and 2024.01.31",
		"at 12:30:45, 23:59:59.999999999 and 2024-01-31T12:30:45.123456789Z",
		"UUID 123e4567-e89b-12d3-a456-426614174000",
		"sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
		"sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"1e-10 6.02214076e23 0x1p-2 1e+4294967296 -123456789.987654321E+123456789",
		"+1.7976931348623157e308 and 0x.8p+2147483647 and +4.9406564584124654e-324",
		`{+123456789, "0.123456789"}, {+12345678, "0.012345678"}`,
		"m=+0.123456789 and m=+123.456789000",
		"(+104.66 + 440.51i)",
		"x := a+1234567890 - b",
		"192.168.100.200:8080, 10.0.0.1 and 255.255.255.255",
		"1.2.840.113549.1.1.11",
		"Scores: 100 200 300 4000 and 12 345 678.",
		"ISBN 978-3-16-148410-0",
		"price +1 234",
		"123 456 7890", // an area code cannot start with 1
		"415-555.2671", // mixed separators
		"415-555-2671x",
		"1415-555-2671",
	))
}

// Numbers are redacted under the right label when two patterns could
// take them.
func TestRedactNumberLabels(t *testing.T) {
	got, counts := Default().Redact("card 4111 1111 1111 1111, ssn 123-45-6789, phone 415-555-2671, iban GB82 WEST 1234 5698 7654 32")
	want := "card [REDACTED:card-number], ssn [REDACTED:ssn], phone [REDACTED:phone], iban [REDACTED:iban]"
	if got != want || counts.String() != "card-number=1 iban=1 phone=1 ssn=1" {
		t.Errorf("got %q %v", got, counts)
	}
}

func TestRedactEmails(t *testing.T) {
	checkRedact(t, Default(), []redactCase{
		{"write to jane.doe+tag@mail.example.co.uk today", "write to [REDACTED:email] today"},
		{"john_doe@example.com, <a.b-c@x-y.org>", "[REDACTED:email], <[REDACTED:email]>"},
		{"mailto:ann@example.com?subject=hi", "mailto:[REDACTED:email]?subject=hi"},
		{"ann@example.com-based", "[REDACTED:email]-based"},
		{"..ann@example.com.", "..[REDACTED:email]."},
	})
	checkRedact(t, Default(), unchanged(
		"user@localhost", "@Override", "a@b.c", "x@1.2.3.4",
		"go install golang.org/x/tools@v0.26.0",
		"npm i @scope/pkg@1.2.3",
		"https://user@example.com/path",
		"@@@ a@@b.com",
	))
}

// Redacting a number's neighbour does not change what the number is: a
// placeholder counts as the digits or word it replaced, so redacting the
// output again redacts nothing more. (FuzzRedact found the first case:
// the card went, and the rest of the run then read as a phone number.)
func TestRedactIdempotentNeighbours(t *testing.T) {
	for _, in := range []string{
		"2200 2002 20020 200 200 200 0000",
		"ssn 123-45-6789 415 555 2671",
		"+44 20 7946 0958 4111111111111111",
		"415 555 2671 4111111111111111",
		"4111111111111111-123-45-6789",
		"4111111111111111DE89370400440532013000",
		"sk-ant-" + fake("", 30) + " 415 555 2671",
	} {
		out, _ := Default().Redact(in)
		if again, c := Default().Redact(out); c != nil {
			t.Errorf("Redact(%q) = %q, and again %q %v", in, out, again, c)
		}
	}
}
