package typed

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/prompt"
)

// DefaultTag is the tag a store reads and writes when none is given.
const DefaultTag = "latest"

// StoreDir is where a catalog keeps its overrides, under its root:
// <root>/.tessera/overrides/<ns>/<key>/<tag>.yaml.
const StoreDir = ".tessera/overrides"

// staleLock is how old a lock file may be before a writer takes it over,
// as left by a process that died while writing.
const staleLock = 30 * time.Second

// Store keeps overrides on disk, one file per template and tag:
// <dir>/<ns>/<key>/<tag>.yaml, in the format ParseOverrides reads. Writes
// take a lock file beside the file and replace it atomically (a
// temporary file renamed over it), so readers see the old file or the
// new one, never a part. The zero Store is not usable: make one with
// NewStore.
type Store struct {
	dir string
}

// NewStore returns the store rooted at dir (for a catalog,
// filepath.Join(root, StoreDir)). The directory need not exist yet.
func NewStore(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("typed: an overrides store needs a directory: give the catalog root's " + StoreDir)
	}
	return &Store{dir: dir}, nil
}

// Dir returns the store's directory; "" for a nil store.
func (s *Store) Dir() string {
	if s == nil {
		return ""
	}
	return s.dir
}

// Path returns the file of t's overrides with tag ("" is DefaultTag).
// A tag is 1 to 64 lower-case letters, digits, '.', '_' and '-',
// starting with a letter or digit, so it cannot leave the directory.
func (s *Store) Path(t *Template, tag string) (string, error) {
	if s == nil || s.dir == "" {
		return "", errors.New("typed: no overrides store: make one with NewStore")
	}
	if t == nil {
		return "", errNilTemplate
	}
	if tag == "" {
		tag = DefaultTag
	}
	if !validKey(tag) {
		return "", fmt.Errorf("overrides tag %q: use 1 to 64 lower-case letters, digits, '.', '_' and '-', starting with a letter or digit", tag)
	}
	if !validKey(t.NS) || !validKey(t.Key) {
		return "", fmt.Errorf("typed %s/%s: ns and key must be valid keys to name an overrides file", t.NS, t.Key)
	}
	return filepath.Join(s.dir, t.NS, t.Key, tag+".yaml"), nil
}

// Resolve reads t's overrides with tag: those that apply, and a note for
// each stale one, left out (see ParseOverrides). A tag without a file has
// no overrides and is not an error; a file that does not parse is, with
// every problem at its line.
func (s *Store) Resolve(ctx context.Context, t *Template, tag string) (*Overrides, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	path, err := s.Path(t, tag)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return newOverrides(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("overrides store: %w", err)
	}
	return t.ParseOverrides(filepath.ToSlash(path), data)
}

// Entry is one override to write: a section's body (Section set), a
// tool's description (Tool set), or a tool parameter's description (Tool
// and Param set). Hash is the hash it was written against: the section's
// hash, or the tool's contract hash, in t.Descriptor().
type Entry struct {
	// Section is the path of the section whose body is overridden.
	Section string
	// Tool is the tool whose description is overridden, or, with Param,
	// whose parameter's description is.
	Tool, Param string
	// Hash is the target's hash the entry was written against.
	Hash string
	// Body is the section's new template, or the new description.
	Body string
}

// storeDoc is an overrides file as the store writes it.
type storeDoc struct {
	NS       string             `yaml:"ns"`
	Key      string             `yaml:"key"`
	Sections []storeSection     `yaml:"sections,omitempty"`
	Tools    []toolOverrideDoc  `yaml:"tools,omitempty"`
	Params   []paramOverrideDoc `yaml:"params,omitempty"`
	TaskEx   []taskExampleDoc   `yaml:"task_examples,omitempty"`
	ToolEx   []toolExampleDoc   `yaml:"tool_examples,omitempty"`
}

type storeSection struct {
	Path string `yaml:"path"`
	Hash string `yaml:"hash"`
	Body string `yaml:"body"`
}

// Upsert writes e into t's overrides with tag, replacing the entry for
// the same target if there is one. An entry for a target t does not have
// or that does not accept overrides, whose hash is not t's now, or whose
// body names a parameter t does not declare, is refused.
func (s *Store) Upsert(ctx context.Context, t *Template, tag string, e Entry) error {
	path, err := s.Path(t, tag)
	if err != nil {
		return err
	}
	if err := t.checkEntry(e); err != nil {
		return err
	}
	return writeLocked(ctx, path, func(old []byte) ([]byte, error) {
		doc, err := t.storeDocOf(path, old)
		if err != nil {
			return nil, err
		}
		doc.put(e)
		return yaml.Marshal(doc)
	})
}

// Seed writes everything of t an override may change (its overridable
// section bodies, tool and parameter descriptions, and task and tool
// examples) into its overrides with tag, with their hashes, as a
// starting point to edit.
// Entries the file already has are kept as they are.
func (s *Store) Seed(ctx context.Context, t *Template, tag string) error {
	path, err := s.Path(t, tag)
	if err != nil {
		return err
	}
	if err := t.Check(); err != nil {
		return err
	}
	return writeLocked(ctx, path, func(old []byte) ([]byte, error) {
		doc, err := t.storeDocOf(path, old)
		if err != nil {
			return nil, err
		}
		desc := t.descriptor()
		t.Walk(func(p string, sec *SectionSpec) {
			if h, ok := desc.Sections[p]; ok && !doc.has(Entry{Section: p}) {
				doc.put(Entry{Section: p, Hash: h, Body: sec.Body.Source})
			}
			for i, ex := range sec.Examples {
				doc.seedTaskExample(taskExampleDoc{Path: p, Index: i, Hash: desc.TaskExamples[fmt.Sprintf("%s#%d", p, i)], Input: ex.Input, Output: ex.Output})
			}
			for _, tl := range sec.Tools {
				if e := (Entry{Tool: tl.Name, Hash: desc.Tools[tl.Name], Body: tl.Description}); !doc.has(e) {
					doc.put(e)
				}
				for _, pd := range paramDescriptions(tl.Parameters) {
					if e := (Entry{Tool: tl.Name, Param: pd.name, Hash: desc.Tools[tl.Name], Body: pd.desc}); !doc.has(e) {
						doc.put(e)
					}
				}
				for i, ex := range tl.Examples {
					doc.seedToolExample(toolExampleDoc{Tool: tl.Name, Index: i, Hash: desc.ToolExamples[fmt.Sprintf("%s#%d", tl.Name, i)], Input: ex.Input, Output: ex.Output})
				}
			}
		})
		return yaml.Marshal(doc)
	})
}

// StoredFile is one overrides file of a store.
type StoredFile struct {
	// NS, Key and Tag name it; Path is the file.
	NS, Key, Tag, Path string
}

// List returns the store's files, sorted by ns, key and tag. A store
// whose directory does not exist has none.
func (s *Store) List(ctx context.Context) ([]StoredFile, error) {
	if s == nil || s.dir == "" {
		return nil, errors.New("typed: no overrides store: make one with NewStore")
	}
	var out []StoredFile
	err := filepath.WalkDir(s.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path == s.dir {
				return fs.SkipAll
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() || filepath.Ext(path) != ".yaml" {
			return nil
		}
		rel, err := filepath.Rel(s.dir, path)
		if err != nil {
			return err
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) != 3 {
			return nil
		}
		out = append(out, StoredFile{NS: parts[0], Key: parts[1], Tag: strings.TrimSuffix(parts[2], ".yaml"), Path: path})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("overrides store %s: %w", s.dir, err)
	}
	slices.SortFunc(out, func(a, b StoredFile) int {
		return strings.Compare(a.NS+"\x00"+a.Key+"\x00"+a.Tag, b.NS+"\x00"+b.Key+"\x00"+b.Tag)
	})
	return out, nil
}

// checkEntry refuses an entry that could not apply to t as it is.
func (t *Template) checkEntry(e Entry) error {
	desc := t.descriptor()
	if norm, err := prompt.Normalize([]byte(e.Body)); err != nil || norm != e.Body {
		return errors.New("an override's body must be UTF-8 text with \n line ends (no byte-order mark, no carriage returns)")
	}
	if !validHash(e.Hash) {
		return fmt.Errorf("override hash %q: want the 64 lower-case hex digits of the target's hash in the template's descriptor", e.Hash)
	}
	switch {
	case e.Section != "" && e.Tool == "":
		now, ok := desc.Sections[e.Section]
		if !ok {
			return fmt.Errorf("template %s/%s has no overridable section %q: they are %s", t.NS, t.Key, e.Section, keyList(desc.Sections))
		}
		if e.Hash != now {
			return fmt.Errorf("the override of section %q was written for hash %s, and the section now hashes to %s: review it against the template", e.Section, short(e.Hash), now)
		}
		txt, errs := parseText(e.Body)
		if len(errs) > 0 {
			return fmt.Errorf("the override of section %q: %s", e.Section, errs[0].msg)
		}
		if name := undeclared(t, txt); name != "" {
			return fmt.Errorf("the override of section %q names $%s, which template %s/%s does not declare", e.Section, name, t.NS, t.Key)
		}
	case e.Tool != "" && e.Section == "":
		now, ok := desc.Tools[e.Tool]
		if !ok {
			return fmt.Errorf("template %s/%s has no tool %q: its tools are %s", t.NS, t.Key, e.Tool, keyList(desc.Tools))
		}
		if e.Param != "" && !slices.Contains(paramNames(t.tool(e.Tool).Parameters), e.Param) {
			return fmt.Errorf("tool %q has no parameter %q", e.Tool, e.Param)
		}
		if e.Hash != now {
			return fmt.Errorf("the override of tool %q was written for hash %s, and its contract now hashes to %s: review it against the template", e.Tool, short(e.Hash), now)
		}
	default:
		return errors.New("an override entry names a section, or a tool (and perhaps its parameter): set one of Section and Tool")
	}
	return nil
}

// storeDocOf reads an existing file (nil: none) for t: it must parse as
// t's overrides, stale entries allowed.
func (t *Template) storeDocOf(path string, old []byte) (*storeDoc, error) {
	doc := &storeDoc{NS: t.NS, Key: t.Key}
	if len(old) == 0 {
		return doc, nil
	}
	if _, err := t.ParseOverrides(filepath.ToSlash(path), old); err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(old, doc); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return doc, nil
}

func (d *storeDoc) has(e Entry) bool {
	switch {
	case e.Section != "":
		return slices.ContainsFunc(d.Sections, func(s storeSection) bool { return s.Path == e.Section })
	case e.Param != "":
		return slices.ContainsFunc(d.Params, func(p paramOverrideDoc) bool { return p.Tool == e.Tool && p.Param == e.Param })
	}
	return slices.ContainsFunc(d.Tools, func(x toolOverrideDoc) bool { return x.Name == e.Tool })
}

// seedTaskExample adds x unless the file has an entry for its example.
func (d *storeDoc) seedTaskExample(x taskExampleDoc) {
	if slices.ContainsFunc(d.TaskEx, func(y taskExampleDoc) bool { return y.Path == x.Path && y.Index == x.Index }) {
		return
	}
	d.TaskEx = append(d.TaskEx, x)
	slices.SortStableFunc(d.TaskEx, func(a, b taskExampleDoc) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), cmp.Compare(a.Index, b.Index))
	})
}

// seedToolExample adds x unless the file has an entry for its example.
func (d *storeDoc) seedToolExample(x toolExampleDoc) {
	if slices.ContainsFunc(d.ToolEx, func(y toolExampleDoc) bool { return y.Tool == x.Tool && y.Index == x.Index }) {
		return
	}
	d.ToolEx = append(d.ToolEx, x)
	slices.SortStableFunc(d.ToolEx, func(a, b toolExampleDoc) int {
		return cmp.Or(strings.Compare(a.Tool, b.Tool), cmp.Compare(a.Index, b.Index))
	})
}

// A paramDescription is a parameter's name and description.
type paramDescription struct{ name, desc string }

// paramDescriptions returns the description of each parameter of the
// object schema that has one, in the order written.
func paramDescriptions(schema json.RawMessage) []paramDescription {
	var out []paramDescription
	_ = walkProperties(schema, func(name string, start, end int) {
		prop := schema[start:end]
		_ = members(prop, func(key string, s, e int) {
			var d string
			if key == "description" && json.Unmarshal(prop[s:e], &d) == nil && d != "" {
				out = append(out, paramDescription{name, d})
			}
		})
	})
	return out
}

// put sets e, replacing the entry for its target.
func (d *storeDoc) put(e Entry) {
	switch {
	case e.Section != "":
		d.Sections = slices.DeleteFunc(d.Sections, func(s storeSection) bool { return s.Path == e.Section })
		d.Sections = append(d.Sections, storeSection{Path: e.Section, Hash: e.Hash, Body: e.Body})
		slices.SortFunc(d.Sections, func(a, b storeSection) int { return strings.Compare(a.Path, b.Path) })
	case e.Param != "":
		d.Params = slices.DeleteFunc(d.Params, func(p paramOverrideDoc) bool { return p.Tool == e.Tool && p.Param == e.Param })
		d.Params = append(d.Params, paramOverrideDoc{Tool: e.Tool, Param: e.Param, Hash: e.Hash, Description: e.Body})
		slices.SortFunc(d.Params, func(a, b paramOverrideDoc) int { return strings.Compare(a.Tool+"."+a.Param, b.Tool+"."+b.Param) })
	default:
		d.Tools = slices.DeleteFunc(d.Tools, func(x toolOverrideDoc) bool { return x.Name == e.Tool })
		d.Tools = append(d.Tools, toolOverrideDoc{Name: e.Tool, Hash: e.Hash, Description: e.Body})
		slices.SortFunc(d.Tools, func(a, b toolOverrideDoc) int { return strings.Compare(a.Name, b.Name) })
	}
}

// writeLocked replaces the file at path with update's result, given its
// current content (nil when it does not exist), holding path+".lock"
// while it reads and writes; the new content is written to a temporary
// file in the same directory, synced, and renamed over the file.
func writeLocked(ctx context.Context, path string, update func(old []byte) ([]byte, error)) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("overrides store: %w", err)
	}
	lock := path + ".lock"
	for {
		f, err := os.OpenFile(lock, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			break
		}
		if !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("overrides store: taking the lock: %w", err)
		}
		if fi, err := os.Stat(lock); err == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(lock)
			continue
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("overrides store: %s is locked by another writer: %w", path, ctx.Err())
		case <-time.After(5 * time.Millisecond):
		}
	}
	defer os.Remove(lock)
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("overrides store: %w", err)
	}
	data, err := update(old)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("overrides store: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("overrides store: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("overrides store: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("overrides store: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("overrides store: %w", err)
	}
	return nil
}
