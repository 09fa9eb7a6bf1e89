package jsonesc

import (
	"encoding/json"
	"testing"
)

// TestByte agrees with encoding/json on every byte after a backslash.
func TestByte(t *testing.T) {
	for e := range 256 {
		if e == 'u' {
			continue
		}
		var want string
		err := json.Unmarshal([]byte{'"', '\\', byte(e), '"'}, &want)
		c, ok := Byte(byte(e))
		if ok != (err == nil) || ok && string(rune(c)) != want {
			t.Errorf("\\%c: Byte = %q %v, encoding/json %q %v", e, c, ok, want, err)
		}
	}
}
