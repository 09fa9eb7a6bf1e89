package tokenizer

import "github.com/tessera-dev/tessera/tokenizer/internal/vocabtab"

// rankTable maps token bytes to ranks: a vocabtab.Table (arrays for one-
// and two-byte tokens, open addressing behind a presence filter for the
// rest; see that package), where a token's id is its rank, and the table
// of where the merge may start from characters' parts. Every table is
// filled once, from the vocabulary, and read without locks.
type rankTable struct {
	vocabtab.Table
	vocab []string  // rank → token bytes
	chars lazyChars // where the merge may start from characters' parts
}

// newRankTable returns a table for vocab, where vocab[r] is the token of
// rank r. It reports false if a token is empty or repeats.
func newRankTable(vocab []string) (*rankTable, bool) {
	for _, tok := range vocab {
		if tok == "" {
			return nil, false
		}
	}
	t, ok := vocabtab.New(vocab)
	if !ok {
		return nil, false
	}
	return &rankTable{Table: *t, vocab: vocab}, true
}

// rank returns the rank of the token s, or noRank if s is not a token.
func (t *rankTable) rank(s string) uint32 { return t.ID(s) }

// span returns the rank of piece[i:j], 2 <= j-i, where buf holds the
// bytes of piece followed by at least eight more.
func (t *rankTable) span(buf []byte, piece string, i, j int) uint32 {
	return t.Span(buf, piece, i, j)
}

func load32(s string, i int) uint32 { return vocabtab.Load32(s, i) }

func load64(s string, i int) uint64 { return vocabtab.Load64(s, i) }
