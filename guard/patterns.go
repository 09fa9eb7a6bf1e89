package guard

// builtin is a built-in pattern and the scanner that finds its matches.
// The expression says what a match looks like; the scanner finds the same
// shapes by hand, in one pass and in time linear in the text however it
// is built, and adds the checks an expression cannot make: a Luhn or
// mod-97 checksum, a known issuer or country, a digit in a token, the text
// around a number. Every match the scanner reports is a match of the
// expression (FuzzRedact checks that), so the expression is a faithful if
// wider description of what is redacted.
type builtin struct {
	Pattern
	find finder
	// need are sets of bytes: every match the scanner reports holds a
	// byte of each set, so text that lacks one is not scanned at all.
	need []string
}

// Sets of bytes for builtin.need.
const (
	needDigit = digitChars
	needUpper = upperChars
)

// defaults are the built-in patterns, most specific first: when two
// matches start at the same place, the earlier pattern names the result.
var defaults = []builtin{
	{Pattern{Label: "private-key", Regexp: `-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)`},
		findPrivateKeys,
		[]string{"-", "G", "P", "V", "K"}},
	{Pattern{Label: "url-password", Regexp: "\\b[A-Za-z][A-Za-z0-9+.-]*://[^\\s:/?#\"<>`]*:(?P<secret>[^\\s/?#\"<>`]+)@"},
		findURLPasswords,
		[]string{":", "/", "@"}},
	{Pattern{Label: "bearer-token", Regexp: `(?i)\b(?:authorization["']?[ \t]*[:=,][ \t]*["']?)?bearer[ \t]+(?P<secret>[A-Za-z0-9._~+/=-]+)`},
		findBearerTokens,
		[]string{"Bb", "Ee", "Aa", "Rr", " \t", needDigit + ":=,"}},
	{Pattern{Label: "basic-auth", Regexp: `(?i)\bauthorization["']?[ \t]*[:=,][ \t]*["']?basic[ \t]+(?P<secret>[A-Za-z0-9+/]+={0,2})`},
		findBasicAuth,
		[]string{"Zz", "Bb", "Cc", ":=,", " \t"}},
	{Pattern{Label: "aws-secret-key", Regexp: `(?i)(?:aws[_.-]?secret[_.-]?(?:access[_.-]?)?key|secret[_.-]?access[_.-]?key)["']?\s*(?::=|=>|[:=])\s*["']?(?P<secret>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`},
		findAWSSecretKeys,
		[]string{"Ss", "Cc", "Tt", "Kk", "Yy", ":="}},
	{Pattern{Label: "anthropic-key", Regexp: `\bsk-ant-[A-Za-z0-9_-]{20,}`},
		findTokens(tokenSpec{prefix: "sk-ant-", body: &keyBytes, min: 20, check: hasDigit}),
		[]string{"k", "-", "n", needDigit}},
	{Pattern{Label: "openai-key", Regexp: `\bsk-[A-Za-z0-9_-]{20,}`},
		findTokens(tokenSpec{prefix: "sk-", body: &keyBytes, min: 20, check: hasDigit}),
		[]string{"k", "-", needDigit}},
	{Pattern{Label: "google-api-key", Regexp: `\bAIza[0-9A-Za-z_-]{35}(?:[^0-9A-Za-z_-]|$)`},
		findTokens(tokenSpec{prefix: "AIza", body: &keyBytes, min: 35, exact: true}),
		[]string{"A", "I", "z"}},
	{Pattern{Label: "github-token", Regexp: `\b(?:gh[pousr]_[A-Za-z0-9]{36}\b|github_pat_[A-Za-z0-9_]{22,})`},
		findTokens(
			tokenSpec{prefix: "ghp_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "gho_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "ghu_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "ghs_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "ghr_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "github_pat_", body: &wordBytes, min: 22},
		),
		[]string{"g", "h", "_"}},
	{Pattern{Label: "gitlab-token", Regexp: `\bglpat-[A-Za-z0-9_-]{20,}`},
		findTokens(tokenSpec{prefix: "glpat-", body: &keyBytes, min: 20}),
		[]string{"g", "l", "p", "-"}},
	{Pattern{Label: "huggingface-token", Regexp: `\bhf_[A-Za-z0-9]{34,}\b`},
		findTokens(tokenSpec{prefix: "hf_", body: &alnumBytes, min: 34, wordEnd: true, check: hasUpperAndLower}),
		[]string{"h", "f", "_"}},
	{Pattern{Label: "npm-token", Regexp: `\bnpm_[A-Za-z0-9]{36}\b`},
		findTokens(tokenSpec{prefix: "npm_", body: &alnumBytes, min: 36, exact: true}),
		[]string{"n", "p", "m", "_"}},
	{Pattern{Label: "aws-access-key", Regexp: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`},
		findTokens(
			tokenSpec{prefix: "AKIA", body: &upperDigitBytes, min: 16, exact: true},
			tokenSpec{prefix: "ASIA", body: &upperDigitBytes, min: 16, exact: true},
		),
		[]string{"A", "I", "KS"}},
	{Pattern{Label: "slack-token", Regexp: `\bxox[abeprs]-[A-Za-z0-9-]{10,}`},
		findTokens(
			tokenSpec{prefix: "xoxa-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxb-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxe-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxp-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxr-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxs-", body: &alnumDashBytes, min: 10, check: hasDigit},
		),
		[]string{"x", "o", "-", needDigit}},
	{Pattern{Label: "stripe-key", Regexp: `\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`},
		findTokens(
			tokenSpec{prefix: "sk_live_", body: &alnumBytes, min: 16, check: hasDigit},
			tokenSpec{prefix: "rk_live_", body: &alnumBytes, min: 16, check: hasDigit},
			tokenSpec{prefix: "sk_test_", body: &alnumBytes, min: 16, check: hasDigit},
			tokenSpec{prefix: "rk_test_", body: &alnumBytes, min: 16, check: hasDigit},
		),
		[]string{"k", "_", "lt", needDigit}},
	{Pattern{Label: "jwt", Regexp: `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`},
		findJWTs,
		[]string{"e", "y", "J", "."}},
	{Pattern{Label: "card-number", Regexp: `\b[2-6](?:[0-9]{12,18}|[0-9]{3}(?:(?: [0-9]{3,6}){0,4} [0-9]{1,6}|(?:-[0-9]{3,6}){0,4}-[0-9]{1,6}))\b`},
		findCardNumbers,
		[]string{needDigit}},
	{Pattern{Label: "email", Regexp: `\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`, Personal: true},
		findEmails,
		[]string{"@", "."}},
	{Pattern{Label: "phone", Regexp: `\+[1-9][0-9]{0,2}(?:[ .-]?(?:\([0-9]{1,4}\)|[0-9]{1,12}))+\b|(?:\b1[ .-])?(?:\([2-9][0-9]{2}\)[ .-]?|\b[2-9][0-9]{2}[ .-])[2-9][0-9]{2}[ .-][0-9]{4}\b`, Personal: true},
		findPhoneNumbers,
		[]string{needDigit}},
	{Pattern{Label: "iban", Regexp: `\b[A-Z]{2}[0-9]{2}(?:[A-Z0-9]{11,30}|(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,4})?)\b`, Personal: true},
		findIBANs,
		[]string{needDigit, needUpper}},
	{Pattern{Label: "ssn", Regexp: `\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b`, Personal: true},
		findSSNs,
		[]string{needDigit, "-"}},
}

// DefaultPatterns returns the built-in patterns, in the order they are
// tried.
//
// Credentials: private keys (PEM blocks, "-----BEGIN … PRIVATE
// KEY-----" through the END line, or to the end of the text when it is
// cut off), passwords in URLs (scheme://user:password@host, the password
// running to the last '@'), bearer tokens, the credentials of an
// "Authorization: Basic" header, AWS secret access keys written after
// their key name, the API keys and tokens of Anthropic (sk-ant-), OpenAI
// (sk-, sk-proj-), Google (AIza…), GitHub (ghp_, gho_, ghu_, ghs_, ghr_,
// github_pat_), GitLab (glpat-), Hugging Face (hf_), npm (npm_), AWS
// access key ids (AKIA…, ASIA…), Slack (xoxb-, xoxp-, …) and Stripe
// (sk_live_, rk_live_, sk_test_), JSON Web Tokens, and payment card
// numbers.
//
// Personal data, marked Personal: e-mail addresses, phone numbers,
// IBANs and US social security numbers.
//
// The built-in patterns carry checks their expressions cannot say, and
// are matched by hand-written scanners that make them: a card number must
// pass the Luhn check and start with 2 to 6, an IBAN must have its
// country's length and pass the mod-97 check, a social security number
// must not use an area, group or serial never issued, a phone number must
// have 8 to 15 digits and not be part of a longer run of numbers or of a
// float literal, and a token that could be a word ("sk-learn-…") must
// hold a digit. docs/REDACTION.md lists every check. A pattern passed to
// NewRedactor with the same label and expression as a built-in one keeps
// its scanner and checks.
func DefaultPatterns() []Pattern {
	ps := make([]Pattern, len(defaults))
	for i, d := range defaults {
		ps[i] = d.Pattern
	}
	return ps
}
