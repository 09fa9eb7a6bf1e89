// Command ratio reads Go benchmark output and prints, for every
// benchmark reporting MB/s, its median and its ratio to the tessera
// entry of the same group ("BenchmarkX/tessera" or
// "BenchmarkX/tessera/SIZE").
package main

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var line = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+.*?([\d.]+) MB/s`)

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
	runs := map[string][]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[3], 64)
		runs[m[1]] = append(runs[m[1]], v)
	}
	med := map[string]float64{}
	var names []string
	for name, vs := range runs {
		slices.Sort(vs)
		med[name] = vs[len(vs)/2]
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		parts := strings.Split(name, "/")
		base := ""
		if len(parts) >= 2 {
			parts[1] = "tessera"
			base = strings.Join(parts, "/")
		}
		ratio := "        "
		if b, ok := med[base]; ok {
			ratio = fmt.Sprintf("%7.2fx", med[name]/b)
		}
		fmt.Printf("%-58s %9.2f MB/s  %s tessera's speed\n", name, med[name], ratio)
	}
}
