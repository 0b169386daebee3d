package proxy

import (
	"cmp"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/internal/repair"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// Proxy relays MCP messages between a client and a server and answers the
// tools/call requests whose arguments fail the tool's input schema. Build
// one with New; it is safe for concurrent use, and each Serve call is one
// session with its own learned tools and guards. Compiled schemas are
// shared by the sessions of a Proxy.
//
// A Proxy reads two things, and never rewrites them:
//
//   - the results of tools/list requests (every page): each tool's name,
//     inputSchema and outputSchema, and the listing's ttlMs and cacheScope
//     (MCP 2026-07-28). Each distinct input schema is compiled once with
//     package jsonschemav6 (the draft from its "$schema", 2020-12 by
//     default, formats asserted); a schema that does not compile is logged
//     once and the tool's calls pass unchecked. A listing replaces the
//     tools known before once its last page has passed.
//   - the client's tools/call requests. A call of a listed tool whose
//     arguments fail its schema is answered by the proxy, before it
//     reaches the server (a near miss, WithStrict) or in place of the
//     server's refusal when the refusal is about the arguments; every
//     other message is forwarded untouched, and the server answers it.
//
// A call is never judged by nothing: when the proxy has seen no listing
// yet, the server announced that its tools changed, or the listing's ttlMs
// has passed without the tool in it, the proxy lists the tools itself, in
// the call's revision, and the call waits for that listing (or the
// client's own under way), at most 5 seconds; past that it is forwarded
// and the log says so. A tool in a listing past its ttlMs judges its call
// while the proxy lists again behind it (at most once a second). The
// proxy's own requests have ids no client can choose; their responses
// never reach the client.
//
// A call of revision 2026-07-28 or later (its _meta, or over HTTP its
// MCP-Protocol-Version header) gets its answer with the
// "resultType":"complete" that revision requires, and the proxy's own
// listings for it carry that _meta, naming selfheal-proxy as the client.
//
// Arguments are checked as the Go integrations (mcp/gosdk, mcp/mcpgo)
// check them: absent arguments are validated as {}, arguments that are not
// an object are an invalid_type at (root), arguments nested deeper than
// [WithMaxDepth] are checked down to it (the part past it is the server's
// to judge; WithStrict refuses them). A bad call gets the result the Go
// integrations give, as the JSON-RPC response to its own id (one line):
//
//	{"jsonrpc":"2.0","id":7,"result":{
//	  "content":[{"type":"text","text":"<validation_error action=\"write_file\">…"}],
//	  "isError":true,
//	  "structuredContent":{"issues":[{"code":"invalid_type","path":["content"],"expected":"string"}]}}}
//
// Whose failure it is: a refusal (a JSON-RPC error, or a result with
// isError) is explained only when it is about the arguments: a -32602, a
// message naming a field the schema flags, or an issue the schema makes
// certain (a missing required field, a wrong type, a value outside an
// enum). Otherwise (every issue one servers commonly tolerate: an
// undeclared key, a format, a number sent as a string) the server failed
// for its own reason: its answer passes unchanged, as does the answer to a
// bad call it accepts, and the disagreement is logged once per tool and
// reported ([Event].Disagreed).
//
// The issues, in Zod v4's issue JSON without the values sent, are in
// result._meta["selfheal/issues"] instead of structuredContent when the
// tool declares an output schema. The text is in the language of the
// call's _meta["selfheal/locale"], else its initialize request's, else the
// engine's ([WithEngine]). With [WithContract], it carries the tool's
// <contract_awareness> section.
type Proxy struct {
	cfg           config
	schemaOpts    []jsonschemav6.Option
	lock          *contract.Lock // nil: no contract awareness
	schemas       schemaCache
	callLogMu     sync.Mutex // serializes the lines of the call log
	callLogFailed atomic.Bool
	// disagreed are the tools logged as disagreeing with their schema.
	disagreed disagreements
	// repairs settles the answers to bad calls; nil without a call log or
	// WithOutcomes. sessionSeq numbers Serve's sessions for it.
	repairs    *repair.Tracker
	sessionSeq atomic.Uint64
	// calls are counted for the call log's next tally (under callLogMu).
	calls     map[string]int64
	talliedAt time.Time
	// bodies is the body-memory budget, nil for none: bodies take it as
	// they come, argument checks what building and checking them costs.
	bodies *semaphore.Weighted
}

// Option configures New.
type Option func(*config)

type config struct {
	toolcall.Config
	typos                        bool
	strict                       bool
	limits                       *guard.Limits // nil: no guard
	limiter                      guard.Limiter // nil: none (WithLimiter)
	limitBy                      func(*http.Request) string
	transport                    http.RoundTripper // nil: upstreamTransport()
	callLog                      io.Writer         // nil: no call log
	observer                     func(Event)       // nil: none
	allowedHosts, allowedOrigins []string
	listWait                     time.Duration // WithListWait
	// The HTTP bounds (safety.go): 0 is the default, negative none.
	readTimeout, upstreamSilence time.Duration
	bodyMemory                   int64
	maxRequests                  int
}

// WithEngine sets the engine that words validation errors: its locale,
// budgets (issues, bytes), examples and redaction (selfheal.New() by
// default). A client may still ask for its own language per call or per
// session (see [Proxy]).
func WithEngine(e *selfheal.Engine) Option {
	return func(c *config) { c.Engine = e }
}

// WithTypos turns on or off the near misses in open schemas: an undeclared
// key close to a declared property that was not sent ('dryrun' for
// dryRun, 'contents' for content) is an issue with a did-you-mean even
// when the schema allows other keys, because the server would drop it
// silently (see jsonschemav6.WithTypos). On by default.
func WithTypos(on bool) Option {
	return func(c *config) { c.typos = on }
}

// WithStrict turns on or off the strict mode: every call whose arguments
// fail the tool's schema is answered by the proxy before it reaches the
// server, as the Go integrations answer. Off by default, where a call is
// forwarded and the server decides (see [Proxy]). Use it in front of a
// server that does not check its own input, where a bad call would run:
// the schema is then the only check there is.
func WithStrict(on bool) Option {
	return func(c *config) { c.strict = on }
}

// WithContract makes the validation errors contract-aware: each tool, as
// the server lists it, is compared with its entry in lock (a known-good
// snapshot, see package contract and "selfheal lock"), and its validation
// errors carry a <contract_awareness> section with the BREAKING and RISKY
// changes since (at most 5, and how many more there are). nil turns it
// off.
func WithContract(lock *contract.Lock) Option {
	return func(c *config) { c.SetLock(lock) }
}

// WithGuard gives each tool a guard with limits l (see package guard): a
// call beyond them is answered with the guard's SERVER_BUSY or
// RATE_LIMITED tool_error and never reaches the server. An admitted call
// holds its slot until its response passes back or the client cancels it.
// A call waiting for a slot (MaxQueued) holds back no message behind it; a
// queued call the client cancels is dropped, unanswered, as MCP asks.
// Arguments are checked first: a bad call is told what to fix even when
// the server is busy. Only listed tools are guarded. Limits out of range
// are New's error.
func WithGuard(l guard.Limits) Option {
	return func(c *config) { c.limits = &l }
}

// WithLimiter admits the calls of every listed tool through lim, whose
// counters may be shared by every replica (see mcp/guard/redisguard), under
// the tool's name and, over HTTP, WithLimitBy's value. A refused call gets
// lim's tool_error, as with WithGuard; an admitted one holds what lim gave
// until its response passes back. WithLimiter and WithGuard are exclusive.
func WithLimiter(lim guard.Limiter) Option {
	return func(c *config) { c.limiter = lim }
}

// WithLimitBy splits the limits of WithGuard and WithLimiter over HTTP by
// what f returns for the request carrying a call (a session id, an API
// key's header): each tool's limits apply per distinct value, hashed
// (SHA-256) so that no token reaches a limiter's store, a log or the model
// in clear; "" is one value for all. f runs on the request's goroutine; for
// CommandHandler, once per session, with the request that started it.
func WithLimitBy(f func(r *http.Request) string) Option {
	return func(c *config) { c.limitBy = f }
}

// WithTransport sets the transport of the requests to the upstream server:
// its TLS settings, its timeouts, or a wrapper counting its failures. By
// default it is http.DefaultTransport's settings, keeping up to 100 idle
// connections to the upstream (not 2), since every request goes there.
func WithTransport(rt http.RoundTripper) Option {
	return func(c *config) { c.transport = rt }
}

// WithLogger sets where the proxy logs what concerns its operator: a
// schema that does not compile (once per schema), a tools/list result it
// cannot read, a failing write to the server (slog.Default() by default).
// Nothing the client or the model sent is logged.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.Logger = l }
}

// WithCallLog writes one JSON object per line to w for each call the proxy
// answers itself:
//
//	{"time":"2026-01-02T15:04:05.000Z","id":"9f3a61c2-1","tool":"write_file","codes":["invalid_type"],"paths":["content"],"answer":"validation_error"}
//
// time is RFC 3339 in UTC; id names the answer (unique to the run, with a
// random prefix); codes are the issue codes of a validation_error in the
// order of its lines; paths the paths of those issues, each once, with
// long keys cut as in the text; answer is "validation_error" or the code
// of the guard's tool_error sent (SERVER_BUSY, RATE_LIMITED). A tool whose
// server accepted a call its schema calls bad gets a line too:
//
//	{"time":"…","tool":"search","codes":["invalid_format"],"paths":["since"],"answer":"accepted","disagreed":true}
//
// When a validation_error settles (see WithOutcomes), a second line names
// it by its id, so that the log stays append-only:
//
//	{"time":"2026-01-02T15:04:09.120Z","of":"9f3a61c2-1","tool":"write_file","outcome":"repaired","attempt":1,"after_ms":4120}
//
// No value the model sent is written. Lines from concurrent sessions of
// the proxy do not interleave. "selfheal report" reads this log.
func WithCallLog(w io.Writer) Option {
	return func(c *config) { c.callLog = w }
}

// WithMaxDepth sets how deeply a call's arguments are checked (the
// arguments object is level 1): the objects and arrays nested deeper are
// left to the server, and the rest is checked as any call's arguments are,
// so that a bad field above a deep free-form value is still explained.
// With WithStrict, deeper arguments are answered with a validation_error
// holding one too_big issue of origin "depth", found in one pass over
// their bytes. n == 0 means issues.DefaultMaxDepth (64), the default; n <
// 0 turns the limit off.
func WithMaxDepth(n int) Option {
	return func(c *config) { c.MaxDepth = n }
}

// WithListWait sets how long a call of a tool the proxy has not learned
// waits while the proxy lists the tools itself (see [Proxy]): 5 seconds by
// default, after which the call passes unchecked and the log says so. d <=
// 0 makes no call wait: the proxy still lists the tools, and the calls that
// come before the listing ends pass unchecked, as directly. It applies to
// Serve and to the stdio servers of package sessions; HTTPHandler waits for
// its own listing, bounded by 5 seconds.
func WithListWait(d time.Duration) Option {
	return func(c *config) { c.listWait = d }
}

// WithObserver calls f once for each tools/call of a listed tool, forwarded
// or answered, when the proxy is done with it: a hook for metrics. f runs
// on the goroutine that handled the call (the one reading the client, or a
// queued call's own), possibly at the same time for several calls: it must
// be safe for concurrent use, quick, and must not block.
func WithObserver(f func(Event)) Option {
	return func(c *config) { c.observer = f }
}

// WithOutcomes calls f when an answer to a bad call settles: the same
// session's next call of the tool was accepted (repaired: selfheal found
// it valid and forwarded it, or the server accepted it although its schema
// finds issues), was answered again (failed again, on the same fields or
// on others), or did not come within 5 minutes, before the session ended
// or while it had 64 tools so answered (abandoned). A session is one Serve
// call (one stdio client; one session of package sessions); over HTTP, an
// Mcp-Session-Id, or for a server without sessions the hash of the
// request's Authorization, as for the tools listed (a request of a
// stateless revision without Authorization is not followed: nothing ties
// it to the next). A call the proxy refuses with a guard's tool_error
// settles nothing. Abandoned answers are found at the next call of any
// session, or when their session ends. At most 20,000 answers are
// followed at once, about 6 MB; past that the oldest is abandoned. f runs
// as WithObserver's does. With WithCallLog, the settlements are written to
// the log too.
func WithOutcomes(f func(selfheal.Outcome)) Option {
	return func(c *config) { c.Outcomes = f }
}

// Event describes one tools/call of a listed tool, for WithObserver.
type Event struct {
	// Tool is the tool's name, as the server lists it.
	Tool string
	// Answered is true when the proxy answered the call itself; false when
	// it forwarded the call to the server.
	Answered bool
	// Code is what the proxy answered: envelope.ValidationErrorCode
	// (VALIDATION_ERROR) for bad arguments, else the code of the guard's
	// tool_error (SERVER_BUSY, RATE_LIMITED); "" when forwarded.
	Code string
	// Issues are the issue codes of a validation_error, in the order of its
	// lines; nil otherwise.
	Issues []string
	// Explained is true when the server rejected the call and the client
	// received selfheal's validation_error in its place (Answered is true
	// too, and Code is VALIDATION_ERROR).
	Explained bool
	// Disagreed is true when the tool's schema found issues in a call the
	// server accepted, or refused for a reason of its own (see [Proxy]):
	// the server's answer passed untouched.
	Disagreed bool
	// Duration is the time the proxy spent on the call: checking it, and
	// answering it or forwarding it. Over stdio it does not count the time
	// the call waited in a guard's queue. Over HTTP it counts the guard's or
	// the limiter's decision (a Redis round trip with redisguard), a wait
	// for a slot included, and, for the first call a replica sees of a
	// session, the listing of its tools; the forwarding itself is the
	// relaying of the request and its response, not measured.
	Duration time.Duration
}

// New returns a proxy. Limits out of range (WithGuard) are an error.
func New(opts ...Option) (*Proxy, error) {
	c := config{typos: true, listWait: listTimeout}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if c.limits != nil {
		if err := c.limits.Validate(); err != nil {
			return nil, fmt.Errorf("proxy: %w", err)
		}
	}
	if c.limits != nil && c.limiter != nil {
		return nil, fmt.Errorf("proxy: WithGuard and WithLimiter both set; choose one")
	}
	c.Init()
	c.readTimeout = cmp.Or(c.readTimeout, defaultReadTimeout)
	c.upstreamSilence = cmp.Or(c.upstreamSilence, defaultUpstreamSilence)
	c.bodyMemory = cmp.Or(c.bodyMemory, defaultBodyMemory)
	c.maxRequests = cmp.Or(c.maxRequests, defaultMaxRequests)
	lock := c.Lock()
	c.SchemaOpts = append(c.SchemaOpts, jsonschemav6.WithTypos(c.typos))
	p := &Proxy{cfg: c, schemaOpts: c.SchemaOptions(), lock: lock}
	if c.callLog != nil || c.Outcomes != nil {
		p.repairs = repair.New(p.settled, repair.Limits{}, nil)
	}
	if c.bodyMemory > 0 {
		p.bodies = semaphore.NewWeighted(c.bodyMemory)
	}
	return p, nil
}
