package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/internal/proc"
	"github.com/tessera-dev/tessera/tokenizer"
)

// ManifestFile is the name of the manifest Compile writes beside the
// compiled prompts.
const ManifestFile = "manifest.json"

// Manifest describes a compile: one entry per assembled node, in
// workflow id order and then file order. It holds no timestamps, so the
// same catalog compiles to the same bytes.
type Manifest struct {
	// TesseraVersion is the version that compiled the prompts.
	TesseraVersion string `json:"tessera_version"`
	// Prompts lists the compiled prompts.
	Prompts []ManifestEntry `json:"prompts"`
}

// ManifestEntry is one compiled prompt.
type ManifestEntry struct {
	// Unit names the compile unit as its preset names it, in its own
	// members and order: a workflow node's `workflow`, `node` and
	// `task_ref`, a canonical spec's `spec`, a typed or layered fixture's
	// `spec` and `fixture`. An empty value is left out of manifest.json.
	Unit []Member
	// Path is the prompt file relative to the output directory.
	Path string
	// Hash is the prompt hash of the file's content.
	Hash string
	// Bytes is the file's size.
	Bytes int
}

// Member is one named value of a ManifestEntry's Unit.
type Member struct {
	Key, Value string
}

// Get returns the value of the Unit member key, or "".
func (e ManifestEntry) Get(key string) string {
	for _, m := range e.Unit {
		if m.Key == key {
			return m.Value
		}
	}
	return ""
}

// manifestKeys are the members manifest.json gives every entry; a Unit
// member may not take one of them.
var manifestKeys = map[string]bool{"path": true, "hash": true, "bytes": true}

// MarshalJSON writes the entry as manifest.json holds it: the Unit's
// members in order, then path, hash and bytes.
func (e ManifestEntry) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for _, m := range e.Unit {
		if m.Value == "" {
			continue
		}
		if manifestKeys[m.Key] || m.Key == "" {
			return nil, fmt.Errorf("catalog: manifest entry %s: unit member %q: use a name other than path, hash and bytes", e.Path, m.Key)
		}
		b = appendJSONString(b, m.Key)
		b = append(b, ':')
		b = appendJSONString(b, m.Value)
		b = append(b, ',')
	}
	b = append(b, `"path":`...)
	b = appendJSONString(b, e.Path)
	b = append(b, `,"hash":`...)
	b = appendJSONString(b, e.Hash)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(e.Bytes), 10)
	return append(b, '}'), nil
}

// appendJSONString appends s as a JSON string, escaped as encoding/json
// escapes it.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}

// UnmarshalJSON reads an entry of manifest.json: path, hash and bytes,
// and every other string member, in order, into Unit.
func (e *ManifestEntry) UnmarshalJSON(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil {
		return err
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("a manifest entry is a JSON object")
	}
	*e = ManifestEntry{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		switch key {
		case "bytes":
			if err := dec.Decode(&e.Bytes); err != nil {
				return fmt.Errorf("bytes: %w", err)
			}
		default:
			var v string
			if err := dec.Decode(&v); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
			switch key {
			case "path":
				e.Path = v
			case "hash":
				e.Hash = v
			default:
				e.Unit = append(e.Unit, Member{key, v})
			}
		}
	}
	_, err := dec.Token()
	return err
}

// ConfiguredBudget returns tessera.yaml's budget for a request of the
// given number of messages, and the counter for its model. It returns a
// nil counter when the config sets no budget.
func (c *Catalog) ConfiguredBudget(messages int) (tokenizer.Counter, budget.Budget, error) {
	bc := c.cfg.Budget
	if bc == nil {
		return nil, budget.Budget{}, nil
	}
	counter, err := c.CounterFor(bc.Model)
	if err != nil {
		return nil, budget.Budget{}, diag.ErrorfAt(ConfigFile, bc.Line, bc.Col, "budget.model: %v", err)
	}
	return counter, budget.Budget{Context: bc.Context, Reserve: bc.Reserve, Overhead: tokenizer.OverheadFor(counter, messages)}, nil
}

// CheckOutDir refuses output directories whose replacement would lose
// something: the catalog root or a directory above it, and an existing
// directory that is not a previous compile's output.
func (c *Catalog) CheckOutDir(outDir string) error {
	abs, err := filepath.Abs(outDir)
	if err != nil {
		return fmt.Errorf("compile: output directory %s: %w", outDir, err)
	}
	if c.dir != "" {
		root, err := filepath.Abs(c.dir)
		if err != nil {
			return fmt.Errorf("compile: catalog root %s: %w", c.dir, err)
		}
		if rel, err := filepath.Rel(abs, root); err == nil && filepath.IsLocal(rel) || abs == root {
			return fmt.Errorf("compile: output directory %s holds the catalog: choose a directory of its own, such as %s", outDir, DefaultOut)
		}
	}
	if fi, err := os.Lstat(abs); err == nil && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("compile: output directory %s is %s, not a directory: refusing to replace it; remove it or choose another --out", outDir, fileread.Kind(fi.Mode()))
	}
	entries, err := os.ReadDir(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("compile: output directory %s: %w", outDir, err)
	}
	if len(entries) == 0 {
		return nil
	}
	if fi, err := os.Stat(filepath.Join(abs, ManifestFile)); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("compile: %s exists and is not a compile output (no %s): refusing to replace it; remove it or choose another --out", outDir, ManifestFile)
	}
	return nil
}

// The temporary directories of a compile, beside the output directory
// <out>: ".<out>.tessera-new-<pid>-<random>" while the new build is
// written, ".<out>.tessera-old-<pid>-<random>" while the previous one is
// moved aside. A compile killed half way leaves one behind; the next
// compile recognises them by name and by a process id that is no longer
// running, and removes them.
const (
	tmpNew = ".tessera-new-"
	tmpOld = ".tessera-old-"
)

// WriteBuild removes the leftovers of killed compiles beside outDir, writes
// the prompts (texts[i] to m.Prompts[i].Path, grouped by directory) and
// the manifest into a new directory beside it, and swaps that into place,
// so a failed or interrupted write leaves the previous build as it was.
// It returns the leftovers it removed.
func WriteBuild(ctx context.Context, outDir string, texts []string, m *Manifest) (removed []string, err error) {
	return writeBuild(ctx, outDir, texts, m, nil)
}

// writeBuild is WriteBuild, with swapDir's crash.
func writeBuild(ctx context.Context, outDir string, texts []string, m *Manifest, crash func(string) error) (removed []string, err error) {
	parent, base := filepath.Dir(outDir), filepath.Base(outDir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	if _, err := restoreLeftover(parent, base); err != nil {
		return nil, err
	}
	removed, err = removeLeftovers(parent, base)
	if err != nil {
		return removed, err
	}
	tmp, err := os.MkdirTemp(parent, tempPrefix(base, tmpNew))
	if err != nil {
		return removed, fmt.Errorf("compile: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := os.Chmod(tmp, 0o755); err != nil {
		return removed, fmt.Errorf("compile: %w", err)
	}
	if err := writePrompts(ctx, tmp, texts, m); err != nil {
		return removed, err
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return removed, fmt.Errorf("compile: manifest: %w", err)
	}
	if err := writeNew(filepath.Join(tmp, ManifestFile), append(data, '\n')); err != nil {
		return removed, err
	}
	return removed, swapDir(tmp, outDir, crash)
}

// tempPrefix is the name prefix of a temporary directory of this process
// for the output directory base.
func tempPrefix(base, kind string) string {
	return "." + base + kind + strconv.Itoa(os.Getpid()) + "-"
}

// removeLeftovers removes the temporary directories that compiles of
// base, killed half way, left in parent: those named by tempPrefix whose
// process is no longer running. A directory of a compile still running,
// or any other name, is left alone.
func removeLeftovers(parent, base string) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("compile: %w", err)
	}
	var removed []string
	for _, e := range entries {
		pid, ok := leftoverPID(e.Name(), base)
		if !ok || !e.IsDir() {
			continue
		}
		// Where the system cannot say, only this process counts as
		// running: compiles of one output are not expected to overlap.
		if running, _ := proc.Running(pid); running {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if err := os.RemoveAll(p); err != nil {
			return removed, fmt.Errorf("compile: remove %s, left by an interrupted compile: %w", p, err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// leftoverPID parses "."+base+kind+pid+"-"+random, returning pid.
func leftoverPID(name, base string) (int, bool) {
	rest, ok := strings.CutPrefix(name, "."+base)
	if !ok {
		return 0, false
	}
	if r, ok := strings.CutPrefix(rest, tmpNew); ok {
		rest = r
	} else if r, ok := strings.CutPrefix(rest, tmpOld); ok {
		rest = r
	} else {
		return 0, false
	}
	digits, random, ok := strings.Cut(rest, "-")
	if !ok || random == "" || strings.Trim(random, "0123456789") != "" {
		return 0, false
	}
	pid, err := strconv.Atoi(digits)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// writeWorkers is how many files compile writes at once. Creating files is
// mostly waiting on the file system, so a few more writers than cores pay.
const writeWorkers = 8

// writePrompts writes each workflow's directory and prompt files under
// dir, one workflow per task, several at a time.
func writePrompts(ctx context.Context, dir string, texts []string, m *Manifest) error {
	// Group the prompts by directory; the manifest lists each directory's
	// prompts together.
	var groups [][2]int
	for i := range m.Prompts {
		if i == 0 || path.Dir(m.Prompts[i].Path) != path.Dir(m.Prompts[i-1].Path) {
			groups = append(groups, [2]int{i, i + 1})
		} else {
			groups[len(groups)-1][1] = i + 1
		}
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	next := make(chan [2]int)
	for range min(writeWorkers, len(groups)) {
		wg.Go(func() {
			for g := range next {
				if err := writeGroup(dir, texts[g[0]:g[1]], m.Prompts[g[0]:g[1]]); err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, g := range groups {
		if ctx.Err() != nil {
			break
		}
		next <- g
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return firstErr
}

// writeGroup writes prompts that share a directory.
func writeGroup(dir string, texts []string, entries []ManifestEntry) error {
	sub := filepath.Join(dir, filepath.FromSlash(path.Dir(entries[0].Path)))
	if err := os.Mkdir(sub, 0o755); err != nil {
		// A directory two or more levels down (typed/<ns>/<key>): its
		// parents may not be there yet, or another group's may be being
		// made at the same time, which MkdirAll allows.
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("compile: %w", err)
		}
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return fmt.Errorf("compile: %w", err)
		}
	}
	for i, text := range texts {
		if err := writeNew(filepath.Join(dir, filepath.FromSlash(entries[i].Path)), []byte(text)); err != nil {
			return err
		}
	}
	return nil
}

// writeNew writes data to a file at path that it creates: a name already
// there, whatever it is (a FIFO, a link to a file elsewhere), is an
// error, so every output is a regular file of its own.
func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("compile: %w", err)
	}
	return nil
}

// swapDir moves dir into place at target. Where the system can exchange
// two names in one step (Linux's renameat2 with RENAME_EXCHANGE), a
// previous target is exchanged with dir, so that target names a complete
// build at every instant, and the previous build, now under dir's name,
// is removed; a kill before the removal leaves it as a leftover that the
// next compile removes. Elsewhere, or on a file system that cannot
// exchange, the previous target is moved aside and dir renamed into its
// place: a kill between the two renames leaves no target, and the next
// compile puts the previous build back (see restoreLeftover) before
// anything else. crash, when not nil, is called between the steps, by
// name, and an error from it stops the swap there, as a kill would.
func swapDir(dir, target string, crash func(step string) error) error {
	step := func(name string) error {
		if crash == nil {
			return nil
		}
		return crash(name)
	}
	if _, err := os.Lstat(target); err == nil {
		err := step("exchange") // errNoExchange from a test: rename twice
		if err == nil {
			err = exchange(dir, target)
		}
		switch {
		case err == nil:
			if err := step("exchanged"); err != nil {
				return err
			}
			if err := os.RemoveAll(dir); err != nil {
				return fmt.Errorf("compile: remove previous output, now at %s: %w", dir, err)
			}
			return nil
		case !errors.Is(err, errNoExchange):
			return fmt.Errorf("compile: exchange the new output with %s: %w", target, err)
		}
	}
	old := ""
	if _, err := os.Lstat(target); err == nil {
		o, err := os.MkdirTemp(filepath.Dir(target), tempPrefix(filepath.Base(target), tmpOld))
		if err != nil {
			return fmt.Errorf("compile: %w", err)
		}
		if err := os.Remove(o); err != nil {
			return fmt.Errorf("compile: %w", err)
		}
		if err := os.Rename(target, o); err != nil {
			return fmt.Errorf("compile: move previous output aside: %w", err)
		}
		old = o
	}
	if err := step("moved aside"); err != nil {
		return err
	}
	if err := os.Rename(dir, target); err != nil {
		if old != "" {
			_ = os.Rename(old, target)
		}
		return fmt.Errorf("compile: move new output into place: %w", err)
	}
	if err := step("renamed"); err != nil {
		return err
	}
	if old != "" {
		if err := os.RemoveAll(old); err != nil {
			return fmt.Errorf("compile: remove previous output %s: %w", old, err)
		}
	}
	return nil
}

// errNoExchange: the system or file system cannot exchange two names.
var errNoExchange = errors.New("cannot exchange names here")

// restoreLeftover puts back the previous build that a compile killed
// between its two renames (see swapDir) left moved aside: when target is
// missing and a leftover ".<base>.tessera-old-*" of a process no longer
// running holds a complete build (its manifest), it is renamed to
// target. It returns the leftover restored, or "".
func restoreLeftover(parent, base string) (string, error) {
	target := filepath.Join(parent, base)
	if _, err := os.Lstat(target); !errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	entries, err := os.ReadDir(parent)
	if err != nil {
		return "", fmt.Errorf("compile: %w", err)
	}
	for _, e := range entries {
		pid, ok := leftoverPID(e.Name(), base)
		if !ok || !e.IsDir() || !strings.HasPrefix(e.Name(), "."+base+tmpOld) {
			continue
		}
		if running, _ := proc.Running(pid); running {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if fi, err := os.Lstat(filepath.Join(p, ManifestFile)); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := os.Rename(p, target); err != nil {
			return "", fmt.Errorf("compile: put back the previous output %s, moved aside by an interrupted compile: %w", p, err)
		}
		return p, nil
	}
	return "", nil
}
