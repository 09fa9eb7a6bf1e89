package guard

import "strings"

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
