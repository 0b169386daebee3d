// Package issues is the normalized model every adapter produces and the
// formatter words: one Issue per problem, typed by Zod v4's issue codes, at a
// Path that a model can read (items[0].name, labels["a.b"], (root)).
//
// The model carries facts, never text for a model: the value sent (or that it
// was absent), and the parameters of the failed check with numbers exactly as
// the source wrote them. Its JSON form uses Zod v4's field names, so the same
// issues can travel as structured content to TypeScript tooling and back.
//
// The package imports nothing of the module's: it sits at the bottom of the
// data flow (adapter → issues → formatter → envelope).
package issues
