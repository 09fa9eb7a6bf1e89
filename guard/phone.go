package guard

import "strings"

// isPhoneSep reports whether c separates the groups of a phone number.
func isPhoneSep(c byte) bool { return c == ' ' || c == '-' || c == '.' }

// notBeforePhone are the bytes that tie a phone number to what comes
// before it: an identifier, an expression, a fraction, a code block.
var notBeforePhone = newByteSet(alnumChars, "_.)]{}+-*/%^&~!?@#$\\")

// phoneBefore reports whether the byte before i ties a phone number at i
// to what comes before it.
func phoneBefore(text string, i int) bool {
	return i > 0 && (notBeforePhone[text[i-1]] || placeholderBefore(text, i))
}

// findPhoneNumbers finds phone numbers: international ones starting with
// '+' and a country code, and North American ones ((415) 555-2671,
// 415-555-2671, 1-800-555-0199). A number needs 8 to 15 digits (10 or 11
// for North America); a float ("+1.5e10"), a number inside an
// identifier or an expression, or one in a run of numbers with the same
// separator ("100 200 300 4000") is not a phone number.
func findPhoneNumbers(text string, dst []hit) []hit {
	floor := 0
	for off := 0; off < len(text); {
		j := strings.IndexByte(text[off:], '+')
		if j < 0 {
			break
		}
		p := off + j
		off = p + 1
		if p < floor {
			continue
		}
		if e := intlPhoneEnd(text, p); e > 0 {
			dst = append(dst, hit{p, p, e, e})
			floor, off = e, e
		}
	}
	eachGroup(text, func(i, e int) int {
		s := i
		if i > 0 && text[i-1] == '(' {
			s = i - 1
		}
		if end := northAmericanEnd(text, s); end > 0 {
			dst = append(dst, hit{s, s, end, end})
			return end
		}
		return e
	})
	return dst
}

// intlPhoneEnd returns the end of an international phone number starting
// with the '+' at p, or -1.
func intlPhoneEnd(text string, p int) int {
	if phoneBefore(text, p) {
		return -1
	}
	q := p + 1
	head := digitsEnd(text, q)
	if head == q || text[q] == '0' {
		return -1
	}
	total, groups := head-q, 0
	var dots, others bool
	pos := head
	// A number ends with digits: groups in brackets alone at its end, as
	// in "+1 415 555 2671 (1)", are not part of it. last is the number up
	// to its last digit.
	type state struct {
		pos, total, groups int
		dots, others       bool
	}
	last := state{pos, total, groups, false, false}
	for pos < len(text) {
		k := pos
		sep := byte(0)
		if isPhoneSep(text[k]) {
			sep = text[k]
			k++
			if placeholderAt(text, k) {
				return -1 // more of the number was redacted
			}
		}
		var g int     // digits in the group
		only := false // the group is in brackets alone
		switch {
		case k < len(text) && text[k] == '(':
			d := digitsEnd(text, k+1)
			if g = d - k - 1; g < 1 || g > 4 || d == len(text) || text[d] != ')' {
				k = -1 // "(home)": the number ends before it
				break
			}
			k = d + 1
			only = k == len(text) || !isDigit(text[k])
			if !only {
				// "(0)20": the group after the brackets follows at once.
				e := digitsEnd(text, k)
				g += e - k
				k = e
			}
		case k < len(text) && isDigit(text[k]):
			e := digitsEnd(text, k)
			g = e - k
			k = e
		default:
			k = -1
		}
		if k < 0 {
			break
		}
		if g > 12 || total+g > 15 {
			if only {
				break // "(1234)" after the number is not part of it
			}
			return -1
		}
		switch sep {
		case '.':
			dots = true
		case ' ', '-':
			others = true
		}
		total += g
		groups++
		pos = k
		if isDigit(text[k-1]) {
			last = state{pos, total, groups, dots, others}
		}
	}
	pos, total, groups, dots, others = last.pos, last.total, last.groups, last.dots, last.others
	switch {
	case total < 8 || total > 15 || dots && others || pos < len(text) && isWord(text[pos]) || placeholderAt(text, pos):
		return -1
	case groups > 0 && head-q > 3:
		return -1 // a country code has 1 to 3 digits
	case groups == 0 && total < 10:
		return -1 // "+12345678": more often a signed integer than a number written without spaces
	case dots && groups < 3:
		return -1 // "+3.14159265": a float, not +3 14159265
	}
	return pos
}

// northAmericanEnd returns the end of a North American number starting
// at s, or -1: an optional "1" and separator, an area code ((415) or 415
// and a separator), an exchange, the separator again and four digits.
// Area codes and exchanges start with 2 to 9.
func northAmericanEnd(text string, s int) int {
	p := s
	var lead byte // the separator after a leading 1
	if p+1 < len(text) && text[p] == '1' && isPhoneSep(text[p+1]) {
		lead = text[p+1]
		p += 2
	}
	three := func(i int) bool {
		return i+3 <= len(text) && text[i] >= '2' && text[i] <= '9' && isDigit(text[i+1]) && isDigit(text[i+2])
	}
	var sepA byte
	paren := p < len(text) && text[p] == '('
	if paren {
		if !three(p+1) || p+4 >= len(text) || text[p+4] != ')' {
			return -1
		}
		p += 5
		if p < len(text) && isPhoneSep(text[p]) {
			p++
		}
	} else {
		if !three(p) || p+3 >= len(text) || !isPhoneSep(text[p+3]) {
			return -1
		}
		sepA = text[p+3]
		p += 4
	}
	if !three(p) || p+3 >= len(text) || !isPhoneSep(text[p+3]) {
		return -1
	}
	sep := text[p+3]
	p += 4
	if p+4 > len(text) || digitsEnd(text, p) != p+4 {
		return -1
	}
	p += 4
	switch {
	case !paren && sepA != sep, lead != 0 && !paren && lead != sep:
		return -1 // 415-555.2671: not written as a phone number
	case numberAfter(text, p, sep) || phoneBefore(text, s):
		return -1
	case runBefore(text, s, sep):
		return -1 // "100 200 300 4000": a run of numbers
	}
	return p
}
