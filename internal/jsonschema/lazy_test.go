package jsonschema

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
)

// compiledAtStart records whether any draft's metaschema was compiled
// once the package was initialized, before any test ran.
var compiledAtStart bool

func TestMain(m *testing.M) {
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		compiledAtStart = compiledAtStart || d.sch != nil
	}
	os.Exit(m.Run())
}

// TestDraftsCompiledByFirstCompiler checks this copy's one change from
// upstream: linking the package compiles no metaschema, and the first
// NewCompiler compiles them all, so a schema is still checked against
// its draft's metaschema, from any number of goroutines at once.
func TestDraftsCompiledByFirstCompiler(t *testing.T) {
	if compiledAtStart {
		t.Fatal("a draft's metaschema was compiled before any NewCompiler")
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := NewCompiler()
			doc, err := UnmarshalJSON(strings.NewReader(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": 5}`))
			if err != nil {
				errs[i] = err
				return
			}
			if err := c.AddResource("bad.json", doc); err != nil {
				errs[i] = err
				return
			}
			_, errs[i] = c.Compile("bad.json")
		}()
	}
	wg.Wait()
	for _, err := range errs {
		var se *SchemaValidationError
		if !errors.As(err, &se) {
			t.Errorf(`{"type": 5} compiled with error %v, want a SchemaValidationError`, err)
		}
	}
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch == nil {
			t.Errorf("%s: metaschema not compiled after NewCompiler", d)
		}
		for name, s := range d.allVocabs {
			if s == nil {
				t.Errorf("%s: vocabulary %s not compiled after NewCompiler", d, name)
			}
		}
	}
}
