package formatter

// examples holds one valid value per format, shown after the expectation
// when examples are on. Every entry is checked in the tests against a real
// validator of that format: an example that the validator rejects would
// teach the model the wrong thing.
var examples = map[string]string{
	"email":                 "user@example.com",
	"idn-email":             "user@example.com",
	"url":                   "https://example.com/path",
	"uri":                   "https://example.com/path",
	"uri-reference":         "/path/to/resource",
	"iri":                   "https://example.com/path",
	"iri-reference":         "/path/to/resource",
	"uri-template":          "https://example.com/users/{id}",
	"uuid":                  "123e4567-e89b-12d3-a456-426614174000",
	"guid":                  "123e4567-e89b-12d3-a456-426614174000",
	"date-time":             "2026-01-31T09:30:00Z",
	"datetime":              "2026-01-31T09:30:00Z",
	"date":                  "2026-01-31",
	"time":                  "09:30:00Z",
	"duration":              "P1DT2H",
	"ipv4":                  "192.0.2.1",
	"ipv6":                  "2001:db8::1",
	"cidrv4":                "192.0.2.0/24",
	"cidrv6":                "2001:db8::/32",
	"hostname":              "api.example.com",
	"idn-hostname":          "api.example.com",
	"json-pointer":          "/items/0",
	"relative-json-pointer": "1/name",
	"regex":                 "^[a-z]+$",
	"base64":                "aGVsbG8=",
	"base64url":             "aGVsbG8",
	"e164":                  "+14155550123",
	"jwt":                   "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl",
	"emoji":                 "😀",
	"nanoid":                "V1StGXR8_Z5jdHi6B-myT",
	"cuid":                  "cjld2cjxh0000qzrmn831i7rn",
	"cuid2":                 "tz4a98xxat96iws9zmbrgj3a",
	"ulid":                  "01ARZ3NDEKTSV4RRFFQ69G5FAV",
	"xid":                   "9m4e2mr0ui3e8a215n4g",
	"ksuid":                 "0ujtsYcgvSTl8PAuAdqWYSMnLOv",
	"json_string":           `{"a":1}`,
	"json":                  `{"a":1}`,
	"lowercase":             "hello",
	"uppercase":             "HELLO",
	"semver":                "1.2.3",
	"period":                "2026-01-01T00:00:00Z/P1D",
}

// FormatExample returns the valid example shown for a format, if there is one.
func FormatExample(format string) (string, bool) {
	e, ok := examples[format]
	return e, ok
}
