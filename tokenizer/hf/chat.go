package hf

import (
	"errors"

	"github.com/tessera-dev/tessera/tokenizer/hf/jinja"
)

// Message is one chat message: a role ("system", "user", "assistant",
// "tool") and its text.
type Message struct {
	Role    string
	Content string
}

// RenderChat renders messages through the chat template the file
// carries, as a local server (llama.cpp, vLLM, Ollama with the model's
// template) does before tokenizing: the raw prompt the model sees. With
// generation true the reply's opening is added (add_generation_prompt).
// extra holds further template variables, such as enable_thinking.
func (tk *Tokenizer) RenderChat(messages []Message, generation bool, extra map[string]any) (string, error) {
	if tk.chatTemplate == "" {
		return "", errors.New("the tokenizer file carries no chat template (tokenizer_config.json's chat_template, or GGUF's tokenizer.chat_template)")
	}
	t, err := jinja.Parse(tk.chatTemplate)
	if err != nil {
		return "", err
	}
	msgs := make([]any, len(messages))
	for i, m := range messages {
		msgs[i] = map[string]any{"role": m.Role, "content": m.Content}
	}
	vars := map[string]any{"messages": msgs, "add_generation_prompt": generation, "bos_token": tk.bosToken, "eos_token": tk.eosToken}
	for k, v := range extra {
		vars[k] = v
	}
	return t.Render(vars)
}
