package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/tessera-dev/tessera/catalog"
	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/preset"
)

// allowHint is how every message about a secret in a catalog says to
// allow a known false positive.
func allowHint(fp string) string {
	return fmt.Sprintf("catalog files are authored and must not hold secrets: take it out (and revoke it), or, if it is not a secret, add %q to redaction.allow in tessera.yaml", fp)
}

// secretScan finds secrets in the catalog files compile builds from, as a
// secret scanner in CI would: each file once, whichever units use it.
type secretScan struct {
	c       *catalog.Catalog
	red     *guard.Redactor
	allow   guard.Allowlist
	scanned map[string]bool
}

func newSecretScan(c *catalog.Catalog, env *preset.Env) *secretScan {
	sc := newScrubber(env.Redactor, c)
	return &secretScan{c: c, red: env.Redactor, allow: sc.allow, scanned: map[string]bool{}}
}

// unit reports the secrets of unit u, laid out as l and built as res:
// those in the files it names (its own and its sources), at their lines;
// and, when its files hold none, those the last pass of redaction
// replaced in its prompt, at the unit's place. Fixtures and catalog files are authored, so a secret in
// either fails compile.
func (s *secretScan) unit(ctx context.Context, u preset.Unit, l *preset.Layout, res *Result) diag.List {
	var errs diag.List
	paths := []string{u.At.Path}
	for _, src := range res.Prompt.Sources {
		paths = append(paths, src.Path)
	}
	inFiles := false
	for _, p := range paths {
		if p == "" {
			continue
		}
		found, errsOf := s.file(ctx, p)
		inFiles = inFiles || found
		errs = append(errs, errsOf...)
	}
	if inFiles {
		return errs
	}
	if res.scrub != nil && len(res.scrub.found) > 0 {
		f := res.scrub.found[0]
		errs.Add(diag.ErrorfAt(u.At.Path, u.At.Line, u.At.Col, "%s: its prompt holds a secret (%s, %s) from its catalog files or fixtures; %s", res.Label, f.label, f.fingerprint, allowHint(f.fingerprint)))
		return errs
	}
	return errs
}

// file scans the catalog file at path (relative to the root) once, and
// reports each secret in it at its line and column. It reports whether
// the file holds one.
func (s *secretScan) file(ctx context.Context, path string) (bool, diag.List) {
	if s.scanned[path] || s.c == nil {
		return false, nil
	}
	s.scanned[path] = true
	text, err := s.c.ReadFile(ctx, path)
	if err != nil {
		return false, nil // not a file of the catalog's; its unit reports what it could not read
	}
	var errs diag.List
	for _, m := range s.red.Find(text, false) {
		fp := guard.Fingerprint(text[m.Start:m.End])
		if s.allow[fp] {
			continue
		}
		line := 1 + strings.Count(text[:m.Start], "\n")
		col := 1 + m.Start - (strings.LastIndexByte(text[:m.Start], '\n') + 1)
		errs.Add(diag.ErrorfAt(path, line, col, "a secret (%s, %s); %s", m.Label, fp, allowHint(fp)))
	}
	return len(errs) > 0, errs
}
