package validatorv10

import (
	"iter"
	"maps"
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// class is how a tag's failure is turned into an issue.
type class uint8

const (
	clsUnknown  class = iota
	clsRequired       // required, and the conditional required_* (see conditions)
	clsExcluded       // the conditional excluded_* (see conditions)
	clsSize           // len min max gt gte lt lte
	clsEq
	clsNe
	clsField // compares with another field: eqfield, gtcsfield, fieldcontains …
	clsOneOf
	clsNoneOf
	clsUnique
	clsIsDefault
	clsValidateFn
	clsContent // a format check with its parameter (see contentFormat)
	clsFormat
	clsPostcodeField
)

// tagClass maps every built-in tag of validator v10.30 to its class.
// TestEveryTagIsMapped holds it to the library's list.
var tagClass = map[string]class{
	"required": clsRequired, "skip_unless": clsRequired,
	"required_if": clsRequired, "required_unless": clsRequired,
	"required_with": clsRequired, "required_with_all": clsRequired,
	"required_without": clsRequired, "required_without_all": clsRequired,
	"excluded_if": clsExcluded, "excluded_unless": clsExcluded,
	"excluded_with": clsExcluded, "excluded_with_all": clsExcluded,
	"excluded_without": clsExcluded, "excluded_without_all": clsExcluded,

	"len": clsSize, "min": clsSize, "max": clsSize,
	"gt": clsSize, "gte": clsSize, "lt": clsSize, "lte": clsSize,
	"eq": clsEq, "ne": clsNe, "eq_ignore_case": clsEq, "ne_ignore_case": clsNe,

	"eqfield": clsField, "eqcsfield": clsField, "nefield": clsField, "necsfield": clsField,
	"gtfield": clsField, "gtcsfield": clsField, "gtefield": clsField, "gtecsfield": clsField,
	"ltfield": clsField, "ltcsfield": clsField, "ltefield": clsField, "ltecsfield": clsField,
	"fieldcontains": clsField, "fieldexcludes": clsField,

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

	"datetime": clsContent, "postcode_iso3166_alpha2": clsContent,
	"postcode_iso3166_alpha2_field": clsPostcodeField,
}

// conditions says when each conditional tag applies: the operator on the
// other fields, and whether its parameter pairs fields with values
// (required_if=mode on) or only names fields (required_with=a b).
var conditions = map[string]struct {
	op     string
	values bool
}{
	"required_if":          {issues.CondEquals, true},
	"skip_unless":          {issues.CondEquals, true},
	"required_unless":      {issues.CondNotEquals, true},
	"required_with":        {issues.CondPresent, false},
	"required_with_all":    {issues.CondAllPresent, false},
	"required_without":     {issues.CondAbsent, false},
	"required_without_all": {issues.CondAllAbsent, false},
	"excluded_if":          {issues.CondEquals, true},
	"excluded_unless":      {issues.CondNotEquals, true},
	"excluded_with":        {issues.CondPresent, false},
	"excluded_with_all":    {issues.CondAllPresent, false},
	"excluded_without":     {issues.CondAbsent, false},
	"excluded_without_all": {issues.CondAllAbsent, false},
}

// contentFormat is the format of each tag of clsContent; the tag's
// parameter goes in the field setParam picks for the format.
var contentFormat = map[string]string{
	"datetime":                formatTimeLayout,
	"postcode_iso3166_alpha2": formatPostcode,
	"contains":                "includes",
	"containsrune":            "includes",
	"containsany":             "includes_any",
	"excludes":                "excludes",
	"excludesrune":            "excludes",
	"excludesall":             "excludes_any",
	"startswith":              "starts_with",
	"endswith":                "ends_with",
	"startsnotwith":           "starts_not_with",
	"endsnotwith":             "ends_not_with",
	"mimetype":                "mimetype",
}

// formatName maps each format tag to the format the formatter words: the
// tag's own name, which the catalogs word and the examples satisfy, but for
// the tags whose check a shared name means.
var formatName = func() map[string]string {
	m := map[string]string{
		"base64rawurl":     "base64url",
		"base64url":        "base64url_padded",
		"duration":         "go_duration",
		"hostname_rfc1123": "hostname",
	}
	for _, tag := range strings.Fields(`
		alpha alphanum alphanumspace alphanumunicode alphaspace alphaunicode ascii
		base32 base64 bcp47_language_tag bcp47_strict_language_tag bic bic_iso_9362_2014
		boolean btc_addr btc_addr_bech32 cidr cidrv4 cidrv6 cmyk credit_card cron cve
		datauri dir dirpath dns_rfc1035_label e164 ein email eth_addr eth_addr_checksum
		file filepath fqdn hexadecimal hexcolor hostname hostname_label hostname_port
		hsl hsla html html_encoded http_url https_url image ip ip4_addr ip6_addr ip_addr
		ipv4 ipv6 isbn isbn10 isbn13 iso3166_1_alpha2 iso3166_1_alpha2_eu
		iso3166_1_alpha3 iso3166_1_alpha3_eu iso3166_1_alpha_numeric
		iso3166_1_alpha_numeric_eu iso3166_2 iso4217 iso4217_numeric issn json jwt
		latitude longitude lowercase luhn_checksum mac md4 md5 mongodb
		mongodb_connection_string multibyte number numeric origin port printascii rgb
		rgba ripemd128 ripemd160 semver sha256 sha384 sha512 spicedb ssn tcp4_addr
		tcp6_addr tcp_addr tiger128 tiger160 tiger192 timezone udp4_addr udp6_addr
		udp_addr uds_exists ulid unix_addr uppercase uri url url_encoded urn_rfc2141
		urn_rfc8141 uuid uuid3 uuid3_rfc4122 uuid4 uuid4_rfc4122 uuid5 uuid5_rfc4122
		uuid7 uuid_rfc4122
	`) {
		m[tag] = tag
	}
	return m
}()

// aliasFormat words the built-in aliases as one format each, rather than
// as a choice among their parts.
var aliasFormat = map[string]string{
	"iscolor":         "color",
	"country_code":    "country_code",
	"eu_country_code": "eu_country_code",
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

// source holds "validator:<tag>" for the built-in tags. Building the string
// for each issue was a third of the allocations of a conversion and an
// eighth of its time (BenchmarkAppendIssues), most of it in the collector.
var source = func() map[string]string {
	m := make(map[string]string)
	for _, tags := range []iter.Seq[string]{maps.Keys(tagClass), maps.Keys(formatName), maps.Keys(aliasFormat)} {
		for tag := range tags {
			m[tag] = "validator:" + tag
		}
	}
	return m
}()

func sourceOf(tag string) string {
	if s, ok := source[tag]; ok {
		return s
	}
	return "validator:" + tag
}
