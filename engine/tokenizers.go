package engine

import (
	"fmt"
	"strings"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/tokenizer"
	"github.com/tessera-dev/tessera/tokenizer/hf"
)

// CounterFor returns the counter for model: the tokenizer file at path
// file when it is not empty, else the file catalog c's tokenizers: maps
// the model to, else tokenizer.ForModel's counter. A file named on the
// command line is loaded through the catalog's loader when there is a
// catalog, so it is read once.
func CounterFor(c *catalog.Catalog, model, file string) (tokenizer.Counter, error) {
	if file != "" {
		var l hf.Loader
		tk, err := l.Load(file)
		if err != nil {
			return nil, fmt.Errorf("--tokenizer: %w", err)
		}
		return tk, nil
	}
	if c != nil {
		return c.CounterFor(model)
	}
	return tokenizer.ForModel(model)
}

// CounterNamed returns the counter a record names: a built-in one, or a
// tokenizer file of catalog c's tokenizers: whose name ("hf:" and the
// start of the file's SHA-256) it is.
func CounterNamed(c *catalog.Catalog, name string) (tokenizer.Counter, error) {
	if !strings.HasPrefix(name, "hf:") {
		return tokenizer.CounterNamed(name)
	}
	if c == nil {
		fam, _ := hf.FamilyOf(name)
		return nil, fmt.Errorf("counter %s is a %s tokenizer file: replay it inside the catalog whose tokenizers: names the file", name, fam)
	}
	return c.TokenizerNamed(name)
}
