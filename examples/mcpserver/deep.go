package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/issues"
)

// goSDKMaxDepth is go-sdk v1.8.0's nesting limit for a whole JSON-RPC
// message (defaultMaxDepth in its internal/json package): objects and
// arrays nested deeper fail to decode, the connection's Read returns the
// error, and go-sdk ends the session. A tool's arguments sit 3 levels down
// ({"params": {"arguments": {…}}}), so arguments deeper than 997 levels
// end the session before any handler, and selfheal's own limit (64), see
// them.
const goSDKMaxDepth = 1000

// maxLine bounds the bytes held while a message is checked: go-sdk's own
// bound on one frame. A longer line is passed on as it is, and go-sdk
// refuses it.
const maxLine = mcp.DefaultMaxLineLength

// stdioTransport returns the transport the server runs on: go-sdk's
// newline-delimited JSON over in and out, with the messages go-sdk would
// refuse for their depth answered here instead, so that one hostile
// message does not end the session:
//
//   - a tools/call is answered with a validation_error (isError true) that
//     refuses the arguments for their depth, worded by engine, as the tool
//     would have answered them under its own limit;
//   - any other request gets a JSON-RPC error (Invalid Request) with its id;
//   - what cannot be answered (a notification, a batch, a request without
//     a usable id) is dropped.
//
// Each is logged. Every other message reaches go-sdk byte for byte.
func stdioTransport(in io.Reader, out io.Writer, engine *selfheal.Engine, logger *slog.Logger) mcp.Transport {
	pr, pw := io.Pipe()
	w := &lockedWriter{w: out}
	f := &depthFilter{out: w, engine: engine, logger: logger}
	go f.run(in, pw)
	return &mcp.IOTransport{Reader: pr, Writer: w}
}

// lockedWriter serializes the writes of go-sdk and of the filter: each
// message is written whole by one Write, so none interleaves.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the underlying writer open, as go-sdk does with stdout.
func (l *lockedWriter) Close() error { return nil }

// depthFilter reads messages, one per line, passing them to go-sdk or
// answering those too deep for it.
type depthFilter struct {
	out    io.Writer
	engine *selfheal.Engine
	logger *slog.Logger
}

// run copies in to pw line by line until in ends, then closes pw with the
// read error (none at EOF), which ends go-sdk's session as stdin closing
// does.
func (f *depthFilter) run(in io.Reader, pw *io.PipeWriter) {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case len(line)+len(chunk) > maxLine:
			// Too long to hold: pass it on unchecked, go-sdk bounds it.
			if _, werr := pw.Write(append(line, chunk...)); werr != nil {
				return
			}
			line = line[:0]
			for errors.Is(err, bufio.ErrBufferFull) {
				if chunk, err = r.ReadSlice('\n'); len(chunk) > 0 {
					if _, werr := pw.Write(chunk); werr != nil {
						return
					}
				}
			}
		case errors.Is(err, bufio.ErrBufferFull):
			line = append(line, chunk...)
			continue
		default:
			line = append(line, chunk...)
			if len(line) > 0 {
				if _, deep := issues.CheckDepthJSON(line, goSDKMaxDepth); deep {
					f.answer(line)
				} else if _, werr := pw.Write(line); werr != nil {
					return
				}
			}
			if cap(line) > 1<<20 {
				line = nil // do not keep one huge message's buffer
			} else {
				line = line[:0]
			}
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			pw.CloseWithError(err)
			return
		}
	}
}

// answer answers (or drops) one message too deep for go-sdk.
func (f *depthFilter) answer(msg []byte) {
	id := member(msg, "id")
	var method, tool string
	_ = json.Unmarshal(member(msg, "method"), &method)
	params := member(msg, "params")
	_ = json.Unmarshal(member(params, "name"), &tool)
	log := f.logger.With("method", method, "bytes", len(msg))
	if !validID(id) {
		log.Warn("dropped a message nested deeper than go-sdk's limit of " + strconv.Itoa(goSDKMaxDepth) +
			" levels, which would have ended the session; it has no id to answer")
		return
	}
	var resp []byte
	if is, deep := issues.CheckDepthJSON(member(params, "arguments"), 0); method == "tools/call" && deep {
		text := f.engine.Format(tool, issues.List{is})
		res := map[string]any{
			"content": []any{map[string]any{"type": "text", "text": text}},
			"isError": true,
		}
		// A client of MCP 2026-07-28 (the revision in the request's
		// _meta) refuses a result without its resultType.
		var version string
		_ = json.Unmarshal(member(member(params, "_meta"), "io.modelcontextprotocol/protocolVersion"), &version)
		if version >= "2026-07-28" {
			res["resultType"] = "complete"
		}
		result, _ := json.Marshal(res)
		resp = response(id, "result", result)
		log.Warn("refused a tool call whose arguments nest deeper than go-sdk's limit, which would have ended the session",
			"tool", tool)
	} else {
		e, _ := json.Marshal(map[string]any{"code": -32600,
			"message": "Invalid Request: the message nests objects and arrays deeper than " + strconv.Itoa(goSDKMaxDepth) + " levels"})
		resp = response(id, "error", e)
		log.Warn("refused a request nested deeper than go-sdk's limit, which would have ended the session")
	}
	if _, err := f.out.Write(resp); err != nil {
		f.logger.Error("cannot answer a message too deep for go-sdk", "error", err)
	}
}

// response writes a JSON-RPC response line with id as sent.
func response(id json.RawMessage, kind string, body []byte) []byte {
	b := []byte(`{"jsonrpc":"2.0","id":`)
	b = append(b, id...)
	b = append(b, `,"`...)
	b = append(b, kind...)
	b = append(b, `":`...)
	b = append(b, body...)
	return append(b, "}\n"...)
}

// validID reports whether id is a JSON-RPC request id: a string or an
// integer, short enough to send back.
func validID(id []byte) bool {
	if len(id) == 0 || len(id) > 256 {
		return false
	}
	if id[0] == '"' {
		var s string
		return json.Unmarshal(id, &s) == nil
	}
	_, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil
}

// member returns the raw value of key in the JSON object obj, or nil. It
// reads only the object's own members, skipping nested values by counting
// brackets, so it works at any depth (encoding/json stops at 10,000) and
// in one pass. The first occurrence of a repeated key wins.
func member(obj []byte, key string) json.RawMessage {
	obj = bytes.TrimSpace(obj)
	if len(obj) == 0 || obj[0] != '{' {
		return nil
	}
	i := 1
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return nil
		}
		end := skipString(obj, i)
		var k string
		if json.Unmarshal(obj[i:end], &k) != nil {
			return nil
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return nil
		}
		start := skipSpace(obj, i+1)
		i = skipValue(obj, start)
		if k == key {
			return bytes.TrimSpace(obj[start:i])
		}
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != ',' {
			return nil
		}
		i++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the offset after the string starting at b[i] == '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the offset after the value starting at b[i]: at the
// ',' or '}' that ends it at the level it started.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '"':
			i = skipString(b, i)
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}
