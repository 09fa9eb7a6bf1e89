package schema

import "unicode/utf8"

// AppendCompact appends the JSON document src to dst with the white space
// between tokens removed and everything else kept byte for byte: member
// order, string escapes, number literals. It is the cheap way to copy a
// schema into a request body. It does not look for repeated keys; on any
// other problem (not one JSON document, a string that is not UTF-8,
// nesting deeper than MaxDepth) it returns dst unchanged and the
// *SyntaxError Parse gives for src.
func AppendCompact(dst, src []byte) ([]byte, error) {
	c := compactor{src: src, out: dst}
	c.space()
	ok := c.value(0)
	c.space()
	if ok && c.pos == len(src) {
		return c.out, nil
	}
	if _, err := Parse(src); err != nil {
		return dst, err
	}
	// Parse accepts what the compactor does not: a defect in one of them.
	return dst, &SyntaxError{Offset: c.pos, Msg: "not valid JSON"}
}

// compactor copies a JSON document without its insignificant white space,
// checking its syntax on the way; the first problem stops it.
type compactor struct {
	src []byte
	pos int
	out []byte
}

func (c *compactor) space() {
	for c.pos < len(c.src) {
		switch c.src[c.pos] {
		case ' ', '\t', '\n', '\r':
			c.pos++
		default:
			return
		}
	}
}

func (c *compactor) peek() byte {
	if c.pos < len(c.src) {
		return c.src[c.pos]
	}
	return 0
}

func (c *compactor) value(depth int) bool {
	switch b := c.peek(); {
	case b == '{':
		return c.container(depth, '}')
	case b == '[':
		return c.container(depth, ']')
	case b == '"':
		return c.string()
	case b == '-' || b >= '0' && b <= '9':
		return c.number()
	case b == 't':
		return c.literal("true")
	case b == 'f':
		return c.literal("false")
	case b == 'n':
		return c.literal("null")
	}
	return false
}

// container copies an object (closed by '}') or an array (by ']').
func (c *compactor) container(depth int, closer byte) bool {
	if depth >= MaxDepth {
		return false
	}
	c.out = append(c.out, c.src[c.pos])
	c.pos++
	c.space()
	if c.peek() == closer {
		c.out = append(c.out, closer)
		c.pos++
		return true
	}
	for {
		if closer == '}' {
			if c.peek() != '"' || !c.string() {
				return false
			}
			c.space()
			if c.peek() != ':' {
				return false
			}
			c.out = append(c.out, ':')
			c.pos++
			c.space()
		}
		if !c.value(depth + 1) {
			return false
		}
		c.space()
		switch c.peek() {
		case ',':
			c.out = append(c.out, ',')
			c.pos++
			c.space()
		case closer:
			c.out = append(c.out, closer)
			c.pos++
			return true
		default:
			return false
		}
	}
}

func (c *compactor) literal(word string) bool {
	if len(c.src)-c.pos < len(word) || string(c.src[c.pos:c.pos+len(word)]) != word {
		return false
	}
	c.out = append(c.out, word...)
	c.pos += len(word)
	return true
}

func (c *compactor) digits() bool {
	start := c.pos
	for c.pos < len(c.src) && c.src[c.pos] >= '0' && c.src[c.pos] <= '9' {
		c.pos++
	}
	return c.pos > start
}

func (c *compactor) number() bool {
	start := c.pos
	if c.peek() == '-' {
		c.pos++
	}
	if c.peek() == '0' {
		c.pos++
	} else if b := c.peek(); b < '1' || b > '9' || !c.digits() {
		return false
	}
	if c.peek() == '.' {
		c.pos++
		if !c.digits() {
			return false
		}
	}
	if b := c.peek(); b == 'e' || b == 'E' {
		c.pos++
		if b := c.peek(); b == '+' || b == '-' {
			c.pos++
		}
		if !c.digits() {
			return false
		}
	}
	c.out = append(c.out, c.src[start:c.pos]...)
	return true
}

// string copies a string as written, checking its escapes and encoding.
func (c *compactor) string() bool {
	start := c.pos
	c.pos++ // opening quote
	for c.pos < len(c.src) {
		b := c.src[c.pos]
		switch {
		case b == '"':
			c.pos++
			c.out = append(c.out, c.src[start:c.pos]...)
			return true
		case b == '\\':
			if c.pos+1 >= len(c.src) {
				return false
			}
			switch c.src[c.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.pos += 2
			case 'u':
				if len(c.src)-c.pos < 6 {
					return false
				}
				for _, h := range c.src[c.pos+2 : c.pos+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						return false
					}
				}
				c.pos += 6
			default:
				return false
			}
		case b < 0x20:
			return false
		case b < utf8.RuneSelf:
			c.pos++
		default:
			r, n := utf8.DecodeRune(c.src[c.pos:])
			if r == utf8.RuneError && n == 1 {
				return false
			}
			c.pos += n
		}
	}
	return false
}
