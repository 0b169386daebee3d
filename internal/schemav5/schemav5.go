package schemav5

import (
	"errors"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/internal/schemaconv"
	"github.com/selfheal/selfheal/issues"
)

// AppendIssues appends the issues of err, a failure of validation handed
// over without its instance: each failure is a custom issue with the
// library's own message (version 5's errors name no value), at the path
// its instance location names. It reports false, returning dst unchanged,
// when err is not a failure of validation.
func AppendIssues(dst issues.List, err error) (issues.List, bool) {
	if err == nil {
		return dst, false
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		k := schemaconv.Sink{Out: dst, From: len(dst)}
		relay(&k, ve)
		return k.Finish(), true
	}
	return AppendOther(dst, err, issues.Unknown{})
}

// AppendOther appends the issue of a failure of validation that is not a
// *jsonschema.ValidationError (a $ref loop, a value of no JSON type), with
// instance as the value sent. It reports false, returning dst unchanged,
// for anything else.
func AppendOther(dst issues.List, err error, instance any) (issues.List, bool) {
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

// Pointer splits a JSON pointer as version 5 writes it (tokens escaped,
// then percent-encoded) into its tokens.
func Pointer(p string) []string {
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
