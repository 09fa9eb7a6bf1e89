package audit

import (
	"fmt"
	"io/fs"
	"os"

	"github.com/tessera-dev/tessera/internal/fileread"
)

// NotRegularError is a log or index path that holds something other than
// a regular file: a FIFO would make a reader wait forever and swallow
// what a writer appends, a directory or device is no log.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file: an audit log and its index must be regular files; point the log elsewhere or remove what is there", e.Path, fileread.Kind(e.Mode))
}

// LinkedError is a log or index that has other names (hard links): an
// append through this name would also change the file under the others,
// which may be outside the catalog.
type LinkedError struct {
	Path  string
	Links uint64
}

func (e *LinkedError) Error() string {
	return fmt.Sprintf("%s has %d hard links: Tessera does not append to a file that other names share, which may lie outside the catalog; copy it to a file of its own (cp %s %s.new && mv %s.new %s), or point the log elsewhere", e.Path, e.Links, e.Path, e.Path, e.Path, e.Path)
}

// openLog opens the log at path with flag, refusing anything but a
// regular file, and, when flag writes, a file with more than one hard
// link. The open does not block on a FIFO: the descriptor is checked
// before it is used.
func openLog(path string, flag int) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	f, err := os.OpenFile(path, flag|openNonblock, 0o644)
	if err != nil {
		return nil, err
	}
	if err := checkOpen(f, path, flag); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkOpen checks the open file f, at path, as openLog does.
func checkOpen(f *os.File, path string, flag int) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: st.Mode()}
	}
	if flag&(os.O_WRONLY|os.O_RDWR) != 0 {
		if n := links(st); n > 1 {
			return &LinkedError{Path: path, Links: n}
		}
	}
	return nil
}
