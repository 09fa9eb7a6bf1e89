package hf

import (
	"fmt"
	"io"
	"io/fs"
)

// Overhead is the chat framing of a model's template, in tokens: what
// each message adds around its text (the role's header and the turn's
// end), and what is added once (the reply's opening header, and the BOS
// token where the template writes one).
type Overhead struct {
	PerMessage int
	Reply      int
}

// familyOverheads are the framings of the supported families' chat
// templates, counted with their own tokenizers (TestFamilyOverhead):
//
//	llama3:      <|start_header_id|>ROLE<|end_header_id|>\n\n … <|eot_id|>; <|begin_of_text|> and the assistant header once
//	qwen2:       <|im_start|>ROLE\n … <|im_end|>\n; <|im_start|>assistant\n once
//	gemma:       <start_of_turn>ROLE\n … <end_of_turn>\n; <bos> and <start_of_turn>model\n once
//	deepseek-v3: <｜User｜> or <｜Assistant｜> … <｜end▁of▁sentence｜>; the BOS and <｜Assistant｜> once
var familyOverheads = map[string]Overhead{
	"llama3":      {PerMessage: 5, Reply: 5},
	"qwen2":       {PerMessage: 5, Reply: 3},
	"gemma":       {PerMessage: 5, Reply: 4},
	"deepseek-v3": {PerMessage: 2, Reply: 2},
}

// FamilyOverhead returns the chat framing of a family's template; for a
// family without a known template, OpenAI's (4 a message, 3 once).
// tessera.yaml's tokenizers: entries can set other figures.
func FamilyOverhead(family string) Overhead {
	if o, ok := familyOverheads[family]; ok {
		return o
	}
	return Overhead{PerMessage: 4, Reply: 3}
}

// MessageOverhead returns the tokens the family's chat template adds for
// the given number of messages (see FamilyOverhead). It makes a
// Tokenizer a tokenizer.Framer.
func (tk *Tokenizer) MessageOverhead(messages int) int {
	return FamilyOverhead(tk.family).count(messages)
}

func (o Overhead) count(messages int) int {
	if messages <= 0 {
		return 0
	}
	return o.PerMessage*messages + o.Reply
}

// Framed is a Tokenizer with a chat framing other than its family's. It
// counts as the Tokenizer does and is a tokenizer.Framer.
type Framed struct {
	*Tokenizer
	Overhead Overhead
}

// MessageOverhead returns the framing's tokens for the given number of
// messages.
func (f *Framed) MessageOverhead(messages int) int { return f.Overhead.count(messages) }

// maxJSONBytes bounds a tokenizer.json read into memory.
const maxJSONBytes = 512 << 20

// LoadFS reads a tokenizer file from fsys, as Load does; a GGUF file is
// read only up to the end of its metadata, and its metadata's SHA-256 is
// the key the Loader keeps it by.
func (l *Loader) LoadFS(fsys fs.FS, name string) (*Tokenizer, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	if n == 4 && string(head[:]) == ggufMagic {
		tk, err := ReadGGUF(io.MultiReader(bytesReader(head[:]), f))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return l.keep(tk), nil
	}
	data, err := io.ReadAll(io.LimitReader(io.MultiReader(bytesReader(head[:n]), f), maxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxJSONBytes {
		return nil, fmt.Errorf("%s: larger than %d MB: is it a tokenizer.json?", name, maxJSONBytes>>20)
	}
	cfg, _ := fs.ReadFile(fsys, pathDir(name)+"tokenizer_config.json")
	return l.loadJSON(name, data, cfg)
}
