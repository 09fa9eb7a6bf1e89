package catalog

import (
	"context"
	"errors"
	"fmt"
	"github.com/tessera-dev/tessera/tokenizer/hf"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/include"
	"github.com/tessera-dev/tessera/internal/fileread"
	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/prompt"
)

// Catalog is a loaded catalog. Create one with Open or OpenFS.
type Catalog struct {
	fsys   fs.FS
	root   *os.Root // the root on disk; nil for OpenFS
	dir    string   // the root's path; empty for OpenFS
	closer io.Closer
	cfg    Config

	// tokenizers holds the tokenizer files of the tokenizers: key, each
	// loaded once.
	tokenizers hf.Loader

	mu        sync.RWMutex
	files     map[string]*fileEntry
	templates map[string]*templateEntry
	workflows map[string]*workflowEntry
}

type fileEntry struct {
	file *include.File
	err  error
}

type templateEntry struct {
	path string
	tmpl *include.Template
	hash string
	err  error
}

type workflowEntry struct {
	wf  *Workflow
	err error
}

// Open opens the catalog rooted at dir, which must hold a tessera.yaml.
// Every file is read through an os.Root, so no path, symbolic links
// included, can reach outside dir. sections are the preset sections its
// tessera.yaml may hold (preset.Registry.Sections gives a registry's).
// Close the catalog when done.
func Open(ctx context.Context, dir string, sections ...Section) (*Catalog, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("open catalog %s: %w", dir, err)
	}
	c, err := newCatalog(root.FS(), dir, sections)
	if err != nil {
		root.Close()
		return nil, err
	}
	c.root, c.closer = root, root
	return c, nil
}

// OpenFS opens a catalog held in fsys, such as an embed.FS, whose root
// holds a tessera.yaml. A catalog opened this way cannot Compile to disk
// relative to its root; pass Compile an absolute output directory.
func OpenFS(ctx context.Context, fsys fs.FS, sections ...Section) (*Catalog, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return newCatalog(fsys, "", sections)
}

func newCatalog(fsys fs.FS, dir string, sections []Section) (*Catalog, error) {
	data, err := fileread.FS(fsys, ConfigFile, DefaultMaxFileBytes)
	if err != nil {
		if fileread.IsLimit(err) {
			return nil, diag.List{limitDiag(ConfigFile, err)}
		}
		if errors.Is(err, fs.ErrNotExist) {
			where := dir
			if where == "" {
				where = "the file system"
			}
			return nil, diag.List{diag.Errorf(ConfigFile, 0, "not found in %s: a catalog root holds a tessera.yaml (pass --root, or run tessera from inside the catalog)", where)}
		}
		return nil, fmt.Errorf("read %s: %w", ConfigFile, err)
	}
	cfg, err := ParseConfig(ConfigFile, data, sections...)
	if err != nil {
		return nil, err
	}
	return &Catalog{
		fsys:      fsys,
		dir:       dir,
		cfg:       *cfg,
		files:     map[string]*fileEntry{},
		templates: map[string]*templateEntry{},
		workflows: map[string]*workflowEntry{},
	}, nil
}

// Close releases the catalog's root directory.
func (c *Catalog) Close() error {
	if c.closer == nil {
		return nil
	}
	return c.closer.Close()
}

// Config returns the catalog's configuration.
func (c *Catalog) Config() Config {
	cfg := c.cfg
	cfg.TemplateExtensions = slices.Clone(cfg.TemplateExtensions)
	return cfg
}

// Dir returns the catalog's root directory as given to Open, or "" for a
// catalog opened with OpenFS.
func (c *Catalog) Dir() string { return c.dir }

// ReadFile reads the file at p, a slash-separated path relative to the
// root, and returns its normalised text (see prompt.Normalize): only a
// regular file, no more than limits.max_file_bytes, and never outside the
// root. Problems are diagnostics naming p.
func (c *Catalog) ReadFile(ctx context.Context, p string) (string, error) {
	cp, err := include.CleanPath(p)
	if err != nil {
		return "", diag.Wrap(p, 0, err, "%v", err)
	}
	return c.readFile(ctx, cp)
}

// readFile reads and normalises the file at the cleaned path p: only a
// regular file, and no more than the configured cap.
func (c *Catalog) readFile(ctx context.Context, p string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var (
		data []byte
		err  error
	)
	if c.root != nil {
		data, err = fileread.InRoot(c.root, p, c.cfg.Limits.MaxFileBytes)
	} else {
		data, err = fileread.FS(c.fsys, p, c.cfg.Limits.MaxFileBytes)
	}
	if err != nil {
		if fileread.IsLimit(err) {
			return "", limitDiag(p, err)
		}
		return "", c.openError(p, err)
	}
	text, err := prompt.Normalize(data)
	if err != nil {
		return "", encodingDiag(p, err)
	}
	return text, nil
}

// limitDiag places a fileread limit error at the file.
func limitDiag(p string, err error) *diag.Error {
	var tl *fileread.TooLargeError
	if errors.As(err, &tl) {
		// The command line's flag does not reach a catalog's own files.
		return diag.Wrap(p, 0, err, "is %d bytes, over the %d-byte cap on a file Tessera reads: make it smaller, or raise limits.max_file_bytes in tessera.yaml", tl.Size, tl.Max)
	}
	var r interface{ Reason() string }
	if errors.As(err, &r) {
		return diag.Wrap(p, 0, err, "%s", r.Reason())
	}
	return diag.Wrap(p, 0, err, "%v", err)
}

func (c *Catalog) openError(p string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if c.dir != "" && escapes(c.dir, p) {
		return diag.Wrap(p, 0, err, "leaves the catalog root through a symbolic link: every file a catalog reads must be inside it")
	}
	return err
}

// escapes reports whether the file p under dir resolves, through symbolic
// links, to a place outside dir.
func escapes(dir, p string) bool {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, filepath.FromSlash(p)))
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(root, real)
	return err != nil || !filepath.IsLocal(rel)
}

func encodingDiag(p string, err error) *diag.Error {
	var ee *prompt.EncodingError
	if errors.As(err, &ee) {
		e := diag.Wrap(p, ee.Line, err, "%v", ee)
		e.Col = ee.Col
		return e
	}
	return diag.Wrap(p, 0, err, "%v", err)
}

// Load implements include.Loader: it returns the included file at the
// cleaned path p, read once and kept. Included text that holds a token or
// directive is an error naming the file and line.
func (c *Catalog) Load(ctx context.Context, p string) (*include.File, error) {
	c.mu.RLock()
	e, ok := c.files[p]
	c.mu.RUnlock()
	if ok {
		return e.file, e.err
	}
	text, err := c.readFile(ctx, p)
	e = &fileEntry{}
	switch {
	case err != nil:
		e.err = err
	default:
		if err := include.CheckIncluded(p, text); err != nil {
			e.err = err
		} else {
			e.file = &include.File{Path: p, Text: text, Hash: prompt.Hash(text)}
		}
	}
	if ctx.Err() != nil {
		return e.file, e.err // do not cache a cancellation
	}
	c.mu.Lock()
	if prev, ok := c.files[p]; ok {
		e = prev
	} else {
		c.files[p] = e
	}
	c.mu.Unlock()
	return e.file, e.err
}

// template returns the scanned template for taskRef.
func (c *Catalog) template(ctx context.Context, taskRef string) (*templateEntry, error) {
	c.mu.RLock()
	e, ok := c.templates[taskRef]
	c.mu.RUnlock()
	if ok {
		return e, e.err
	}
	e = &templateEntry{}
	e.path, e.err = c.findTemplate(taskRef)
	if e.err == nil {
		var text string
		text, e.err = c.readFile(ctx, e.path)
		if e.err == nil {
			e.hash = prompt.Hash(text)
			e.tmpl, e.err = include.Parse(e.path, text)
		}
	}
	if ctx.Err() != nil {
		return e, e.err
	}
	c.mu.Lock()
	if prev, ok := c.templates[taskRef]; ok {
		e = prev
	} else {
		c.templates[taskRef] = e
	}
	c.mu.Unlock()
	return e, e.err
}

// TemplatePath returns the path, relative to the root, of the template
// that taskRef names.
func (c *Catalog) TemplatePath(taskRef string) (string, error) { return c.findTemplate(taskRef) }

func (c *Catalog) findTemplate(taskRef string) (string, error) {
	ref, err := include.CleanPath(taskRef)
	if err != nil {
		return "", fmt.Errorf("task_ref %q: %w", taskRef, err)
	}
	var found []string
	for _, ext := range c.cfg.TemplateExtensions {
		p := path.Join(c.cfg.Tasks, ref+ext)
		st, err := fs.Stat(c.fsys, p)
		if err == nil && !st.IsDir() {
			found = append(found, p)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			if oe := c.openError(p, err); oe != err {
				return "", oe
			}
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		msg := fmt.Sprintf("task_ref %q: no template %s in %s", taskRef, strings.Join(withExts(path.Base(ref), c.cfg.TemplateExtensions), ", "), c.cfg.Tasks)
		if near := c.nearestTemplate(ref); near != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", near)
		}
		return "", errors.New(msg)
	default:
		return "", fmt.Errorf("task_ref %q is ambiguous: %s all exist; keep one", taskRef, strings.Join(found, ", "))
	}
}

func withExts(name string, exts []string) []string {
	out := make([]string, len(exts))
	for i, e := range exts {
		out[i] = name + e
	}
	return out
}

func (c *Catalog) nearestTemplate(ref string) string {
	dir := path.Join(c.cfg.Tasks, path.Dir(ref))
	entries, err := fs.ReadDir(c.fsys, dir)
	if err != nil {
		return ""
	}
	var stems []string
	for _, e := range entries {
		for _, ext := range c.cfg.TemplateExtensions {
			if stem, ok := strings.CutSuffix(e.Name(), ext); ok {
				stems = append(stems, stem)
			}
		}
	}
	if near := suggest.Nearest(path.Base(ref), stems); near != "" {
		return path.Join(path.Dir(ref), near)
	}
	return ""
}

// WorkflowIDs returns the ids of the catalog's workflows, sorted.
func (c *Catalog) WorkflowIDs(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if c.cfg.Workflows == "" { // a catalog of layered prompts alone
		return nil, nil
	}
	entries, err := fs.ReadDir(c.fsys, c.cfg.Workflows)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, diag.Errorf(ConfigFile, 0, "workflows directory %q does not exist: create it or fix the \"workflows\" key", c.cfg.Workflows)
		}
		return nil, fmt.Errorf("list workflows in %s: %w", c.cfg.Workflows, err)
	}
	var ids []string
	for _, e := range entries {
		if id, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() && id != "" {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Workflow returns the workflow with the given id, read and parsed once.
func (c *Catalog) Workflow(ctx context.Context, id string) (*Workflow, error) {
	c.mu.RLock()
	e, ok := c.workflows[id]
	c.mu.RUnlock()
	if ok {
		return e.wf, e.err
	}
	e = &workflowEntry{}
	p, err := include.CleanPath(id + ".json")
	if err != nil || strings.Contains(id, "/") {
		return nil, fmt.Errorf("workflow id %q: want a file name in %s without .json", id, c.cfg.Workflows)
	}
	p = path.Join(c.cfg.Workflows, p)
	text, err := c.readFile(ctx, p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.err = c.unknownWorkflow(ctx, id)
	case err != nil:
		e.err = err
	default:
		e.wf, e.err = ParseWorkflow(p, id, []byte(text))
	}
	if ctx.Err() != nil {
		return e.wf, e.err
	}
	c.mu.Lock()
	if prev, ok := c.workflows[id]; ok {
		e = prev
	} else {
		c.workflows[id] = e
	}
	c.mu.Unlock()
	return e.wf, e.err
}

func (c *Catalog) unknownWorkflow(ctx context.Context, id string) error {
	ids, _ := c.WorkflowIDs(ctx)
	msg := fmt.Sprintf("no workflow %q in %s", id, c.cfg.Workflows)
	if len(ids) > 0 {
		msg += " (workflows: " + strings.Join(ids, ", ") + ")"
	}
	return errors.New(msg)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
