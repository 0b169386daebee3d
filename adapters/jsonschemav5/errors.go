package jsonschemav5

import (
	"errors"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/issues"
)

// appendRaw appends the issues of err, a failure of validation handed
// over without its instance: each failure is a custom issue with the
// library's own message (version 5's errors name no value), at the path
// its instance location names. It reports false, returning dst unchanged,
// when err is not a failure of validation.
func appendRaw(dst issues.List, err error) (issues.List, bool) {
	if err == nil {
		return dst, false
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		k := schema.Sink{Out: dst, From: len(dst)}
		relay(&k, ve)
		return k.Finish(), true
	}
	return appendOther(dst, err, issues.Unknown{})
}

// appendOther appends the issue of a failure of validation that is not a
// *jsonschema.ValidationError (a $ref loop, a value of no JSON type), with
// instance as the value sent. It reports false, returning dst unchanged,
// for anything else.
func appendOther(dst issues.List, err error, instance any) (issues.List, bool) {
	var loop jsonschema.InfiniteLoopError
	if errors.As(err, &loop) {
		return append(dst, issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Input: instance, Source: "jsonschema:$ref"}), true
	}
	var bad jsonschema.InvalidJSONTypeError
	if errors.As(err, &bad) {
		return append(dst, issues.Issue{Code: issues.InvalidType, Input: instance,
			Expected: issues.TypeString.Or(issues.TypeNumber).Or(issues.TypeBoolean).Or(issues.TypeNull).Or(issues.TypeObject).Or(issues.TypeArray), Source: "jsonschema:type"}), true
	}
	return dst, false
}

// pointer splits a JSON pointer as version 5 writes it (tokens escaped,
// then percent-encoded) into its tokens.
func pointer(p string) []string {
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return nil
	}
	toks := strings.Split(p, "/")
	for i, t := range toks {
		if u, err := url.PathUnescape(t); err == nil {
			t = u
		}
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}
