package typed

import (
	"encoding/json"
	"fmt"
	"github.com/tessera-dev/tessera/schema"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/jcs"
	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// Value is a parameter's value: the text a placeholder is replaced with,
// and for a boolean its truth.
type Value struct {
	// Text is what $name is replaced with: the string itself, a number as
	// written in decimal, "true" or "false", or a list's items one per
	// line as "- item".
	Text string
	// Bool is a boolean's value.
	Bool bool
	// JSON is the value as JSON, for the record.
	JSON json.RawMessage

	items []string // a list's items
}

func stringValue(s string) Value {
	return Value{Text: s, JSON: json.RawMessage(schema.AppendString(nil, s))}
}

func boolValue(b bool) Value {
	return Value{Text: strconv.FormatBool(b), Bool: b, JSON: json.RawMessage(strconv.FormatBool(b))}
}

func listValue(items []string) Value {
	var text strings.Builder
	js := []byte{'['}
	for i, it := range items {
		if i > 0 {
			text.WriteByte('\n')
			js = append(js, ',')
		}
		text.WriteString("- ")
		text.WriteString(it)
		js = schema.AppendString(js, it)
	}
	return Value{Text: text.String(), JSON: append(js, ']'), items: items}
}

// valueOf reads node n of the file path as a value of p's type.
func valueOf(path string, p *Param, n *yaml.Node) (Value, *diag.Error) {
	bad := func(want string) (Value, *diag.Error) {
		return Value{}, diag.ErrorfAt(path, n.Line, n.Column, "%s: want %s, found %s", p.Name, want, yamldoc.Describe(n))
	}
	scalar := n.Kind == yaml.ScalarNode
	switch p.Type {
	case String:
		if !scalar || n.Tag == "!!null" || n.Tag == "!!bool" {
			return bad("text")
		}
		return stringValue(n.Value), nil
	case Integer:
		if !scalar || n.Tag != "!!int" {
			return bad("a whole number")
		}
		i, err := strconv.ParseInt(n.Value, 10, 64)
		if err != nil {
			return bad("a whole number written in decimal, within ±9223372036854775807")
		}
		s := strconv.FormatInt(i, 10)
		return Value{Text: s, JSON: json.RawMessage(s)}, nil
	case Number:
		if scalar && yamldoc.JSONNumber(n.Value) && n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0 {
			if _, err := strconv.ParseFloat(n.Value, 64); err != nil {
				return Value{}, diag.ErrorfAt(path, n.Line, n.Column, "%s: the number %s is outside the range of a double (about ±1.8e308, or non-zero below 4.9e-324): write a number within it, or declare the parameter a string", p.Name, n.Value)
			}
		}
		if !scalar || n.Tag != "!!int" && n.Tag != "!!float" || !yamldoc.JSONNumber(n.Value) {
			return bad("a number written in decimal, such as 0.5")
		}
		return Value{Text: n.Value, JSON: json.RawMessage(n.Value)}, nil
	case Boolean:
		if !scalar || n.Tag != "!!bool" {
			return bad("true or false")
		}
		return boolValue(n.Value == "true"), nil
	case List:
		if n.Kind != yaml.SequenceNode {
			return bad("a list of text, such as [a, b]")
		}
		items := make([]string, 0, len(n.Content))
		for i, c := range n.Content {
			if c.Kind != yaml.ScalarNode || c.Tag == "!!null" {
				return Value{}, diag.ErrorfAt(path, c.Line, c.Column, "%s: item %d: want text, found %s", p.Name, i+1, yamldoc.Describe(c))
			}
			items = append(items, c.Value)
		}
		return listValue(items), nil
	}
	return bad("a value")
}

// Values are the values bound to a template's parameters, by name.
type Values map[string]Value

// ParseValues reads a YAML or JSON mapping of parameter names to values
// (path names it in diagnostics) for template t. Every problem is
// reported at once: a name t does not declare (with the nearest declared
// one), a value of the wrong type, a repeated name.
func (t *Template) ParseValues(path string, data []byte) (Values, error) {
	if t == nil {
		return nil, errNilTemplate
	}
	_, top, err := parseDoc(path, data)
	if err != nil {
		return nil, err
	}
	return t.valuesOf(path, top)
}

// valuesOf reads the mapping node top (nil for none) of the file path.
func (t *Template) valuesOf(path string, top *yaml.Node) (Values, error) {
	vals := Values{}
	if top == nil || top.Tag == "!!null" {
		return vals, nil
	}
	if top.Kind != yaml.MappingNode {
		return nil, diag.List{diag.ErrorfAt(path, top.Line, top.Column, "want a mapping of parameter names to values, such as\n  repo: acme/api")}
	}
	var errs diag.List
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		p := t.Param(k.Value)
		if p == nil {
			msg := fmt.Sprintf("unknown parameter %q: ", k.Value)
			if h := suggest.Nearest(k.Value, names); h != "" {
				msg += fmt.Sprintf("did you mean %q? ", h)
			}
			if len(names) == 0 {
				msg += fmt.Sprintf("template %s/%s declares none", t.NS, t.Key)
			} else {
				msg += "the parameters are " + strings.Join(names, ", ")
			}
			errs = append(errs, diag.ErrorfAt(path, k.Line, k.Column, "%s", msg))
			continue
		}
		val, e := valueOf(path, p, v)
		if e != nil {
			errs = append(errs, e)
			continue
		}
		vals[p.Name] = val
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return vals, nil
}

// Bind returns the values of Go structs (or pointers to them) for t. A
// field binds the parameter its `param:"name"` tag names, or, without a
// tag, the parameter of its name in snake_case (RepoURL binds repo_url);
// `param:"-"` skips it. Field types: string, bool, the int, uint and
// float kinds, []string and fmt.Stringer. A struct type may be given
// once; a parameter bound by two structs, a field no parameter matches,
// and a field whose type does not fit its parameter are errors.
func (t *Template) Bind(structs ...any) (Values, error) {
	if t == nil {
		return nil, errNilTemplate
	}
	vals := Values{}
	var types []reflect.Type
	for _, s := range structs {
		v := reflect.ValueOf(s)
		for v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			return nil, fmt.Errorf("typed %s/%s: Bind takes structs, not %T", t.NS, t.Key, s)
		}
		if slices.Contains(types, v.Type()) {
			return nil, fmt.Errorf("typed %s/%s: Bind was given two values of %s: give each struct type once", t.NS, t.Key, v.Type())
		}
		types = append(types, v.Type())
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Tag.Get("param")
			if name == "-" {
				continue
			}
			if name == "" {
				name = snake(f.Name)
			}
			p := t.Param(name)
			if p == nil {
				return nil, fmt.Errorf("typed %s/%s: field %s.%s binds %q, which the template does not declare", t.NS, t.Key, v.Type(), f.Name, name)
			}
			if _, ok := vals[name]; ok {
				return nil, fmt.Errorf("typed %s/%s: parameter %q is bound twice (again by %s.%s)", t.NS, t.Key, name, v.Type(), f.Name)
			}
			val, err := goValue(p, v.Field(i))
			if err != nil {
				return nil, fmt.Errorf("typed %s/%s: field %s.%s: %w", t.NS, t.Key, v.Type(), f.Name, err)
			}
			vals[name] = val
		}
	}
	return vals, nil
}

var stringerType = reflect.TypeFor[fmt.Stringer]()

func goValue(p *Param, v reflect.Value) (Value, error) {
	wrong := func() (Value, error) {
		return Value{}, fmt.Errorf("a %s cannot bind %s parameter %q", v.Type(), p.Type, p.Name)
	}
	switch p.Type {
	case String:
		if v.Type().Implements(stringerType) {
			return stringValue(v.Interface().(fmt.Stringer).String()), nil
		}
		if v.Kind() == reflect.String {
			return stringValue(v.String()), nil
		}
	case Boolean:
		if v.Kind() == reflect.Bool {
			return boolValue(v.Bool()), nil
		}
	case Integer:
		switch v.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			s := strconv.FormatInt(v.Int(), 10)
			return Value{Text: s, JSON: json.RawMessage(s)}, nil
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			s := strconv.FormatUint(v.Uint(), 10)
			return Value{Text: s, JSON: json.RawMessage(s)}, nil
		}
	case Number:
		switch v.Kind() {
		case reflect.Float32, reflect.Float64:
			f := v.Float()
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return Value{}, fmt.Errorf("%v is not a number JSON can hold", f)
			}
			s := formatFloat(f, v.Type().Bits())
			return Value{Text: s, JSON: json.RawMessage(s)}, nil
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			s := strconv.FormatInt(v.Int(), 10)
			return Value{Text: s, JSON: json.RawMessage(s)}, nil
		}
	case List:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.String {
			items := make([]string, v.Len())
			for i := range items {
				items[i] = v.Index(i).String()
			}
			return listValue(items), nil
		}
	}
	return wrong()
}

// snake returns a Go field name in snake_case: RepoURL is repo_url,
// MaxComments max_comments.
func snake(name string) string {
	r := []rune(name)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) {
			if i > 0 && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1])) {
				b.WriteByte('_')
			}
			c = unicode.ToLower(c)
		}
		b.WriteRune(c)
	}
	return b.String()
}

// resolve returns vals completed with t's defaults, or an error naming
// every required parameter without a value.
func (t *Template) resolve(vals Values) (Values, error) {
	out := make(Values, len(t.Params))
	var missing []string
	for _, p := range t.Params {
		if v, ok := vals[p.Name]; ok {
			out[p.Name] = v
			continue
		}
		if p.Default != nil {
			out[p.Name] = *p.Default
			continue
		}
		missing = append(missing, p.Name)
	}
	if len(missing) > 0 {
		var b strings.Builder
		for i, name := range missing {
			if i > 0 {
				b.WriteString(", ")
			}
			p := t.Param(name)
			fmt.Fprintf(&b, "%s (%s, line %d)", name, p.Type, p.line)
		}
		return nil, &MissingError{Template: t.NS + "/" + t.Key, Path: t.path, Names: missing, detail: b.String()}
	}
	return out, nil
}

// MissingError is a render without a value for a required parameter.
type MissingError struct {
	// Template is "ns/key"; Path the template's file.
	Template, Path string
	// Names are the parameters without a value, in declaration order.
	Names  []string
	detail string
}

// Error names the template's file and every parameter without a value.
func (e *MissingError) Error() string {
	if e == nil {
		return "typed: a missing-value error with no detail"
	}
	return fmt.Sprintf("%s: template %s needs a value for %s: give them in the params file (--typed-params), or defaults in the template", e.Path, e.Template, e.detail)
}

// formatFloat writes f, a float of the given bits, in the shortest form
// that reads back to the same value, as JSON and ECMAScript write
// numbers: plain decimal from 1e-6 up to 1e21 ("0.5", "1500"), exponent
// form outside it ("1e+300", "5e-324").
func formatFloat(f float64, bits int) string {
	if bits == 32 {
		// The float32's own shortest digits, not its float64 widening's.
		f, _ = strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
	}
	return jcs.FormatNumber(f)
}
