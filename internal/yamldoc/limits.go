package yamldoc

import (
	"github.com/tessera-dev/tessera/diag"
)

// MaxDepth is how deeply mappings and sequences (objects and arrays) may
// nest in any document Tessera reads: every YAML and JSON input, and a
// model's reply. A JSON Schema nests at most as deeply inside its own
// document (see schema.MaxNesting, the same number). Real files stay far
// below it; the limit keeps every reading, and the checks after it,
// linear in the size of the text.
const MaxDepth = 64

// BaseNodes and BytesPerNode set how many values (scalars, mappings and
// sequences, keys included) one document may hold: BaseNodes plus one
// for every BytesPerNode bytes of its text (see MaxNodes). A node of the
// tree costs some 240 bytes, so the bound keeps a document's tree within
// 24 MB plus 3.75 times its size, and a command's peak memory, with the
// garbage collector's headroom and the copies of the text, within 64 MiB
// plus 16 times its largest input. Text counts for little (a block of
// prose is one value), so only a dense file of about a megabyte or more
// can reach the bound.
const (
	BaseNodes    = 100_000
	BytesPerNode = 64
)

// MaxNodes returns how many values a document of size bytes may hold.
func MaxNodes(size int) int {
	return BaseNodes + max(size, 0)/BytesPerNode
}

// errTooManyNodes is the problem of a document holding over limit values.
func errTooManyNodes(path string, line, limit int) *diag.Error {
	return diag.Errorf(path, line, "holds more than %d values (a document may hold %d plus one for every %d bytes of its text): split it into smaller files", limit, BaseNodes, BytesPerNode)
}

// at sets the column of e, in bytes, and returns it.
func at(e *diag.Error, col int) *diag.Error {
	e.Col = col
	return e
}

// errTooDeep is the problem of a document nested over MaxDepth levels.
func errTooDeep(path string, line int) *diag.Error {
	return diag.Errorf(path, line, "mappings and lists are nested more than %d levels deep here: flatten the data", MaxDepth)
}

// prescan bounds the work of the YAML parser before it runs. It reads
// the text once, with no allocation beyond a stack of indentation levels,
// and returns the values it counted, with a problem when they are more
// than maxNodes or the document nests more than 2*MaxDepth levels. Its
// count of levels is close to the parser's but not the same, so the exact
// check of MaxDepth is made on the tree, whose building the coarse bound
// keeps linear. Its count of values is an upper bound of the nodes the
// YAML parser builds (FuzzPrescan checks it): plain, quoted and block
// scalars count one each whatever their length, comments none; a
// mapping or a sequence one, and one more for a value that may be an
// implicit null.
func prescan(path, text string, maxNodes int) (int, *diag.Error) {
	type level struct {
		col           int
		seqSeen, maps bool // a sequence, a mapping counted at this level
	}
	var (
		stack      []level
		flow       []byte // '[' or '{' of each open flow collection
		nodes      int
		line       = 1
		valueStart = true  // the next token may begin a value
		lineStart  = true  // no token read yet on this line
		lineIndent = 0     // the indentation of the current line
		lineBegin  = 0     // the offset where the current line starts
		blockAt    = -1    // in a block scalar: the indentation of its parent line
		firstDash  = false // the line's first token is "- "
	)
	count := func(n int) bool {
		nodes += n
		return nodes <= maxNodes
	}
	deep := func() bool { return len(stack)+len(flow) > 2*MaxDepth }
	// spaceAt reports whether text[i] is white space or the end.
	spaceAt := func(i int) bool {
		return i >= len(text) || text[i] == ' ' || text[i] == '\t' || text[i] == '\n'
	}
	push := func(col int) {
		for len(stack) > 0 && stack[len(stack)-1].col > col {
			stack = stack[:len(stack)-1]
		}
		if len(stack) == 0 || stack[len(stack)-1].col < col {
			stack = append(stack, level{col: col})
		}
	}
	i := 0
	for i < len(text) {
		if lineStart {
			// The indentation of a new line.
			lineBegin = i
			j := i
			for j < len(text) && text[j] == ' ' {
				j++
			}
			ind := j - i
			blank := j >= len(text) || text[j] == '\n'
			if blockAt >= 0 {
				if blank || ind > blockAt {
					// A line of a block scalar: skip it.
					for i < len(text) && text[i] != '\n' {
						i++
					}
					if i < len(text) {
						i++
						line++
					}
					continue
				}
				blockAt = -1
			}
			i = j
			if blank {
				if i < len(text) {
					i++
					line++
				}
				continue
			}
			lineIndent = ind
			lineStart = false
			firstDash = false
			if len(flow) == 0 && text[i] != '#' {
				push(ind)
				if deep() {
					return nodes, at(errTooDeep(path, line), i-lineBegin+1)
				}
				if !(text[i] == '-' && spaceAt(i+1)) {
					stack[len(stack)-1].seqSeen = false
				} else {
					firstDash = true
				}
			}
			valueStart = true
		}
		c := text[i]
		switch {
		case c == '\n':
			line++
			i++
			lineStart, valueStart = true, true
			continue
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n'):
			for i < len(text) && text[i] != '\n' {
				i++
			}
			continue
		}
		inFlow := len(flow) > 0
		switch {
		case (c == '"' || c == '\'') && valueStart:
			// A quoted scalar, over as many lines as it takes.
			j := i + 1
			for j < len(text) {
				if text[j] == '\n' {
					line++
				}
				if c == '"' && text[j] == '\\' {
					j += 2
					continue
				}
				if text[j] == c {
					if c == '\'' && j+1 < len(text) && text[j+1] == '\'' {
						j += 2
						continue
					}
					break
				}
				j++
			}
			if !count(1) {
				return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
			}
			i = j + 1
			valueStart = false
			continue
		case (c == '[' || c == '{') && (valueStart || inFlow):
			flow = append(flow, c)
			if deep() {
				return nodes, at(errTooDeep(path, line), i-lineBegin+1)
			}
			if !count(1) {
				return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
			}
			valueStart = true
		case (c == ']' || c == '}') && inFlow:
			if flow[len(flow)-1] == '{' && !count(1) { // a last key with no value
				return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
			}
			flow = flow[:len(flow)-1]
			valueStart = false
		case c == ',' && inFlow:
			if flow[len(flow)-1] == '{' && !count(1) {
				return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
			}
			valueStart = true
		case c == ':' && (spaceAt(i+1) || inFlow && i+1 < len(text) && (text[i+1] == ',' || text[i+1] == ']' || text[i+1] == '}')):
			n := 0
			if valueStart {
				n++ // an empty key
			}
			switch {
			case inFlow && flow[len(flow)-1] == '[':
				n += 2 // a mapping of one pair, and its value may be null
			case inFlow:
			default:
				if top := &stack[len(stack)-1]; !top.maps {
					top.maps = true
					n++
				}
				n++ // the value may be null, or a collection on the lines below
			}
			if !count(n) {
				return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
			}
			valueStart = true
		case (c == '-' || c == '?') && valueStart && spaceAt(i+1):
			n := 0
			if c == '?' {
				n = 3 // a mapping, and its key and value may be null
			}
			if !inFlow {
				top := &stack[len(stack)-1]
				if c == '-' && (!top.seqSeen || !firstDash) {
					n++ // a new sequence
				}
				top.seqSeen = c == '-'
				firstDash = false
				// The item's content starts a level of its own.
				push(i - lineBegin + 2)
				if deep() {
					return nodes, at(errTooDeep(path, line), i-lineBegin+1)
				}
				stack[len(stack)-1].seqSeen = false
			}
			j := i + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j >= len(text) || text[j] == '\n' || text[j] == '#' {
				n++ // an empty item: a null
			}
			if !count(n) {
				return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
			}
			valueStart = true
		case (c == '|' || c == '>') && valueStart && !inFlow:
			// A block scalar: its lines are those below, indented more
			// than this one.
			if !count(1) {
				return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
			}
			blockAt = lineIndent
			for i < len(text) && text[i] != '\n' {
				i++
			}
			valueStart = false
			continue
		case (c == '&' || c == '!') && valueStart:
			// An anchor or a tag: the value follows, or an empty scalar
			// is the value.
			if !count(1) {
				return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
			}
			for i < len(text) && !spaceAt(i) && !isFlowIndicator(text[i]) && text[i] != ':' {
				i++
			}
			continue
		default:
			// A plain scalar or an alias: it runs to ": ", " #", the end
			// of the line, or (in a flow collection) an indicator.
			if valueStart {
				if !count(1) {
					return nodes, at(errTooManyNodes(path, line, maxNodes), i-lineBegin+1)
				}
				valueStart = false
			}
			firstDash = false
		}
		i++
	}
	return nodes, nil
}

func isFlowIndicator(c byte) bool {
	return c == ',' || c == '[' || c == ']' || c == '{' || c == '}'
}
