package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/internal/fileread"
)

// readInput reads the command's FILE argument, or standard input when it
// is "-" or absent, under the size cap every file Tessera reads obeys. It
// returns the name to show in messages ("standard input" or the path).
func readInput(cmd *cobra.Command, args []string, max int64) (string, []byte, error) {
	if max <= 0 {
		max = fileread.DefaultMaxBytes
	}
	if len(args) == 0 || args[0] == "-" {
		const name = "standard input"
		data, err := io.ReadAll(io.LimitReader(cmd.InOrStdin(), max+1))
		if err != nil {
			return name, nil, fmt.Errorf("cannot read standard input: %w: pass the text as a FILE instead", err)
		}
		if int64(len(data)) > max {
			return name, nil, &fileread.TooLargeError{Path: name, Size: int64(len(data)), Max: max}
		}
		return name, data, nil
	}
	data, err := fileread.File(args[0], max)
	if err != nil {
		return args[0], nil, readError(args[0], err)
	}
	return args[0], data, nil
}

// readError says why FILE could not be read and what to do about it.
func readError(name string, err error) error {
	if fileread.IsLimit(err) {
		return err
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot read %s: no such file: check the path, or pass - to read standard input", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("cannot read %s: permission denied: make the file readable, or pipe it in with -", name)
	}
	return fmt.Errorf("cannot read %s: %v: name a readable file, or pass - to read standard input", name, err)
}
