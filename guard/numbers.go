package guard

import "strings"

// The number patterns (cards, phone numbers, IBANs, social security
// numbers) are the ones most at risk of redacting what is not personal:
// versions, dates, floats, hashes, tables of numbers. Each takes a number
// only when the text around it says it stands alone, and checks what can
// be checked: the Luhn sum of a card, the mod-97 sum and the length of an
// IBAN, the ranges of a social security number, the length of a phone
// number.

// digitsEnd returns the end of the run of digits that starts at i.
func digitsEnd(text string, i int) int {
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	return i
}

// nextGroup returns the start of the next run of digits at or after i.
// It skips eight bytes at a time while none of them is a digit: most text
// has few.
func nextGroup(text string, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(text); i += 8 {
		w := uint64(text[i]) | uint64(text[i+1])<<8 | uint64(text[i+2])<<16 | uint64(text[i+3])<<24 |
			uint64(text[i+4])<<32 | uint64(text[i+5])<<40 | uint64(text[i+6])<<48 | uint64(text[i+7])<<56
		// A byte of w is a digit only if its high bit is clear and,
		// of its low seven bits x, x+(128-'0') carries into the high
		// bit and x+(127-'9') does not. The test never misses a digit;
		// a byte it wrongly flags is found wanting below.
		low := w &^ highs
		if (low+ones*(128-'0'))&^(low+ones*(127-'9'))&^w&highs != 0 {
			break
		}
	}
	for i < len(text) && !isDigit(text[i]) {
		i++
	}
	return i
}

// eachGroup calls at with the start and end of each run of digits in
// text, in order; at returns where to go on from, at least the run's end.
func eachGroup(text string, at func(start, end int) int) {
	for i := nextGroup(text, 0); i < len(text); i = nextGroup(text, i) {
		e := digitsEnd(text, i)
		i = max(at(i, e), e)
	}
}

// A placeholder next to a number stands for what it replaced, a word or
// more digits: the rules about what a number may touch treat it so. Else
// redacting a neighbour would turn a number that was part of something
// longer into one that stands alone, and redacting the output again would
// redact more.

// placeholderAt reports whether a placeholder starts at i.
func placeholderAt(text string, i int) bool {
	return i < len(text) && text[i] == '[' && strings.HasPrefix(text[i:], "[REDACTED:")
}

// placeholderBefore reports whether a placeholder ends at i.
func placeholderBefore(text string, i int) bool {
	if i == 0 || text[i-1] != ']' {
		return false
	}
	lo := max(0, i-len(Placeholder(""))-32)
	j := strings.LastIndex(text[lo:i], "[REDACTED:")
	return j >= 0 && labelPattern.MatchString(text[lo+j+len("[REDACTED:"):i-1])
}

// numberBefore reports whether the byte before i ties a number at i to
// what comes before it: a letter or '_' (an identifier, "0x…"), a '.'
// (a fraction, a version), a '+' or '-' (a sign, an exponent), or a
// placeholder.
func numberBefore(text string, i int) bool {
	if i == 0 {
		return false
	}
	c := text[i-1]
	return isWord(c) || c == '.' || c == '+' || c == '-' || placeholderBefore(text, i)
}

// numberAfter reports whether the text at i goes on the number before it:
// a letter or '_' (a suffix, an exponent, an identifier), a placeholder,
// or a '.' or sep followed by a digit or a placeholder (a fraction, more
// of a list).
func numberAfter(text string, i int, sep byte) bool {
	if i == len(text) {
		return false
	}
	c := text[i]
	if isWord(c) || placeholderAt(text, i) {
		return true
	}
	return (c == '.' || c == sep && sep != 0) && i+1 < len(text) && (isDigit(text[i+1]) || placeholderAt(text, i+1))
}

// runBefore reports whether the number at i follows another number or a
// placeholder, with sep between: "100 200 300 4000".
func runBefore(text string, i int, sep byte) bool {
	return i >= 2 && text[i-1] == sep && (isDigit(text[i-2]) || placeholderBefore(text, i-1))
}

// luhn reports whether the digits of s pass the Luhn check.
func luhn(s string) bool {
	sum, double := 0, false
	for i := len(s) - 1; i >= 0; i-- {
		if !isDigit(s[i]) {
			continue
		}
		d := int(s[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// cardIssuers are the number ranges of the card networks (by the
// number's first digits) and the lengths their cards have.
var cardIssuers = []struct {
	lo, hi  string // the range of prefixes, as long as each other
	lengths string // the lengths of the numbers, as bytes
}{
	{"4", "4", "\x0d\x10\x13"},                       // Visa: 13, 16, 19
	{"51", "55", "\x10"},                             // Mastercard: 16
	{"2221", "2720", "\x10"},                         // Mastercard: 16
	{"34", "34", "\x0f"},                             // American Express: 15
	{"37", "37", "\x0f"},                             // American Express: 15
	{"300", "305", "\x0e\x10"},                       // Diners Club: 14, 16
	{"36", "36", "\x0e\x10"},                         // Diners Club: 14, 16
	{"38", "39", "\x0e\x10"},                         // Diners Club: 14, 16
	{"3528", "3589", "\x10\x11\x12\x13"},             // JCB: 16 to 19
	{"6011", "6011", "\x10\x13"},                     // Discover: 16, 19
	{"644", "649", "\x10\x13"},                       // Discover: 16, 19
	{"65", "65", "\x10\x13"},                         // Discover: 16, 19
	{"62", "62", "\x10\x11\x12\x13"},                 // UnionPay: 16 to 19
	{"2200", "2204", "\x10\x11\x12\x13"},             // Mir: 16 to 19
	{"5018", "5018", "\x0d\x0e\x0f\x10\x11\x12\x13"}, // Maestro: 13 to 19
	{"5020", "5020", "\x0d\x0e\x0f\x10\x11\x12\x13"},
	{"5038", "5038", "\x0d\x0e\x0f\x10\x11\x12\x13"},
	{"5893", "5893", "\x0d\x0e\x0f\x10\x11\x12\x13"},
	{"6304", "6304", "\x0d\x0e\x0f\x10\x11\x12\x13"},
	{"6759", "6759", "\x0d\x0e\x0f\x10\x11\x12\x13"},
	{"6761", "6763", "\x0d\x0e\x0f\x10\x11\x12\x13"},
}

// isCardNumber reports whether the digits of s (separators allowed) are
// a card number: an issuer's prefix and length, and the Luhn check.
func isCardNumber(s string) bool {
	var digits [19]byte
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			if n == len(digits) {
				return false
			}
			digits[n] = s[i]
			n++
		}
	}
	d := string(digits[:n])
	for _, c := range cardIssuers {
		if strings.IndexByte(c.lengths, byte(n)) >= 0 && d[:len(c.lo)] >= c.lo && d[:len(c.hi)] <= c.hi {
			return luhn(d)
		}
	}
	return false
}

// findCardNumbers finds payment card numbers: 13 to 19 digits starting
// with 2 to 6 (the industries of the card networks: Visa, Mastercard,
// American Express, Discover, Diners, JCB, UnionPay), written together
// or in groups separated by single spaces or dashes (all the same), that pass
// the Luhn check. A number inside an identifier, a fraction or a longer
// number is not a card.
func findCardNumbers(text string, dst []hit) []hit {
	eachGroup(text, func(i, e int) int {
		if text[i] < '2' || text[i] > '6' || numberBefore(text, i) {
			return e
		}
		if n := e - i; n >= 13 && n <= 19 {
			if !numberAfter(text, e, 0) && isCardNumber(text[i:e]) {
				dst = append(dst, hit{i, i, e, e})
			}
			return e
		}
		if e-i != 4 || e == len(text) || text[e] != ' ' && text[e] != '-' {
			return e
		}
		sep := text[e]
		if runBefore(text, i, sep) {
			return e // "1234 4111 1111 1111 1111": part of a longer number
		}
		// Read up to five more groups, each a separator and 1 to 6
		// digits, then take the longest run of them that is a card: the
		// first group has 4 digits (read above), the middle ones 3 to 6.
		var ends [6]int
		ends[0] = e
		groups := 1
		for groups < len(ends) {
			p := ends[groups-1]
			if p+1 >= len(text) || text[p] != sep || !isDigit(text[p+1]) {
				break
			}
			q := p + 1
			for q < len(text) && q-p-1 < 7 && isDigit(text[q]) {
				q++
			}
			if q-p-1 > 6 {
				break
			}
			ends[groups] = q
			groups++
		}
		for g := 1; g < groups-1; g++ {
			if ends[g]-ends[g-1]-1 < 3 {
				groups = g + 1 // a short group can only be the last
				break
			}
		}
		for m := groups; m >= 2; m-- {
			end := ends[m-1]
			if n := end - i - (m - 1); n >= 13 && n <= 19 && !numberAfter(text, end, 0) && isCardNumber(text[i:end]) {
				dst = append(dst, hit{i, i, end, end})
				return end
			}
		}
		return e
	})
	return dst
}

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

// findSSNs finds US social security numbers, 123-45-6789, except those
// never issued: area 000, 666 or 900 to 999, group 00, serial 0000.
func findSSNs(text string, dst []hit) []hit {
	eachGroup(text, func(i, e int) int {
		if e-i != 3 || e+8 > len(text) || text[e] != '-' || text[e+3] != '-' ||
			digitsEnd(text, e+1) != e+3 || digitsEnd(text, e+4) != e+8 {
			return e
		}
		end := e + 8
		area, group, serial := text[i:i+3], text[e+1:e+3], text[e+4:end]
		if area == "000" || area == "666" || area[0] == '9' || group == "00" || serial == "0000" ||
			numberBefore(text, i) || numberAfter(text, end, '-') {
			return e
		}
		dst = append(dst, hit{i, i, end, end})
		return end
	})
	return dst
}

// ibanLengths maps a country's code to the length of its IBANs, from the
// IBAN registry (SWIFT, release 97 and later additions).
var ibanLengths = func() (t [26 * 26]uint8) {
	for _, f := range strings.Fields(`
		AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BI27 BR29 BY28 CH21 CR22 CY28 CZ24
		DE22 DJ27 DK18 DO28 EE20 EG29 ES24 FI18 FK18 FO18 FR27 GB22 GE22 GI23 GL18 GR27
		GT28 HN28 HR21 HU28 IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20
		LU20 LV21 LY25 MC27 MD24 ME22 MK19 MN20 MR27 MT31 MU30 NI28 NL18 NO15 OM23 PK24
		PL28 PS29 PT25 QA29 RO24 RS22 RU33 SA24 SC31 SD18 SE24 SI19 SK24 SM27 SO23 ST25
		SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20 YE30`) {
		t[int(f[0]-'A')*26+int(f[1]-'A')] = (f[2]-'0')*10 + f[3] - '0'
	}
	return t
}()

// ibanLength returns the length of the IBANs of the country whose code
// is at text[i:i+2], or 0.
func ibanLength(text string, i int) int {
	if !isUpper(text[i]) || !isUpper(text[i+1]) {
		return 0
	}
	return int(ibanLengths[int(text[i]-'A')*26+int(text[i+1]-'A')])
}

// findIBANs finds international bank account numbers: a country code,
// two check digits and the account, written together or in groups of
// four separated by single spaces, with the country's length and passing
// the mod-97 check.
func findIBANs(text string, dst []hit) []hit {
	eachGroup(text, func(d, e int) int {
		i := d - 2
		if i < 0 || e-d < 2 || i > 0 && isWord(text[i-1]) || placeholderBefore(text, i) {
			return e
		}
		n := ibanLength(text, i)
		if n == 0 {
			return e
		}
		end := -1
		r := i + 4
		for r < len(text) && r-i <= n && upperDigitBytes[text[r]] {
			r++
		}
		if r-i == n {
			end = r // written together
		} else if r == i+4 && r < len(text) && text[r] == ' ' {
			total, p := 4, r
			for total < n && p+1 < len(text) && text[p] == ' ' {
				q := runEnd(text, p+1, &upperDigitBytes)
				g := q - p - 1
				if g == 0 || g > 4 || total+g > n || g < 4 && total+g < n {
					break
				}
				total, p = total+g, q
			}
			if total == n {
				end = p
			}
		}
		if end < 0 || end < len(text) && isWord(text[end]) || placeholderAt(text, end) || !ibanChecksum(text[i:end]) {
			return e
		}
		dst = append(dst, hit{i, i, end, end})
		return end
	})
	return dst
}

// ibanChecksum reports whether the IBAN s (spaces allowed) passes the
// mod-97 check: with its first four characters moved to the end and its
// letters read as 10 to 35, it is 1 modulo 97.
func ibanChecksum(s string) bool {
	s = strings.ReplaceAll(s, " ", "")
	rem := 0
	for _, part := range []string{s[4:], s[:4]} {
		for i := 0; i < len(part); i++ {
			c := part[i]
			if isDigit(c) {
				rem = (rem*10 + int(c-'0')) % 97
			} else {
				rem = (rem*100 + int(c-'A') + 10) % 97
			}
		}
	}
	return rem == 1
}
