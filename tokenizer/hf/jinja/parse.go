package jinja

import (
	"strconv"
)

// node is a statement or an expression of the template.
type node interface{ position() int }

type (
	textNode struct {
		pos  int
		text string
	}
	outputNode struct {
		pos  int
		expr node
	}
	ifNode struct {
		pos         int
		cond        node
		body, else_ []node
	}
	forNode struct {
		pos      int
		vars     []string
		iter     node
		body     []node
		elseBody []node
	}
	setNode struct {
		pos   int
		name  string
		attr  string // set name.attr = value
		value node
	}
	literal struct {
		pos int
		v   any
	}
	listLit struct {
		pos   int
		items []node
	}
	dictLit struct {
		pos        int
		keys, vals []node
	}
	ident struct {
		pos  int
		name string
	}
	member struct {
		pos      int
		obj      node
		key      node // computed
		name     string
		computed bool
	}
	sliceNode struct {
		pos               int
		obj               node
		start, stop, step node
	}
	callNode struct {
		pos    int
		fn     node
		args   []node
		kwargs []kwarg
	}
	kwarg struct {
		name string
		val  node
	}
	filterNode struct {
		pos    int
		obj    node
		name   string
		args   []node
		kwargs []kwarg
	}
	testNode struct {
		pos    int
		obj    node
		name   string
		negate bool
	}
	unary struct {
		pos int
		op  string
		x   node
	}
	binary struct {
		pos  int
		op   string
		l, r node
	}
	ternary struct {
		pos           int
		cond, yes, no node
	}
)

func (n *textNode) position() int   { return n.pos }
func (n *outputNode) position() int { return n.pos }
func (n *ifNode) position() int     { return n.pos }
func (n *forNode) position() int    { return n.pos }
func (n *setNode) position() int    { return n.pos }
func (n *literal) position() int    { return n.pos }
func (n *listLit) position() int    { return n.pos }
func (n *dictLit) position() int    { return n.pos }
func (n *ident) position() int      { return n.pos }
func (n *member) position() int     { return n.pos }
func (n *sliceNode) position() int  { return n.pos }
func (n *callNode) position() int   { return n.pos }
func (n *filterNode) position() int { return n.pos }
func (n *testNode) position() int   { return n.pos }
func (n *unary) position() int      { return n.pos }
func (n *binary) position() int     { return n.pos }
func (n *ternary) position() int    { return n.pos }

type parser struct {
	src  *source
	toks []token
	i    int
}

func (p *parser) errorf(format string, args ...any) error {
	pos := len(p.src.text)
	if p.i < len(p.toks) {
		pos = p.toks[p.i].pos
	}
	return p.src.errorAt(pos, format, args...)
}

func (p *parser) peek() *token {
	if p.i < len(p.toks) {
		return &p.toks[p.i]
	}
	return nil
}

func (p *parser) is(k kind) bool {
	t := p.peek()
	return t != nil && t.kind == k
}

func (p *parser) isIdent(names ...string) bool {
	for j, n := range names {
		if p.i+j >= len(p.toks) || p.toks[p.i+j].kind != tIdent || p.toks[p.i+j].value != n {
			return false
		}
	}
	return true
}

func (p *parser) expect(k kind, what string) (*token, error) {
	t := p.peek()
	if t == nil || t.kind != k {
		return nil, p.errorf("expected %s", what)
	}
	p.i++
	return t, nil
}

// parseBody reads statements until one of the given block keywords
// opens a statement ({% elif %}, {% endfor %} ...), and returns it.
func (p *parser) parseBody(stops ...string) ([]node, string, error) {
	var out []node
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		switch t.kind {
		case tText:
			out = append(out, &textNode{t.pos, t.value})
			p.i++
		case tComment:
			p.i++
		case tOpenExpr:
			p.i++
			e, err := p.expr()
			if err != nil {
				return nil, "", err
			}
			if _, err := p.expect(tCloseExpr, "}} to close the expression"); err != nil {
				return nil, "", err
			}
			out = append(out, &outputNode{t.pos, e})
		case tOpenStmt:
			if p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tIdent {
				kw := p.toks[p.i+1].value
				for _, s := range stops {
					if kw == s {
						p.i += 2
						return out, kw, nil
					}
				}
			}
			p.i++
			n, err := p.statement()
			if err != nil {
				return nil, "", err
			}
			if n != nil {
				out = append(out, n)
			}
		default:
			return nil, "", p.errorf("unexpected %q outside a tag", t.value)
		}
	}
	if len(stops) > 0 {
		return nil, "", p.errorf("the template ends before {%% %s %%}", stops[len(stops)-1])
	}
	return out, "", nil
}

// supportedStatements is listed in errors.
const supportedStatements = "set, if/elif/else/endif, for/else/endfor"

// statement parses what follows "{%".
func (p *parser) statement() (node, error) {
	t := p.peek()
	if t == nil || t.kind != tIdent {
		return nil, p.errorf("expected a statement (%s)", supportedStatements)
	}
	pos := t.pos
	switch t.value {
	case "set":
		p.i++
		name, err := p.expect(tIdent, "a variable name after set")
		if err != nil {
			return nil, err
		}
		s := &setNode{pos: pos, name: name.value}
		if p.is(tDot) {
			p.i++
			attr, err := p.expect(tIdent, "an attribute name")
			if err != nil {
				return nil, err
			}
			s.attr = attr.value
		}
		if !p.is(tEquals) {
			return nil, p.errorf("expected = in set: the block form {%% set x %%}...{%% endset %%} is not supported")
		}
		p.i++
		if s.value, err = p.expr(); err != nil {
			return nil, err
		}
		_, err = p.expect(tCloseStmt, "%} to close set")
		return s, err
	case "if":
		p.i++
		return p.ifRest(pos)
	case "for":
		p.i++
		f := &forNode{pos: pos}
		for {
			v, err := p.expect(tIdent, "a loop variable")
			if err != nil {
				return nil, err
			}
			f.vars = append(f.vars, v.value)
			if !p.is(tComma) {
				break
			}
			p.i++
		}
		if !p.isIdent("in") {
			return nil, p.errorf("expected in after the loop variable")
		}
		p.i++
		var err error
		if f.iter, err = p.orExpr(); err != nil {
			return nil, err
		}
		if p.isIdent("if") {
			return nil, p.errorf("a for loop's if filter is not supported: put an if inside the loop")
		}
		if p.isIdent("recursive") {
			return nil, p.errorf("recursive loops are not supported")
		}
		if _, err := p.expect(tCloseStmt, "%} to close for"); err != nil {
			return nil, err
		}
		body, stop, err := p.parseBody("else", "endfor")
		if err != nil {
			return nil, err
		}
		f.body = body
		if stop == "else" {
			if _, err := p.expect(tCloseStmt, "%} after else"); err != nil {
				return nil, err
			}
			if f.elseBody, _, err = p.parseBody("endfor"); err != nil {
				return nil, err
			}
		}
		_, err = p.expect(tCloseStmt, "%} to close endfor")
		return f, err
	}
	return nil, p.errorf("the statement %q is not supported (supported: %s)", t.value, supportedStatements)
}

// ifRest parses an if statement after "if".
func (p *parser) ifRest(pos int) (node, error) {
	cond, err := p.expr()
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(tCloseStmt, "%} to close if"); err != nil {
		return nil, err
	}
	body, stop, err := p.parseBody("elif", "else", "endif")
	if err != nil {
		return nil, err
	}
	n := &ifNode{pos: pos, cond: cond, body: body}
	switch stop {
	case "elif":
		e, err := p.ifRest(p.toks[p.i-1].pos)
		if err != nil {
			return nil, err
		}
		n.else_ = []node{e}
		return n, nil
	case "else":
		if _, err := p.expect(tCloseStmt, "%} after else"); err != nil {
			return nil, err
		}
		if n.else_, _, err = p.parseBody("endif"); err != nil {
			return nil, err
		}
	}
	_, err = p.expect(tCloseStmt, "%} to close endif")
	return n, err
}

// expr parses an expression, the ternary "a if cond else b" included.
func (p *parser) expr() (node, error) {
	a, err := p.orExpr()
	if err != nil {
		return nil, err
	}
	if p.isIdent("if") {
		pos := p.peek().pos
		p.i++
		cond, err := p.orExpr()
		if err != nil {
			return nil, err
		}
		if !p.isIdent("else") {
			return nil, p.errorf("expected else: \"a if b\" without else is not supported")
		}
		p.i++
		no, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &ternary{pos, cond, a, no}, nil
	}
	return a, nil
}

func (p *parser) orExpr() (node, error) {
	l, err := p.andExpr()
	for err == nil && p.isIdent("or") {
		pos := p.peek().pos
		p.i++
		var r node
		if r, err = p.andExpr(); err == nil {
			l = &binary{pos, "or", l, r}
		}
	}
	return l, err
}

func (p *parser) andExpr() (node, error) {
	l, err := p.notExpr()
	for err == nil && p.isIdent("and") {
		pos := p.peek().pos
		p.i++
		var r node
		if r, err = p.notExpr(); err == nil {
			l = &binary{pos, "and", l, r}
		}
	}
	return l, err
}

func (p *parser) notExpr() (node, error) {
	if p.isIdent("not") {
		pos := p.peek().pos
		p.i++
		x, err := p.notExpr()
		if err != nil {
			return nil, err
		}
		return &unary{pos, "not", x}, nil
	}
	return p.cmpExpr()
}

func (p *parser) cmpExpr() (node, error) {
	l, err := p.addExpr()
	for err == nil {
		var op string
		pos := 0
		switch {
		case p.isIdent("not", "in"):
			op, pos = "not in", p.peek().pos
			p.i += 2
		case p.isIdent("in"):
			op, pos = "in", p.peek().pos
			p.i++
		case p.is(tCmp):
			op, pos = p.peek().value, p.peek().pos
			p.i++
		default:
			return l, nil
		}
		var r node
		if r, err = p.addExpr(); err == nil {
			l = &binary{pos, op, l, r}
		}
	}
	return l, err
}

func (p *parser) addExpr() (node, error) {
	l, err := p.mulExpr()
	for err == nil && p.is(tAdd) {
		t := p.peek()
		p.i++
		var r node
		if r, err = p.mulExpr(); err == nil {
			l = &binary{t.pos, t.value, l, r}
		}
	}
	return l, err
}

func (p *parser) mulExpr() (node, error) {
	l, err := p.testExpr()
	for err == nil && (p.is(tMul) || p.is(tPow)) {
		t := p.peek()
		if t.kind == tPow {
			return nil, p.errorf("** is not supported")
		}
		p.i++
		var r node
		if r, err = p.testExpr(); err == nil {
			l = &binary{t.pos, t.value, l, r}
		}
	}
	return l, err
}

func (p *parser) testExpr() (node, error) {
	x, err := p.filterExpr()
	for err == nil && p.isIdent("is") {
		pos := p.peek().pos
		p.i++
		neg := false
		if p.isIdent("not") {
			neg = true
			p.i++
		}
		t := p.peek()
		if t == nil || t.kind != tIdent {
			return nil, p.errorf("expected a test name after is")
		}
		p.i++
		x = &testNode{pos, x, t.value, neg}
	}
	return x, err
}

func (p *parser) filterExpr() (node, error) {
	x, err := p.signExpr()
	for err == nil && p.is(tPipe) {
		pos := p.peek().pos
		p.i++
		t := p.peek()
		if t == nil || t.kind != tIdent {
			return nil, p.errorf("expected a filter name after |")
		}
		p.i++
		f := &filterNode{pos: pos, obj: x, name: t.value}
		if p.is(tOpenParen) {
			if f.args, f.kwargs, err = p.args(); err != nil {
				return nil, err
			}
		}
		x = f
	}
	return x, err
}

func (p *parser) signExpr() (node, error) {
	if t := p.peek(); t != nil && (t.kind == tSign || t.kind == tAdd) && (t.value == "-" || t.value == "+") {
		p.i++
		x, err := p.signExpr()
		if err != nil {
			return nil, err
		}
		return &unary{t.pos, t.value, x}, nil
	}
	return p.postfix()
}

// args parses a call's arguments, after "(".
func (p *parser) args() ([]node, []kwarg, error) {
	p.i++ // (
	var args []node
	var kws []kwarg
	for !p.is(tCloseParen) {
		if p.peek() == nil {
			return nil, nil, p.errorf("the template ends inside a call's arguments")
		}
		if p.is(tIdent) && p.i+1 < len(p.toks) && p.toks[p.i+1].kind == tEquals {
			name := p.peek().value
			p.i += 2
			v, err := p.expr()
			if err != nil {
				return nil, nil, err
			}
			kws = append(kws, kwarg{name, v})
		} else {
			if len(kws) > 0 {
				return nil, nil, p.errorf("a positional argument after a keyword argument")
			}
			v, err := p.expr()
			if err != nil {
				return nil, nil, err
			}
			args = append(args, v)
		}
		if p.is(tComma) {
			p.i++
		} else if !p.is(tCloseParen) {
			return nil, nil, p.errorf("expected , or ) in a call's arguments")
		}
	}
	p.i++
	return args, kws, nil
}

// postfix parses a primary expression and its member accesses, slices
// and calls.
func (p *parser) postfix() (node, error) {
	x, err := p.primary()
	for err == nil {
		t := p.peek()
		switch {
		case t != nil && t.kind == tDot:
			p.i++
			name := p.peek()
			if name == nil || name.kind != tIdent && name.kind != tNumber {
				return nil, p.errorf("expected a name after .")
			}
			p.i++
			x = &member{pos: t.pos, obj: x, name: name.value}
		case t != nil && t.kind == tOpenBracket:
			p.i++
			var parts [3]node
			n, colons := 0, 0
			for !p.is(tCloseBracket) {
				if p.peek() == nil {
					return nil, p.errorf("the template ends inside [ ]")
				}
				if p.is(tColon) {
					colons++
					if colons > 2 {
						return nil, p.errorf("a slice has at most two colons")
					}
					n = colons
					p.i++
					continue
				}
				e, err := p.expr()
				if err != nil {
					return nil, err
				}
				parts[n] = e
			}
			p.i++
			if colons > 0 {
				x = &sliceNode{t.pos, x, parts[0], parts[1], parts[2]}
			} else {
				if parts[0] == nil {
					return nil, p.errorf("expected an index in [ ]")
				}
				x = &member{pos: t.pos, obj: x, key: parts[0], computed: true}
			}
		case t != nil && t.kind == tOpenParen:
			args, kws, err := p.args()
			if err != nil {
				return nil, err
			}
			x = &callNode{t.pos, x, args, kws}
		default:
			return x, nil
		}
	}
	return x, err
}

func (p *parser) primary() (node, error) {
	t := p.peek()
	if t == nil {
		return nil, p.errorf("the template ends inside an expression")
	}
	p.i++
	switch t.kind {
	case tNumber:
		if i, err := strconv.ParseInt(t.value, 10, 64); err == nil {
			return &literal{t.pos, i}, nil
		}
		f, err := strconv.ParseFloat(t.value, 64)
		if err != nil {
			return nil, p.src.errorAt(t.pos, "invalid number %q", t.value)
		}
		return &literal{t.pos, f}, nil
	case tString:
		s := t.value
		// Adjacent strings are joined, as in Python.
		for p.is(tString) {
			s += p.peek().value
			p.i++
		}
		return &literal{t.pos, s}, nil
	case tIdent:
		switch t.value {
		case "true", "True":
			return &literal{t.pos, true}, nil
		case "false", "False":
			return &literal{t.pos, false}, nil
		case "none", "None":
			return &literal{t.pos, nil}, nil
		}
		return &ident{t.pos, t.value}, nil
	case tOpenParen:
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		if p.is(tComma) {
			return nil, p.errorf("tuples are not supported")
		}
		_, err = p.expect(tCloseParen, ")")
		return e, err
	case tOpenBracket:
		l := &listLit{pos: t.pos}
		for !p.is(tCloseBracket) {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			l.items = append(l.items, e)
			if p.is(tComma) {
				p.i++
			} else if !p.is(tCloseBracket) {
				return nil, p.errorf("expected , or ] in a list")
			}
		}
		p.i++
		return l, nil
	case tOpenBrace:
		d := &dictLit{pos: t.pos}
		for !p.is(tCloseBrace) {
			k, err := p.expr()
			if err != nil {
				return nil, err
			}
			if _, err := p.expect(tColon, ": between a key and its value"); err != nil {
				return nil, err
			}
			v, err := p.expr()
			if err != nil {
				return nil, err
			}
			d.keys, d.vals = append(d.keys, k), append(d.vals, v)
			if p.is(tComma) {
				p.i++
			} else if !p.is(tCloseBrace) {
				return nil, p.errorf("expected , or } in a mapping")
			}
		}
		p.i++
		return d, nil
	}
	p.i--
	return nil, p.errorf("unexpected %q", t.value)
}
