// Command ratio reads Go benchmark output and prints, for every
// benchmark reporting MB/s, its median and its ratio to the tessera
// entry of the same group: the benchmark whose name has "tessera" in
// place of one of its parts ("BenchmarkX/tessera",
// "BenchmarkX/tessera/SIZE", "BenchmarkX/KIND/tessera").
//
// It then prints the per-kind table, as Markdown: for each
// BenchmarkCountKind/KIND/LIBRARY, the median MB/s of every library and
// how many times faster Tessera is, with Tessera's allocations per count.
// Kinds and libraries keep the order in which the input first names them.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var (
	line   = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+.*?([\d.]+) MB/s`)
	allocs = regexp.MustCompile(`\s(\d+) allocs/op`)
)

const (
	self     = "tessera"
	kindBase = "BenchmarkCountKind"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: ratio bench.txt")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	r, err := read(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "ratio: %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	r.printRatios(os.Stdout)
	r.printKinds(os.Stdout)
}

// results are the runs of each benchmark, in the order first seen.
type results struct {
	names  []string
	mbs    map[string][]float64
	allocs map[string][]float64
}

func read(in io.Reader) (*results, error) {
	r := &results{mbs: map[string][]float64{}, allocs: map[string][]float64{}}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		name := m[1]
		if _, seen := r.mbs[name]; !seen {
			r.names = append(r.names, name)
		}
		r.mbs[name] = append(r.mbs[name], v)
		if a := allocs.FindStringSubmatch(sc.Text()); a != nil {
			n, _ := strconv.ParseFloat(a[1], 64)
			r.allocs[name] = append(r.allocs[name], n)
		}
	}
	return r, sc.Err()
}

func median(vs []float64) (float64, bool) {
	if len(vs) == 0 {
		return 0, false
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2], true
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2, true
}

// base returns the tessera entry of name's group, or "".
func (r *results) base(name string) string {
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		if parts[i] == self {
			return name
		}
	}
	for i := 1; i < len(parts); i++ {
		q := slices.Clone(parts)
		q[i] = self
		if b := strings.Join(q, "/"); len(r.mbs[b]) > 0 {
			return b
		}
	}
	return ""
}

func (r *results) printRatios(w io.Writer) {
	names := slices.Clone(r.names)
	slices.Sort(names)
	for _, name := range names {
		v, _ := median(r.mbs[name])
		ratio := "        "
		if b := r.base(name); b != "" {
			bv, _ := median(r.mbs[b])
			ratio = fmt.Sprintf("%7.2fx", v/bv)
		}
		fmt.Fprintf(w, "%-58s %9.2f MB/s  %s tessera's speed\n", name, v, ratio)
	}
}

func (r *results) printKinds(w io.Writer) {
	var kinds, libs []string
	for _, name := range r.names {
		parts := strings.Split(name, "/")
		if len(parts) != 3 || parts[0] != kindBase {
			continue
		}
		if !slices.Contains(kinds, parts[1]) {
			kinds = append(kinds, parts[1])
		}
		if parts[2] != self && !slices.Contains(libs, parts[2]) {
			libs = append(libs, parts[2])
		}
	}
	if len(kinds) == 0 {
		return
	}
	fmt.Fprintln(w)
	head := "| kind (o200k_base) | " + self + " MB/s | allocs/op |"
	rule := "|---|---:|---:|"
	for _, l := range libs {
		head += " " + l + " MB/s | " + self + " is |"
		rule += "---:|---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, k := range kinds {
		row := "| " + k + " |"
		t, ok := median(r.mbs[kindBase+"/"+k+"/"+self])
		if ok {
			row += fmt.Sprintf(" %.1f |", t)
		} else {
			row += " — |"
		}
		if a, ok := median(r.allocs[kindBase+"/"+k+"/"+self]); ok {
			row += fmt.Sprintf(" %.0f |", a)
		} else {
			row += " — |"
		}
		for _, l := range libs {
			v, has := median(r.mbs[kindBase+"/"+k+"/"+l])
			switch {
			case !has:
				row += " — | — |"
			case !ok:
				row += fmt.Sprintf(" %s | — |", mbs(v))
			default:
				row += fmt.Sprintf(" %s | %.1f× |", mbs(v), t/v)
			}
		}
		fmt.Fprintln(w, row)
	}
}

// mbs formats a speed with two significant decimals below 1 MB/s.
func mbs(v float64) string {
	if v < 1 {
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}
