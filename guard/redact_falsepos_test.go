package guard

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// shapeOnlyLabels are the labels whose every match is the thing itself,
// whatever the text: an e-mail address, a password in a URL, a PEM
// private key, an Authorization header's credentials, a JSON Web Token, a
// token with its provider's distinctive prefix and length. The Go
// standard library holds such things as test data and examples
// ("http://user:password@host", "gopher@golang.org", test keys);
// redacting them is right, so they are counted and logged, not limited.
var shapeOnlyLabels = []string{
	"email", "url-password", "private-key", "basic-auth", "jwt",
	"github-token", "gitlab-token", "huggingface-token", "npm-token", "google-api-key", "aws-access-key",
}

// TestRedactFalsePositives redacts every .go file of the Go standard
// library and the English prose of testdata, and counts the redactions
// per label. The standard library holds no phone, card, social security
// or IBAN numbers and no live keys, so a match of those patterns, or of
// a pattern whose shape ordinary code can take (sk-…, a bearer token, an
// AWS secret after its name), is false: together they must stay at or
// under 1 per 100,000 lines. Prose must come through unchanged.
//
// The per-label counts are logged (go test -run TestRedactFalsePositives
// -v ./guard) and recorded in docs/REDACTION.md.
func TestRedactFalsePositives(t *testing.T) {
	prose, err := os.ReadFile(filepath.Join("testdata", "prose.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if out, counts := Default().Redact(string(prose)); counts != nil {
		t.Errorf("prose redacted: %v\n%s", counts, out)
	}
	t.Logf("prose: %d lines, %d bytes, nothing redacted", strings.Count(string(prose), "\n"), len(prose))

	root := goroot()
	if root == "" {
		t.Skip("GOROOT not found: neither go env GOROOT nor runtime.GOROOT names a directory")
	}
	var files []string
	err = filepath.WalkDir(filepath.Join(root, "src"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Skipf("no Go source under %s: %v", root, err)
	}
	type result struct {
		lines, bytes int
		counts       Counts
		examples     map[string][]string
	}
	results := make([]result, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for w := range results {
		wg.Go(func() {
			res := &results[w]
			res.examples = map[string][]string{}
			r := Default()
			for i := w; i < len(files); i += len(results) {
				data, err := os.ReadFile(files[i])
				if err != nil {
					continue
				}
				text := string(data)
				res.lines += strings.Count(text, "\n")
				res.bytes += len(text)
				for _, s := range r.spans(text, true) {
					label := r.rules[s.rule].Label
					res.counts.Add(label, 1)
					if !slices.Contains(shapeOnlyLabels, label) && len(res.examples[label]) < 5 {
						rel, _ := filepath.Rel(root, files[i])
						res.examples[label] = append(res.examples[label], rel+": "+text[s.start:min(s.end, s.start+60)])
					}
				}
			}
		})
	}
	wg.Wait()
	var lines, bytes int
	var counts Counts
	examples := map[string][]string{}
	for _, res := range results {
		lines += res.lines
		bytes += res.bytes
		counts.Merge(res.counts)
		for l, ex := range res.examples {
			examples[l] = append(examples[l], ex...)
		}
	}
	t.Logf("Go %s standard library: %d files, %d lines, %d bytes", runtime.Version(), len(files), lines, bytes)
	false_ := 0
	for _, c := range counts {
		kind := "shape: counted, not limited"
		if !slices.Contains(shapeOnlyLabels, c.Label) {
			kind = "false"
			false_ += c.N
		}
		t.Logf("  %-18s %5d  (%.2f per 100,000 lines; %s)", c.Label, c.N, float64(c.N)*1e5/float64(lines), kind)
		for _, ex := range examples[c.Label] {
			t.Logf("      %q", ex)
		}
	}
	t.Logf("  false in all       %5d  (%.2f per 100,000 lines)", false_, float64(false_)*1e5/float64(lines))
	if limit := lines / 100_000; false_ > max(limit, 1) {
		t.Errorf("%d false redactions in %d lines, more than 1 per 100,000 (%d); see the log for examples", false_, lines, limit)
	}
}

// goroot returns the Go installation's root: go env GOROOT, else
// runtime.GOROOT, else "".
func goroot() string {
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); dir != "" {
			if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
				return dir
			}
		}
	}
	//lint:ignore SA1019 the fallback when the go command is not on PATH
	if dir := runtime.GOROOT(); dir != "" {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
	}
	return ""
}
