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
