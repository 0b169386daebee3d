// Package jsonvalue decodes one JSON value the way every part of the module
// reads arguments and schemas: numbers kept exactly as written
// (json.Number), nothing but white space allowed after the value, and no
// nesting deeper than MaxDepth.
package jsonvalue
