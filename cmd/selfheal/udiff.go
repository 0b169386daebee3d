package main

import (
	"fmt"
	"strings"
)

// unifiedDiff returns the difference of a and b as a unified diff (diff -u,
// three lines of context), headed "--- name" and "+++ name (new)", or ""
// when they are equal. The lines that both files start and end with are
// matched first; the lines between are matched by a longest common
// subsequence, or when there are too many of them for its table (a
// configuration rewritten whole) shown as removed, then added.
func unifiedDiff(name string, a, b []byte) string {
	x, y := splitLines(string(a)), splitLines(string(b))
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	if pre == len(x) && pre == len(y) {
		return ""
	}
	// ops: ' ' kept, '-' removed, '+' added, with the line.
	type op struct {
		kind byte
		line string
	}
	var ops []op
	for _, l := range x[:pre] {
		ops = append(ops, op{' ', l})
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	if len(mx)*len(my) <= 1<<22 {
		// lcs[i][j]: the length of the longest common subsequence of
		// mx[i:] and my[j:].
		lcs := make([][]int32, len(mx)+1)
		for i := range lcs {
			lcs[i] = make([]int32, len(my)+1)
		}
		for i := len(mx) - 1; i >= 0; i-- {
			for j := len(my) - 1; j >= 0; j-- {
				if mx[i] == my[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		i, j := 0, 0
		for i < len(mx) || j < len(my) {
			switch {
			case i < len(mx) && j < len(my) && mx[i] == my[j]:
				ops = append(ops, op{' ', mx[i]})
				i, j = i+1, j+1
			case j == len(my) || (i < len(mx) && lcs[i+1][j] >= lcs[i][j+1]):
				ops = append(ops, op{'-', mx[i]})
				i++
			default:
				ops = append(ops, op{'+', my[j]})
				j++
			}
		}
	} else {
		for _, l := range mx {
			ops = append(ops, op{'-', l})
		}
		for _, l := range my {
			ops = append(ops, op{'+', l})
		}
	}
	for _, l := range x[len(x)-suf:] {
		ops = append(ops, op{' ', l})
	}

	const context = 3
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s (new)\n", name, name)
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: from context lines before this change to context lines
		// after the last change that is closer than 2*context to the next.
		start := max(0, k-context)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*context {
				end = min(len(ops), end+context)
				break
			}
			end = run
		}
		// Line numbers: count the lines of each side before start.
		ax, by := 1, 1
		for _, o := range ops[:start] {
			if o.kind != '+' {
				ax++
			}
			if o.kind != '-' {
				by++
			}
		}
		na, nb := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		if na == 0 {
			ax--
		}
		if nb == 0 {
			by--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", ax, na, by, nb)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(o.line)
			if !strings.HasSuffix(o.line, "\n") {
				out.WriteString("\n\\ No newline at end of file\n")
			}
		}
		k = end
	}
	return out.String()
}

// splitLines splits s after each newline; the last line may lack one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
