package hf

import (
	"testing"
)

// TestFamilyOverhead renders conversations through each family's own
// chat template and checks that the template's tokens, beyond those of
// the messages' texts, are FamilyOverhead's.
func TestFamilyOverhead(t *testing.T) {
	for _, m := range []string{"llama3", "qwen3", "gemma3"} {
		t.Run(m, func(t *testing.T) {
			skipHeavy(t, m)
			tk := *testTokenizer(t, m)
			if err := tk.SetConfig(readGz(t, m+".tokenizer_config.json.gz")); err != nil {
				t.Fatal(err)
			}
			for _, msgs := range [][]Message{
				{{"user", "Hello there."}},
				{{"user", "What is the capital of France?"}, {"assistant", "Paris."}, {"user", "And of Spain?"}},
			} {
				out, err := tk.RenderChat(msgs, true, map[string]any{"enable_thinking": true})
				if err != nil {
					t.Fatal(err)
				}
				text := 0
				for _, msg := range msgs {
					text += tk.Count(msg.Content)
				}
				got := tk.Count(out) - text
				if want := tk.MessageOverhead(len(msgs)); got != want {
					t.Errorf("%d messages: the template adds %d tokens, FamilyOverhead says %d\n%q", len(msgs), got, want, out)
				}
			}
		})
	}
}
