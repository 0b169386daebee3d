// Command echoserver is the MCP server of the relay benchmark
// (bench/relay): the same process sits behind the proxy, the relay floor
// and nothing, so that what differs between them is the middle.
//
// Over stdio (the default) it serves newline-delimited JSON-RPC with two
// tools:
//
//   - write_file {path: string, content: string} answers a short result,
//     or, when path or content is not a string, a JSON-RPC -32602 error as
//     TypeScript SDK servers do (so that the proxy's default mode has a
//     rejection to explain);
//   - read {size: integer} answers a result object of exactly size bytes.
//
// It reads only what it needs of a message (its id, method, tool name and
// the types of the arguments' members), skipping strings at memchr speed,
// so that its own cost stays small beside the middle's at every size.
//
// With -http ADDR it serves the same tools over MCP's Streamable HTTP
// transport with the go-sdk (mcp.NewStreamableHTTPHandler, sessions, the
// SDK's own argument validation) at /mcp, and prints its URL on stdout.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	addr := flag.String("http", "", "serve MCP's Streamable HTTP transport on this address at /mcp instead of stdio, and print the URL")
	flag.Parse()
	if *addr != "" {
		if err := serveHTTP(*addr); err != nil {
			fmt.Fprintln(os.Stderr, "echoserver:", err)
			os.Exit(1)
		}
		return
	}
	if err := serveStdio(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "echoserver:", err)
		os.Exit(1)
	}
}

// tools is the tools/list result.
const tools = `{"tools":[` +
	`{"name":"write_file","description":"Write a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}},` +
	`{"name":"read","description":"Read size bytes.","inputSchema":{"type":"object","properties":{"size":{"type":"integer","minimum":0}},"required":["size"]}}]}`

// read's result object is resultHead, as many x as its size needs, and
// resultTail.
const (
	resultHead = `{"content":[{"type":"text","text":"`
	resultTail = `"}]}`
)

// serveStdio answers each line of in on out until in ends.
func serveStdio(in io.Reader, out io.Writer) error {
	br := bufio.NewReaderSize(in, 64<<10)
	bw := bufio.NewWriterSize(out, 64<<10)
	var long []byte // a line longer than br's buffer is gathered here
	var pad []byte
	for {
		line, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long[:0], line...)
			for err == bufio.ErrBufferFull {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if err == io.EOF && len(line) > 0 {
			err = nil
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		m := parse(line)
		if m.id == nil {
			continue // a notification
		}
		head := func() {
			bw.WriteString(`{"jsonrpc":"2.0","id":`)
			bw.Write(m.id)
		}
		switch {
		case m.method == "initialize":
			head()
			version := m.version
			if version == "" {
				version = "2025-06-18"
			}
			bw.WriteString(`,"result":{"protocolVersion":"` + version + `","capabilities":{"tools":{}},"serverInfo":{"name":"echoserver","version":"1"}}}` + "\n")
		case m.method == "tools/list":
			head()
			bw.WriteString(`,"result":` + tools + "}\n")
		case m.method == "ping":
			head()
			bw.WriteString(`,"result":{}}` + "\n")
		case m.method == "tools/call" && m.tool == "write_file":
			head()
			if msg := m.badWrite(); msg != "" {
				bw.WriteString(`,"error":{"code":-32602,"message":` + strconv.Quote("Invalid arguments for tool write_file: "+msg) + `}}` + "\n")
				break
			}
			bw.WriteString(`,"result":{"content":[{"type":"text","text":"wrote ` + strconv.Itoa(m.contentLen) + ` bytes"}]}}` + "\n")
		case m.method == "tools/call" && m.tool == "read" && m.size >= 0:
			head()
			n := max(m.size-len(resultHead)-len(resultTail), 0)
			if len(pad) < n {
				pad = bytes.Repeat([]byte{'x'}, n)
			}
			bw.WriteString(`,"result":` + resultHead)
			bw.Write(pad[:n])
			bw.WriteString(resultTail + "}\n")
		default:
			head()
			bw.WriteString(`,"error":{"code":-32601,"message":"Method not found"}}` + "\n")
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

// message is what the server reads of a JSON-RPC message.
type message struct {
	id         []byte // raw; nil for a notification
	method     string
	version    string // initialize's protocolVersion
	tool       string
	pathType   byte // the first byte of arguments.path's value, 0 when absent
	contentTyp byte // the same for arguments.content
	contentLen int  // the raw length of arguments.content
	size       int  // arguments.size, -1 when absent or not an integer
}

// badWrite is what write_file's check says of its arguments, "" when they
// are good.
func (m *message) badWrite() string {
	for _, f := range []struct {
		name string
		typ  byte
	}{{"path", m.pathType}, {"content", m.contentTyp}} {
		switch f.typ {
		case '"':
		case 0:
			return f.name + ": Required"
		default:
			return f.name + ": Expected string, received " + kind(f.typ)
		}
	}
	return ""
}

func kind(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// parse reads the members of line that the server answers from.
func parse(line []byte) message {
	m := message{size: -1}
	members(line, func(key string, v []byte) {
		switch key {
		case "id":
			if len(v) > 0 && v[0] != 'n' {
				m.id = v
			}
		case "method":
			m.method = unquote(v)
		case "params":
			members(v, func(key string, v []byte) {
				switch key {
				case "name":
					m.tool = unquote(v)
				case "protocolVersion":
					m.version = unquote(v)
				case "arguments":
					members(v, func(key string, v []byte) {
						switch key {
						case "path":
							m.pathType = v[0]
						case "content":
							m.contentTyp, m.contentLen = v[0], len(v)
						case "size":
							if n, err := strconv.Atoi(string(v)); err == nil {
								m.size = n
							}
						}
					})
				}
			})
		}
	})
	return m
}

// unquote is a JSON string's text (escapes left as they are: the names the
// server compares have none), or "" for another value.
func unquote(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	return string(v[1 : len(v)-1])
}

// members calls f with the key and raw value of each member of the object
// b holds (after blanks). It stops at the first thing that is not JSON it
// can skip.
func members(b []byte, f func(key string, v []byte)) {
	i := blank(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i = blank(b, i+1)
	for i < len(b) && b[i] == '"' {
		end := skip(b, i)
		if end < 0 {
			return
		}
		key := string(b[i+1 : end-1])
		i = blank(b, end)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = blank(b, i+1)
		end = skip(b, i)
		if end < 0 {
			return
		}
		f(key, b[i:end])
		i = blank(b, end)
		if i < len(b) && b[i] == ',' {
			i = blank(b, i+1)
		}
	}
}

func blank(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skip returns the end of the value starting at b[i], or -1.
func skip(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; ; {
			k := bytes.IndexByte(b[j:], '"')
			if k < 0 {
				return -1
			}
			j += k
			// A quote after an odd number of backslashes is escaped.
			n := 0
			for j-1-n > i && b[j-1-n] == '\\' {
				n++
			}
			if n%2 == 0 {
				return j + 1
			}
			j++
		}
	case '{', '[':
		closing := byte('}')
		if b[i] == '[' {
			closing = ']'
		}
		j := blank(b, i+1)
		for j < len(b) && b[j] != closing {
			if j = skip(b, j); j < 0 {
				return -1
			}
			j = blank(b, j)
			if j < len(b) && (b[j] == ':' || b[j] == ',') {
				j = blank(b, j+1)
			}
		}
		if j >= len(b) {
			return -1
		}
		return j + 1
	default:
		j := i
		for j < len(b) && !strings.ContainsRune(",:]} \t\r\n", rune(b[j])) {
			j++
		}
		if j == i {
			return -1
		}
		return j
	}
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

type readArgs struct {
	Size int `json:"size" jsonschema:"the size of the result object in bytes"`
}

// serveHTTP serves the tools with the go-sdk over Streamable HTTP.
func serveHTTP(addr string) error {
	server := mcp.NewServer(&mcp.Implementation{Name: "echoserver", Version: "1"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "write_file", Description: "Write a file."},
		func(ctx context.Context, req *mcp.CallToolRequest, in writeArgs) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "wrote " + strconv.Itoa(len(in.Content)) + " bytes"}}}, nil, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "read", Description: "Read size bytes."},
		func(ctx context.Context, req *mcp.CallToolRequest, in readArgs) (*mcp.CallToolResult, any, error) {
			if in.Size < 0 || in.Size > 64<<20 {
				return nil, nil, errors.New("size out of range")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", in.Size)}}}, nil, nil
		})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	return (&http.Server{Handler: mux}).Serve(ln)
}
