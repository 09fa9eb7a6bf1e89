// Command ratio reads Go benchmark output and prints, for every
// benchmark reporting MB/s, its median and its ratio to the tessera
// entry of the same group: the benchmark whose name has "tessera" in
// place of one of its parts ("BenchmarkX/tessera",
// "BenchmarkX/tessera/SIZE", "BenchmarkX/KIND/tessera"). Where the
// benchmarks also report cpu-MB/s (bytes per second of the process's CPU
// time), it prints that median and ratio beside them.
//
// It then prints the tables of BenchmarkCountKind/KIND/LIBRARY, as
// Markdown: for each kind of text, the median MB/s of every library and
// how many times faster Tessera is, with Tessera's allocations per count;
// first by CPU time (if reported), then by the wall clock. Kinds and
// libraries keep the order in which the input first names them.
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
	line = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+.*?([\d.]+) MB/s`)
	// metric finds "VALUE UNIT" pairs after the iteration count.
	metric = regexp.MustCompile(`\s([\d.]+(?:e[-+]?\d+)?) (cpu-MB/s|allocs/op)`)
)

const (
	self     = "tessera"
	kindBase = "BenchmarkCountKind"
	wall     = "MB/s"
	cpu      = "cpu-MB/s"
	allocs   = "allocs/op"
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
	if r.has(cpu) {
		r.printKinds(os.Stdout, cpu, "CPU time")
	}
	r.printKinds(os.Stdout, wall, "wall clock")
}

// results are the samples of each benchmark by unit, in the order first
// seen.
type results struct {
	names []string
	runs  map[string]map[string][]float64 // name → unit → samples
}

func read(in io.Reader) (*results, error) {
	r := &results{runs: map[string]map[string][]float64{}}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		text := sc.Text()
		m := line.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		name := m[1]
		units, seen := r.runs[name]
		if !seen {
			units = map[string][]float64{}
			r.runs[name] = units
			r.names = append(r.names, name)
		}
		units[wall] = append(units[wall], v)
		for _, mm := range metric.FindAllStringSubmatch(text, -1) {
			if x, err := strconv.ParseFloat(mm[1], 64); err == nil {
				units[mm[2]] = append(units[mm[2]], x)
			}
		}
	}
	return r, sc.Err()
}

func (r *results) has(unit string) bool {
	for _, u := range r.runs {
		if len(u[unit]) > 0 {
			return true
		}
	}
	return false
}

// median returns the median sample of name in unit.
func (r *results) median(name, unit string) (float64, bool) {
	vs := r.runs[name][unit]
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
	if slices.Contains(parts[1:], self) {
		return name
	}
	for i := 1; i < len(parts); i++ {
		q := slices.Clone(parts)
		q[i] = self
		if b := strings.Join(q, "/"); len(r.runs[b][wall]) > 0 {
			return b
		}
	}
	return ""
}

func (r *results) printRatios(w io.Writer) {
	names := slices.Clone(r.names)
	slices.Sort(names)
	fmt.Fprintf(w, "%-58s %18s %8s\n", "median; ratio = speed / tessera's", "", "ratio")
	for _, name := range names {
		out := fmt.Sprintf("%-58s", name)
		for _, unit := range []string{wall, cpu} {
			v, ok := r.median(name, unit)
			if !ok {
				continue
			}
			ratio := "        "
			if b := r.base(name); b != "" {
				if bv, ok := r.median(b, unit); ok {
					ratio = fmt.Sprintf("%7.2fx", v/bv)
				}
			}
			out += fmt.Sprintf(" %9.2f %-8s %s", v, unit, ratio)
		}
		fmt.Fprintln(w, out)
	}
}

// printKinds prints the table of BenchmarkCountKind in unit.
func (r *results) printKinds(w io.Writer, unit, title string) {
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
	fmt.Fprintf(w, "\nMB/s by %s (median), o200k_base\n\n", title)
	head := "| kind | " + self + " | allocs/op |"
	rule := "|---|---:|---:|"
	for _, l := range libs {
		head += " " + l + " | " + self + " is |"
		rule += "---:|---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, k := range kinds {
		row := "| " + k + " |"
		t, ok := r.median(kindBase+"/"+k+"/"+self, unit)
		if ok {
			row += " " + mbs(t) + " |"
		} else {
			row += " — |"
		}
		if a, ok := r.median(kindBase+"/"+k+"/"+self, allocs); ok {
			row += fmt.Sprintf(" %.0f |", a)
		} else {
			row += " — |"
		}
		for _, l := range libs {
			v, has := r.median(kindBase+"/"+k+"/"+l, unit)
			switch {
			case !has:
				row += " — | — |"
			case !ok:
				row += " " + mbs(v) + " | — |"
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
