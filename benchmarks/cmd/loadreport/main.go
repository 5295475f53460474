// Command loadreport turns the raw output that load.sh saves from a load
// generator into one table per path: median req/s, p50 and p99 latency,
// errors, and server CPU time per request, each also as a ratio to raw
// net/http measured in the same round.
//
// load.sh names each output file ROUND_PEER_PATH.TOOL (PATH is "root" or
// "user") and appends CPU samples to cpu.tsv as
// "ROUND PEER PATH TICKS REQUESTS CLK_TCK".
//
//	go run ./cmd/loadreport -dir /tmp/load.XXXX
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// result is one run of a load generator against one server.
type result struct {
	rps      float64
	p50, p99 float64 // microseconds
	errors   int64   // transport errors plus non-2xx responses
}

type key struct {
	round      int
	peer, path string
}

func main() {
	dir := flag.String("dir", "", "directory written by load.sh")
	peerList := flag.String("peers", "raw,waltz,httprouter,chi,gin,echo,servemux", "row order")
	flag.Parse()
	peers := strings.Split(*peerList, ",")

	results, err := readResults(*dir)
	if err != nil {
		fail(err)
	}
	cpu, err := readCPU(filepath.Join(*dir, "cpu.tsv"))
	if err != nil {
		fail(err)
	}

	var paths []string
	for k := range results {
		if !slices.Contains(paths, k.path) {
			paths = append(paths, k.path)
		}
	}
	slices.Sort(paths)
	for _, path := range paths {
		printTable(path, peers, results, cpu)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loadreport:", err)
	os.Exit(1)
}

func printTable(path string, peers []string, results map[key]result, cpu map[key]float64) {
	label := map[string]string{"root": "GET /", "user": "GET /user/:id"}[path]
	if label == "" {
		label = path
	}
	fmt.Printf("\n%s (median over rounds; ratios are to raw net/http in the same round)\n\n", label)
	fmt.Println("| server | req/s | ×raw | p50 µs | p99 µs | p99 ×raw | errors | CPU µs/req | CPU ×raw |")
	fmt.Println("|---|--:|--:|--:|--:|--:|--:|--:|--:|")
	for _, peer := range peers {
		var rps, rpsRatio, p50, p99, p99Ratio, cpuUS, cpuRatio []float64
		var errs int64
		for k, r := range results {
			if k.peer != peer || k.path != path {
				continue
			}
			rps = append(rps, r.rps)
			p50 = append(p50, r.p50)
			p99 = append(p99, r.p99)
			errs += r.errors
			if raw, ok := results[key{k.round, "raw", path}]; ok && raw.rps > 0 {
				rpsRatio = append(rpsRatio, r.rps/raw.rps)
				if raw.p99 > 0 {
					p99Ratio = append(p99Ratio, r.p99/raw.p99)
				}
			}
		}
		for k, us := range cpu {
			if k.peer != peer || k.path != path {
				continue
			}
			cpuUS = append(cpuUS, us)
			if raw, ok := cpu[key{k.round, "raw", path}]; ok && raw > 0 {
				cpuRatio = append(cpuRatio, us/raw)
			}
		}
		if len(rps) == 0 && len(cpuUS) == 0 {
			continue
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %d | %s | %s |\n", peer,
			num(rps, "%.0f"), num(rpsRatio, "%.2f"), num(p50, "%.0f"), num(p99, "%.0f"),
			num(p99Ratio, "%.2f"), errs, num(cpuUS, "%.1f"), num(cpuRatio, "%.2f"))
	}
}

// num formats the median of xs, or "–" when there is nothing to show.
func num(xs []float64, format string) string {
	if len(xs) == 0 {
		return "–"
	}
	return fmt.Sprintf(format, median(xs))
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func readResults(dir string) (map[key]result, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_*_*.*"))
	if err != nil {
		return nil, err
	}
	out := map[key]result{}
	for _, f := range files {
		base := filepath.Base(f)
		ext := filepath.Ext(base)
		parts := strings.SplitN(strings.TrimSuffix(base, ext), "_", 3)
		round, err := strconv.Atoi(parts[0])
		if err != nil || len(parts) != 3 {
			continue // not a result file
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r result
		switch ext {
		case ".bombardier":
			r, err = parseBombardier(data)
		case ".autocannon":
			r, err = parseAutocannon(data)
		case ".wrk":
			r, err = parseWrk(string(data))
		case ".ab":
			r, err = parseAB(string(data))
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", base, err)
		}
		out[key{round, parts[1], parts[2]}] = r
	}
	return out, nil
}

// readCPU returns µs of server CPU per request for each sample.
func readCPU(file string) (map[key]float64, error) {
	out := map[key]float64{}
	f, err := os.Open(file)
	if os.IsNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var k key
		var ticks, reqs, hz float64
		if _, err := fmt.Sscan(sc.Text(), &k.round, &k.peer, &k.path, &ticks, &reqs, &hz); err != nil {
			return nil, fmt.Errorf("cpu.tsv: %q: %w", sc.Text(), err)
		}
		if reqs > 0 && hz > 0 {
			out[k] = ticks / hz * 1e6 / reqs
		}
	}
	return out, sc.Err()
}

func parseBombardier(data []byte) (result, error) {
	var v struct {
		Result struct {
			TimeTakenSeconds       float64
			Req1xx, Req2xx, Req3xx int64
			Req4xx, Req5xx, Others int64
			Latency                struct{ Percentiles map[string]float64 }
		}
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return result{}, err
	}
	res := v.Result
	total := res.Req1xx + res.Req2xx + res.Req3xx + res.Req4xx + res.Req5xx
	if res.TimeTakenSeconds <= 0 {
		return result{}, fmt.Errorf("no time taken")
	}
	return result{
		rps:    float64(total) / res.TimeTakenSeconds,
		p50:    res.Latency.Percentiles["50"],
		p99:    res.Latency.Percentiles["99"],
		errors: res.Others + res.Req1xx + res.Req3xx + res.Req4xx + res.Req5xx,
	}, nil
}

func parseAutocannon(data []byte) (result, error) {
	var v struct {
		Requests struct{ Total float64 }
		Latency  struct{ P50, P99 float64 } // milliseconds
		Duration float64                    // seconds
		Errors   int64
		Timeouts int64
		Non2xx   int64
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return result{}, err
	}
	if v.Duration <= 0 {
		return result{}, fmt.Errorf("no duration")
	}
	return result{
		rps:    v.Requests.Total / v.Duration,
		p50:    v.Latency.P50 * 1000,
		p99:    v.Latency.P99 * 1000,
		errors: v.Errors + v.Timeouts + v.Non2xx,
	}, nil
}

var (
	wrkRPS     = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkPct     = regexp.MustCompile(`(?m)^\s+(50|99)%\s+([0-9.]+)(us|ms|s)\s*$`)
	wrkSocket  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	abRPS      = regexp.MustCompile(`Requests per second:\s+([0-9.]+)`)
	abPct      = regexp.MustCompile(`(?m)^\s+(50|99)%\s+(\d+)`)
	abFailed   = regexp.MustCompile(`Failed requests:\s+(\d+)`)
	abNon2xx   = regexp.MustCompile(`Non-2xx responses:\s+(\d+)`)
	unitMicros = map[string]float64{"us": 1, "ms": 1e3, "s": 1e6}
)

// parseWrk reads wrk's text report; it needs wrk --latency for percentiles.
func parseWrk(s string) (result, error) {
	m := wrkRPS.FindStringSubmatch(s)
	if m == nil {
		return result{}, fmt.Errorf("no Requests/sec line")
	}
	var r result
	r.rps, _ = strconv.ParseFloat(m[1], 64)
	for _, p := range wrkPct.FindAllStringSubmatch(s, -1) {
		v, _ := strconv.ParseFloat(p[2], 64)
		v *= unitMicros[p[3]]
		if p[1] == "50" {
			r.p50 = v
		} else {
			r.p99 = v
		}
	}
	if m := wrkSocket.FindStringSubmatch(s); m != nil {
		for _, n := range m[1:] {
			r.errors += atoi(n)
		}
	}
	if m := wrkNon2xx.FindStringSubmatch(s); m != nil {
		r.errors += atoi(m[1])
	}
	return r, nil
}

// parseAB reads ab's text report; its percentiles are whole milliseconds.
func parseAB(s string) (result, error) {
	m := abRPS.FindStringSubmatch(s)
	if m == nil {
		return result{}, fmt.Errorf("no Requests per second line")
	}
	var r result
	r.rps, _ = strconv.ParseFloat(m[1], 64)
	for _, p := range abPct.FindAllStringSubmatch(s, -1) {
		v := float64(atoi(p[2])) * 1e3
		if p[1] == "50" {
			r.p50 = v
		} else {
			r.p99 = v
		}
	}
	if m := abFailed.FindStringSubmatch(s); m != nil {
		r.errors += atoi(m[1])
	}
	if m := abNon2xx.FindStringSubmatch(s); m != nil {
		r.errors += atoi(m[1])
	}
	return r, nil
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
