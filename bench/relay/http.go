package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The sides over HTTP.
const (
	httpDirect  = "direct"       // the go-sdk server itself
	httpReverse = "ReverseProxy" // cmd/reverseproxy: httputil.ReverseProxy
	httpProxy   = "proxy"        // selfheal proxy --listen --upstream
	httpBefore  = "before"       // the same, another build (-before)
)

// service is a process serving HTTP at url.
type service struct {
	cmd *exec.Cmd
	url string
	out *tail
}

// startService runs argv and waits for it to print its URL (on stderr
// when fromStderr, else on stdout).
func startService(argv []string, fromStderr bool) (*service, error) {
	s := &service{cmd: exec.Command(argv[0], argv[1:]...), out: &tail{}}
	var r io.Reader
	var err error
	if fromStderr {
		r, err = s.cmd.StderrPipe()
	} else {
		s.cmd.Stderr = s.out
		r, err = s.cmd.StdoutPipe()
	}
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	found := make(chan string, 1)
	go func() {
		sent := false
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 && !sent {
				found <- strings.Fields(sc.Text()[i:])[0]
				sent = true
				continue
			}
			fmt.Fprintln(s.out, sc.Text())
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case u, ok := <-found:
		if ok {
			s.url = u
			return s, nil
		}
	case <-time.After(10 * time.Second):
	}
	s.stop()
	return nil, fmt.Errorf("%s printed no URL: %s", argv[0], s.out)
}

func (s *service) stop() {
	s.cmd.Process.Kill()
	s.cmd.Wait()
}

// httpBench compares req/s through selfheal proxy --upstream and through
// httputil.ReverseProxy in front of the same go-sdk server, at each
// concurrency, each client worker with its own session.
func httpBench(cfg config) error {
	up, err := startService([]string{cfg.bins.server, "-http", "127.0.0.1:0"}, false)
	if err != nil {
		return err
	}
	defer up.stop()
	sides := []string{httpDirect, httpReverse, httpProxy}
	if cfg.bins.before != "" {
		sides = append(sides, httpBefore)
	}
	rps := map[string][]float64{} // by side and concurrency, per run
	k := func(side string, c int) string { return side + "/" + strconv.Itoa(c) }
	for r := range cfg.runs {
		fmt.Fprintf(cfg.log, "run %d of %d: http\n", r+1, cfg.runs)
		rev, err := startService([]string{cfg.bins.reverse, "-listen", "127.0.0.1:0", "-upstream", up.url}, false)
		if err != nil {
			return err
		}
		px, err := startService([]string{cfg.bins.selfheal, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.url}, true)
		if err != nil {
			rev.stop()
			return err
		}
		urls := map[string]string{httpDirect: up.url, httpReverse: rev.url, httpProxy: px.url}
		stop := func() {
			rev.stop()
			px.stop()
		}
		if cfg.bins.before != "" {
			bf, err := startService([]string{cfg.bins.before, "proxy", "--listen", "127.0.0.1:0", "--upstream", up.url}, true)
			if err != nil {
				stop()
				return err
			}
			urls[httpBefore] = bf.url
			stop = func() {
				rev.stop()
				px.stop()
				bf.stop()
			}
		}
		order := slices.Clone(sides)
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, c := range cfg.conc {
			for _, side := range order {
				v, err := load(urls[side], c, cfg.httpTime)
				if err != nil {
					stop()
					return fmt.Errorf("http %s at %d: %w\nReverseProxy's stderr: %s\nproxy's stderr: %s", side, c, err, rev.out, px.out)
				}
				rps[k(side, c)] = append(rps[k(side, c)], v)
			}
		}
		stop()
	}
	need := minRuns(cfg.runs)
	var v verdicts
	fmt.Fprintf(cfg.out, "### HTTP: requests per second (valid tools/call, go-sdk Streamable HTTP server, a session per client)\n\n")
	fmt.Fprintf(cfg.out, "Median of %d runs of %v each; ratios: median (range) of the runs' ratios to ReverseProxy; ok: runs at ≥ %.2f×.\n\n", cfg.runs, cfg.httpTime, minHTTP)
	head := "| concurrency | " + strings.Join(sides, " | ") + " | proxy ÷ ReverseProxy | ok |"
	if cfg.bins.before != "" {
		head += " before ÷ ReverseProxy | ok |"
	}
	fmt.Fprintf(cfg.out, "%s\n|%s\n", head, strings.Repeat("---|", strings.Count(head, "|")-1))
	for _, c := range cfg.conc {
		row := []string{strconv.Itoa(c)}
		for _, s := range sides {
			row = append(row, fmt.Sprintf("%.0f", median(rps[k(s, c)])))
		}
		ra := ratios(rps[k(httpProxy, c)], rps[k(httpReverse, c)])
		ok := count(ra, func(x float64) bool { return x >= minHTTP })
		row = append(row, ratioCell(ra), fmt.Sprintf("%d/%d", ok, len(ra)))
		if cfg.bins.before != "" {
			rb := ratios(rps[k(httpBefore, c)], rps[k(httpReverse, c)])
			okb := count(rb, func(x float64) bool { return x >= minHTTP })
			row = append(row, ratioCell(rb), fmt.Sprintf("%d/%d", okb, len(rb)))
		}
		v.add(ok >= need, fmt.Sprintf("concurrency %d (%s)", c, ratioCell(ra)))
		fmt.Fprintf(cfg.out, "| %s |\n", strings.Join(row, " | "))
	}
	fmt.Fprintln(cfg.out)
	v.print(cfg.out, fmt.Sprintf("HTTP req/s ≥ %.2f × ReverseProxy in ≥ %d of %d runs", minHTTP, need, cfg.runs))
	return nil
}

// load runs conc clients against endpoint, each with its own session,
// and returns the calls completed per second over d.
func load(endpoint string, conc int, d time.Duration) (float64, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConns: 4 * conc, MaxIdleConnsPerHost: 4 * conc}}
	defer client.CloseIdleConnections()
	var (
		ready, done sync.WaitGroup
		start       = make(chan struct{})
		stop        atomic.Bool
		calls       atomic.Int64
		errOnce     sync.Once
		firstErr    error
	)
	fail := func(err error) { errOnce.Do(func() { firstErr = err }) }
	for range conc {
		ready.Add(1)
		done.Add(1)
		go func() {
			defer done.Done()
			s, err := newSession(client, endpoint)
			for i := 0; err == nil && i < 5; i++ { // warm: connections, the proxy's listing
				err = s.call()
			}
			ready.Done()
			if err != nil {
				fail(err)
				return
			}
			defer s.end()
			<-start
			for !stop.Load() {
				if err := s.call(); err != nil {
					fail(err)
					return
				}
				if !stop.Load() {
					calls.Add(1)
				}
			}
		}()
	}
	ready.Wait()
	if firstErr != nil {
		stop.Store(true)
		close(start)
		done.Wait()
		return 0, firstErr
	}
	close(start)
	time.Sleep(d)
	stop.Store(true)
	n := calls.Load()
	done.Wait()
	if firstErr != nil {
		return 0, firstErr
	}
	return float64(n) / d.Seconds(), nil
}

// session is one client's MCP session over Streamable HTTP.
type session struct {
	client   *http.Client
	endpoint string
	id       string
	next     int
}

func newSession(client *http.Client, endpoint string) (*session, error) {
	s := &session{client: client, endpoint: endpoint}
	resp, body, err := s.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench/relay","version":"1"}}}`)
	if err != nil {
		return nil, err
	}
	if !bytes.Contains(body, []byte(`"protocolVersion"`)) {
		return nil, fmt.Errorf("initialize: %.300s", body)
	}
	s.id = resp.Header.Get("Mcp-Session-Id")
	if _, _, err := s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	return s, nil
}

// call makes one valid tools/call and checks its answer.
func (s *session) call() error {
	s.next++
	_, body, err := s.post(`{"jsonrpc":"2.0","id":` + strconv.Itoa(s.next) + `,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/tmp/out.txt","content":"hello"}}}`)
	if err != nil {
		return err
	}
	if !bytes.Contains(body, []byte(`wrote 5 bytes`)) {
		return fmt.Errorf("tools/call: %.300s", body)
	}
	return nil
}

func (s *session) post(body string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, s.endpoint, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("POST %.60s: %w", body, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("POST %.60s: HTTP %d, reading the body: %w", body, resp.StatusCode, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, nil, fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, b)
	}
	return resp, b, nil
}

// end closes the session (DELETE), so that the server does not keep it.
func (s *session) end() {
	req, err := http.NewRequest(http.MethodDelete, s.endpoint, nil)
	if err != nil || s.id == "" {
		return
	}
	req.Header.Set("Mcp-Session-Id", s.id)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	if resp, err := s.client.Do(req); err == nil {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}
