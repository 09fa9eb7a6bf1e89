package wordlist

import "testing"

func TestLists(t *testing.T) {
	for _, tc := range []struct {
		in      []string
		and, or string
	}{
		{nil, "", ""},
		{[]string{"a"}, "a", "a"},
		{[]string{"a", "b"}, "a and b", "a or b"},
		{[]string{"a", "b", "c"}, "a, b and c", "a, b or c"},
	} {
		if got := And(tc.in); got != tc.and {
			t.Errorf("And(%q) = %q, want %q", tc.in, got, tc.and)
		}
		if got := Or(tc.in); got != tc.or {
			t.Errorf("Or(%q) = %q, want %q", tc.in, got, tc.or)
		}
	}
}
