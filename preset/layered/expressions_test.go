package layered

import (
	"testing"

	"github.com/tessera-dev/tessera/internal/lazyre"
)

// TestExpressionsCompile compiles every expression the task rules use:
// each is compiled at its first use, not when the package starts, so
// one that does not compile would fail only then.
func TestExpressionsCompile(t *testing.T) {
	for _, re := range []*lazyre.Regexp{
		purpose,
		quoted,
		conjunction,
		folder,
		inPackage,
		before,
		inFile,
		manifest,
		hypothetical,
		forbidden,
		fullURL,
		summary,
		authorsCommit,
		codeName,
		snakeFile,
		fileName,
		sourceFile,
		webAddress,
		dirName,
		cjkPackage,
		makeTarget,
		ciState,
		staticAnalysis,
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", re, r)
				}
			}()
			re.Get()
		}()
	}
}
