package diag

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestErrorText(t *testing.T) {
	for _, tt := range []struct {
		e    *Error
		want string
	}{
		{Errorf("a/b.txt", 3, "bad %s", "token"), "a/b.txt:3: bad token"},
		{Errorf("a/b.txt", 0, "missing"), "a/b.txt: missing"},
		{Errorf("", 0, "plain"), "plain"},
	} {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("got %q, want %q", got, tt.want)
		}
	}
}

func TestListAddSortUnwrap(t *testing.T) {
	var l List
	if l.Err() != nil {
		t.Fatal("empty list is an error")
	}
	l.Add(nil)
	l.Add(Errorf("b", 2, "two"))
	l.Add(List{Errorf("a", 9, "nine"), Errorf("b", 1, "one")})
	l.Add(fmt.Errorf("wrapped: %w", Errorf("a", 1, "one")))
	l.Add(Wrap("c", 0, fs.ErrNotExist, "gone"))
	l.Add(errors.New("no place"))
	l.Add(Errorf("b", 2, "two")) // a duplicate
	l.Sort()
	want := "no place\na:1: one\na:9: nine\nb:1: one\nb:2: two\nc: gone"
	if l.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", l.Error(), want)
	}
	if !errors.Is(l.Err(), fs.ErrNotExist) {
		t.Error("errors.Is does not reach a cause inside the list")
	}
	var e *Error
	if !errors.As(l.Err(), &e) || e.Path != "" {
		t.Errorf("errors.As: %v", e)
	}
}

func TestPosition(t *testing.T) {
	data := []byte("ab\ncd\n\nx")
	for _, c := range []struct{ off, line, col int }{
		{0, 1, 1}, {1, 1, 2}, {2, 1, 3}, {3, 2, 1}, {4, 2, 2}, {6, 3, 1}, {7, 4, 1}, {8, 4, 2}, {99, 4, 2}, {-1, 1, 1},
	} {
		line, col := Position(data, c.off)
		if line != c.line || col != c.col {
			t.Errorf("Position(%d) = %d:%d, want %d:%d", c.off, line, col, c.line, c.col)
		}
	}
	if got := ErrorfAt("a.json", 2, 5, "bad %s", "thing").Error(); got != "a.json:2:5: bad thing" {
		t.Errorf("ErrorfAt = %q", got)
	}
}
