// Package catalog is the wording of one language as the formatter reads
// it: a message per key (internal/templates), with plural forms chosen by
// CLDR's rules for that language. It ships the catalogs (catalogs/*.json,
// embedded) and picks one for a client's language (Match); package locales
// is its public face, which names no internal type.
package catalog
