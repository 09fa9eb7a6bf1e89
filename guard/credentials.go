package guard

import (
	"encoding/base64"
	"strings"
)

// The scanners of credentials with a known keyword or shape around them:
// PEM private keys, passwords in URLs, Authorization headers and AWS
// secret keys. scan.go says how the scanners work.

// pemLabelEnd reads a PEM label at i, after "-----BEGIN" or "-----END":
// it returns the end of the "-----" after a label ending in "PRIVATE KEY"
// or "PRIVATE KEY BLOCK", or -1, and where the label's run of bytes ends.
func pemLabelEnd(text string, i int) (end, run int) {
	run = runEnd(text, i, &pemLabelBytes)
	label := text[i:run]
	if !strings.HasPrefix(text[run:], "-----") ||
		!strings.HasSuffix(label, "PRIVATE KEY") && !strings.HasSuffix(label, "PRIVATE KEY BLOCK") {
		return -1, run
	}
	return run + 5, run
}

// findPrivateKeys finds PEM private keys: the BEGIN line through the
// first END line of a private key, or to the end of the text.
func findPrivateKeys(text string, dst []hit) []hit {
	const begin, end = "-----BEGIN", "-----END"
	for off := 0; off < len(text); {
		j := indexRare(text[off:], begin, 5) // 'B': '-' is common
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

// findURLPasswords finds the password of scheme://user:password@host.
// The user name may be empty, and the password runs from the first ':'
// to the last '@' of the authority, as net/url reads it, so that a
// password holding a raw '@' or ':' is replaced whole.
func findURLPasswords(text string, dst []hit) []hit {
	for off := 0; off < len(text); {
		j := strings.Index(text[off:], "://")
		if j < 0 {
			break
		}
		i := off + j
		off = i + 3
		// The scheme: the first letter at a word boundary in the run
		// of scheme bytes before "://". The run ends at the '/' of the
		// "://" before it, so no byte is read back twice.
		s := i
		for s > 0 && schemeBytes[text[s-1]] {
			s--
		}
		for s < i && !(isASCIILetter(text[s]) && boundary(text, s)) {
			s++
		}
		if s == i {
			continue
		}
		colon, at, e := -1, -1, i+3
		for ; e < len(text) && !authorityEnd[text[e]]; e++ {
			switch text[e] {
			case ':':
				if colon < 0 {
					colon = e
				}
			case '@':
				at = e
			}
		}
		// The next "://" may start at the authority's last byte, its ':'
		// ("a://b:c@d://…"): go on from there.
		off = max(e-1, i+3)
		// A user and password holding a placeholder are redacted text:
		// what is left of them was judged by the redaction that wrote it
		// (and the placeholder's ':' is not theirs).
		if colon < 0 || at <= colon+1 || strings.Contains(text[i+3:at], "[REDACTED:") {
			continue
		}
		dst = append(dst, hit{s, colon + 1, at, at + 1})
	}
	return dst
}

// authorizationBefore returns where `authorization["']?[ \t]*[:=,][ \t]*["']?`
// starts when it ends at i, or -1.
func authorizationBefore(text string, i int) int {
	if i > 0 && (text[i-1] == '"' || text[i-1] == '\'') {
		i--
	}
	for i > 0 && blank[text[i-1]] {
		i--
	}
	if i == 0 || !strings.Contains(":=,", text[i-1:i]) {
		return -1
	}
	i--
	for i > 0 && blank[text[i-1]] {
		i--
	}
	if i > 0 && (text[i-1] == '"' || text[i-1] == '\'') {
		i--
	}
	const name = "authorization"
	if !hasFoldAt(text, i-len(name), name) || !boundary(text, i-len(name)) {
		return -1
	}
	return i - len(name)
}

// authorizationAfter returns where `authorization["']?[ \t]*[:=,][ \t]*["']?`
// ends when it starts at i, or -1.
func authorizationAfter(text string, i int) int {
	const name = "authorization"
	if !hasFoldAt(text, i, name) || !boundary(text, i) {
		return -1
	}
	i += len(name)
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	i = blanksEnd(text, i)
	if i == len(text) || !strings.Contains(":=,", text[i:i+1]) {
		return -1
	}
	i = blanksEnd(text, i+1)
	if i < len(text) && (text[i] == '"' || text[i] == '\'') {
		i++
	}
	return i
}

// findBearerTokens finds the token after "Bearer" and spaces or tabs:
// any token of 8 or more bytes in an Authorization header, else one of 20
// or more holding a digit (so that "a bearer token" stays prose).
func findBearerTokens(text string, dst []hit) []hit {
	floor := 0 // end of the last token: tokens do not overlap
	eachFold(text, "bearer", "Bearer", "EARER", func(i int) {
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

// findBasicAuth finds the credentials of an "Authorization: Basic"
// header: base64 that decodes to "user:password".
func findBasicAuth(text string, dst []hit) []hit {
	floor := 0
	eachFold(text, "authorization", "Authorization", "UTHORIZATION", func(i int) {
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

// isBasicCredentials reports whether s is base64 of "user:password".
func isBasicCredentials(s string) bool {
	enc := base64.StdEncoding
	if len(s)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	b, err := enc.DecodeString(s)
	return err == nil && strings.IndexByte(string(b), ':') >= 0
}

// findAWSSecretKeys finds a 40-byte AWS secret access key written after
// its key name: aws_secret_access_key, AWS_SECRET_ACCESS_KEY,
// SecretAccessKey, aws-secret-key and the like, then ':', '=', ":=" or
// "=>", in a config file, a shell, JSON or code.
func findAWSSecretKeys(text string, dst []hit) []hit {
	floor := 0
	sep := func(i int) int {
		if i < len(text) && (text[i] == '_' || text[i] == '.' || text[i] == '-') {
			return i + 1
		}
		return i
	}
	eachFold(text, "secret", "Secret", "ECRET", func(i int) {
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
