package main

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/engine"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

func (a *app) tokensCmd() *cobra.Command {
	var (
		model, file string
		raw, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "tokens [FILE|-]",
		Short: "Count the tokens of a file or standard input for a model",
		Long: `Count the tokens of FILE (or standard input, when FILE is - or absent) as
the model's tokenizer does, and say which counter made the count. OpenAI
models are counted exactly with their own encoding (o200k_base or
cl100k_base); Anthropic and Gemini models with a calibrated estimate.
Any model counts exactly with its own tokenizer file: --tokenizer FILE (a
Hugging Face tokenizer.json or a GGUF model file), or the file tessera.yaml's
tokenizers: maps the model to, when run inside a catalog. Gemini models
count exactly with a Gemma 3 tokenizer.json (see docs/TOKENIZERS.md).

The text is counted as assemble would use it: a byte-order mark is dropped
and CRLF and CR line ends become LF. With --raw the bytes are counted as
they are. Input that looks binary (a NUL byte or invalid UTF-8) is counted
as it is, with a warning on standard error.`,
		Annotations: map[string]string{"exit1": "the file cannot be read"},
		Args:        cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := a.tokensCounter(cmd, model, file)
			if err != nil {
				return err
			}
			max, err := a.maxFileBytes()
			if err != nil {
				return err
			}
			name, data, err := readInput(cmd, args, max)
			if err != nil {
				return failure{err}
			}
			// One copy of the input: the text counted. The bytes read are
			// dropped before counting, which may take memory of its own.
			var text string
			if why := binaryReason(data); why != "" {
				fmt.Fprintf(a.stderr, "warning: %s looks binary (%s): counting its bytes as they are\n", name, why)
				text = string(data)
			} else if !raw {
				if text, err = prompt.Normalize(data); err != nil {
					return failure{fmt.Errorf("%s: %w", name, err)}
				}
			} else {
				text = string(data)
			}
			data = nil
			kind := "exact"
			if !c.Exact() {
				kind = "estimate"
			}
			if asJSON {
				return writeJSON(a.stdout, tokensJSON{Input: name, Tokens: c.Count(text), Counter: c.Name(), Exact: c.Exact()})
			}
			fmt.Fprintf(a.stdout, "%d tokens (%s, %s)\n", c.Count(text), c.Name(), kind)
			if !c.Exact() && file == "" {
				fmt.Fprintf(a.stderr, "note: %s is estimated (%s); to count it exactly, give its tokenizer file: --tokenizer FILE, or the model under tokenizers: in tessera.yaml (docs/TOKENIZERS.md)\n", model, c.Name())
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&model, "model", "gpt-4o", "model whose tokenizer to count with (or an encoding such as cl100k_base)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the count as one JSON object: input, tokens, counter and exact (see docs/CLI.md)")
	cmd.Flags().StringVar(&file, "tokenizer", "", "count with this tokenizer file: a Hugging Face tokenizer.json or a GGUF model file (see docs/TOKENIZERS.md)")
	cmd.Flags().BoolVar(&raw, "raw", false, "count the bytes as they are, without dropping a byte-order mark or normalising line ends")
	return cmd
}

// tokensCounter returns the counter of tokens: the --tokenizer file,
// else the file tessera.yaml's tokenizers: maps the model to (inside a
// catalog), else the model's built-in counter.
func (a *app) tokensCounter(cmd *cobra.Command, model, file string) (tokenizer.Counter, error) {
	if file != "" {
		c, err := engine.CounterFor(nil, model, file)
		if err != nil {
			return nil, failure{err}
		}
		return c, nil
	}
	if cat, err := a.openCatalogIfAny(cmd.Context()); err == nil && cat != nil {
		defer cat.Close()
		if c, ok, err := cat.TokenizerFor(model); ok {
			if err != nil {
				return nil, failure{err}
			}
			return c, nil
		}
	}
	c, err := tokenizer.ForModel(model)
	if err != nil {
		return nil, fmt.Errorf("--model: %w", err)
	}
	return c, nil
}

// binaryReason says why data looks binary, or "" when it looks like text.
func binaryReason(data []byte) string {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return fmt.Sprintf("a NUL byte at offset %d", i)
	}
	if !utf8.Valid(data) {
		return "invalid UTF-8"
	}
	return ""
}
