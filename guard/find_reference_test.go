package guard

import (
	"slices"
	"strings"
	"testing"
)

// The reference finders: the scanners as they were before they looked
// for a needle's rarest byte (indexRare) rather than with strings.Index.
// FuzzFindReference checks that the fast ones find exactly what these do.

func refEachFold(text, word, upperTail string, fn func(i int)) {
	lower, upper := word[1:], upperTail
	nextOf := func(tail string, from int) int {
		for from < len(text) {
			j := strings.Index(text[from:], tail)
			if j < 0 {
				break
			}
			if i := from + j - 1; i >= 0 && text[i]|0x20 == word[0] {
				return i
			}
			from += j + 1
		}
		return len(text)
	}
	lo, up := nextOf(lower, 1), nextOf(upper, 1)
	for lo < len(text) || up < len(text) {
		i := min(lo, up)
		fn(i)
		if lo == i {
			lo = nextOf(lower, i+2)
		}
		if up == i {
			up = nextOf(upper, i+2)
		}
	}
}

func refFindTokens(specs ...tokenSpec) finder {
	var anchor byte
	offsets := make([]int, len(specs))
	for i, s := range specs {
		k := strings.IndexByte(s.prefix, '_')
		if k < 0 || len(specs) == 1 {
			anchor = 0
			break
		}
		anchor, offsets[i] = '_', k
	}
	return func(text string, dst []hit) []hit {
		var (
			buf    [8]tokenState
			states []tokenState
		)
		if len(specs) <= len(buf) {
			states = buf[:len(specs)]
		} else {
			states = make([]tokenState, len(specs))
		}
		if anchor == 0 {
			for i := range specs {
				s, st := &specs[i], &states[i]
				for st.next < len(text) {
					j := strings.Index(text[st.next:], s.prefix)
					if j < 0 {
						break
					}
					dst = s.at(text, st.next+j, st, dst)
				}
			}
			return dst
		}
		for off := 0; off < len(text); {
			j := strings.IndexByte(text[off:], anchor)
			if j < 0 {
				break
			}
			k := off + j
			off = k + 1
			for i := range specs {
				s, st := &specs[i], &states[i]
				if p := k - offsets[i]; p >= st.next && text[p] == s.prefix[0] && strings.HasPrefix(text[p:], s.prefix) {
					dst = s.at(text, p, st, dst)
				}
			}
		}
		return dst
	}
}

func refFindJWTs(text string, dst []hit) []hit {
	for off := 0; off < len(text); {
		j := strings.Index(text[off:], "eyJ")
		if j < 0 {
			break
		}
		i := off + j
		off = i + 1
		if i > 0 && isWord(text[i-1]) {
			continue
		}
		e1 := runEnd(text, i+3, &keyBytes)
		// Every later "eyJ" in this run has a shorter first part and
		// the same other two: none can match if this one does not.
		off = e1
		if e1-i-3 < 8 || !strings.HasPrefix(text[e1:], ".eyJ") {
			continue
		}
		e2 := runEnd(text, e1+4, &keyBytes)
		if e2-e1-4 < 8 || e2 == len(text) || text[e2] != '.' {
			continue
		}
		e3 := runEnd(text, e2+1, &keyBytes)
		if e3-e2-1 < 16 {
			continue
		}
		dst = append(dst, hit{i, i, e3, e3})
		off = e3
	}
	return dst
}

func refFindPrivateKeys(text string, dst []hit) []hit {
	const begin, end = "-----BEGIN", "-----END"
	for off := 0; off < len(text); {
		j := strings.Index(text[off:], begin)
		if j < 0 {
			break
		}
		i := off + j
		h, run := pemLabelEnd(text, i+len(begin))
		if h < 0 {
			// The next BEGIN cannot start inside the label's run: it
			// starts with '-'.
			off = run
			continue
		}
		to := len(text)
		for k := h; k < len(text); {
			j := strings.Index(text[k:], end)
			if j < 0 {
				break
			}
			e, run := pemLabelEnd(text, k+j+len(end))
			if e >= 0 {
				to = e
				break
			}
			k = run
		}
		dst = append(dst, hit{i, i, to, to})
		off = to
	}
	return dst
}

func refFindBearerTokens(text string, dst []hit) []hit {
	floor := 0 // end of the last token: tokens do not overlap
	refEachFold(text, "bearer", "EARER", func(i int) {
		if !boundary(text, i) {
			return
		}
		q := blanksEnd(text, i+len("bearer"))
		// "Bearer" inside the last token ("a=BEARER tok") may still
		// introduce a token of its own after it.
		if q == i+len("bearer") || q < floor {
			return
		}
		e := runEnd(text, q, &token68Bytes)
		from, min, digit := i, 20, true
		if h := authorizationBefore(text, i); h >= 0 {
			from, min, digit = h, 8, false
		}
		if e-q < min || digit && !hasDigit(text[q:e]) {
			return
		}
		dst = append(dst, hit{from, q, e, e})
		floor = e
	})
	return dst
}

func refFindBasicAuth(text string, dst []hit) []hit {
	floor := 0
	refEachFold(text, "authorization", "UTHORIZATION", func(i int) {
		if i < floor {
			return
		}
		p := authorizationAfter(text, i)
		if p < 0 || !hasFoldAt(text, p, "basic") {
			return
		}
		q := blanksEnd(text, p+len("basic"))
		if q == p+len("basic") {
			return
		}
		e := runEnd(text, q, &base64Bytes)
		if e == q {
			return
		}
		for n := 0; n < 2 && e < len(text) && text[e] == '='; n++ {
			e++
		}
		if !isBasicCredentials(text[q:e]) {
			return
		}
		dst = append(dst, hit{i, q, e, e})
		floor = e
	})
	return dst
}

func refFindAWSSecretKeys(text string, dst []hit) []hit {
	floor := 0
	sep := func(i int) int {
		if i < len(text) && (text[i] == '_' || text[i] == '.' || text[i] == '-') {
			return i + 1
		}
		return i
	}
	refEachFold(text, "secret", "ECRET", func(i int) {
		if i < floor {
			return
		}
		from, aws := i, -1
		switch {
		case hasFoldAt(text, i-3, "aws"):
			aws = i - 3
		case i > 0 && sep(i-1) == i && hasFoldAt(text, i-4, "aws"):
			aws = i - 4
		}
		p := sep(i + len("secret"))
		switch {
		case hasFoldAt(text, p, "access"):
			p = sep(p + len("access"))
			if !hasFoldAt(text, p, "key") {
				return
			}
			if aws >= 0 {
				from = aws
			}
		case aws >= 0 && hasFoldAt(text, p, "key"):
			from = aws
		default:
			return
		}
		p += len("key")
		if p < len(text) && (text[p] == '"' || text[p] == '\'') {
			p++
		}
		p = spacesEnd(text, p)
		switch {
		case strings.HasPrefix(text[p:], ":="), strings.HasPrefix(text[p:], "=>"):
			p += 2
		case p < len(text) && (text[p] == ':' || text[p] == '='):
			p++
		default:
			return
		}
		p = spacesEnd(text, p)
		if p < len(text) && (text[p] == '"' || text[p] == '\'') {
			p++
		}
		e := p
		for e < len(text) && e-p < 41 && base64Bytes[text[e]] {
			e++
		}
		if e-p != 40 || e < len(text) && text[e] == '=' {
			return
		}
		dst = append(dst, hit{from, p, e, afterRune(text, e)})
		floor = e
	})
	return dst
}

// refRedactor returns the default Redactor with the reference finders in
// place of the fast ones.
func refRedactor(t testing.TB) *Redactor {
	ref := map[string]finder{
		"private-key":    refFindPrivateKeys,
		"bearer-token":   refFindBearerTokens,
		"basic-auth":     refFindBasicAuth,
		"aws-secret-key": refFindAWSSecretKeys,
		"jwt":            refFindJWTs,
		"anthropic-key":  refFindTokens(tokenSpec{prefix: "sk-ant-", body: &keyBytes, min: 20, check: hasDigit}),
		"openai-key":     refFindTokens(tokenSpec{prefix: "sk-", body: &keyBytes, min: 20, check: hasDigit}),
		"google-api-key": refFindTokens(tokenSpec{prefix: "AIza", body: &keyBytes, min: 35, exact: true}),
		"github-token": refFindTokens(
			tokenSpec{prefix: "ghp_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "gho_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "ghu_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "ghs_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "ghr_", body: &alnumBytes, min: 36, exact: true},
			tokenSpec{prefix: "github_pat_", body: &wordBytes, min: 22},
		),
		"gitlab-token":      refFindTokens(tokenSpec{prefix: "glpat-", body: &keyBytes, min: 20}),
		"huggingface-token": refFindTokens(tokenSpec{prefix: "hf_", body: &alnumBytes, min: 34, wordEnd: true, check: hasUpperAndLower}),
		"npm-token":         refFindTokens(tokenSpec{prefix: "npm_", body: &alnumBytes, min: 36, exact: true}),
		"aws-access-key": refFindTokens(
			tokenSpec{prefix: "AKIA", body: &upperDigitBytes, min: 16, exact: true},
			tokenSpec{prefix: "ASIA", body: &upperDigitBytes, min: 16, exact: true},
		),
		"slack-token": refFindTokens(
			tokenSpec{prefix: "xoxa-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxb-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxe-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxp-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxr-", body: &alnumDashBytes, min: 10, check: hasDigit},
			tokenSpec{prefix: "xoxs-", body: &alnumDashBytes, min: 10, check: hasDigit},
		),
		"stripe-key": refFindTokens(
			tokenSpec{prefix: "sk_live_", body: &alnumBytes, min: 16, check: hasDigit},
			tokenSpec{prefix: "rk_live_", body: &alnumBytes, min: 16, check: hasDigit},
			tokenSpec{prefix: "sk_test_", body: &alnumBytes, min: 16, check: hasDigit},
			tokenSpec{prefix: "rk_test_", body: &alnumBytes, min: 16, check: hasDigit},
		),
	}
	rules := slices.Clone(Default().rules)
	for i := range rules {
		if f, ok := ref[rules[i].Label]; ok {
			rules[i].find = f
			delete(ref, rules[i].Label)
		}
	}
	if len(ref) != 0 {
		t.Fatalf("reference finders for labels not built in: %v", ref)
	}
	return newRedactor(rules)
}

// findSeeds are texts full of the bytes the finders look for first.
var findSeeds = []string{
	"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeearer bearer " + fake("", 30),
	strings.Repeat("rer", 40) + "Bearer " + fake("", 30) + " BEARER " + fake("", 30),
	strings.Repeat("z", 100) + "Authorization: Basic dXNlcjpwYXNz",
	strings.Repeat("k", 80) + fake("sk-", 40) + strings.Repeat("sk-", 30) + fake("sk-ant-", 30),
	strings.Repeat("J", 80) + "eyJ" + fake("", 10) + ".eyJ" + fake("", 10) + "." + fake("", 20),
	strings.Repeat("-----B", 30) + "-----BEGIN RSA PRIVATE KEY-----\nabc",
	strings.Repeat("cccc", 30) + "AWS_SECRET_ACCESS_KEY=" + awsExampleSecret,
	strings.Repeat("x", 60) + "xoxb-1-" + fake("", 10) + strings.Repeat("AIAKIA", 20) + "AKIA" + strings.ToUpper(fake("", 16)),
}

// FuzzFindReference checks that Find returns what it returns with the
// reference finders, in both modes.
func FuzzFindReference(f *testing.F) {
	for _, s := range redactSeeds {
		f.Add(s)
	}
	for _, s := range findSeeds {
		f.Add(s)
	}
	fast, ref := Default(), refRedactor(f)
	f.Fuzz(func(t *testing.T, text string) {
		for _, personal := range []bool{true, false} {
			got, want := fast.Find(text, personal), ref.Find(text, personal)
			if !slices.Equal(got, want) {
				t.Fatalf("Find(%q, %v) = %v, want %v", text, personal, got, want)
			}
		}
	})
}

// FuzzIndexRare checks indexRare against strings.Index for every choice
// of the byte it looks for.
func FuzzIndexRare(f *testing.F) {
	f.Add("eeeeearer bearer", "earer")
	f.Add(strings.Repeat("ab", 50)+"abc", "abc")
	f.Add("-----BEGIN", "-----BEGIN")
	f.Fuzz(func(t *testing.T, s, needle string) {
		if needle == "" {
			return
		}
		want := strings.Index(s, needle)
		for k := range len(needle) {
			if got := indexRare(s, needle, k); got != want {
				t.Fatalf("indexRare(%q, %q, %d) = %d, want %d", s, needle, k, got, want)
			}
		}
	})
}

// FuzzEachFold checks eachFold against the reference for the words the
// scanners look for.
func FuzzEachFold(f *testing.F) {
	f.Add("a Bearer bEARER BEARER bearer bearerbearer")
	f.Add("aws_secret SECRET Secret sEcret authorization AUTHORIZATION")
	f.Fuzz(func(t *testing.T, text string) {
		for _, w := range [][3]string{{"bearer", "Bearer", "EARER"}, {"authorization", "Authorization", "UTHORIZATION"}, {"secret", "Secret", "ECRET"}} {
			var got, want []int
			eachFold(text, w[0], w[1], w[2], func(i int) { got = append(got, i) })
			refEachFold(text, w[0], w[2], func(i int) { want = append(want, i) })
			if !slices.Equal(got, want) {
				t.Fatalf("eachFold(%q, %q) = %v, want %v", text, w[0], got, want)
			}
		}
	})
}
