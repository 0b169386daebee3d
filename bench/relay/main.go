// Command relay is the benchmark of selfheal proxy against the floor a
// user has without it: a plain relay between the same client and server
// processes over stdio, and httputil.ReverseProxy over HTTP. From the
// module's root:
//
//	go run ./bench/relay
//
// builds selfheal, the relay floor (cmd/relayfloor), a plain
// httputil.ReverseProxy (cmd/reverseproxy) and a small MCP server
// (cmd/echoserver), then runs paired comparisons (every side in every run,
// the order reversed every other run) and prints the medians and ratios as
// Markdown tables, with the budgets of docs/ARCHITECTURE.md section 5 and in how
// many runs each holds. See README.md for the method and the figures.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// config is what one invocation measures.
type config struct {
	runs     int
	sizes    []int
	kinds    []string
	phases   map[string]bool
	naive    bool    // add the naive relay as a side
	scale    float64 // multiplies the number of calls
	memSize  int     // the size of the messages of the memory phase
	conc     []int
	httpTime time.Duration
	bins     bins
	out      io.Writer // the tables
	log      io.Writer // progress
}

func main() {
	var (
		runs     = flag.Int("runs", 6, "paired runs")
		sizes    = flag.String("sizes", "100,1000,60000,70000,1000000,16000000", "payload sizes in bytes: a call's arguments, a result's result object")
		kinds    = flag.String("kinds", strings.Join([]string{kindValid, kindBad, kindResult}, ","), "message kinds")
		phases   = flag.String("phases", allPhases, "what to measure")
		naive    = flag.Bool("naive", false, "measure a naive io.Copy relay (stdin read with blocking system calls) too")
		scale    = flag.Float64("scale", 1, "multiply the number of calls per measurement by this")
		conc     = flag.String("conc", "1,16,64", "HTTP client concurrencies")
		httpTime = flag.Duration("http-time", 2*time.Second, "how long each HTTP side is timed at each concurrency")
		selfheal = flag.String("selfheal", "", "the selfheal binary to measure (default: built from this module)")
		before   = flag.String("before", "", "another selfheal binary, measured beside the first as the side \"before\" (a change's effect, paired)")
	)
	flag.Parse()
	cfg := config{
		runs:     *runs,
		kinds:    splitList(*kinds),
		phases:   map[string]bool{},
		naive:    *naive,
		scale:    *scale,
		memSize:  16_000_000,
		httpTime: *httpTime,
		out:      os.Stdout,
		log:      os.Stderr,
	}
	for _, p := range splitList(*phases) {
		cfg.phases[p] = true
	}
	var err error
	if cfg.sizes, err = ints(*sizes); err == nil {
		cfg.conc, err = ints(*conc)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "bench-relay-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	if cfg.bins, err = build(dir, *selfheal); err == nil {
		cfg.bins.before = *before
		err = run(cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
}

// build builds the programs into dir; selfheal, when set, is used instead
// of building cmd/selfheal.
func build(dir, selfheal string) (bins, error) {
	pkgs := []string{"github.com/selfheal/selfheal/bench/relay/cmd/relayfloor", "github.com/selfheal/selfheal/bench/relay/cmd/reverseproxy", "github.com/selfheal/selfheal/bench/relay/cmd/echoserver"}
	if selfheal == "" {
		pkgs = append(pkgs, "github.com/selfheal/selfheal/cmd/selfheal")
	}
	cmd := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return bins{}, fmt.Errorf("go build: %v\n%s", err, out)
	}
	exe := func(name string) string {
		if runtime.GOOS == "windows" {
			name += ".exe"
		}
		return filepath.Join(dir, name)
	}
	b := bins{selfheal: selfheal, relay: exe("relayfloor"), reverse: exe("reverseproxy"), server: exe("echoserver")}
	if selfheal == "" {
		b.selfheal = exe("selfheal")
	}
	return b, nil
}

// allPhases are the phases, in the order they run.
const allPhases = "roundtrip,throughput,memory,http"

// run measures what cfg says and prints the tables.
func run(cfg config) error {
	fmt.Fprintf(cfg.out, "%s\n\n", machine())
	res := newResults()
	if cfg.phases["roundtrip"] || cfg.phases["throughput"] {
		for r := range cfg.runs {
			fmt.Fprintf(cfg.log, "run %d of %d: stdio\n", r+1, cfg.runs)
			if err := stdioRun(cfg, r, res); err != nil {
				return err
			}
		}
		if cfg.phases["roundtrip"] {
			printRoundTrips(cfg, res)
			printStep(cfg, res)
		}
		if cfg.phases["throughput"] {
			printThroughput(cfg, res)
		}
	}
	if cfg.phases["memory"] {
		fmt.Fprintln(cfg.log, "memory")
		if err := memory(cfg); err != nil {
			return err
		}
	}
	if cfg.phases["http"] {
		if err := httpBench(cfg); err != nil {
			return err
		}
	}
	return nil
}

// machine says when and where the figures were taken.
func machine() string {
	s := fmt.Sprintf("%s, %s, GOMAXPROCS %d, %s/%s", time.Now().UTC().Format("2006-01-02 15:04 UTC"), runtime.Version(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH)
	if n, err := exec.Command("nproc").Output(); err == nil {
		s += ", nproc " + strings.TrimSpace(string(n))
	}
	if m, err := exec.Command("uname", "-m").Output(); err == nil {
		s += ", " + strings.TrimSpace(string(m))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			s += ", load average " + strings.Join(f[:3], " ")
		}
	}
	return s
}

// sides are the sides measured for kind, in the order of even runs.
func (cfg config) sides(kind string) []string {
	s := []string{sideDirect, sideRelay}
	if cfg.naive {
		s = append(s, sideNaive)
	}
	s = append(s, sideProxy)
	if kind == kindBad {
		s = append(s, sideStrict)
	}
	if cfg.bins.before != "" {
		s = append(s, sideBefore)
	}
	return s
}

// counts is how many calls a measurement makes at size: warm-up, timed
// one at a time, streamed.
func (cfg config) counts(size int) (warm, n, streamed int) {
	switch {
	case size <= 10_000:
		warm, n, streamed = 100, 1000, 4000
	case size <= 100_000:
		warm, n, streamed = 20, 300, 600
	case size <= 2_000_000:
		warm, n, streamed = 3, 40, 60
	default:
		warm, n, streamed = 1, 5, 6
	}
	f := func(k int) int { return max(1, int(float64(k)*cfg.scale)) }
	return min(warm, f(warm)), f(n), f(streamed)
}

// stdioRun is one paired run over stdio: every side started afresh, and
// for each kind and size, the sides' calls interleaved one by one, so that
// a load that comes and goes on the machine weighs on every side alike.
// The order of the sides turns at every call, and is reversed on odd runs.
// The streams for throughput take turns in rounds likewise.
func stdioRun(cfg config, r int, res *results) (err error) {
	chains := map[string]*chain{}
	defer func() {
		for _, c := range chains {
			if cerr := c.close(); err == nil {
				err = cerr
			}
		}
	}()
	for _, side := range cfg.sides(kindBad) {
		c, err := start(cfg.bins, side)
		if err != nil {
			return err
		}
		chains[side] = c
	}
	for _, kind := range cfg.kinds {
		sides := cfg.sides(kind)
		if r%2 == 1 {
			slices.Reverse(sides)
		}
		for _, size := range cfg.sizes {
			warm, n, streamed := cfg.counts(size)
			line := call(kind, size)
			if cfg.phases["roundtrip"] {
				times := map[string][]time.Duration{}
				for i := range warm + n {
					for j := range sides {
						side := sides[(i+j)%len(sides)]
						d, err := chains[side].timed(line, kind, size)
						if err != nil {
							return err
						}
						if i >= warm {
							times[side] = append(times[side], d)
						}
					}
				}
				for _, side := range sides {
					k := key{kind, size, side}
					res.rt[k] = append(res.rt[k], summarize(times[side]))
				}
			}
			if cfg.phases["throughput"] && kind != kindBad {
				const rounds = 4
				took := map[string]time.Duration{}
				for i := range rounds {
					for j := range sides {
						side := sides[(i+j)%len(sides)]
						d, err := chains[side].stream(line, kind, size, max(1, streamed/rounds))
						if err != nil {
							return err
						}
						took[side] += d
					}
				}
				for _, side := range sides {
					k := key{kind, size, side}
					mbps := float64(size) * float64(rounds*max(1, streamed/rounds)) / took[side].Seconds() / 1e6
					res.tp[k] = append(res.tp[k], mbps)
				}
			}
		}
	}
	return nil
}

// memory reports the peak resident set of the relay and the proxy, each
// started afresh: at rest after the handshake, then after passing results
// of cfg.memSize (16 MB), and (afresh again) after passing calls of that
// size.
func memory(cfg config) error {
	size, n := cfg.memSize, 4
	fmt.Fprintf(cfg.out, "### Peak RSS (VmHWM of the middle process, MB)\n\n")
	fmt.Fprintf(cfg.out, "| side | at rest | after %d results of %s | after %d valid calls of %s |\n|---|---|---|---|\n", n, sizeName(size), n, sizeName(size))
	for _, side := range []string{sideRelay, sideProxy} {
		var row []string
		for _, kind := range []string{kindResult, kindValid} {
			c, err := start(cfg.bins, side)
			if err != nil {
				return err
			}
			rest, err := c.vmHWM()
			line := call(kind, size)
			for i := 0; err == nil && i < n; i++ {
				_, err = c.timed(line, kind, size)
			}
			var peak int64
			if err == nil {
				peak, err = c.vmHWM()
			}
			if cerr := c.close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
			if kind == kindResult {
				row = append(row, mb(rest))
			}
			row = append(row, mb(peak))
		}
		fmt.Fprintf(cfg.out, "| %s | %s |\n", side, strings.Join(row, " | "))
	}
	fmt.Fprintln(cfg.out)
	return nil
}

func mb(b int64) string { return strconv.FormatFloat(float64(b)/1e6, 'f', 1, 64) }

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a size or a count", f)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, errors.New("an empty list")
	}
	return out, nil
}
