// Package templates compiles the per-code line templates of the validation
// messages into a form that renders by appending into a []byte, with no
// allocation.
//
// A template is text with named placeholders ({sent}, {minimum}, {format} …)
// drawn from a closed set, so a template with a typo is rejected when it is
// compiled, not shown to a model. A Message groups a template per CLDR plural
// form ("1 character" / "3 characters"); a Set maps keys such as
// "too_small.string.exact" to messages. Catalogs of real wording live in the
// locales package; what each placeholder renders is decided by the formatter.
// Templates never see XML: escaping happens later, in the envelope package.
package templates
