package validatorv10

import (
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// class is how a tag's failure is turned into an issue.
type class uint8

const (
	clsUnknown  class = iota
	clsRequired       // required, and the conditional required_* (with an op)
	clsExcluded       // the conditional excluded_*
	clsSize           // len min max gt gte lt lte
	clsEq
	clsNe
	clsField // compares with another field: eqfield, gtcsfield, fieldcontains …
	clsOneOf
	clsNoneOf
	clsUnique
	clsIsDefault
	clsValidateFn
	clsContent // a format check with its parameter, in the field setParam picks
	clsFormat
	clsPostcodeField
	clsAlias // a built-in alias, worded as one format rather than a choice among its parts
)

// tagInfo is how a built-in tag's failure is worded.
type tagInfo struct {
	cls    class
	format string // the format the formatter words (clsContent, clsFormat, clsAlias)
	op     string // a conditional tag's operator on the other fields
	pairs  bool   // its parameter pairs fields with values (required_if=mode on), not only fields
	source string // "validator:<tag>": built per issue, a third of a conversion's allocations
}

// tags maps every built-in tag of validator v10.30, and the built-in
// aliases, to its wording, in one table so that an issue costs one lookup
// (BenchmarkValidator (c): the five tables it replaces cost 1,667 more of
// the adapter's 9,264 instructions an operation). TestEveryTagIsMapped
// holds it to the library's list.
var tags = func() map[string]tagInfo {
	m := map[string]tagInfo{
		"required_if":          {cls: clsRequired, op: issues.CondEquals, pairs: true},
		"skip_unless":          {cls: clsRequired, op: issues.CondEquals, pairs: true},
		"required_unless":      {cls: clsRequired, op: issues.CondNotEquals, pairs: true},
		"required_with":        {cls: clsRequired, op: issues.CondPresent},
		"required_with_all":    {cls: clsRequired, op: issues.CondAllPresent},
		"required_without":     {cls: clsRequired, op: issues.CondAbsent},
		"required_without_all": {cls: clsRequired, op: issues.CondAllAbsent},
		"excluded_if":          {cls: clsExcluded, op: issues.CondEquals, pairs: true},
		"excluded_unless":      {cls: clsExcluded, op: issues.CondNotEquals, pairs: true},
		"excluded_with":        {cls: clsExcluded, op: issues.CondPresent},
		"excluded_with_all":    {cls: clsExcluded, op: issues.CondAllPresent},
		"excluded_without":     {cls: clsExcluded, op: issues.CondAbsent},
		"excluded_without_all": {cls: clsExcluded, op: issues.CondAllAbsent},

		"datetime":                {cls: clsContent, format: formatTimeLayout},
		"postcode_iso3166_alpha2": {cls: clsContent, format: formatPostcode},
		"contains":                {cls: clsContent, format: "includes"},
		"containsrune":            {cls: clsContent, format: "includes"},
		"containsany":             {cls: clsContent, format: "includes_any"},
		"excludes":                {cls: clsContent, format: "excludes"},
		"excludesrune":            {cls: clsContent, format: "excludes"},
		"excludesall":             {cls: clsContent, format: "excludes_any"},
		"startswith":              {cls: clsContent, format: "starts_with"},
		"endswith":                {cls: clsContent, format: "ends_with"},
		"startsnotwith":           {cls: clsContent, format: "starts_not_with"},
		"endsnotwith":             {cls: clsContent, format: "ends_not_with"},
		"mimetype":                {cls: clsContent, format: "mimetype"},

		// Format tags are worded by their own name, which the catalogs word
		// and the examples satisfy, but these, whose check a shared name means.
		"base64rawurl":     {cls: clsFormat, format: "base64url"},
		"base64url":        {cls: clsFormat, format: "base64url_padded"},
		"duration":         {cls: clsFormat, format: "go_duration"},
		"hostname_rfc1123": {cls: clsFormat, format: "hostname"},

		"iscolor":         {cls: clsAlias, format: "color"},
		"country_code":    {cls: clsAlias, format: "country_code"},
		"eu_country_code": {cls: clsAlias, format: "eu_country_code"},
	}
	for cls, names := range map[class]string{
		clsRequired: "required", clsSize: "len min max gt gte lt lte",
		clsEq: "eq eq_ignore_case", clsNe: "ne ne_ignore_case",
		clsField: `eqfield eqcsfield nefield necsfield gtfield gtcsfield gtefield gtecsfield
			ltfield ltcsfield ltefield ltecsfield fieldcontains fieldexcludes`,
		clsOneOf: "oneof oneofci", clsNoneOf: "noneof noneofci", clsUnique: "unique",
		clsIsDefault: "isdefault", clsValidateFn: "validateFn",
		clsPostcodeField: "postcode_iso3166_alpha2_field",
	} {
		for _, tag := range strings.Fields(names) {
			m[tag] = tagInfo{cls: cls}
		}
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
			uuid7 uuid_rfc4122`) {
		m[tag] = tagInfo{cls: clsFormat, format: tag}
	}
	for tag, info := range m {
		info.source = "validator:" + tag
		m[tag] = info
	}
	return m
}()
