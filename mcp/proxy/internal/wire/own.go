package wire

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// MaxListPages bounds the pages of a listing the proxy asks for itself.
const MaxListPages = 100

// ErrTooManyPages ends a listing of more than MaxListPages pages.
var ErrTooManyPages = fmt.Errorf("the tools/list results have more than %d pages", MaxListPages)

// ListPages runs the proxy's own listing of the tools, one page loop for
// every transport: page asks for and learns the page after cursor ("" for
// the first), and returns the next cursor, "" after the last page.
func ListPages(page func(cursor string) (next string, err error)) error {
	cursor := ""
	for range MaxListPages {
		next, err := page(cursor)
		if err != nil || next == "" {
			return err
		}
		cursor = next
	}
	return ErrTooManyPages
}

// ListParams is the params of the proxy's own tools/list for the page
// after cursor ("" for the first) in revision ("" for a 2025 one; else its
// _meta names the revision and the proxy); "" when it needs none.
func ListParams(cursor, revision string) string {
	var members []string
	if cursor != "" {
		c, _ := json.Marshal(cursor) // a string always encodes
		members = append(members, `"cursor":`+string(c))
	}
	if revision != "" {
		members = append(members, `"_meta":`+string(OwnMeta(revision)))
	}
	if members == nil {
		return ""
	}
	return "{" + strings.Join(members, ",") + "}"
}

// ListRequest is the proxy's own tools/list request of id (a JSON string)
// with ListParams' params, without a newline.
func ListRequest(id, cursor, revision string) []byte {
	req := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"`
	if p := ListParams(cursor, revision); p != "" {
		req += `,"params":` + p
	}
	return []byte(req + "}")
}

// Nonce is 16 random bytes in hex: the proxy's ids with it are no client's.
func Nonce() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}
