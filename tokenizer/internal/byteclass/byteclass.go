// Package byteclass classes the byte beside a character, for the BPE
// encoders of package tokenizer (chars.go) and tokenizer/hf
// (charparts.go), which start a merge from a character's parts where no
// merge with a neighbour can come between. Which tokens can be such a
// neighbour depends on the byte next to the character; the condition is
// kept for each class of that byte, and checked in the piece.
package byteclass

// The classes of a byte.
const (
	Cont   = iota // 0x80–0xBF: a continuation byte
	Lead          // 0xC0–0xFF: a leading byte
	Letter        // an ASCII letter
	Other         // other ASCII
	N             // how many classes there are
)

// Of holds the class of each byte.
var Of = func() (c [256]uint8) {
	for b := range c {
		switch {
		case b >= 0xC0:
			c[b] = Lead
		case b >= 0x80:
			c[b] = Cont
		case 'a' <= b|0x20 && b|0x20 <= 'z':
			c[b] = Letter
		default:
			c[b] = Other
		}
	}
	return
}()
