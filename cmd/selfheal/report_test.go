package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log as the proxy writes it: two sessions' answers and their
// settlements, a guard's refusal, a disagreement and tallies.
const reportLog = `{"time":"2026-01-02T15:04:05.000Z","id":"aa-1","tool":"write_file","codes":["invalid_type"],"paths":["content"],"answer":"validation_error"}
{"time":"2026-01-02T15:04:06.000Z","of":"aa-1","tool":"write_file","outcome":"failed_same","attempt":1,"after_ms":1000}
{"time":"2026-01-02T15:04:06.000Z","id":"aa-2","tool":"write_file","codes":["invalid_type"],"paths":["content"],"answer":"validation_error"}
{"time":"2026-01-02T15:04:08.000Z","of":"aa-2","tool":"write_file","outcome":"repaired","attempt":2,"after_ms":2000}
{"time":"2026-01-02T15:05:00.000Z","id":"aa-3","tool":"edit_file","codes":["too_small","invalid_type"],"paths":["path","edits"],"answer":"validation_error"}
{"time":"2026-01-02T15:05:01.000Z","of":"aa-3","tool":"edit_file","outcome":"repaired","attempt":1,"after_ms":1000}
{"time":"2026-01-02T15:06:00.000Z","id":"aa-4","tool":"edit_file","codes":["invalid_type"],"paths":["edits"],"answer":"validation_error"}
{"time":"2026-01-02T15:11:00.000Z","of":"aa-4","tool":"edit_file","outcome":"abandoned","attempt":1,"after_ms":300000}
{"time":"2026-01-02T15:12:00.000Z","tool":"write_file","answer":"SERVER_BUSY"}
{"time":"2026-01-02T15:12:30.000Z","tool":"search","codes":["invalid_format"],"paths":["since"],"answer":"accepted","disagreed":true}
{"time":"2026-01-02T15:13:00.000Z","id":"aa-5","tool":"write_file","codes":["unrecognized_keys"],"paths":["(root)"],"answer":"validation_error"}
{"time":"2026-01-02T15:14:00.000Z","calls":{"write_file":40,"edit_file":10,"search":5}}
`

func runReport(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"report"}, args...), nil, &out, &errOut)
	return out.String(), errOut.String(), code
}

func writeLog(t *testing.T, dir, name, text string, gz bool) string {
	t.Helper()
	path := filepath.Join(dir, name)
	data := []byte(text)
	if gz {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(data)
		zw.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func reportJSON(t *testing.T, args ...string) (reportSummary, string) {
	t.Helper()
	out, errOut, code := runReport(t, append([]string{"--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s reportSummary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return s, errOut
}

func TestReportJSON(t *testing.T) {
	path := writeLog(t, t.TempDir(), "calls.log", reportLog, false)
	s, warn := reportJSON(t, path)
	if warn != "" {
		t.Errorf("warning: %s", warn)
	}
	got, _ := json.Marshal(s)
	want := `{"files":1,"lines":12,"from":"2026-01-02T15:04:05Z","to":"2026-01-02T15:14:00Z","corrupt_lines":0,` +
		`"tools":[{"tool":"edit_file","calls":10,"bad_calls":2,"repaired_in_retries":[1,0,0],"failed_again_same_fields":0,"failed_again_other_fields":0,"abandoned":1,"open":0,"repair_rate":0.5},` +
		`{"tool":"search","calls":5,"bad_calls":0,"repaired_in_retries":[0,0,0],"failed_again_same_fields":0,"failed_again_other_fields":0,"abandoned":0,"open":0,"schema_disagreements":1,"repair_rate":-1},` +
		`{"tool":"write_file","calls":40,"bad_calls":3,"refused":1,"repaired_in_retries":[0,1,0],"failed_again_same_fields":1,"failed_again_other_fields":0,"abandoned":0,"open":1,"repair_rate":1}],` +
		`"total":{"calls":55,"bad_calls":5,"refused":1,"repaired_in_retries":[1,1,0],"failed_again_same_fields":1,"failed_again_other_fields":0,"abandoned":1,"open":1,"schema_disagreements":1,"repair_rate":0.6666666666666666},` +
		`"fields":[{"name":"edit_file edits","count":2},{"name":"write_file content","count":2},{"name":"edit_file path","count":1},{"name":"write_file (root)","count":1}],` +
		`"codes":[{"name":"invalid_type","count":4},{"name":"too_small","count":1},{"name":"unrecognized_keys","count":1}],` +
		`"schema_disagreements":[{"name":"search","count":1}]}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// Rotated logs: the newer one named first, gzipped or not by content;
// an answer in the older file settled in the newer one is not open.
func TestReportRotated(t *testing.T) {
	dir := t.TempDir()
	lines := strings.SplitAfter(reportLog, "\n")
	older := writeLog(t, dir, "calls.log.2.gz", strings.Join(lines[:7], ""), true) // aa-4 answered here…
	newer := writeLog(t, dir, "calls.log.1", strings.Join(lines[7:], ""), false)   // …and abandoned here
	s, _ := reportJSON(t, newer, older)
	whole, _ := reportJSON(t, writeLog(t, dir, "calls.log", reportLog, false))
	whole.Files = 2
	if a, b := fmt.Sprint(s), fmt.Sprint(whole); a != b {
		t.Errorf("rotated:\n%s\nwhole:\n%s", a, b)
	}
}

// Lines that are not the proxy's are counted and skipped, with one
// warning naming the first; the rest is reported. Never a crash.
func TestReportCorrupt(t *testing.T) {
	dir := t.TempDir()
	bad := reportLog +
		"not json\n" +
		`{"time":"2026-01-02T15:15:00.000Z","id":"aa-9","tool":"write_f` + "\n" + // cut mid-line
		`{"time":"yesterday","tool":"x","answer":"validation_error"}` + "\n" +
		`{"time":"2026-01-02T15:15:00.000Z","of":"aa-1","tool":"x","outcome":"exploded"}` + "\n" +
		`{"time":"2026-01-02T15:15:00.000Z"}` + "\n" +
		strings.Repeat("x", maxReportLine+10) + "\n" +
		"\n" +
		`{"time":"2026-01-02T15:16:00.000Z","calls":{"write_file":1}}` // last line without its newline
	path := writeLog(t, dir, "calls.log", bad, false)
	s, warn := reportJSON(t, path)
	if s.Corrupt != 6 || s.Total.Calls != 56 || s.Total.Bad != 5 || s.To != "2026-01-02T15:16:00Z" {
		t.Errorf("corrupt %d, calls %d, bad %d, to %s", s.Corrupt, s.Total.Calls, s.Total.Bad, s.To)
	}
	if want := "selfheal report: skipped 6 lines that are not the call log's (the first: " + path + ":13)\n"; warn != want {
		t.Errorf("warning %q, want %q", warn, want)
	}
	// A gzipped log cut short: what it holds is read, the cut counted.
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(reportLog))
	zw.Close()
	cut := filepath.Join(dir, "cut.gz")
	os.WriteFile(cut, b.Bytes()[:b.Len()-12], 0o644)
	s, warn = reportJSON(t, cut)
	if s.Total.Calls != 55 || s.Corrupt != 1 || warn == "" {
		t.Errorf("cut gzip: calls %d, corrupt %d, warning %q", s.Total.Calls, s.Corrupt, warn)
	}
}

func TestReportUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "selfheal report: name at least one call log (selfheal proxy --log FILE; rotated ones too, gzipped or not)\n"},
		{[]string{"--bogus"}, "selfheal report: flag provided but not defined: -bogus\n"},
		{[]string{"/nonexistent/calls.log"}, "selfheal report: open /nonexistent/calls.log: no such file or directory\n"},
	} {
		_, errOut, code := runReport(t, tc.args...)
		if code != exitUsage || errOut != tc.want {
			t.Errorf("%q: exit %d, %q; want 2, %q", tc.args, code, errOut, tc.want)
		}
	}
}

// The HTML page parses as XML (strictly), holds no script and no link to
// anything, escapes the server's tool names, and draws each tool's bar in
// proportion to its answers.
func TestReportHTML(t *testing.T) {
	dir := t.TempDir()
	log := strings.ReplaceAll(reportLog, `"search"`, `"<script>alert(1)</script>"`)
	page := filepath.Join(dir, "report.html")
	if _, errOut, code := runReport(t, "--html", page, writeLog(t, dir, "calls.log", log, false)); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, never := range []string{"<script", "src=", "href=", "http:", "https:"} {
		if bytes.Contains(data, []byte(never)) {
			t.Errorf("the page holds %q", never)
		}
	}
	// Each row: its tool, its cells' text, and the widths of its bar's
	// segments (repaired, failed again, abandoned, open).
	type row struct {
		tool   string
		cells  []string
		widths []string
	}
	var rows []row
	d := xml.NewDecoder(bytes.NewReader(data))
	d.Strict = true
	var cur *row
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the page is not well-formed: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			attr := map[string]string{}
			for _, a := range tok.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch {
			case tok.Name.Local == "tr" && attr["class"] == "tool":
				rows = append(rows, row{tool: attr["data-tool"]})
				cur = &rows[len(rows)-1]
			case tok.Name.Local == "td" && cur != nil:
				text.Reset()
			case tok.Name.Local == "span" && cur != nil && strings.HasPrefix(attr["style"], "width:"):
				cur.widths = append(cur.widths, strings.TrimPrefix(attr["style"], "width:"))
			}
		case xml.CharData:
			text.Write(tok)
		case xml.EndElement:
			switch {
			case tok.Name.Local == "td" && cur != nil:
				cur.cells = append(cur.cells, strings.TrimSpace(text.String()))
			case tok.Name.Local == "tr":
				cur = nil
			}
		}
	}
	got := fmt.Sprint(rows)
	want := `[{<script>alert(1)</script> [<script>alert(1)</script> 5 0 0 0 0 0 + 0 0 0 - ] [0% 0% 0% 0%]} ` +
		`{edit_file [edit_file 10 2 1 0 0 0 + 0 1 0 50% ] [50.0% 0.0% 50.0% 0.0%]} ` +
		`{write_file [write_file 40 3 0 1 0 1 + 0 0 1 100% ] [33.3% 33.3% 0.0% 33.3%]} ` +
		`{ [total 55 5 1 1 0 1 + 0 1 1 67% ] [40.0% 20.0% 20.0% 20.0%]}]`
	if got != want {
		t.Errorf("rows\n%s\nwant\n%s", got, want)
	}
}

// syntheticLog is a log of n lines as a busy proxy writes them: answers,
// their settlements and tallies, over 50 tools.
func syntheticLog(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() >= 0 && i < n; i += 3 {
		tool := fmt.Sprintf("tool_%d", i%50)
		fmt.Fprintf(&b, `{"time":"2026-01-02T15:%02d:05.000Z","id":"ab-%d","tool":"%s","codes":["invalid_type","too_small"],"paths":["items[0].name","limit"],"answer":"validation_error"}`+"\n", i/1000%60, i, tool)
		fmt.Fprintf(&b, `{"time":"2026-01-02T15:%02d:06.000Z","of":"ab-%d","tool":"%s","outcome":"repaired","attempt":1,"after_ms":1000}`+"\n", i/1000%60, i, tool)
		fmt.Fprintf(&b, `{"time":"2026-01-02T15:%02d:07.000Z","calls":{"%s":12}}`+"\n", i/1000%60, tool)
	}
	return b.Bytes()
}

// BenchmarkReport reads a log of 30,000 lines (go test -bench Report
// ./cmd/selfheal): the report must take well under a second.
func BenchmarkReport(b *testing.B) {
	path := filepath.Join(b.TempDir(), "calls.log")
	if err := os.WriteFile(path, syntheticLog(30_000), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if code := run([]string{"report", path}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatal(code)
		}
	}
}
