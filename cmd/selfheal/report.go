package main

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"html/template"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// maxReportLine bounds a line of a call log: the proxy's lines are a few
// hundred bytes (paths are cut); a longer one is not the proxy's, and is
// skipped as corrupt without being held whole.
const maxReportLine = 1 << 20

// reportTop is how many fields and codes the report lists.
const reportTop = 10

// report is `selfheal report`: it reads call logs (selfheal proxy --log)
// and says, per tool and in total, whether selfheal's answers repair calls.
func report(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print the report as JSON")
	htmlPath := fs.String("html", "", "also write the report as a self-contained HTML page to `FILE`")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal report: "+format+"\n", a...)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		return parseError(err, fs, "usage: selfheal report [--json] [--html FILE] LOG...", stdout, fail)
	}
	if fs.NArg() == 0 {
		return fail("name at least one call log (selfheal proxy --log FILE; rotated ones too, gzipped or not)")
	}
	var r logReport
	r.init()
	for _, name := range fs.Args() {
		if err := r.readFile(name); err != nil {
			return fail("%s", oneLine(err))
		}
	}
	if r.Corrupt > 0 {
		fmt.Fprintf(stderr, "selfheal report: skipped %d lines that are not the call log's (the first: %s)\n", r.Corrupt, r.firstCorrupt)
	}
	sum := r.summary()
	if *htmlPath != "" {
		var b bytes.Buffer
		if err := writeReportHTML(&b, sum); err != nil {
			return fail("%s", oneLine(err))
		}
		if err := os.WriteFile(*htmlPath, b.Bytes(), 0o644); err != nil {
			return fail("%s", oneLine(err))
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return fail("%s", oneLine(err))
		}
		return exitValid
	}
	writeReportText(stdout, sum)
	return exitValid
}

// reportLine is a line of the call log as the proxy writes it (see
// proxy.WithCallLog): an answer, a settlement of one, or a tally.
type reportLine struct {
	Time      string           `json:"time"`
	ID        string           `json:"id"`
	Of        string           `json:"of"`
	Tool      string           `json:"tool"`
	Codes     []string         `json:"codes"`
	Paths     []string         `json:"paths"`
	Answer    string           `json:"answer"`
	Disagreed bool             `json:"disagreed"`
	Outcome   string           `json:"outcome"`
	Attempt   int              `json:"attempt"`
	Calls     map[string]int64 `json:"calls"`
}

// toolReport is the figures of one tool, or of all (Tool "").
type toolReport struct {
	Tool string `json:"tool,omitempty"`
	// Calls are the calls the proxy checked (from the log's tallies);
	// answers to bad calls are among them.
	Calls int64 `json:"calls"`
	// Bad are the calls answered with a validation_error.
	Bad int64 `json:"bad_calls"`
	// Refused are the calls the guards refused (SERVER_BUSY, RATE_LIMITED).
	Refused int64 `json:"refused,omitempty"`
	// RepairedIn[n-1] are the repairs that took n retries (the last
	// counts n >= 3).
	RepairedIn [3]int64 `json:"repaired_in_retries"`
	// FailedSame and FailedOther are the answers whose retry was answered
	// again, on the same fields or on others.
	FailedSame  int64 `json:"failed_again_same_fields"`
	FailedOther int64 `json:"failed_again_other_fields"`
	Abandoned   int64 `json:"abandoned"`
	// Open are the answers the logs read hold no settlement of (the
	// proxy was still waiting for the next call, or the log was cut).
	Open int64 `json:"open"`
	// Disagreements are the calls the server accepted against the schema.
	Disagreements int64 `json:"schema_disagreements,omitempty"`
	// RepairRate is repaired / (repaired + abandoned): of the calls a model
	// got wrong and then either got right or gave up, the part it got
	// right; -1 when there is none.
	RepairRate float64 `json:"repair_rate"`
}

func (t *toolReport) repaired() int64 { return t.RepairedIn[0] + t.RepairedIn[1] + t.RepairedIn[2] }

// counted is a name and how often it came.
type counted struct {
	Name  string `json:"name"`
	Count int64  `json:"count"`
}

// reportSummary is what the report says.
type reportSummary struct {
	Files int    `json:"files"`
	Lines int64  `json:"lines"`
	From  string `json:"from,omitempty"`
	To    string `json:"to,omitempty"`
	// Corrupt are the lines skipped: not JSON, cut short, or not a line
	// the proxy writes.
	Corrupt int64        `json:"corrupt_lines"`
	Tools   []toolReport `json:"tools"`
	Total   toolReport   `json:"total"`
	// Fields are the fields most often wrong, as "tool field"; Codes the
	// issue codes.
	Fields []counted `json:"fields"`
	Codes  []counted `json:"codes"`
	// Disagreements are the tools whose server accepted calls their
	// schema calls bad, with how many.
	Disagreements []counted `json:"schema_disagreements"`
}

// logReport accumulates the lines of the logs read.
type logReport struct {
	files          int
	Lines, Corrupt int64
	firstCorrupt   string
	from, to       time.Time
	tools          map[string]*toolReport
	fields, codes  map[string]int64
	// open are the answers not settled yet, by id, with their tool.
	open map[string]string
	// early are the settlements read before their answer (a newer log
	// named before an older one), by id.
	early map[string]bool
}

func (r *logReport) init() {
	r.tools = map[string]*toolReport{}
	r.fields = map[string]int64{}
	r.codes = map[string]int64{}
	r.open = map[string]string{}
	r.early = map[string]bool{}
}

// readFile reads one log, gzipped or not (by its first bytes, not its
// name: logrotate's .1 and .2.gz alike).
func (r *logReport) readFile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	var in io.Reader = br
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		defer zr.Close()
		in = zr
	}
	r.files++
	return r.read(name, in)
}

// read reads the lines of one log. A line that cannot be read as the
// proxy's is counted and skipped; a gzip stream cut short ends the file
// the same way, since a log being rotated is often read as it is written.
func (r *logReport) read(name string, in io.Reader) error {
	br := bufio.NewReaderSize(in, 64<<10)
	var n int
	var long bool // within a line longer than maxReportLine
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 && !long {
			buf = append(buf, chunk...)
			if len(buf) > maxReportLine {
				long, buf = true, buf[:0]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) > 0 || len(buf) > 0 || long {
			n++
			r.Lines++
			if long || !r.line(bytes.TrimSpace(buf)) {
				r.corrupt(name, n)
			}
			long, buf = false, buf[:0]
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) {
				r.corrupt(name, n+1)
				return nil
			}
			return fmt.Errorf("%s: %w", name, err)
		}
	}
}

func (r *logReport) corrupt(name string, n int) {
	r.Corrupt++
	if r.firstCorrupt == "" {
		r.firstCorrupt = fmt.Sprintf("%s:%d", name, n)
	}
}

// line counts one line; false when it is not one the proxy writes.
func (r *logReport) line(data []byte) bool {
	if len(data) == 0 {
		return true // a blank line says nothing
	}
	var l reportLine
	if json.Unmarshal(data, &l) != nil {
		return false
	}
	at, err := time.Parse(time.RFC3339Nano, l.Time)
	if err != nil {
		return false
	}
	switch {
	case l.Calls != nil:
		for tool, n := range l.Calls {
			r.tool(tool).Calls += n
		}
	case l.Of != "" && l.Tool != "":
		t := r.tool(l.Tool)
		switch l.Outcome {
		case "repaired":
			t.RepairedIn[min(max(l.Attempt, 1), 3)-1]++
		case "failed_same":
			t.FailedSame++
		case "failed_other":
			t.FailedOther++
		case "abandoned":
			t.Abandoned++
		default:
			return false
		}
		if _, ok := r.open[l.Of]; ok {
			delete(r.open, l.Of)
		} else {
			r.early[l.Of] = true
		}
	case l.Answer == "validation_error" && l.Tool != "":
		t := r.tool(l.Tool)
		t.Bad++
		for _, c := range l.Codes {
			r.codes[c]++
		}
		for _, p := range l.Paths {
			r.fields[l.Tool+" "+p]++
		}
		if l.ID != "" {
			if r.early[l.ID] {
				delete(r.early, l.ID)
			} else {
				r.open[l.ID] = l.Tool
			}
		}
	case l.Answer == "accepted" && l.Disagreed && l.Tool != "":
		r.tool(l.Tool).Disagreements++
	case l.Answer != "" && l.Tool != "":
		r.tool(l.Tool).Refused++
	default:
		return false
	}
	if r.from.IsZero() || at.Before(r.from) {
		r.from = at
	}
	if at.After(r.to) {
		r.to = at
	}
	return true
}

func (r *logReport) tool(name string) *toolReport {
	t := r.tools[name]
	if t == nil {
		t = &toolReport{Tool: name}
		r.tools[name] = t
	}
	return t
}

// summary is the report of what was read: the tools by name, the fields
// and codes most often wrong first.
func (r *logReport) summary() reportSummary {
	for _, tool := range r.open {
		r.tool(tool).Open++
	}
	s := reportSummary{Files: r.files, Lines: r.Lines, Corrupt: r.Corrupt}
	if !r.from.IsZero() {
		s.From = r.from.UTC().Format(time.RFC3339)
		s.To = r.to.UTC().Format(time.RFC3339)
	}
	s.Tools = []toolReport{}
	for _, t := range r.tools {
		s.Total.Calls += t.Calls
		s.Total.Bad += t.Bad
		s.Total.Refused += t.Refused
		for i := range t.RepairedIn {
			s.Total.RepairedIn[i] += t.RepairedIn[i]
		}
		s.Total.FailedSame += t.FailedSame
		s.Total.FailedOther += t.FailedOther
		s.Total.Abandoned += t.Abandoned
		s.Total.Open += t.Open
		s.Total.Disagreements += t.Disagreements
		t.RepairRate = rate(t.repaired(), t.Abandoned)
		s.Tools = append(s.Tools, *t)
		if t.Disagreements > 0 {
			s.Disagreements = append(s.Disagreements, counted{t.Tool, t.Disagreements})
		}
	}
	s.Total.RepairRate = rate(s.Total.repaired(), s.Total.Abandoned)
	slices.SortFunc(s.Tools, func(a, b toolReport) int { return strings.Compare(a.Tool, b.Tool) })
	s.Fields = top(r.fields)
	s.Codes = top(r.codes)
	s.Disagreements = top(toMap(s.Disagreements))
	return s
}

func rate(repaired, abandoned int64) float64 {
	if repaired+abandoned == 0 {
		return -1
	}
	return float64(repaired) / float64(repaired+abandoned)
}

func toMap(cs []counted) map[string]int64 {
	m := make(map[string]int64, len(cs))
	for _, c := range cs {
		m[c.Name] = c.Count
	}
	return m
}

// top returns the reportTop names of m counted most, most first (by name
// among equals).
func top(m map[string]int64) []counted {
	out := make([]counted, 0, len(m))
	for name, n := range m {
		out = append(out, counted{name, n})
	}
	slices.SortFunc(out, func(a, b counted) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), strings.Compare(a.Name, b.Name))
	})
	return out[:min(len(out), reportTop)]
}

// percent writes a rate for a reader: "-" for none.
func percent(rate float64) string {
	if rate < 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", rate*100)
}

// writeReportText writes the report for a terminal.
func writeReportText(w io.Writer, s reportSummary) {
	fmt.Fprintf(w, "%d lines in %d files", s.Lines, s.Files)
	if s.From != "" {
		from, _ := time.Parse(time.RFC3339, s.From)
		to, _ := time.Parse(time.RFC3339, s.To)
		fmt.Fprintf(w, ", %s to %s (%s)", s.From, s.To, to.Sub(from))
	}
	if s.Corrupt > 0 {
		fmt.Fprintf(w, "; %d skipped", s.Corrupt)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "Bad calls answered, and how the session's next call of the tool settled each: repaired after")
	fmt.Fprintln(w, "1, 2, 3+ retries, answered again (same fields, other fields), abandoned, or not settled yet (open).")
	fmt.Fprintln(w, "Repair rate: repaired / (repaired + abandoned).")
	fmt.Fprintln(w)
	// Repaired after 1, 2, 3+ retries; answered again on the same fields,
	// on others; abandoned; not settled yet.
	fmt.Fprintln(tw, "tool\tcalls\tbad\trepaired:1\t2\t3+\tagain:same\tother\tabandoned\topen\trepair rate\t")
	row := func(name string, t toolReport) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t\n", name, t.Calls, t.Bad,
			t.RepairedIn[0], t.RepairedIn[1], t.RepairedIn[2], t.FailedSame, t.FailedOther, t.Abandoned, t.Open, percent(t.RepairRate))
	}
	for _, t := range s.Tools {
		row(t.Tool, t)
	}
	row("total", s.Total)
	tw.Flush()
	list := func(title string, cs []counted) {
		if len(cs) == 0 {
			return
		}
		fmt.Fprintf(w, "\n%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range cs {
			fmt.Fprintf(tw, "  %s\t%d\n", c.Name, c.Count)
		}
		tw.Flush()
	}
	list("fields most often wrong (tool field, answers):", s.Fields)
	list("issue codes most often found:", s.Codes)
	list("schema and server disagree: the server accepted calls its schema calls bad (tool, calls):", s.Disagreements)
	if s.Total.Refused > 0 {
		fmt.Fprintf(w, "\n%d calls refused by the guards (SERVER_BUSY, RATE_LIMITED)\n", s.Total.Refused)
	}
}

// reportPage is the HTML report: one file, its style inline, no script.
// html/template escapes every name (a tool's name is the server's).
var reportPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"percent": percent,
	"width": func(n, of int64) string {
		if of <= 0 {
			return "0%"
		}
		return fmt.Sprintf("%.1f%%", float64(n)*100/float64(of))
	},
	"add":  func(a, b int64) int64 { return a + b },
	"add3": func(n [3]int64) int64 { return n[0] + n[1] + n[2] },
	"maxCount": func(cs []counted) int64 {
		if len(cs) == 0 {
			return 0
		}
		return cs[0].Count
	},
}).Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8"/>
<title>selfheal report</title>
<style>
body{font:14px system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin-bottom:2em}
td,th{padding:.25em .6em;text-align:right;border-bottom:1px solid #ddd}
td:first-child,th:first-child{text-align:left}
.bar{display:flex;width:24em;height:1em;background:#eee}
.bar span{display:block;height:100%}
.repaired{background:#2a9d4a}.failed{background:#e9a23b}.abandoned{background:#c0392b}.open{background:#999}
.count{background:#3b6fb6}
</style>
</head>
<body>
<h1>selfheal report</h1>
<p id="span">{{.Lines}} lines in {{.Files}} files{{if .From}}, {{.From}} to {{.To}}{{end}}{{if .Corrupt}}; {{.Corrupt}} skipped{{end}}</p>
<h2>Answers to bad calls, by how they settled</h2>
<p><span class="bar" style="display:inline-flex;width:1em"><span class="repaired" style="width:100%"></span></span> repaired
<span class="bar" style="display:inline-flex;width:1em"><span class="failed" style="width:100%"></span></span> failed again
<span class="bar" style="display:inline-flex;width:1em"><span class="abandoned" style="width:100%"></span></span> abandoned
<span class="bar" style="display:inline-flex;width:1em"><span class="open" style="width:100%"></span></span> open</p>
<table id="tools">
<tr><th>tool</th><th>calls</th><th>bad</th><th>repaired in 1</th><th>in 2</th><th>in 3+</th><th>failed again</th><th>abandoned</th><th>open</th><th>repair rate</th><th></th></tr>
{{range .Tools}}{{template "row" .}}{{end}}{{template "row" .Total}}
</table>
{{define "row"}}<tr class="tool" data-tool="{{.Tool}}"><td>{{if .Tool}}{{.Tool}}{{else}}total{{end}}</td><td>{{.Calls}}</td><td>{{.Bad}}</td><td>{{index .RepairedIn 0}}</td><td>{{index .RepairedIn 1}}</td><td>{{index .RepairedIn 2}}</td><td>{{.FailedSame}} + {{.FailedOther}}</td><td>{{.Abandoned}}</td><td>{{.Open}}</td><td>{{percent .RepairRate}}</td>
<td><div class="bar">{{$all := .Bad}}{{$r := add3 .RepairedIn}}<span class="repaired" style="width:{{width $r $all}}"></span><span class="failed" style="width:{{width (add .FailedSame .FailedOther) $all}}"></span><span class="abandoned" style="width:{{width .Abandoned $all}}"></span><span class="open" style="width:{{width .Open $all}}"></span></div></td></tr>
{{end}}
{{with .Fields}}<h2>Fields most often wrong</h2>
<table id="fields">{{$m := maxCount .}}{{range .}}<tr><td>{{.Name}}</td><td>{{.Count}}</td><td><div class="bar"><span class="count" style="width:{{width .Count $m}}"></span></div></td></tr>
{{end}}</table>{{end}}
{{with .Codes}}<h2>Issue codes most often found</h2>
<table id="codes">{{$m := maxCount .}}{{range .}}<tr><td>{{.Name}}</td><td>{{.Count}}</td><td><div class="bar"><span class="count" style="width:{{width .Count $m}}"></span></div></td></tr>
{{end}}</table>{{end}}
{{with .Disagreements}}<h2>Schema and server disagree</h2>
<p>The server accepted calls its schema calls bad: the schema is stricter than the server.</p>
<table id="disagreements">{{range .}}<tr><td>{{.Name}}</td><td>{{.Count}}</td></tr>
{{end}}</table>{{end}}
</body>
</html>
`))

// writeReportHTML writes the report as one self-contained HTML page.
func writeReportHTML(w io.Writer, s reportSummary) error {
	return reportPage.Execute(w, s)
}
