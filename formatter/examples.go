package formatter

import (
	"strings"

	"github.com/selfheal/selfheal/internal/templates"
)

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

	// Formats of go-playground/validator tags. Each is checked in
	// adapters/validatorv10 against the tag that rejects a value of that
	// format. Formats whose validity depends on the server's files (dir,
	// file, image, uds_exists) have none: no example could be valid there.
	"alpha":                      "Hello",
	"alphanum":                   "abc123",
	"alphanumspace":              "abc 123",
	"alphanumunicode":            "café123",
	"alphaspace":                 "Hello World",
	"alphaunicode":               "café",
	"ascii":                      "hello",
	"printascii":                 "hello!",
	"multibyte":                  "日本",
	"base32":                     "NBSWY3DP",
	"base64url_padded":           "aGVsbG8=",
	"bcp47_language_tag":         "en-US",
	"bcp47_strict_language_tag":  "en-US",
	"bic":                        "DEUTDEFF",
	"bic_iso_9362_2014":          "DEUTDEFF",
	"boolean":                    "true",
	"btc_addr":                   "1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2",
	"btc_addr_bech32":            "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq",
	"cidr":                       "192.0.2.0/24",
	"cmyk":                       "cmyk(0%,50%,100%,0%)",
	"credit_card":                "4242424242424242",
	"cron":                       "0 9 * * 1",
	"cve":                        "CVE-2021-44228",
	"datauri":                    "data:text/plain;base64,aGVsbG8=",
	"dirpath":                    "/var/data/",
	"dns_rfc1035_label":          "my-service",
	"go_duration":                "1h30m",
	"ein":                        "12-3456789",
	"eth_addr":                   "0x52908400098527886E0F7030069857D2E4169EE7",
	"eth_addr_checksum":          "0x52908400098527886E0F7030069857D2E4169EE7",
	"filepath":                   "/var/data/report.csv",
	"fqdn":                       "api.example.com",
	"hexadecimal":                "1f4a",
	"hexcolor":                   "#1e90ff",
	"hostname_label":             "api",
	"hostname_port":              "example.com:443",
	"hsl":                        "hsl(210,100%,56%)",
	"hsla":                       "hsla(210,100%,56%,0.5)",
	"html":                       "<p>hello</p>",
	"html_encoded":               "&amp;",
	"http_url":                   "https://example.com/path",
	"https_url":                  "https://example.com/path",
	"ip":                         "192.0.2.1",
	"ip4_addr":                   "192.0.2.1",
	"ip6_addr":                   "2001:db8::1",
	"ip_addr":                    "192.0.2.1",
	"isbn":                       "9783161484100",
	"isbn10":                     "0306406152",
	"isbn13":                     "9783161484100",
	"iso3166_1_alpha2":           "US",
	"iso3166_1_alpha2_eu":        "DE",
	"iso3166_1_alpha3":           "USA",
	"iso3166_1_alpha3_eu":        "DEU",
	"iso3166_1_alpha_numeric":    "840",
	"iso3166_1_alpha_numeric_eu": "276",
	"iso3166_2":                  "US-CA",
	"iso4217":                    "USD",
	"iso4217_numeric":            "840",
	"issn":                       "0378-5955",
	"latitude":                   "48.8566",
	"longitude":                  "2.3522",
	"luhn_checksum":              "79927398713",
	"mac":                        "00:1a:2b:3c:4d:5e",
	"md4":                        "31d6cfe0d16ae931b73c59d7e0c089c0",
	"md5":                        "d41d8cd98f00b204e9800998ecf8427e",
	"mongodb":                    "507f1f77bcf86cd799439011",
	"mongodb_connection_string":  "mongodb://localhost:27017/app",
	"number":                     "42",
	"numeric":                    "-12.5",
	"origin":                     "https://example.com",
	"port":                       "8080",
	"rgb":                        "rgb(30,144,255)",
	"rgba":                       "rgba(30,144,255,0.5)",
	"ripemd128":                  "cdf26213a150dc3ecb610f18f6b38b46",
	"ripemd160":                  "9c1185a5c5e9fc54612808977ee8f548b2258d31",
	"sha256":                     "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
	"sha384":                     "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
	"sha512":                     "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
	"spicedb":                    "document",
	"ssn":                        "123-45-6789",
	"tcp4_addr":                  "192.0.2.1:80",
	"tcp6_addr":                  "[2001:db8::1]:80",
	"tcp_addr":                   "192.0.2.1:80",
	"tiger128":                   "3293ac630c13f0245f92bbb1766e1616",
	"tiger160":                   "3293ac630c13f0245f92bbb1766e16167a4e5849",
	"tiger192":                   "3293ac630c13f0245f92bbb1766e16167a4e58492dde73f3",
	"timezone":                   "Europe/Paris",
	"udp4_addr":                  "192.0.2.1:53",
	"udp6_addr":                  "[2001:db8::1]:53",
	"udp_addr":                   "192.0.2.1:53",
	"unix_addr":                  "/var/run/app.sock",
	"url_encoded":                "hello%20world",
	"urn_rfc2141":                "urn:isbn:0451450523",
	"urn_rfc8141":                "urn:isbn:0451450523",
	"uuid3":                      "a3bb189e-8bf9-3888-9912-ace4e6543002",
	"uuid3_rfc4122":              "a3bb189e-8bf9-3888-9912-ace4e6543002",
	"uuid4":                      "9b2f8f5e-3c1a-4d2b-8f6e-1a2b3c4d5e6f",
	"uuid4_rfc4122":              "9b2f8f5e-3c1a-4d2b-8f6e-1a2b3c4d5e6f",
	"uuid5":                      "74738ff5-5367-5958-9aee-98fffdcd1876",
	"uuid5_rfc4122":              "74738ff5-5367-5958-9aee-98fffdcd1876",
	"uuid7":                      "01890a5d-ac96-774b-bcce-b302099a8057",
	"uuid_rfc4122":               "123e4567-e89b-12d3-a456-426614174000",
	"color":                      "#1e90ff",
	"country_code":               "US",
	"eu_country_code":            "DE",
}

// FormatExample returns the valid example shown for a format, if there is one.
func FormatExample(format string) (string, bool) {
	e, ok := examples[format]
	return e, ok
}

// layoutShown are the formats whose expectation already shows their layout
// ("a date as YYYY-MM-DD"): a line does not add their example, which would
// say the same thing again (FormatExample still gives it).
var layoutShown = map[string]bool{"date": true, "date-time": true, "datetime": true, "time": true}

// shows reports whether the expectation of format already writes its
// example ("a hex color such as #1e90ff"): the line then adds none.
func (f *Formatter) shows(format, example string) bool {
	m := f.formatMsg(format)
	return m != nil && strings.Contains(m.Template(templates.Other).Source(), example)
}
