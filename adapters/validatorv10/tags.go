package validatorv10

// class is how a tag's failure is turned into an issue.
type class uint8

const (
	clsUnknown class = iota
	clsRequired
	clsRequiredIf
	clsRequiredUnless
	clsRequiredWith
	clsRequiredWithAll
	clsRequiredWithout
	clsRequiredWithoutAll
	clsExcludedIf
	clsExcludedUnless
	clsExcludedWith
	clsExcludedWithAll
	clsExcludedWithout
	clsExcludedWithoutAll
	clsSkipUnless
	clsSize // len min max gt gte lt lte
	clsEq
	clsNe
	clsEqIgnoreCase
	clsNeIgnoreCase
	clsEqField
	clsNeField
	clsGtField
	clsGteField
	clsLtField
	clsLteField
	clsFieldContains
	clsFieldExcludes
	clsOneOf
	clsNoneOf
	clsUnique
	clsIsDefault
	clsValidateFn
	clsContent // a string-content check with its parameter
	clsFormat
	clsDatetime
	clsPostcode
	clsPostcodeField
)

// tagClass maps every built-in tag of validator v10.30 to its class.
// TestEveryTagIsMapped holds it to the library's list.
var tagClass = map[string]class{
	"required":             clsRequired,
	"required_if":          clsRequiredIf,
	"required_unless":      clsRequiredUnless,
	"required_with":        clsRequiredWith,
	"required_with_all":    clsRequiredWithAll,
	"required_without":     clsRequiredWithout,
	"required_without_all": clsRequiredWithoutAll,
	"excluded_if":          clsExcludedIf,
	"excluded_unless":      clsExcludedUnless,
	"excluded_with":        clsExcludedWith,
	"excluded_with_all":    clsExcludedWithAll,
	"excluded_without":     clsExcludedWithout,
	"excluded_without_all": clsExcludedWithoutAll,
	"skip_unless":          clsSkipUnless,

	"len": clsSize, "min": clsSize, "max": clsSize,
	"gt": clsSize, "gte": clsSize, "lt": clsSize, "lte": clsSize,
	"eq": clsEq, "ne": clsNe,
	"eq_ignore_case": clsEqIgnoreCase, "ne_ignore_case": clsNeIgnoreCase,

	"eqfield": clsEqField, "eqcsfield": clsEqField,
	"nefield": clsNeField, "necsfield": clsNeField,
	"gtfield": clsGtField, "gtcsfield": clsGtField,
	"gtefield": clsGteField, "gtecsfield": clsGteField,
	"ltfield": clsLtField, "ltcsfield": clsLtField,
	"ltefield": clsLteField, "ltecsfield": clsLteField,
	"fieldcontains": clsFieldContains, "fieldexcludes": clsFieldExcludes,

	"oneof": clsOneOf, "oneofci": clsOneOf,
	"noneof": clsNoneOf, "noneofci": clsNoneOf,
	"unique":     clsUnique,
	"isdefault":  clsIsDefault,
	"validateFn": clsValidateFn,

	"contains": clsContent, "containsany": clsContent, "containsrune": clsContent,
	"excludes": clsContent, "excludesall": clsContent, "excludesrune": clsContent,
	"startswith": clsContent, "endswith": clsContent,
	"startsnotwith": clsContent, "endsnotwith": clsContent,
	"mimetype": clsContent,

	"datetime":                      clsDatetime,
	"postcode_iso3166_alpha2":       clsPostcode,
	"postcode_iso3166_alpha2_field": clsPostcodeField,
}

// contentFormat is the format of each string-content tag; the tag's
// parameter goes in the field setParam picks for the format.
var contentFormat = map[string]string{
	"contains":      "includes",
	"containsrune":  "includes",
	"containsany":   "includes_any",
	"excludes":      "excludes",
	"excludesrune":  "excludes",
	"excludesall":   "excludes_any",
	"startswith":    "starts_with",
	"endswith":      "ends_with",
	"startsnotwith": "starts_not_with",
	"endsnotwith":   "ends_not_with",
	"mimetype":      "mimetype",
}

// formatName maps each format tag to the format the formatter words. Where
// the validator's check is the one a shared name means (email, uuid, ipv4
// …) the shared name is used; otherwise the tag's own name, which the
// catalogs word and the examples satisfy.
var formatName = map[string]string{
	"alpha":                      "alpha",
	"alphanum":                   "alphanum",
	"alphanumspace":              "alphanumspace",
	"alphanumunicode":            "alphanumunicode",
	"alphaspace":                 "alphaspace",
	"alphaunicode":               "alphaunicode",
	"ascii":                      "ascii",
	"base32":                     "base32",
	"base64":                     "base64",
	"base64rawurl":               "base64url",
	"base64url":                  "base64url_padded",
	"bcp47_language_tag":         "bcp47_language_tag",
	"bcp47_strict_language_tag":  "bcp47_strict_language_tag",
	"bic":                        "bic",
	"bic_iso_9362_2014":          "bic_iso_9362_2014",
	"boolean":                    "boolean",
	"btc_addr":                   "btc_addr",
	"btc_addr_bech32":            "btc_addr_bech32",
	"cidr":                       "cidr",
	"cidrv4":                     "cidrv4",
	"cidrv6":                     "cidrv6",
	"cmyk":                       "cmyk",
	"credit_card":                "credit_card",
	"cron":                       "cron",
	"cve":                        "cve",
	"datauri":                    "datauri",
	"dir":                        "dir",
	"dirpath":                    "dirpath",
	"dns_rfc1035_label":          "dns_rfc1035_label",
	"duration":                   "go_duration",
	"e164":                       "e164",
	"ein":                        "ein",
	"email":                      "email",
	"eth_addr":                   "eth_addr",
	"eth_addr_checksum":          "eth_addr_checksum",
	"file":                       "file",
	"filepath":                   "filepath",
	"fqdn":                       "fqdn",
	"hexadecimal":                "hexadecimal",
	"hexcolor":                   "hexcolor",
	"hostname":                   "hostname",
	"hostname_label":             "hostname_label",
	"hostname_port":              "hostname_port",
	"hostname_rfc1123":           "hostname",
	"hsl":                        "hsl",
	"hsla":                       "hsla",
	"html":                       "html",
	"html_encoded":               "html_encoded",
	"http_url":                   "http_url",
	"https_url":                  "https_url",
	"image":                      "image",
	"ip":                         "ip",
	"ip4_addr":                   "ip4_addr",
	"ip6_addr":                   "ip6_addr",
	"ip_addr":                    "ip_addr",
	"ipv4":                       "ipv4",
	"ipv6":                       "ipv6",
	"isbn":                       "isbn",
	"isbn10":                     "isbn10",
	"isbn13":                     "isbn13",
	"iso3166_1_alpha2":           "iso3166_1_alpha2",
	"iso3166_1_alpha2_eu":        "iso3166_1_alpha2_eu",
	"iso3166_1_alpha3":           "iso3166_1_alpha3",
	"iso3166_1_alpha3_eu":        "iso3166_1_alpha3_eu",
	"iso3166_1_alpha_numeric":    "iso3166_1_alpha_numeric",
	"iso3166_1_alpha_numeric_eu": "iso3166_1_alpha_numeric_eu",
	"iso3166_2":                  "iso3166_2",
	"iso4217":                    "iso4217",
	"iso4217_numeric":            "iso4217_numeric",
	"issn":                       "issn",
	"json":                       "json",
	"jwt":                        "jwt",
	"latitude":                   "latitude",
	"longitude":                  "longitude",
	"lowercase":                  "lowercase",
	"luhn_checksum":              "luhn_checksum",
	"mac":                        "mac",
	"md4":                        "md4",
	"md5":                        "md5",
	"mongodb":                    "mongodb",
	"mongodb_connection_string":  "mongodb_connection_string",
	"multibyte":                  "multibyte",
	"number":                     "number",
	"numeric":                    "numeric",
	"origin":                     "origin",
	"port":                       "port",
	"printascii":                 "printascii",
	"rgb":                        "rgb",
	"rgba":                       "rgba",
	"ripemd128":                  "ripemd128",
	"ripemd160":                  "ripemd160",
	"semver":                     "semver",
	"sha256":                     "sha256",
	"sha384":                     "sha384",
	"sha512":                     "sha512",
	"spicedb":                    "spicedb",
	"ssn":                        "ssn",
	"tcp4_addr":                  "tcp4_addr",
	"tcp6_addr":                  "tcp6_addr",
	"tcp_addr":                   "tcp_addr",
	"tiger128":                   "tiger128",
	"tiger160":                   "tiger160",
	"tiger192":                   "tiger192",
	"timezone":                   "timezone",
	"udp4_addr":                  "udp4_addr",
	"udp6_addr":                  "udp6_addr",
	"udp_addr":                   "udp_addr",
	"uds_exists":                 "uds_exists",
	"ulid":                       "ulid",
	"unix_addr":                  "unix_addr",
	"uppercase":                  "uppercase",
	"uri":                        "uri",
	"url":                        "url",
	"url_encoded":                "url_encoded",
	"urn_rfc2141":                "urn_rfc2141",
	"urn_rfc8141":                "urn_rfc8141",
	"uuid":                       "uuid",
	"uuid3":                      "uuid3",
	"uuid3_rfc4122":              "uuid3_rfc4122",
	"uuid4":                      "uuid4",
	"uuid4_rfc4122":              "uuid4_rfc4122",
	"uuid5":                      "uuid5",
	"uuid5_rfc4122":              "uuid5_rfc4122",
	"uuid7":                      "uuid7",
	"uuid_rfc4122":               "uuid_rfc4122",
}

// aliasFormat words the built-in aliases as one format each, rather than
// as a choice among their parts.
var aliasFormat = map[string]string{
	"iscolor":         "color",
	"country_code":    "country_code",
	"eu_country_code": "eu_country_code",
}

// source holds "validator:<tag>" for every built-in tag, so that naming
// the source costs no allocation.
var source = func() map[string]string {
	m := make(map[string]string, len(tagClass)+len(formatName)+len(aliasFormat))
	for t := range tagClass {
		m[t] = "validator:" + t
	}
	for t := range formatName {
		m[t] = "validator:" + t
	}
	for t := range aliasFormat {
		m[t] = "validator:" + t
	}
	return m
}()

func sourceOf(tag string) string {
	if s, ok := source[tag]; ok {
		return s
	}
	return "validator:" + tag
}

// classOf returns the class of a built-in tag, clsFormat for format tags.
func classOf(tag string) class {
	if c, ok := tagClass[tag]; ok {
		return c
	}
	if _, ok := formatName[tag]; ok {
		return clsFormat
	}
	return clsUnknown
}
