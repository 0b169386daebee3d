package sessions

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// The cases below and what they want are those of the TypeScript SDK v2
// (@modelcontextprotocol/server 2.4.0): each input was given to its
// scanXMcpHeaderDeclarations and validateMcpParamHeaders (the headers as
// Node's HTTP server reads them: bytes as Latin-1, values of one name
// joined by ", "), and its answer written here as it came.

// routeSchema is the inputSchema of the tool route, of the checkCases and
// of the go-sdk server of the tests (see TestCommandsSDKServer).
const routeSchema = `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},"urgent":{"type":"boolean","x-mcp-header":"Urgent"},"note":{"type":"string"}},"required":["region"]}`

var scanCases = []struct{ name, schema, want string }{
	{`string, integer and boolean`, `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"priority":{"type":"integer","x-mcp-header":"Priority"},"urgent":{"type":"boolean","x-mcp-header":"Urgent"},"note":{"type":"string"}}}`, `region:Region:string;priority:Priority:integer;urgent:Urgent:boolean`},
	{`none`, `{"type":"object","properties":{"text":{"type":"string"}}}`, ``},
	{`nested properties`, `{"type":"object","properties":{"loc":{"type":"object","properties":{"zone":{"type":"string","x-mcp-header":"Zone"}}}}}`, `loc.zone:Zone:string`},
	{`at the root`, `{"type":"string","x-mcp-header":"Root"}`, ``},
	{`under items`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"},"list":{"type":"array","items":{"type":"string","x-mcp-header":"Item"}}}}`, ``},
	{`under anyOf`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}},"anyOf":[{"properties":{"b":{"type":"string","x-mcp-header":"B"}}}]}`, ``},
	{`under $defs`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}},"$defs":{"d":{"type":"string","x-mcp-header":"D"}}}`, ``},
	{`under additionalProperties`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"A"}},"additionalProperties":{"type":"string","x-mcp-header":"X"}}`, ``},
	{`empty name`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":""}}}`, ``},
	{`null name`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":null}}}`, ``},
	{`a space in the name`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"My Region"}}}`, ``},
	{`a colon in the name`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region:Primary"}}}`, ``},
	{`a name not ASCII`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Région"}}}`, ``},
	{`every token character`, "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"!#$%&'*+-.^_`|~09azAZ\"}}}", "a:!#$%&'*+-.^_`|~09azAZ:string"},
	{`an object`, `{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"A"}}}`, ``},
	{`no type`, `{"type":"object","properties":{"a":{"x-mcp-header":"A"}}}`, ``},
	{`types as an array`, `{"type":"object","properties":{"a":{"type":["string","null"],"x-mcp-header":"A"}}}`, ``},
	{`a number alone`, `{"type":"object","properties":{"s":{"type":"number","x-mcp-header":"Score"},"a":{"type":"string","x-mcp-header":"A"}}}`, `s:Score:number;a:A:string`},
	{`a number and another fault`, `{"type":"object","properties":{"s":{"type":"number","x-mcp-header":"Score"},"a":{"type":"object","x-mcp-header":"A"}}}`, ``},
	{`the same name twice`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}}`, ``},
	{`the same name in another case`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}}`, ``},
	{`index names first`, `{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"B"},"10":{"type":"string","x-mcp-header":"Ten"},"2":{"type":"string","x-mcp-header":"Two"},"02":{"type":"string","x-mcp-header":"ZeroTwo"},"a":{"type":"string","x-mcp-header":"A"}}}`, `2:Two:string;10:Ten:string;b:B:string;02:ZeroTwo:string;a:A:string`},
	{`a name given twice`, `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"First"},"b":{"type":"string","x-mcp-header":"B"},"a":{"type":"integer","x-mcp-header":"Second"}}}`, `a:Second:integer;b:B:string`},
	{`properties not an object`, `{"type":"object","properties":"a"}`, ``},
	{`not an object`, `[{"x-mcp-header":"A"}]`, ``},
}

var checkCases = []struct {
	name, args string
	headers    [][2]string
	want       string
}{
	{`every header right`, `{"region":"eu-west","priority":3,"urgent":true,"note":"n"}`, [][2]string{{`Mcp-Param-Region`, `eu-west`}, {`Mcp-Param-Priority`, `3`}, {`Mcp-Param-Urgent`, `true`}}, ``},
	{`Base64`, `{"region":"日本"}`, [][2]string{{`Mcp-Param-Region`, `=?base64?5pel5pys?=`}}, ``},
	{`Base64 of a BOM and text`, `{"region":"hi"}`, [][2]string{{`Mcp-Param-Region`, `=?base64?77u/aGk=?=`}}, ``},
	{`Base64 of nothing`, `{"region":""}`, [][2]string{{`Mcp-Param-Region`, `=?base64?=?=`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header carries an invalid Base64 sentinel value","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header carries an invalid Base64 sentinel value"}}}`},
	{`the shortest sentinel`, `{"region":""}`, [][2]string{{`Mcp-Param-Region`, `=?base64?=`}}, ``},
	{`no header`, `{"region":"test-value"}`, [][2]string{}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the body carries region=\"test-value\" but the Mcp-Param-Region header is absent","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the body carries region=\"test-value\" but the Mcp-Param-Region header is absent"}}}`},
	{`another value`, `{"region":"eu-west"}`, [][2]string{{`Mcp-Param-Region`, `us-east`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header decodes to \"us-east\" but the body carries region=\"eu-west\"","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header decodes to \"us-east\" but the body carries region=\"eu-west\""}}}`},
	{`padding wrong`, `{"region":"Hello"}`, [][2]string{{`Mcp-Param-Region`, `=?base64?SGVsbG8?=`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header carries an invalid Base64 sentinel value","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header carries an invalid Base64 sentinel value"}}}`},
	{`characters not of Base64`, `{"region":"Hello"}`, [][2]string{{`Mcp-Param-Region`, `=?base64?SGVs!!!bG8=?=`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header carries an invalid Base64 sentinel value","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header carries an invalid Base64 sentinel value"}}}`},
	{`Base64 of bytes not UTF-8`, `{"region":"x"}`, [][2]string{{`Mcp-Param-Region`, `=?base64?/w==?=`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header carries an invalid Base64 sentinel value","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header carries an invalid Base64 sentinel value"}}}`},
	{`without the prefix: literal`, `{"region":"SGVsbG8="}`, [][2]string{{`Mcp-Param-Region`, `SGVsbG8=`}}, ``},
	{`without the suffix: literal`, `{"region":"=?base64?SGVsbG8="}`, [][2]string{{`Mcp-Param-Region`, `=?base64?SGVsbG8=`}}, ``},
	{`Base64 literal, body decoded`, `{"region":"Hello"}`, [][2]string{{`Mcp-Param-Region`, `SGVsbG8=`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header decodes to \"SGVsbG8=\" but the body carries region=\"Hello\"","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header decodes to \"SGVsbG8=\" but the body carries region=\"Hello\""}}}`},
	{`a header not ASCII`, `{"region":"é"}`, [][2]string{{`Mcp-Param-Region`, `é`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header decodes to \"Ã©\" but the body carries region=\"é\"","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header decodes to \"Ã©\" but the body carries region=\"é\""}}}`},
	{`two headers`, `{"region":"a, b"}`, [][2]string{{`Mcp-Param-Region`, `a`}, {`Mcp-Param-Region`, `b`}}, ``},
	{`the header name in lower case`, `{"region":"eu"}`, [][2]string{{`mcp-param-region`, `eu`}}, ``},
	{`an empty header`, `{"region":"x"}`, [][2]string{{`Mcp-Param-Region`, ``}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header decodes to \"\" but the body carries region=\"x\"","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header decodes to \"\" but the body carries region=\"x\""}}}`},
	{`an integer as a decimal`, `{"region":"r","priority":3}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `3.0`}}, ``},
	{`an integer with a leading zero`, `{"region":"r","priority":3}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `03`}}, ``},
	{`an integer in exponent form`, `{"region":"r","priority":3}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `3e0`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Priority header decodes to \"3e0\" but the body carries priority=3","data":{"mismatch":{"header":"Mcp-Param-Priority","body":"the Mcp-Param-Priority header decodes to \"3e0\" but the body carries priority=3"}}}`},
	{`another integer`, `{"region":"r","priority":3}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `4`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Priority header decodes to \"4\" but the body carries priority=3","data":{"mismatch":{"header":"Mcp-Param-Priority","body":"the Mcp-Param-Priority header decodes to \"4\" but the body carries priority=3"}}}`},
	{`an integer in Base64`, `{"region":"r","priority":-12}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `=?base64?LTEy?=`}}, ``},
	{`a fraction for an integer`, `{"region":"r","priority":1.5}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `1.50`}}, ``},
	{`a large number`, `{"region":"r","priority":1e21}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `1`}}, ``},
	{`a small number`, `{"region":"r","priority":1.5e-7}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `1`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Priority header decodes to \"1\" but the body carries priority=1.5e-7","data":{"mismatch":{"header":"Mcp-Param-Priority","body":"the Mcp-Param-Priority header decodes to \"1\" but the body carries priority=1.5e-7"}}}`},
	{`an integer past the safe ones`, `{"region":"r","priority":9007199254740993}`, [][2]string{{`Mcp-Param-Region`, `r`}}, ``},
	{`a number past float64`, `{"region":"r","priority":1e400}`, [][2]string{{`Mcp-Param-Region`, `r`}}, ``},
	{`an integer given as a string`, `{"region":"r","priority":"3"}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `3.0`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Priority header decodes to \"3.0\" but the body carries priority=\"3\"","data":{"mismatch":{"header":"Mcp-Param-Priority","body":"the Mcp-Param-Priority header decodes to \"3.0\" but the body carries priority=\"3\""}}}`},
	{`a boolean in capitals`, `{"region":"r","urgent":false}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Urgent`, `FALSE`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Urgent header decodes to \"FALSE\" but the body carries urgent=false","data":{"mismatch":{"header":"Mcp-Param-Urgent","body":"the Mcp-Param-Urgent header decodes to \"FALSE\" but the body carries urgent=false"}}}`},
	{`a boolean missing`, `{"region":"r","urgent":false}`, [][2]string{{`Mcp-Param-Region`, `r`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the body carries urgent=false but the Mcp-Param-Urgent header is absent","data":{"mismatch":{"header":"Mcp-Param-Urgent","body":"the body carries urgent=false but the Mcp-Param-Urgent header is absent"}}}`},
	{`optional arguments absent`, `{"region":"r"}`, [][2]string{{`Mcp-Param-Region`, `r`}}, ``},
	{`an argument null`, `{"region":"r","priority":null}`, [][2]string{{`Mcp-Param-Region`, `r`}}, ``},
	{`an argument an object`, `{"region":{"a":1},"priority":[1]}`, [][2]string{}, ``},
	{`no arguments`, ``, [][2]string{}, ``},
	{`arguments not an object`, `["r"]`, [][2]string{}, ``},
	{`the first disagreement`, `{"region":"r","priority":3,"urgent":true}`, [][2]string{{`Mcp-Param-Region`, `r`}, {`Mcp-Param-Priority`, `2`}, {`Mcp-Param-Urgent`, `false`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Priority header decodes to \"2\" but the body carries priority=3","data":{"mismatch":{"header":"Mcp-Param-Priority","body":"the Mcp-Param-Priority header decodes to \"2\" but the body carries priority=3"}}}`},
	{`a string that JSON escapes`, `{"region":"a\"b\\c\n\u0001<&>"}`, [][2]string{{`Mcp-Param-Region`, `a`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header decodes to \"a\" but the body carries region=\"a\\\"b\\\\c\\n\\u0001<&>\"","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header decodes to \"a\" but the body carries region=\"a\\\"b\\\\c\\n\\u0001<&>\""}}}`},
	{`a header that JSON escapes`, `{"region":"a"}`, [][2]string{{`Mcp-Param-Region`, `=?base64?IlxcCQ==?=`}}, `{"code":-32020,"status":400,"message":"Bad Request: the request headers and body disagree: the Mcp-Param-Region header decodes to \"\\\"\\\\\\\\\\t\" but the body carries region=\"a\"","data":{"mismatch":{"header":"Mcp-Param-Region","body":"the Mcp-Param-Region header decodes to \"\\\"\\\\\\\\\\t\" but the body carries region=\"a\""}}}`},
	{`a region given twice`, `{"region":"first","region":"last"}`, [][2]string{{`Mcp-Param-Region`, `last`}}, ``},
}

// The declarations a schema makes, those a schema that breaks a rule
// loses, in the SDK's order: "path:name:type" each.
func TestScanParamDecls(t *testing.T) {
	for _, tc := range scanCases {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, d := range scanParamDecls([]byte(tc.schema)) {
				got = append(got, strings.Join(d.path, ".")+":"+d.name+":"+d.typ)
			}
			if g := strings.Join(got, ";"); g != tc.want {
				t.Fatalf("got  %s\nwant %s", g, tc.want)
			}
		})
	}
}

// tsRejection is the SDK's rejection, as the cases hold it.
type tsRejection struct {
	Code    int    `json:"code"`
	Status  int    `json:"status"`
	Message string `json:"message"`
	Data    struct {
		Mismatch struct {
			Header string `json:"header"`
			Body   string `json:"body"`
		} `json:"mismatch"`
	} `json:"data"`
}

// A call of route with the headers given: passed, or refused as the SDK
// refuses it, its status, code, message and data.
func TestCheckParams(t *testing.T) {
	decls := scanParamDecls([]byte(routeSchema))
	for _, tc := range checkCases {
		t.Run(tc.name, func(t *testing.T) {
			h := http.Header{}
			for _, kv := range tc.headers {
				h.Add(kv[0], kv[1])
			}
			var args []byte
			if tc.args != "" {
				args = []byte(tc.args)
			}
			got := checkParams([]byte(`7`), decls, args, h)
			if tc.want == "" {
				if got != nil {
					t.Fatalf("refused: %d %d %q %v", got.status, got.code, got.msg, got.data)
				}
				return
			}
			var want tsRejection
			if err := json.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			if got == nil {
				t.Fatalf("passed; want %s", tc.want)
			}
			data := map[string]any{"mismatch": map[string]string{"header": want.Data.Mismatch.Header, "body": want.Data.Mismatch.Body}}
			if got.status != want.Status || got.code != want.Code || got.msg != want.Message || string(got.id) != "7" || mustJSON(t, got.data) != mustJSON(t, data) {
				t.Fatalf("got  %d %d %q %s\nwant %s", got.status, got.code, got.msg, mustJSON(t, got.data), tc.want)
			}
		})
	}
}

// Numbers as JavaScript's String writes them (Node's answers).
func TestJSNumber(t *testing.T) {
	for _, tc := range []struct {
		json, want string
	}{
		{"0", "0"}, {"-0", "0"}, {"1", "1"}, {"42", "42"}, {"42.5", "42.5"},
		{"1e21", "1e+21"}, {"123456789012345678901", "123456789012345680000"},
		{"1e20", "100000000000000000000"}, {"0.000001", "0.000001"},
		{"0.0000001", "1e-7"}, {"1.5e-7", "1.5e-7"}, {"-3.25", "-3.25"},
		{"9007199254740991", "9007199254740991"}, {"0.1", "0.1"}, {"100", "100"},
		{"1.7976931348623157e308", "1.7976931348623157e+308"}, {"5e-324", "5e-324"},
		{"123e-20", "1.23e-18"},
	} {
		var f float64
		if err := json.Unmarshal([]byte(tc.json), &f); err != nil {
			t.Fatal(err)
		}
		if got := jsNumber(f); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.json, got, tc.want)
		}
	}
}

// Strings as JSON.stringify writes them (Node's answer): its escapes, and
// no others.
func TestJSQuote(t *testing.T) {
	const want = `"a\"b\\c\n\t\u0001\u001f<>&` + "\u2028" + `é"`
	if got := jsQuote("a\"b\\c\n\t\x01\x1f<>&\u2028é"); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
