// Package jsonesc holds JSON's one-character string escapes, shared by
// Tessera's JSON readers (the schema reader, the YAML package's JSON
// reader, the reply reader of package output and the tokenizer.json
// reader), so that each reads them the same way.
package jsonesc

// Byte returns the byte the JSON escape '\' e stands for, for every
// escape but \u: \" \\ \/ \b \f \n \r \t. ok is false for any other e.
func Byte(e byte) (c byte, ok bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}
