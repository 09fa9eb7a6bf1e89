package presettest

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Exported returns the exported functions and methods declared in the
// non-test Go files of the package in dir, sorted: a function by its
// name ("Parse"), a method by its receiver's type and its name
// ("Template.Layout"). Methods of unexported types are left out: a caller
// reaches them through an interface, if at all.
func Exported(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		file, err := parser.ParseFile(fset, f, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range file.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			if fd.Recv == nil || len(fd.Recv.List) == 0 {
				out = append(out, fd.Name.Name)
				continue
			}
			if recv := receiverName(fd.Recv.List[0].Type); ast.IsExported(recv) {
				out = append(out, recv+"."+fd.Name.Name)
			}
		}
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// receiverName returns the name of a method's receiver type: T for T,
// *T, T[P] and *T[P].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// Skip marks an entry of the table given to CheckZeroValues as not
// called, for the reason it holds: a function whose zero arguments have
// no meaning to check (a test helper taking a *testing.T, say). The
// function is still listed, so a new one cannot be left out unnoticed.
type Skip string

// CheckZeroValues checks that no exported function or method of the
// package in dir panics when it is given zero values, as a caller might
// by mistake: nil pointers, slices, maps, functions and interfaces, empty
// strings, zeros. funcs maps each name Exported lists to the function:
// the function itself, or, for a method, its method expression
// ((*T).Method or T.Method), so its receiver is zero too (a nil pointer
// for a pointer receiver). Each function is called twice: once with every
// argument zero, and once with each pointer argument pointing at a zero
// value instead of nil. A panic is reported with the function's name and
// the panic's value; so are a function missing from funcs (add it) and a
// name in funcs that the package does not declare (remove it).
func CheckZeroValues(t testing.TB, dir string, funcs map[string]any) {
	t.Helper()
	names, err := Exported(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if _, ok := funcs[name]; !ok {
			t.Errorf("%s is exported by %s but not in the table of functions called with zero values: add it", name, dir)
		}
	}
	keys := make([]string, 0, len(funcs))
	for name := range funcs {
		keys = append(keys, name)
	}
	sort.Strings(keys)
	for _, name := range keys {
		if !slices.Contains(names, name) {
			t.Errorf("%s is in the table of functions called with zero values, but %s does not export it: remove it", name, dir)
			continue
		}
		fn := funcs[name]
		if _, ok := fn.(Skip); ok {
			continue
		}
		v := reflect.ValueOf(fn)
		if v.Kind() != reflect.Func || v.IsNil() {
			t.Errorf("%s: the table holds %T, not a function", name, fn)
			continue
		}
		for _, pointed := range []bool{false, true} {
			if msg := callZero(v, pointed); msg != "" {
				how := "zero values"
				if pointed {
					how = "pointers to zero values"
				}
				t.Errorf("%s panics on %s: %s", name, how, msg)
			}
		}
	}
}

var contextType = reflect.TypeFor[context.Context]()

// callZero calls fn with zero arguments (pointers to zero values when
// pointed), and returns the panic it raised, if any, as text.
func callZero(fn reflect.Value, pointed bool) (msg string) {
	ft := fn.Type()
	n := ft.NumIn()
	if ft.IsVariadic() {
		n-- // no variadic arguments
	}
	args := make([]reflect.Value, n)
	for i := range n {
		in := ft.In(i)
		args[i] = reflect.Zero(in)
		if in == contextType {
			// A nil context.Context is a misuse every Go API may
			// refuse: the context package says never to pass one.
			args[i] = reflect.ValueOf(context.Background())
		}
		if pointed && in.Kind() == reflect.Pointer {
			args[i] = reflect.New(in.Elem())
		}
	}
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	fn.Call(args)
	return ""
}
