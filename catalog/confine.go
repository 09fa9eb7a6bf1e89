package catalog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tessera-dev/tessera/diag"
)

// LogKey returns the audit log's HMAC key: the value of the environment
// variable tessera.yaml's log_key_env names, or nil when it names none.
// A named variable that is unset, or shorter than 32 bytes, is an error
// naming the key and its line: a log meant to be signed is never written
// or checked without its key.
func (c *Catalog) LogKey() ([]byte, error) {
	name := c.cfg.LogKeyEnv
	if name == "" {
		return nil, nil
	}
	v, ok := os.LookupEnv(name)
	if !ok || v == "" {
		return nil, diag.ErrorfAt(ConfigFile, c.cfg.Line("log_key_env"), c.cfg.Col("log_key_env"), "log_key_env: the environment variable %s is not set: set it to the log's key (at least %d bytes, such as the output of `openssl rand -hex 32`), or remove log_key_env to log without signatures", name, minLogKey)
	}
	if len(v) < minLogKey {
		return nil, diag.ErrorfAt(ConfigFile, c.cfg.Line("log_key_env"), c.cfg.Col("log_key_env"), "log_key_env: %s holds %d bytes, under the %d a log key needs: use a random value such as the output of `openssl rand -hex 32`", name, len(v), minLogKey)
	}
	return []byte(v), nil
}

// minLogKey is audit.MinKeyBytes; catalog does not import audit.
const minLogKey = 32

// WritePath returns the path on disk of a place tessera.yaml tells Tessera
// to write: the key "log" or "out". It must resolve inside the catalog
// root: a catalog is something one may clone and run, so it must not be
// able to make Tessera append to or replace a file anywhere else. Every
// existing component of the path is checked, and a symbolic link that
// leads out of the root (or points nowhere, so that creating the file
// would follow it) is an error naming the key, its line and where the path
// resolves. It returns "" when the key is not set. Paths given on the
// command line are the user's own and are not checked here.
func (c *Catalog) WritePath(key string) (string, error) {
	var rel string
	switch key {
	case "log":
		rel = c.cfg.Log
	case "out":
		rel = c.cfg.Out
	default:
		return "", fmt.Errorf("catalog: WritePath(%q): the keys are log and out", key)
	}
	if rel == "" {
		return "", nil
	}
	if c.dir == "" {
		return "", diag.ErrorfAt(ConfigFile, c.cfg.Line(key), c.cfg.Col(key), "%s: a catalog opened from a file system, not a directory, has nowhere to write %s: give the path explicitly", key, rel)
	}
	full := filepath.Join(c.dir, filepath.FromSlash(rel))
	if err := confined(c.dir, rel); err != nil {
		e := diag.Wrap(ConfigFile, c.cfg.Line(key), err, "%s: %v: a path in tessera.yaml must stay inside the catalog root; name a path inside it, or give one on the command line (--%s) to write elsewhere", key, err, flagFor(key))
		e.Col = c.cfg.Col(key)
		return "", e
	}
	return full, nil
}

func flagFor(key string) string {
	if key == "out" {
		return "out"
	}
	return "log"
}

// confined checks that the slash path rel under dir resolves, through any
// symbolic links among its existing components, to a place inside dir.
func confined(dir, rel string) error {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("catalog root %s: %w", dir, err)
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return err
	}
	cur := dir
	for _, part := range strings.Split(rel, "/") {
		if part == "." || part == "" {
			continue
		}
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) {
			return nil // created inside the last component checked
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(cur)
		if err != nil {
			target, _ := os.Readlink(cur)
			return fmt.Errorf("%s is a symbolic link to %s, which does not exist (creating it would follow the link)", filepath.ToSlash(rel), target)
		}
		real, err = filepath.Abs(real)
		if err != nil {
			return err
		}
		if r, err := filepath.Rel(root, real); err != nil || !filepath.IsLocal(r) && r != "." {
			return fmt.Errorf("%s resolves to %s, outside the catalog root %s", filepath.ToSlash(rel), real, root)
		}
	}
	return nil
}
