// Package catalog is the wording of one language as the formatter reads
// it: a message per key (internal/templates), with plural forms chosen by
// CLDR's rules for that language.
//
// Package locales ships the catalogs and picks one for a client; its
// Catalog is defined as this package's Catalog, so that the module's own
// packages convert a *locales.Catalog to a *catalog.Catalog and reach the
// templates, which are not part of the public API:
//
//	c := (*catalog.Catalog)(locales.Match("ja"))
//	m := c.Message("too_small", "string", "")
package catalog
