// Package locales holds the wording of validation messages, one catalog per
// language, and picks the catalog that fits a client's language.
//
// Catalogs are JSON files under internal/catalog/catalogs/, named by BCP 47
// tag and embedded at build time; English is the reference, has every key
// and is the fallback for anything that matches nothing. A message may carry CLDR plural forms
// ("1 character" / "3 characters"), chosen with golang.org/x/text/feature/plural;
// language matching uses golang.org/x/text/language, so "ja-JP", "ja" and an
// Accept-Language value such as "fr-CH, ja;q=0.9" all pick Japanese. Adding a
// language is adding a file: the tests check that it has every English key
// with the same placeholders.
package locales
