package typed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestStoreSeedResolveUpsert(t *testing.T) {
	ctx := context.Background()
	tpl := mustParse(t, driftTemplate)
	s, err := NewStore(filepath.Join(t.TempDir(), StoreDir))
	if err != nil {
		t.Fatal(err)
	}
	// No file: no overrides, no error.
	ov, err := s.Resolve(ctx, tpl, "")
	if err != nil || len(ov.sections)+len(ov.tools) != 0 {
		t.Fatalf("empty store: %v %v", ov, err)
	}
	_, data := seed(t, s, tpl)
	d := tpl.Descriptor()
	if !strings.Contains(string(data), "hash: "+d.Sections["a"]) || !strings.Contains(string(data), "hash: "+d.Tools["look"]) {
		t.Errorf("seeded file:\n%s", data)
	}
	ov, err = s.Resolve(ctx, tpl, "")
	if err != nil || len(ov.Notes) != 0 || ov.sections["a"].body != "Hello $who." {
		t.Fatalf("seeded overrides: %+v %v", ov, err)
	}
	// Upsert refuses a hash that is not the template's.
	if err := s.Upsert(ctx, tpl, "", Entry{Section: "a", Hash: strings.Repeat("0", 64), Body: "x"}); err == nil || !strings.Contains(err.Error(), "written for hash") {
		t.Errorf("wrong hash: %v", err)
	}
	if err := s.Upsert(ctx, tpl, "", Entry{Section: "a", Hash: d.Sections["a"], Body: "Hi $nobody"}); err == nil || !strings.Contains(err.Error(), "$nobody") {
		t.Errorf("undeclared parameter: %v", err)
	}
	if err := s.Upsert(ctx, tpl, "", Entry{Section: "a", Hash: d.Sections["a"], Body: "Good day, $who."}); err != nil {
		t.Fatal(err)
	}
	if err := s.Upsert(ctx, tpl, "", Entry{Tool: "look", Param: "q", Hash: d.Tools["look"], Body: "What to find."}); err != nil {
		t.Fatal(err)
	}
	ov, err = s.Resolve(ctx, tpl, "")
	if err != nil {
		t.Fatal(err)
	}
	text, _ := layoutText(t, tpl, nil, Options{Overrides: ov})
	if !strings.Contains(text, "Good day, you.") {
		t.Errorf("upserted body not applied:\n%s", text)
	}
	// Seeding again keeps what was edited.
	if err := s.Seed(ctx, tpl, ""); err != nil {
		t.Fatal(err)
	}
	if ov, _ = s.Resolve(ctx, tpl, ""); ov.sections["a"].body != "Good day, $who." {
		t.Errorf("seed replaced an edited entry: %q", ov.sections["a"].body)
	}
	// Another tag is another file; List finds both.
	if err := s.Seed(ctx, tpl, "v2"); err != nil {
		t.Fatal(err)
	}
	files, err := s.List(ctx)
	if err != nil || len(files) != 2 || files[0].Tag != "latest" || files[1].Tag != "v2" {
		t.Errorf("List: %+v %v", files, err)
	}
	// Tags cannot leave the directory.
	for _, tag := range []string{"../x", "a/b", "UP", "."} {
		if _, err := s.Path(tpl, tag); err == nil {
			t.Errorf("tag %q accepted", tag)
		}
	}
	// A template change makes the edited override stale on Resolve.
	changed := mustParse(t, strings.Replace(driftTemplate, "Hello $who.", "Hello there, $who.", 1))
	ov, err = s.Resolve(ctx, changed, "")
	if err != nil || len(ov.Notes) != 1 || !strings.Contains(ov.Notes[0], `section "a" is stale`) {
		t.Errorf("after a change: %v %q", err, ov.Notes)
	}
}

// TestStoreConcurrentUpserts: writers in parallel each keep their entry,
// and no temporary or lock file is left behind.
func TestStoreConcurrentUpserts(t *testing.T) {
	ctx := context.Background()
	var src strings.Builder
	src.WriteString("ns: t\nkey: k\nsections:\n")
	for i := range 8 {
		fmt.Fprintf(&src, "  - {key: s%d, title: S%d, template: body %d}\n", i, i, i)
	}
	tpl := mustParse(t, src.String())
	d := tpl.Descriptor()
	s, _ := NewStore(t.TempDir())
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("s%d", i)
			errs <- s.Upsert(ctx, tpl, "", Entry{Section: key, Hash: d.Sections[key], Body: "new " + key})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ov, err := s.Resolve(ctx, tpl, "")
	if err != nil || len(ov.sections) != 8 {
		t.Fatalf("%d entries, %v; want 8", len(ov.sections), err)
	}
	entries, _ := os.ReadDir(filepath.Join(s.Dir(), "t", "k"))
	if len(entries) != 1 {
		t.Errorf("files left: %v", entries)
	}
}

// TestStoreLock: a held lock makes a writer wait until its context ends;
// a lock older than staleLock is taken over.
func TestStoreLock(t *testing.T) {
	tpl := mustParse(t, driftTemplate)
	s, _ := NewStore(t.TempDir())
	path, _ := s.Path(tpl, "")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".lock", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Seed(ctx, tpl, ""); err == nil || !strings.Contains(err.Error(), "locked by another writer") {
		t.Errorf("held lock: %v", err)
	}
	old := time.Now().Add(-2 * staleLock)
	if err := os.Chtimes(path+".lock", old, old); err != nil {
		t.Fatal(err)
	}
	if err := s.Seed(context.Background(), tpl, ""); err != nil {
		t.Errorf("stale lock: %v", err)
	}
}

// FuzzStore: whatever a store's file holds, Resolve returns overrides or
// an error, never panics; Upsert over it either refuses or leaves a file
// Resolve reads with the entry applied.
func FuzzStore(f *testing.F) {
	tpl, err := Parse("t.yaml", []byte(driftTemplate))
	if err != nil {
		f.Fatal(err)
	}
	d := tpl.Descriptor()
	for _, s := range []string{"", "ns: t\nkey: k\n", "ns: t\nkey: k\nsections:\n  - {path: a, hash: " + d.Sections["a"] + ", body: x}\n", "ns: t\nkey: k\ntools: [{name: look, hash: zz}]\n", "[", "ns: t\nkey: k\nparams: [{tool: look, param: q, hash: " + d.Tools["look"] + ", description: d}]\n"} {
		f.Add([]byte(s), "Body $who")
	}
	f.Fuzz(func(t *testing.T, file []byte, body string) {
		ctx := context.Background()
		s, _ := NewStore(t.TempDir())
		path, _ := s.Path(tpl, "")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, file, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Resolve(ctx, tpl, ""); err != nil {
			return
		}
		if err := s.Upsert(ctx, tpl, "", Entry{Section: "a", Hash: d.Sections["a"], Body: body}); err != nil {
			return
		}
		ov, err := s.Resolve(ctx, tpl, "")
		if err != nil {
			t.Fatalf("the file Upsert wrote does not read: %v", err)
		}
		if got := ov.sections["a"].body; got != body {
			t.Fatalf("body %q after Upsert of %q", got, body)
		}
	})
}

// TestStoreSeedWritesEverythingOverridable: Seed writes every target an
// override may have (section bodies, tool and parameter descriptions,
// task and tool examples) with its hash, the file resolves with no
// notes, and an example edited in the seeded file is applied.
func TestStoreSeedWritesEverythingOverridable(t *testing.T) {
	ctx := context.Background()
	src := strings.Replace(examplesTemplate, "properties: {id: {type: string}}", "properties: {id: {type: string, description: The ticket id.}}", 1)
	tpl := mustParse(t, src)
	s, err := NewStore(filepath.Join(t.TempDir(), StoreDir))
	if err != nil {
		t.Fatal(err)
	}
	path, data := seed(t, s, tpl)
	d := tpl.Descriptor()
	for _, want := range []string{
		"param: id", "description: The ticket id.", "hash: " + d.Tools["find_ticket"],
		"hash: " + d.TaskExamples["task#0"], "hash: " + d.TaskExamples["task#1"], "output: billing",
		"hash: " + d.ToolExamples["find_ticket#0"],
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("seeded file has no %q:\n%s", want, data)
		}
	}
	ov, err := s.Resolve(ctx, tpl, "")
	if err != nil || len(ov.Notes) != 0 || len(ov.examples) != 3 || ov.params["find_ticket.id"].body != "The ticket id." {
		t.Fatalf("seeded overrides: %+v %v", ov, err)
	}
	edited := strings.Replace(string(data), "output: billing", "output: payments", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if ov, err = s.Resolve(ctx, tpl, ""); err != nil {
		t.Fatal(err)
	}
	if text, _ := layoutText(t, tpl, nil, Options{Overrides: ov}); !strings.Contains(text, "Output: payments") {
		t.Errorf("edited example not applied:\n%s", text)
	}
	// Seeding again keeps the edit.
	if err := s.Seed(ctx, tpl, ""); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !strings.Contains(string(again), "output: payments") || strings.Count(string(again), "index: 0") != 2 {
		t.Errorf("seeding again changed the file:\n%s", again)
	}
}

// seed seeds tpl's overrides with the default tag in s and returns the
// file's path and content.
func seed(t *testing.T, s *Store, tpl *Template) (string, []byte) {
	t.Helper()
	if err := s.Seed(context.Background(), tpl, ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Dir(), tpl.NS, tpl.Key, "latest.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}
