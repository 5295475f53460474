// Command benchtable turns benchstat's CSV output for the routing
// benchmarks (routers as columns, waltz first) into the Markdown tables of
// README.md: time with each peer as a ratio to waltz, waltz against the
// fastest peer, and allocations.
//
//	go tool benchstat -format csv -col /router bench.txt | go run ./cmd/benchtable
//
// With -abs NAME it prints instead one benchmark's absolute figures per
// router (time, bytes and allocations per op), as README.md's registration
// table shows them.
package main

import (
	"bufio"
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

// section is one unit of benchstat's output (sec/op, B/op, allocs/op).
type section struct {
	unit    string
	routers []string
	rows    []row
}

type row struct {
	name   string
	center []float64 // per router; NaN when missing
	delta  []string  // per router, benchstat's "vs base" ("~", "-12.3%"); "" for waltz
}

func main() {
	abs := flag.String("abs", "", "print this benchmark's absolute figures per router instead")
	flag.Parse()
	secs, err := parse(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if *abs != "" {
		absTable(secs, *abs)
		return
	}
	for _, s := range secs {
		switch s.unit {
		case "sec/op":
			timeTable(s)
			fastestTable(s)
		case "allocs/op":
			allocsTable(s)
		}
	}
}

// parse reads benchstat's CSV: sections separated by blank lines, each with
// a line of column names (a router, then its CI and comparison columns) and
// a line of units.
func parse(r io.Reader) ([]section, error) {
	var secs []section
	sc := bufio.NewScanner(r)
	var block []string
	flush := func() error {
		defer func() { block = nil }()
		for len(block) > 0 && !strings.HasPrefix(block[0], ",") {
			block = block[1:] // goos:, pkg:, cpu: and the like
		}
		if len(block) < 3 {
			return nil
		}
		cr := csv.NewReader(strings.NewReader(strings.Join(block, "\n")))
		cr.FieldsPerRecord = -1
		recs, err := cr.ReadAll()
		if err != nil {
			return err
		}
		s := section{unit: recs[1][1]}
		var cols []int // the center column of each router
		for i, name := range recs[0] {
			if name != "" {
				s.routers = append(s.routers, name)
				cols = append(cols, i)
			}
		}
		for _, rec := range recs[2:] {
			if len(rec) == 0 || rec[0] == "geomean" || rec[0] == "" {
				continue
			}
			rw := row{name: rec[0]}
			for k, c := range cols {
				v, err := strconv.ParseFloat(rec[c], 64)
				if err != nil {
					v = math.NaN()
				}
				rw.center = append(rw.center, v)
				d := ""
				if k > 0 && c+2 < len(rec) {
					d = rec[c+2]
				}
				rw.delta = append(rw.delta, d)
			}
			s.rows = append(s.rows, rw)
		}
		secs = append(secs, s)
		return nil
	}
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			continue
		}
		block = append(block, sc.Text())
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return secs, sc.Err()
}

// ns formats seconds as nanoseconds with thousands separators.
func ns(sec float64) string {
	v := sec * 1e9
	if v < 1000 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func header(first string, cols []string) {
	fmt.Printf("| %s | %s |\n|---|%s\n", first, strings.Join(cols, " | "), strings.Repeat("--:|", len(cols)))
}

// timeTable prints waltz's ns/op and each peer's time as a ratio to it:
// "~" before a ratio benchstat does not find significant, bold for a peer
// significantly faster than waltz.
func timeTable(s section) {
	header("time", append([]string{s.routers[0] + " ns/op"}, s.routers[1:]...))
	for _, r := range s.rows {
		cells := []string{ns(r.center[0])}
		for k := 1; k < len(s.routers); k++ {
			if math.IsNaN(r.center[k]) {
				cells = append(cells, "n/a")
				continue
			}
			ratio := strconv.FormatFloat(r.center[k]/r.center[0], 'f', 2, 64)
			switch {
			case r.delta[k] == "~":
				ratio = "~" + ratio
			case r.center[k] < r.center[0]:
				ratio = "**" + ratio + "**"
			}
			cells = append(cells, ratio)
		}
		fmt.Printf("| %s | %s |\n", r.name, strings.Join(cells, " | "))
	}
	fmt.Println()
}

// fastestTable prints waltz's time over the fastest peer's, per benchmark.
func fastestTable(s section) {
	header("benchmark", []string{"waltz / fastest peer", "fastest peer", "significant"})
	for _, r := range s.rows {
		best := -1
		for k := 1; k < len(s.routers); k++ {
			if !math.IsNaN(r.center[k]) && (best < 0 || r.center[k] < r.center[best]) {
				best = k
			}
		}
		if best < 0 {
			continue
		}
		sig := "yes"
		if r.delta[best] == "~" {
			sig = "no (p ≥ 0.05)"
		}
		fmt.Printf("| %s | %.2f | %s | %s |\n", r.name, r.center[0]/r.center[best], s.routers[best], sig)
	}
	fmt.Println()
}

func allocsTable(s section) {
	header("allocs/op", s.routers)
	for _, r := range s.rows {
		var cells []string
		for _, v := range r.center {
			if math.IsNaN(v) {
				cells = append(cells, "n/a")
			} else {
				cells = append(cells, strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
		fmt.Printf("| %s | %s |\n", r.name, strings.Join(cells, " | "))
	}
	fmt.Println()
}

// absTable prints one benchmark's median time (µs), bytes and allocations
// per op, one row per router.
func absTable(secs []section, name string) {
	header("router", []string{"µs/op", "B/op", "allocs/op"})
	if len(secs) == 0 {
		return
	}
	for k, router := range secs[0].routers {
		cells := []string{router}
		for _, s := range secs {
			v := math.NaN()
			for _, r := range s.rows {
				if r.name == name && k < len(r.center) {
					v = r.center[k]
				}
			}
			switch {
			case math.IsNaN(v):
				cells = append(cells, "n/a")
			case s.unit == "sec/op":
				cells = append(cells, strconv.FormatFloat(v*1e6, 'f', 0, 64))
			default:
				cells = append(cells, strconv.FormatFloat(v, 'f', 0, 64))
			}
		}
		fmt.Printf("| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Println()
}
