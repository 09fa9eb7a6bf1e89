package hf

// trie finds added tokens in a text, leftmost and then longest first, as
// the Hugging Face tokenizers do before they normalize the rest.
type trie struct {
	first [256]bool
	next  map[uint64]int32 // node<<8 | byte -> child node
	term  []int32          // node -> token id, -1 if no token ends there
	added map[int32]bool
}

func newTrie() *trie {
	return &trie{next: map[uint64]int32{}, term: []int32{-1}, added: map[int32]bool{}}
}

// add inserts a token.
func (t *trie) add(s string, id int32) {
	if s == "" {
		return
	}
	t.first[s[0]] = true
	node := int32(0)
	for i := 0; i < len(s); i++ {
		k := uint64(node)<<8 | uint64(s[i])
		child, ok := t.next[k]
		if !ok {
			child = int32(len(t.term))
			t.term = append(t.term, -1)
			t.next[k] = child
		}
		node = child
	}
	t.term[node] = id
	t.added[id] = true
}

// longest returns the id and length of the longest token that s starts
// with, or 0 length.
func (t *trie) longest(s string) (int32, int) {
	node, id, n := int32(0), int32(-1), 0
	for i := 0; i < len(s); i++ {
		child, ok := t.next[uint64(node)<<8|uint64(s[i])]
		if !ok {
			break
		}
		node = child
		if t.term[node] >= 0 {
			id, n = t.term[node], i+1
		}
	}
	return id, n
}

func (t *trie) isAdded(id int32) bool { return t.added[id] }

// maxAddedFirsts bounds the first bytes of added tokens that encode
// looks for with IndexByte, one pass over the text each.
const maxAddedFirsts = 4

// firsts returns the bytes the tokens start with, or nil if there are
// more than max.
func (t *trie) firsts(max int) []byte {
	var out []byte
	for b, ok := range t.first {
		if ok {
			if len(out) == max {
				return nil
			}
			out = append(out, byte(b))
		}
	}
	return out
}
