package selfheal

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// fieldError is the part of go-playground/validator's FieldError that the
// engine reads, declared here so that the engine need not import the
// validator (see appendFieldErrors).
type fieldError interface {
	Tag() string
	Param() string
	Namespace() string
	Value() any
}

var fieldErrorType = reflect.TypeFor[fieldError]()

// appendFieldErrors is the last resort for a validator.ValidationErrors
// (a slice of FieldError, recognised by its methods) when the engine was
// not given validatorv10.Errors, whose converter words each tag
// precisely: each failure becomes a custom issue at its field naming the
// tag it failed, so that the model still reads a validation_error about
// its arguments, never an INTERNAL_ERROR telling it they were fine.
func appendFieldErrors(dst issues.List, err error) (issues.List, bool) {
	for err != nil {
		if v := reflect.ValueOf(err); v.Kind() == reflect.Slice && v.Len() > 0 && v.Type().Elem().Implements(fieldErrorType) {
			for i := range min(v.Len(), issuesx.BuildLimit) {
				fe, ok := v.Index(i).Interface().(fieldError)
				if !ok {
					continue
				}
				tag := fe.Tag()
				if p := fe.Param(); p != "" {
					tag += "=" + p
				}
				dst = append(dst, issues.Issue{Code: issues.Custom, Path: namespacePath(fe.Namespace()),
					Input: fe.Value(), Message: "Fails the validation rule '" + tag + "'", Source: "validator:" + fe.Tag()})
			}
			if v.Len() > issuesx.BuildLimit {
				dst = append(dst, issuesx.Omitted(v.Len()-issuesx.BuildLimit))
			}
			return dst, true
		}
		err = errors.Unwrap(err)
	}
	return dst, false
}

// namespacePath reads a validator namespace (User.addresses[0].city)
// without its leading struct name into a path.
func namespacePath(ns string) issues.Path {
	_, ns, _ = strings.Cut(ns, ".")
	var p issues.Path
	for part := range strings.SplitSeq(ns, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			p = append(p, name)
		}
		for rest != "" {
			key, after, _ := strings.Cut(rest, "]")
			if n, err := strconv.Atoi(key); err == nil {
				p = append(p, n)
			} else {
				p = append(p, key)
			}
			_, rest, _ = strings.Cut(after, "[")
		}
	}
	return p
}

// appendJSONErrors is the last resort for encoding/json's decode errors
// when the engine was not given jsondecode.Errors, whose converter
// reads them precisely: the error is one custom issue with the library's
// own message, at the field an UnmarshalTypeError names, so that the model
// still reads a validation_error about its arguments.
func appendJSONErrors(dst issues.List, err error) (issues.List, bool) {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return append(dst, issues.Issue{Code: issues.Custom, Input: issues.Unknown{}, Message: se.Error(), Source: "json:syntax"}), true
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		var path issues.Path
		if te.Field != "" {
			path = namespacePath("." + te.Field)
		}
		return append(dst, issues.Issue{Code: issues.Custom, Path: path, Input: issues.Unknown{}, Message: te.Error(), Source: "json:type"}), true
	}
	return dst, false
}
