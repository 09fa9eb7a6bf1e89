package provider

import "strconv"

// emptyParams is the parameters schema of a tool that takes none, for the
// formats that require one.
const emptyParams = `{"type":"object","properties":{},"additionalProperties":false}`

// openAIChat writes
// {"model","tools":[{"type":"function","function":{"name","description","parameters","strict"}}],
// "messages":[{"role":"developer"|"system","content"},{"role":"user","content"}],
// "response_format":{"type":"json_schema","json_schema":{"name","schema","strict"}},
// "max_completion_tokens"}.
func (e *encoder) openAIChat() {
	e.raw(`{`)
	e.model()
	if len(e.req.Tools) > 0 {
		e.raw(`"tools":[`)
		for i, t := range e.req.Tools {
			if i > 0 {
				e.raw(`,`)
			}
			e.raw(`{"type":"function","function":{"name":`)
			e.str(t.Name)
			if t.Description != "" {
				e.raw(`,"description":`)
				e.str(t.Description)
			}
			if e.hasParams(i) {
				e.raw(`,"parameters":`)
				e.schema(e.params[i])
			}
			if e.req.StrictTools {
				e.raw(`,"strict":true`)
			}
			e.raw(`}}`)
		}
		e.raw(`],`)
	}
	e.raw(`"messages":[`)
	if len(e.system) > 0 {
		e.raw(`{"role":`)
		e.str(e.role)
		e.raw(`,"content":`)
		e.joined(e.system)
		e.raw(`},`)
	}
	e.raw(`{"role":"user","content":`)
	e.joined(e.user)
	e.raw(`}]`)
	e.openAIOutput(`,"response_format":{"type":"json_schema","json_schema":{"name":`, `,"max_completion_tokens":`)
	e.raw(`}`)
}

// openAIResponses writes
// {"model","tools":[{"type":"function","name","description","parameters","strict"}],
// "input":[{"type":"message","role":"developer"|"system","content"},{"type":"message","role":"user","content"}],
// "text":{"format":{"type":"json_schema","name","schema","strict"}},"max_output_tokens"}.
func (e *encoder) openAIResponses() {
	e.raw(`{`)
	e.model()
	if len(e.req.Tools) > 0 {
		e.raw(`"tools":[`)
		for i, t := range e.req.Tools {
			if i > 0 {
				e.raw(`,`)
			}
			e.raw(`{"type":"function","name":`)
			e.str(t.Name)
			if t.Description != "" {
				e.raw(`,"description":`)
				e.str(t.Description)
			}
			e.raw(`,"parameters":`)
			if e.hasParams(i) {
				e.schema(e.params[i])
			} else {
				e.raw(emptyParams)
			}
			e.raw(`,"strict":`)
			e.raw(strconv.FormatBool(e.req.StrictTools))
			e.raw(`}`)
		}
		e.raw(`],`)
	}
	e.raw(`"input":[`)
	if len(e.system) > 0 {
		e.raw(`{"type":"message","role":`)
		e.str(e.role)
		e.raw(`,"content":`)
		e.joined(e.system)
		e.raw(`},`)
	}
	e.raw(`{"type":"message","role":"user","content":`)
	e.joined(e.user)
	e.raw(`}]`)
	e.openAIOutput(`,"text":{"format":{"type":"json_schema","name":`, `,"max_output_tokens":`)
	e.raw(`}`)
}

// model writes the "model" member and its comma, when there is a model.
func (e *encoder) model() {
	if e.req.Model != "" {
		e.raw(`"model":`)
		e.str(e.req.Model)
		e.raw(`,`)
	}
}

// openAIOutput writes the structured-output member (opened by format,
// which ends just before the name) and the reply cap (named by maxKey),
// the two members both OpenAI formats end with.
func (e *encoder) openAIOutput(format, maxKey string) {
	if o := e.req.Output; o != nil {
		e.raw(format)
		e.str(e.outputName)
		e.raw(`,"schema":`)
		e.schema(e.output)
		if o.Strict {
			e.raw(`,"strict":true`)
		}
		e.raw(`}}`)
	}
	if e.req.MaxTokens > 0 {
		e.raw(maxKey)
		e.int(e.req.MaxTokens)
	}
}

const cacheControl = `,"cache_control":{"type":"ephemeral"}`

// anthropic writes
// {"model","max_tokens","tools":[{"name","description","input_schema","strict","cache_control"}],
// "system":[{"type":"text","text","cache_control"}],
// "messages":[{"role":"user","content":[{"type":"text","text","cache_control"}]}],
// "output_config":{"format":{"type":"json_schema","schema"}}}.
func (e *encoder) anthropic() {
	e.raw(`{`)
	e.model()
	e.raw(`"max_tokens":`)
	if e.req.MaxTokens > 0 {
		e.int(e.req.MaxTokens)
	} else {
		e.int(DefaultMaxTokens)
	}
	if len(e.req.Tools) > 0 {
		e.raw(`,"tools":[`)
		for i, t := range e.req.Tools {
			if i > 0 {
				e.raw(`,`)
			}
			e.raw(`{"name":`)
			e.str(t.Name)
			if t.Description != "" {
				e.raw(`,"description":`)
				e.str(t.Description)
			}
			e.raw(`,"input_schema":`)
			if e.hasParams(i) {
				e.schema(e.params[i])
			} else {
				e.raw(emptyParams)
			}
			if e.req.StrictTools {
				e.raw(`,"strict":true`)
			}
			if e.markTools && i == len(e.req.Tools)-1 {
				e.raw(cacheControl)
				e.breakpoints++
			}
			e.raw(`}`)
		}
		e.raw(`]`)
	}
	if len(e.system) > 0 {
		e.raw(`,"system":`)
		e.textBlocks(e.system, e.sysStable, e.markSys)
	}
	e.raw(`,"messages":[{"role":"user","content":`)
	e.textBlocks(e.user, e.userStable, e.markUser)
	e.raw(`}]`)
	if e.req.Output != nil {
		e.raw(`,"output_config":{"format":{"type":"json_schema","schema":`)
		e.schema(e.output)
		e.raw(`}}`)
	}
	e.raw(`}`)
}

// textBlocks writes a side as Anthropic text blocks: the stable run, then
// the rest, each joined into one block, the stable one marked as a
// breakpoint when mark is set.
func (e *encoder) textBlocks(parts []Part, stable int, mark bool) {
	e.blocks(parts, stable, `{"type":"text","text":`, mark)
}

// textParts writes a side as Gemini parts: the stable run, then the rest.
func (e *encoder) textParts(parts []Part, stable int) {
	e.blocks(parts, stable, `{"text":`, false)
}

// blocks writes a JSON array with one object per non-empty run of parts
// (the stable run, then the rest), each opened with open and holding the
// run's joined text; mark puts a cache breakpoint on the stable run.
func (e *encoder) blocks(parts []Part, stable int, open string, mark bool) {
	e.raw(`[`)
	first := true
	for i, run := range runs(parts, stable) {
		if len(run) == 0 {
			continue
		}
		if !first {
			e.raw(`,`)
		}
		first = false
		e.raw(open)
		e.joined(run)
		if i == 0 && mark {
			e.raw(cacheControl)
			e.breakpoints++
		}
		e.raw(`}`)
	}
	e.raw(`]`)
}

// gemini writes
// {"tools":[{"functionDeclarations":[{"name","description","parametersJsonSchema"}]}],
// "systemInstruction":{"parts":[{"text"}]},"contents":[{"role":"user","parts":[{"text"}]}],
// "generationConfig":{"responseMimeType","responseJsonSchema","maxOutputTokens"}}.
func (e *encoder) gemini() {
	e.raw(`{`)
	if len(e.req.Tools) > 0 {
		e.raw(`"tools":[{"functionDeclarations":[`)
		for i, t := range e.req.Tools {
			if i > 0 {
				e.raw(`,`)
			}
			e.raw(`{"name":`)
			e.str(t.Name)
			if t.Description != "" {
				e.raw(`,"description":`)
				e.str(t.Description)
			}
			if e.hasParams(i) {
				e.raw(`,"parametersJsonSchema":`)
				e.schema(e.params[i])
			}
			e.raw(`}`)
		}
		e.raw(`]}],`)
	}
	if len(e.system) > 0 {
		e.raw(`"systemInstruction":{"parts":`)
		e.textParts(e.system, e.sysStable)
		e.raw(`},`)
	}
	e.raw(`"contents":[{"role":"user","parts":`)
	e.textParts(e.user, e.userStable)
	e.raw(`}]`)
	if e.req.Output != nil || e.req.MaxTokens > 0 {
		e.raw(`,"generationConfig":{`)
		if e.req.Output != nil {
			e.raw(`"responseMimeType":"application/json","responseJsonSchema":`)
			e.schema(e.output)
			if e.req.MaxTokens > 0 {
				e.raw(`,`)
			}
		}
		if e.req.MaxTokens > 0 {
			e.raw(`"maxOutputTokens":`)
			e.int(e.req.MaxTokens)
		}
		e.raw(`}`)
	}
	e.raw(`}`)
}
