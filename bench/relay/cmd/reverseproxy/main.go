// Command reverseproxy is the HTTP floor the proxy is measured against in
// the relay benchmark (bench/relay): a plain httputil.ReverseProxy.
//
//	reverseproxy -listen ADDR -upstream URL
//
// serves it on ADDR in front of URL (every path goes to URL's, with the
// client's Host, as selfheal proxy --upstream does) and prints its URL,
// with URL's path, on stdout.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:0", "the address to serve on")
	upstream := flag.String("upstream", "", "the URL every request goes to")
	flag.Parse()
	if err := reverseProxy(*listen, *upstream); err != nil {
		fmt.Fprintln(os.Stderr, "reverseproxy:", err)
		os.Exit(1)
	}
}

// reverseProxy serves httputil.ReverseProxy to upstream on addr.
func reverseProxy(addr, upstream string) error {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return fmt.Errorf("-upstream must be an absolute URL, not %q", upstream)
	}
	rp := &httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		r.Out.URL.Scheme, r.Out.URL.Host, r.Out.URL.Path, r.Out.URL.RawPath = u.Scheme, u.Host, u.Path, u.RawPath
		if u.RawQuery != "" {
			r.Out.URL.RawQuery = u.RawQuery
		}
		r.Out.Host = r.In.Host
	}}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("http://%s%s\n", ln.Addr(), u.Path)
	// Full duplex: the response to a POST can start (an event stream is
	// flushed at once) while the transport has yet to read the end of the
	// request's body; without it, the server refuses that read, the
	// transport closes its connection to the upstream mid-response, and the
	// client gets a cut stream ("use of closed network connection") in
	// about one call in twenty.
	return (&http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.NewResponseController(w).EnableFullDuplex()
		rp.ServeHTTP(w, r)
	})}).Serve(ln)
}
