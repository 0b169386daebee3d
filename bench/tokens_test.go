package bench

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// tokenBudget is the most a failed call's whole answer may cost, in o200k
// tokens, on average over the golden failed calls. The model reads every
// answer and pays for it on every later turn, so this is held like a speed
// budget; a token count is deterministic, so it is a plain assertion.
const tokenBudget = 110

// callGoldenDirs are where the project's golden failed calls live: whole
// answers of the MCP integrations, the example server and the command line.
var callGoldenDirs = []string{
	"../examples/mcpserver/testdata",
	"../mcp/mcpgo/testdata",
	"../mcp/gosdk/testdata",
	"../cmd/selfheal/testdata",
}

// validationBlock finds each whole validation_error answer in a golden file:
// envelope, field lines and recovery.
var validationBlock = regexp.MustCompile(`(?s)<validation_error[^>\n]*>\n.*?</validation_error>`)

// contractSection is the optional contract_awareness section, which only a
// server given a lockfile sends and whose words are the contract diff's, not
// the formatter's; it is counted apart from the budget.
var contractSection = regexp.MustCompile(`(?s)\n *<contract_awareness[ >].*?</contract_awareness>`)

type call struct {
	name string // golden file, relative to the repository root
	text string
}

// goldenCalls returns every distinct validation_error answer in the golden
// files, in file order. An answer written twice (the same failure through
// two transports) counts once.
func goldenCalls(t testing.TB) []call {
	t.Helper()
	seen := map[string]bool{}
	var out []call
	for _, dir := range callGoldenDirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".golden") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for i, m := range validationBlock.FindAllString(string(b), -1) {
				if seen[m] {
					continue
				}
				seen[m] = true
				name := strings.TrimPrefix(path, "../")
				if i > 0 {
					name += fmt.Sprintf("#%d", i+1)
				}
				out = append(out, call{name, m})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatal("no golden validation_error answer found")
	}
	return out
}

func o200k(t testing.TB) tokenizer.Codec {
	t.Helper()
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func countTokens(t testing.TB, enc tokenizer.Codec, s string) int {
	t.Helper()
	n, err := enc.Count(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestTokens counts the o200k tokens (GPT-4o's vocabulary, embedded in the
// tokenizer library: nothing is downloaded) of every golden failed call and
// of every golden field line, and fails when the average call goes over
// tokenBudget. With -v it prints the report the README's speed section
// quotes:
//
//	go test -run TestTokens -v ./bench
func TestTokens(t *testing.T) {
	enc := o200k(t)

	calls := goldenCalls(t)
	var sumTok, sumBytes, fieldTok, fields, envTok int
	var lang = map[bool][2]int{} // ja → tokens, calls
	var contractTok, contractCalls int
	for _, c := range calls {
		if cs := contractSection.FindString(c.text); cs != "" {
			contractTok += countTokens(t, enc, cs)
			contractCalls++
			c.text = strings.Replace(c.text, cs, "", 1)
		}
		n := countTokens(t, enc, c.text)
		sumTok += n
		sumBytes += len(c.text)
		ja := strings.Contains(c.text, "。")
		l := lang[ja]
		lang[ja] = [2]int{l[0] + n, l[1] + 1}
		lines := strings.Split(c.text, "\n")
		inFields := 0
		for _, ln := range lines {
			if strings.HasPrefix(strings.TrimSpace(ln), "<field ") {
				inFields += countTokens(t, enc, ln+"\n")
				fields++
			}
		}
		fieldTok += inFields
		envTok += n - inFields
		t.Logf("call %-62s %5d bytes %4d tokens", c.name, len(c.text), n)
	}
	avg := float64(sumTok) / float64(len(calls))
	t.Logf("%d golden failed calls: %.1f tokens and %.0f bytes per call on average; %.1f tokens per field line (%d lines), %.1f per call of envelope and recovery",
		len(calls), avg, float64(sumBytes)/float64(len(calls)), float64(fieldTok)/float64(fields), fields, float64(envTok)/float64(len(calls)))
	if contractCalls > 0 {
		t.Logf("  not counted above: the contract_awareness sections of %d calls, %.1f tokens each", contractCalls, float64(contractTok)/float64(contractCalls))
	}
	for _, ja := range []bool{false, true} {
		if l := lang[ja]; l[1] > 0 {
			name := "en"
			if ja {
				name = "ja"
			}
			t.Logf("  %s: %d calls, %.1f tokens per call", name, l[1], float64(l[0])/float64(l[1]))
		}
	}

	// Per code: the formatter's golden lines, one per case, named
	// code.variant; the code is the name up to the first dot.
	for _, file := range []string{"lines.en.golden", "lines.ja.golden"} {
		type agg struct{ lines, bytes, tokens int }
		by := map[string]*agg{}
		f, err := os.Open(filepath.Join("../internal/formatter/testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		var all agg
		for sc.Scan() {
			parts := strings.SplitN(sc.Text(), "\t", 3)
			if len(parts) != 3 {
				continue
			}
			code, _, _ := strings.Cut(parts[0], ".")
			a := by[code]
			if a == nil {
				a = &agg{}
				by[code] = a
			}
			n := countTokens(t, enc, parts[2])
			a.lines++
			a.bytes += len(parts[2])
			a.tokens += n
			all.lines++
			all.bytes += len(parts[2])
			all.tokens += n
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		codes := make([]string, 0, len(by))
		for c := range by {
			codes = append(codes, c)
		}
		sort.Strings(codes)
		t.Logf("internal/formatter/testdata/%s: %d lines, %.1f bytes and %.1f tokens per line (the line's text, without its <field> tag)",
			file, all.lines, float64(all.bytes)/float64(all.lines), float64(all.tokens)/float64(all.lines))
		for _, c := range codes {
			a := by[c]
			t.Logf("  %-18s %3d lines %6.1f bytes %5.1f tokens per line", c, a.lines, float64(a.bytes)/float64(a.lines), float64(a.tokens)/float64(a.lines))
		}
	}

	if avg > tokenBudget {
		t.Errorf("a golden failed call costs %.1f o200k tokens on average, over the budget of %d", avg, tokenBudget)
	}
}
