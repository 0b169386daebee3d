package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	jsonschema "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/issues"
)

// check implements `selfheal check`.
func check(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	schemaPath := fs.String("schema", "", "the tool's input schema (a JSON file)")
	argsPath := fs.String("args", "", "the arguments the model sent (a JSON file, or - for standard input)")
	action := fs.String("action", "", "the tool's name, shown in the envelope (default: the schema file's name)")
	locale := fs.String("locale", "en", "the language of the messages: a BCP 47 tag or an Accept-Language value")
	examples := fs.Bool("examples", true, "add a valid example to format expectations")
	draft := fs.String("draft", "2020", "the JSON Schema draft when the schema has no $schema: 2020, 2019, 7, 6 or 4")
	engine := fs.String("engine", "v6", "the validator: v6 (santhosh-tekuri/jsonschema/v6) or v5")
	asJSON := fs.Bool("json", false, "print the issues as Zod-style JSON instead of the validation_error")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal check: "+format+"\n", a...)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		return parseError(err, fs, "usage: selfheal check --schema FILE --args FILE [flags]", stdout, fail)
	}
	if fs.NArg() > 0 {
		return fail("unexpected argument %q", fs.Arg(0))
	}
	if *schemaPath == "" || *argsPath == "" {
		return fail("--schema and --args are required")
	}
	if *engine != "v6" && *engine != "v5" {
		return fail("--engine must be v6 or v5, not %q", *engine)
	}
	d, ok := drafts[*draft]
	if !ok {
		return fail("--draft must be 2020, 2019, 7, 6 or 4, not %q", *draft)
	}

	schemaData, err := os.ReadFile(*schemaPath)
	if err != nil {
		return fail("%v", err)
	}
	if _, err := decodeJSON(schemaData); err != nil {
		return fail("%s: %v", *schemaPath, err)
	}
	var argsData []byte
	argsName := *argsPath
	if argsName == "-" {
		argsName = "standard input"
		argsData, err = io.ReadAll(stdin)
	} else {
		argsData, err = os.ReadFile(argsName)
	}
	if err != nil {
		return fail("%v", err)
	}
	instance, err := decodeJSON(argsData)
	if err != nil {
		return fail("%s: %v", argsName, err)
	}

	var list issues.List
	switch *engine {
	case "v6":
		sch, err := jsonschemav6.Compile(schemaData, jsonschemav6.WithCompiler(func(c *jsonschema.Compiler) { c.DefaultDraft(d.v6) }))
		if err != nil {
			return fail("%s: %v", *schemaPath, oneLine(err))
		}
		list = sch.Validate(instance)
	case "v5":
		list, err = checkV5(schemaData, d.v5, instance)
		if err != nil {
			return fail("%s: %v", *schemaPath, oneLine(err))
		}
	}
	if len(list) == 0 {
		return exitValid
	}
	if *asJSON {
		slices.SortStableFunc(list, func(a, b issues.Issue) int { // the order the envelope shows
			return cmp.Or(a.Path.Compare(b.Path), strings.Compare(string(a.Code), string(b.Code)))
		})
		out, err := json.MarshalIndent(list, "", "  ")
		if err != nil {
			return fail("%v", err)
		}
		fmt.Fprintln(stdout, string(out))
		return exitInvalid
	}
	name := *action
	if name == "" {
		name = strings.TrimSuffix(strings.TrimSuffix(baseName(*schemaPath), ".json"), ".schema")
	}
	e := selfheal.New(selfheal.WithLocale(*locale), selfheal.WithExamples(*examples))
	fmt.Fprintln(stdout, e.Format(name, list))
	return exitInvalid
}

type draftChoice struct {
	v6 *jsonschema.Draft
	v5 string
}

var drafts = map[string]draftChoice{
	"2020": {jsonschema.Draft2020, "2020"},
	"2019": {jsonschema.Draft2019, "2019"},
	"7":    {jsonschema.Draft7, "7"},
	"6":    {jsonschema.Draft6, "6"},
	"4":    {jsonschema.Draft4, "4"},
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}

// oneLine keeps a multi-line library error to the one line the exit-2
// contract promises.
func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// decodeJSON decodes one JSON document, numbers kept exactly as written,
// and says where a malformed one breaks: the file is the user's to fix.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	at := dec.InputOffset()
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF):
		return nil, errors.New("empty document: want JSON")
	case errors.As(err, &syn):
		return nil, fmt.Errorf("malformed JSON at %s: %v", position(data, syn.Offset-1), syn)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("malformed JSON at %s: unexpected end of input", position(data, int64(len(data))))
	case err != nil:
		return nil, fmt.Errorf("malformed JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		rest := data[at:]
		return nil, fmt.Errorf("malformed JSON at %s: more data after the document",
			position(data, at+int64(len(rest)-len(bytes.TrimLeft(rest, " \t\r\n")))))
	}
	return v, nil
}

// position is "line L, column C" of byte offset off of data, both from 1.
func position(data []byte, off int64) string {
	before := data[:max(0, min(off, int64(len(data))))]
	line := bytes.Count(before, []byte("\n")) + 1
	return fmt.Sprintf("line %d, column %d", line, len(before)-bytes.LastIndexByte(before, '\n'))
}
